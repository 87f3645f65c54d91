import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { InProcessRateBudget, RateBudgets, TokenBucket } from '@kubeplane/sdk/provider';
import { KubeplaneError, Redacted, type Clock } from '@kubeplane/sdk';
import { CRUSOE_API, CRUSOE_SANDBOX_CREDENTIALS, CrusoeSandbox } from '@kubeplane/sandbox';
import { CrusoeClient } from './client.js';
import { crusoeErrorKind } from './errors.js';
import { authorizationHeader, crusoeTimestamp } from './signing.js';

let sandbox: CrusoeSandbox;
afterEach(() => sandbox.stop());

const client = (s: CrusoeSandbox, overrides: { secretKey?: string; clock?: Clock; retries?: number } = {}) =>
  new CrusoeClient({
    accessKeyId: Redacted.of(CRUSOE_SANDBOX_CREDENTIALS.accessKeyId),
    secretKey: Redacted.of(overrides.secretKey ?? CRUSOE_SANDBOX_CREDENTIALS.secretKey),
    projectId: CRUSOE_SANDBOX_CREDENTIALS.projectId,
    clock: overrides.clock ?? s.clock,
    budget: new RateBudgets(s.clock).get('crusoe:test', { capacity: 1000, refillPerSecond: 100 }),
    ...(overrides.retries !== undefined ? { retries: overrides.retries } : {}),
  });

const caught = (p: Promise<unknown>): Promise<KubeplaneError> =>
  p.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => {
      expect(e).toBeInstanceOf(KubeplaneError);
      return e as KubeplaneError;
    },
  );

/** Sends a hand-signed request, as another client would. */
async function rawSigned(path: string, rawQuery: string, signedQuery: string, timestampMs: number): Promise<Response> {
  const timestamp = crusoeTimestamp(timestampMs);
  const authorization = authorizationHeader({
    method: 'GET',
    path: `/v1/${path}`,
    rawQuery: signedQuery,
    timestamp,
    accessKeyId: CRUSOE_SANDBOX_CREDENTIALS.accessKeyId,
    secretKey: CRUSOE_SANDBOX_CREDENTIALS.secretKey,
  });
  return fetch(`${CRUSOE_API}/${path}${rawQuery ? `?${rawQuery}` : ''}`, { headers: { authorization, 'x-crusoe-timestamp': timestamp } });
}

describe('CrusoeClient against the sandbox', () => {
  it('signs requests the sandbox accepts, query included', async () => {
    sandbox = new CrusoeSandbox();
    const vms = await client(sandbox).listInstances({ names: ['a b*~'] });
    expect(vms).toEqual([]);
    expect(sandbox.emulator.rejected).toEqual([]);
    expect(sandbox.emulator.log.at(-1)?.query).toBe('limit=100&names=a+b%2A~&sort=created_at');
  });

  it('gets 401 bad_credentials, as kind auth, for a wrong secret, and the secret is nowhere in the error', async () => {
    sandbox = new CrusoeSandbox();
    const wrong = Buffer.from('a-wrong-secret-for-crusoe-000000').toString('base64url');
    const error = await caught(client(sandbox, { secretKey: wrong }).request('GET', 'locations', z.unknown()));
    expect(error.kind).toBe('auth');
    expect(error.details.code).toBe('bad_credentials');
    expect(error.details.status).toBe(401);
    for (const text of [
      error.message,
      JSON.stringify(error),
      inspect(error, { depth: 10, showHidden: true }),
      inspect(client(sandbox, { secretKey: wrong }), { depth: 10, showHidden: true }),
    ]) {
      expect(text).not.toContain(wrong);
      expect(text).not.toContain(CRUSOE_SANDBOX_CREDENTIALS.secretKey);
    }
  });

  it('has a request with a stale timestamp rejected', async () => {
    sandbox = new CrusoeSandbox();
    const stale = await rawSigned('locations', '', '', sandbox.clock.now() - 10 * 60_000);
    expect(stale.status).toBe(401);
    expect(await stale.json()).toMatchObject({ code: 'bad_credentials' });
    const fresh = await rawSigned('locations', '', '', sandbox.clock.now());
    expect(fresh.status).toBe(200);
  });

  it('has a re-ordered query rejected even when the signature covers the canonical form', async () => {
    sandbox = new CrusoeSandbox();
    const path = `projects/${CRUSOE_SANDBOX_CREDENTIALS.projectId}/compute/vms/instances`;
    const reordered = await rawSigned(path, 'sort=created_at&limit=10', 'sort=created_at&limit=10', sandbox.clock.now());
    expect(reordered.status).toBe(401);
    expect(sandbox.emulator.rejected.at(-1)?.reason).toMatch(/sorted/);
    const sorted = await rawSigned(path, 'limit=10&sort=created_at', 'limit=10&sort=created_at', sandbox.clock.now());
    expect(sorted.status).toBe(200);
  });

  it('signs every retry afresh: each attempt carries its own timestamp', async () => {
    sandbox = new CrusoeSandbox();
    let t = sandbox.clock.now();
    // A clock that moves one second per reading, so a reused signature would show a repeated timestamp.
    const ticking: Clock = { now: () => (t += 1000) };
    sandbox.injectWireFault('GET /locations', 'server-error', 2);
    const c = client(sandbox, { clock: ticking, retries: 2 });
    const result = await c.request('GET', 'locations', z.object({ items: z.array(z.string()) }));
    expect(result.items).toContain('us-east1-a');
    expect(c.sent).toBe(3);
    const stamps = sandbox.emulator.signed.filter((x) => x.operation === 'GET /locations').map((x) => x.timestamp);
    expect(stamps).toHaveLength(3);
    expect(new Set(stamps).size).toBe(3);
    expect(sandbox.emulator.rejected).toEqual([]);
  });

  it('follows next_page_token through every page of the VM list', async () => {
    sandbox = new CrusoeSandbox();
    const c = client(sandbox);
    for (let i = 0; i < 7; i++) {
      await c.request('POST', c.project('compute/vms/instances'), z.unknown(), {
        body: { name: `p-${i}`, type: 'c1a.2x', location: 'us-east1-a', image: 'ubuntu22.04:latest', ssh_public_key: 'ssh-ed25519 AAAA k' },
      });
    }
    const all = await c.listInstances({}, 3);
    expect(all.map((v) => v.name)).toEqual(['p-0', 'p-1', 'p-2', 'p-3', 'p-4', 'p-5', 'p-6']);
    expect(sandbox.emulator.log.filter((l) => l.method === 'GET' && l.path.endsWith('/compute/vms/instances'))).toHaveLength(3);
  });

  it('maps quota, capacity and throttling answers to their kinds, keeping code and error_id', async () => {
    sandbox = new CrusoeSandbox({ emulator: { stock: { 'us-east1-a/h100-80gb-sxm-ib.8x': 0 } } });
    const c = client(sandbox);
    sandbox.injectWireFault('GET /locations', 'quota', 1);
    const quota = await caught(c.request('GET', 'locations', z.unknown()));
    expect(quota.kind).toBe('quota');
    expect(quota.details.requestId).toMatch(/^[0-9a-f]{16}$/);
    sandbox.injectWireFault('GET /locations', 'throttled', 1);
    const throttled = await caught(c.request('GET', 'locations', z.unknown()));
    expect(throttled.kind).toBe('throttled');
    expect(throttled.details.retryAfterSeconds).toBe(2);
  });

  it('classifies error bodies by slug, wrapped gRPC code, then status', () => {
    expect(crusoeErrorKind('bad_credential', '', 401)).toBe('auth');
    expect(crusoeErrorKind('400', 'rpc error: code = AlreadyExists desc = name taken', 400)).toBe('conflict');
    expect(crusoeErrorKind('400', 'Out of Stock for h100', 400)).toBe('capacity');
    expect(crusoeErrorKind('internal_error', 'boom', 500)).toBe('retryable');
    expect(crusoeErrorKind('weird', 'x', 400)).toBeUndefined();
  });

  it('never retries a POST at the got level', async () => {
    sandbox = new CrusoeSandbox();
    sandbox.injectWireFault('POST /compute/vms/instances', 'server-error', 1);
    const c = client(sandbox, { retries: 2 });
    const error = await caught(c.request('POST', c.project('compute/vms/instances'), z.unknown(), { body: {} }));
    expect(error.kind).toBe('retryable');
    expect(c.sent).toBe(1);
  });
});

describe('CrusoeClient budget', () => {
  it('sends nothing while its rate budget is spent', async () => {
    sandbox = new CrusoeSandbox();
    const budget = new InProcessRateBudget(new TokenBucket({ capacity: 1, refillPerSecond: 1 }, sandbox.clock, 0));
    const c = new CrusoeClient({
      accessKeyId: Redacted.of(CRUSOE_SANDBOX_CREDENTIALS.accessKeyId),
      secretKey: Redacted.of(CRUSOE_SANDBOX_CREDENTIALS.secretKey),
      projectId: CRUSOE_SANDBOX_CREDENTIALS.projectId,
      clock: sandbox.clock,
      budget,
    });
    await expect(c.request('GET', 'locations', z.unknown())).rejects.toThrow(/rate budget/);
    expect(sandbox.requestCount()).toBe(0);
  });
});
