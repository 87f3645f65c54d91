import { describe, expect, it } from 'vitest';
import { authorizationHeader, buildQuery, canonicalQuery, crusoeTimestamp, goQueryEscape, signingPayload } from './signing.js';

// The test vectors of crusoe-notes.md §1.2 (two independent re-implementations of client-go's signer agree).
const base = { accessKeyId: 'AKID', secretKey: 'MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY', timestamp: '2025-01-02T03:04:05Z' };

describe('Crusoe request signing v1.0', () => {
  it("signs GET /v1/locations without a query as the notes' vector says", () => {
    expect(authorizationHeader({ ...base, method: 'GET', path: '/v1/locations', rawQuery: '' })).toBe(
      'Bearer 1.0:AKID:ci9DMEjMMcTdW6Oa3j5dzqYCNNkJx08EEF71yX0nEbk',
    );
  });

  it('canonicalises and signs the VM list query vector', () => {
    const rawQuery = 'sort=created_at&limit=10&names=a b*~';
    expect(canonicalQuery(rawQuery)).toBe('limit=10&names=a+b%2A~&sort=created_at');
    expect(authorizationHeader({ ...base, method: 'GET', path: '/v1/projects/p1/compute/vms/instances', rawQuery })).toBe(
      'Bearer 1.0:AKID:OdPilM62Mj64HhoDrYju1MnfwL6gjqSLa4cI2VND-HM',
    );
  });

  it("signs POST /v1/projects/p1/kubernetes/clusters as the notes' vector says", () => {
    expect(authorizationHeader({ ...base, method: 'POST', path: '/v1/projects/p1/kubernetes/clusters', rawQuery: '' })).toBe(
      'Bearer 1.0:AKID:N-4dpAaRQfHygnwZtQgTMwsFKeAuLncQSmnNW_vq-1E',
    );
  });

  it('ends the payload with a newline after the timestamp and upper-cases the method', () => {
    expect(signingPayload({ method: 'get', path: '/v1/x', rawQuery: 'b=1&a=2', timestamp: 't' })).toBe('/v1/x\na=2&b=1\nGET\nt\n');
  });

  it("escapes as Go's url.QueryEscape does, unlike URLSearchParams", () => {
    expect(goQueryEscape("a b*~!'()/,")).toBe('a+b%2A~%21%27%28%29%2F%2C');
    expect(new URLSearchParams({ x: 'a*~' }).toString()).not.toBe(`x=${goQueryEscape('a*~')}`);
  });

  it('keeps repeated keys in their original order while sorting keys', () => {
    expect(canonicalQuery('z=1&a=2&a=1')).toBe('a=2&a=1&z=1');
  });

  it('builds array parameters as one comma-joined value', () => {
    expect(buildQuery({ states: ['A', 'B'], limit: 5, skip: undefined })).toBe('limit=5&states=A%2CB');
  });

  it('prints the timestamp to the second in UTC with Z', () => {
    expect(crusoeTimestamp(Date.UTC(2025, 0, 2, 3, 4, 5, 987))).toBe('2025-01-02T03:04:05Z');
  });
});
