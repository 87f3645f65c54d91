import { describe, expect, it } from 'vitest';
import { KubeplaneError } from '../errors.js';
import { backoffSeconds, seededRandom } from './backoff.js';
import { RateBudgetWait, isNetworkFailure, kindFromHttpStatus, retryAfterFromHeaders, retryLater } from './classify.js';

const NOW = Date.UTC(2026, 0, 1);

describe('retryAfterFromHeaders', () => {
  it('reads Retry-After in seconds and as an HTTP date', () => {
    expect(retryAfterFromHeaders({ 'Retry-After': '7' }, NOW)).toBe(7);
    expect(retryAfterFromHeaders(new Headers({ 'retry-after': new Date(NOW + 30_000).toUTCString() }), NOW)).toBe(30);
  });
  it('reads a Hetzner RateLimit-Reset timestamp when nothing is left', () => {
    expect(retryAfterFromHeaders({ 'ratelimit-remaining': '0', 'ratelimit-reset': String(NOW / 1000 + 12) }, NOW)).toBe(12);
  });
  it('reads a delta RateLimit-Reset (IETF draft)', () => {
    expect(retryAfterFromHeaders({ 'RateLimit-Remaining': '0', 'RateLimit-Reset': '4' }, NOW)).toBe(4);
  });
  it('says nothing while requests remain or without headers', () => {
    expect(retryAfterFromHeaders({ 'ratelimit-remaining': '10', 'ratelimit-reset': String(NOW / 1000 + 12) }, NOW)).toBeUndefined();
    expect(retryAfterFromHeaders({}, NOW)).toBeUndefined();
  });
});

describe('kindFromHttpStatus', () => {
  it('maps the statuses every API shares', () => {
    expect([429, 401, 403, 404, 409, 500, 503, 400].map(kindFromHttpStatus)).toEqual([
      'throttled',
      'auth',
      'auth',
      'not-found',
      'conflict',
      'retryable',
      'retryable',
      'invalid',
    ]);
  });
});

describe('backoffSeconds', () => {
  it('grows exponentially with full jitter and respects the cap', () => {
    const random = seededRandom(3);
    const samples = Array.from({ length: 8 }, (_, attempt) => backoffSeconds(attempt, { baseSeconds: 1, maxSeconds: 30, random }));
    samples.forEach((s, attempt) => {
      expect(s).toBeGreaterThanOrEqual(0.5);
      expect(s).toBeLessThanOrEqual(Math.min(30, 2 ** attempt));
    });
    const spread = new Set(Array.from({ length: 20 }, () => backoffSeconds(4, { random }).toFixed(3)));
    expect(spread.size).toBeGreaterThan(10);
  });
});

describe('retryLater', () => {
  it('honours the delay a throttled error carries', () => {
    const p = retryLater(new KubeplaneError('throttled', 'slow down', { retryAfterSeconds: 9 }), 0);
    expect(p).toMatchObject({ status: 'pending', reason: 'throttled', retryAfterSeconds: 9 });
  });
  it('backs off when a retryable error carries no delay', () => {
    const p = retryLater(new KubeplaneError('retryable', '503'), 2, { random: () => 0.5 });
    expect(p.reason).toBe('retryable');
    expect(p.retryAfterSeconds).toBeGreaterThan(0);
  });
  it('turns a spent budget into pending(rate-budget)', () => {
    expect(retryLater(new RateBudgetWait('hetzner', 3), 0)).toMatchObject({ reason: 'rate-budget', retryAfterSeconds: 3 });
  });
  it('rethrows terminal errors', () => {
    const quota = new KubeplaneError('quota', 'limit');
    expect(() => retryLater(quota, 0)).toThrow(quota);
  });
});

describe('isNetworkFailure', () => {
  it('recognizes connection resets and fetch failures, not HTTP errors', () => {
    expect(isNetworkFailure(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }))).toBe(true);
    expect(isNetworkFailure(new TypeError('Network error'))).toBe(true);
    expect(isNetworkFailure(new Error('400 Bad Request'))).toBe(false);
  });
});
