import { afterEach, describe, expect, it } from 'vitest';
import { CLOUDFLARE_API } from './emulator.js';
import { CLOUDFLARE_SANDBOX_CREDENTIALS as CREDS, CloudflareSandbox } from './harness.js';

type Json = Record<string, unknown>;
type Envelope = { success: boolean; errors: Array<{ code: number; message: string }>; result: Json | Json[] | null };

let sandbox: CloudflareSandbox | undefined;
afterEach(() => {
  sandbox?.stop();
  sandbox = undefined;
});

const call = (method: string, path: string, body?: unknown): Promise<{ status: number; json: Envelope }> =>
  fetch(`${CLOUDFLARE_API}/${path}`, {
    method,
    headers: { authorization: `Bearer ${CREDS.apiToken}`, 'content-type': 'application/json' },
    ...(body ? { body: JSON.stringify(body) } : {}),
  }).then(async (r) => ({ status: r.status, json: (await r.json()) as Envelope }));

function world(): { zoneId: string } {
  sandbox = new CloudflareSandbox();
  return { zoneId: [...sandbox.emulator.zones.keys()][0] ?? '' };
}

describe('Cloudflare DNS records', () => {
  it('reads a name that does not end in the zone as relative to it, and `@` as the apex', async () => {
    const { zoneId } = world();
    const rel = await call('POST', `zones/${zoneId}/dns_records`, { type: 'A', name: 'api.eu', content: '192.0.2.1', ttl: 60 });
    expect((rel.json.result as Json)['name']).toBe(`api.eu.${CREDS.zone}`);
    const full = await call('POST', `zones/${zoneId}/dns_records`, { type: 'A', name: `Full.${CREDS.zone}.`, content: '192.0.2.2', ttl: 60 });
    expect((full.json.result as Json)['name']).toBe(`full.${CREDS.zone}`);
    const apex = await call('POST', `zones/${zoneId}/dns_records`, { type: 'TXT', name: '@', content: 'v=spf1 -all', ttl: 60 });
    expect((apex.json.result as Json)['name']).toBe(CREDS.zone);
  });

  it('refuses a fully qualified name outside the zone', async () => {
    const { zoneId } = world();
    const outside = await call('POST', `zones/${zoneId}/dns_records`, { type: 'A', name: 'www.example.org.', content: '192.0.2.3', ttl: 60 });
    expect(outside.status).toBe(400);
    expect(outside.json.errors[0]?.code).toBe(1004);
  });

  it("checks a PUT against the zone's other records as a create is checked", async () => {
    const { zoneId } = world();
    await call('POST', `zones/${zoneId}/dns_records`, { type: 'CNAME', name: 'taken', content: 'elsewhere.example.org', ttl: 60 });
    const mine = await call('POST', `zones/${zoneId}/dns_records`, { type: 'A', name: 'mine', content: '192.0.2.4', ttl: 60 });
    const clash = await call('PUT', `zones/${zoneId}/dns_records/${String((mine.json.result as Json)['id'])}`, {
      type: 'A',
      name: 'taken',
      content: '192.0.2.4',
      ttl: 60,
    });
    expect(clash.status).toBe(400);
    expect(clash.json.errors[0]?.code).toBe(81053);
  });

  it('applies batch puts as whole-record overwrites, keeping ids', async () => {
    const { zoneId } = world();
    const a = await call('POST', `zones/${zoneId}/dns_records`, { type: 'A', name: 'batch', content: '192.0.2.5', ttl: 60, comment: 'kubeplane:c1' });
    const id = String((a.json.result as Json)['id']);
    const batch = await call('POST', `zones/${zoneId}/dns_records/batch`, { puts: [{ id, type: 'A', name: 'batch', content: '192.0.2.6', ttl: 300 }] });
    expect(batch.status).toBe(200);
    expect((batch.json.result as Json)['puts']).toMatchObject([{ id, content: '192.0.2.6', ttl: 300, comment: null }]);
    const got = await call('GET', `zones/${zoneId}/dns_records/${id}`);
    expect(got.json.result).toMatchObject({ id, content: '192.0.2.6', ttl: 300 });
  });

  it("answers a method a record does not take with 405 and Cloudflare's message", async () => {
    const { zoneId } = world();
    const a = await call('POST', `zones/${zoneId}/dns_records`, { type: 'A', name: 'm', content: '192.0.2.7', ttl: 60 });
    const post = await call('POST', `zones/${zoneId}/dns_records/${String((a.json.result as Json)['id'])}`, { type: 'A' });
    expect(post.status).toBe(405);
    expect(post.json.errors).toEqual([{ code: 10000, message: 'POST method not allowed for the api_token authentication scheme' }]);
  });
});

describe('the Cloudflare catalog (cloudflare-api.json)', () => {
  it('accepts the record types Cloudflare supports (MX, CAA, SRV… not only A, AAAA, CNAME, TXT) and says which can be proxied', async () => {
    const { zoneId } = world();
    const mx = await call('POST', `zones/${zoneId}/dns_records`, { type: 'MX', name: '@', content: 'mail.example.com', priority: 10, ttl: 300 });
    expect(mx.json.success).toBe(true);
    expect((mx.json.result as Json)['proxiable']).toBe(false);
    const caa = await call('POST', `zones/${zoneId}/dns_records`, { type: 'CAA', name: '@', content: '0 issue "letsencrypt.org"', ttl: 300 });
    expect(caa.json.success).toBe(true);
    const a = await call('POST', `zones/${zoneId}/dns_records`, { type: 'A', name: 'www', content: '192.0.2.7', ttl: 60 });
    expect((a.json.result as Json)['proxiable']).toBe(true);
    const bogus = await call('POST', `zones/${zoneId}/dns_records`, { type: 'BOGUS', name: 'x', content: 'y', ttl: 60 });
    expect(bogus.json.errors[0]?.message).toBe('DNS Validation Error: unsupported type BOGUS');
  });

  it("takes a pool's check_regions from Cloudflare's Load Balancing regions and refuses a code that is none of them", async () => {
    world();
    const origins = [{ name: 'o1', address: '192.0.2.10', enabled: true }];
    const pools = `accounts/${CREDS.accountId}/load_balancers/pools`;
    const good = await call('POST', pools, { name: 'eu', origins, check_regions: ['WEU', 'EEU'] });
    expect((good.json.result as Json)['check_regions']).toEqual(['WEU', 'EEU']);
    const bad = await call('POST', pools, { name: 'nowhere', origins, check_regions: ['EU'] });
    expect(bad.status).toBe(400);
    expect(bad.json.errors[0]?.message).toContain('check_regions: unknown region EU');
  });
});
