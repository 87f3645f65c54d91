import { afterEach, describe, expect, it } from 'vitest';
import { CLOUDFLARE_API } from './emulator.js';
import { CLOUDFLARE_SANDBOX_CREDENTIALS as CREDS, CloudflareSandbox } from './harness.js';

let sandbox: CloudflareSandbox;
afterEach(() => sandbox.stop());
const call = (method: string, path: string, body?: unknown, token: string = CREDS.apiToken) =>
  fetch(`${CLOUDFLARE_API}/${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body ? { body: JSON.stringify(body) } : {}),
  }).then(async (r) => ({ status: r.status, json: (await r.json()) as Record<string, unknown> }));

describe('Cloudflare emulator', () => {
  it('answers in the v4 envelope with result_info on lists', async () => {
    sandbox = new CloudflareSandbox();
    const { status, json } = await call('GET', `zones?name=${CREDS.zone}`);
    expect(status).toBe(200);
    expect(json).toMatchObject({ success: true, errors: [], messages: [], result_info: { page: 1, total_count: 1, total_pages: 1 } });
  });

  it('rejects a wrong token with success false and code 10000', async () => {
    sandbox = new CloudflareSandbox();
    const { status, json } = await call('GET', 'zones', undefined, 'nope');
    expect(status).toBe(403);
    expect(json).toMatchObject({ success: false, errors: [{ code: 10000 }], result: null });
  });

  it('applies a batch all or nothing', async () => {
    sandbox = new CloudflareSandbox();
    const zoneId = [...sandbox.emulator.zones.keys()][0] ?? '';
    const bad = await call('POST', `zones/${zoneId}/dns_records/batch`, {
      posts: [
        { name: `a.${CREDS.zone}`, type: 'A', content: '192.0.2.1', ttl: 60 },
        { name: `a.${CREDS.zone}`, type: 'CNAME', content: 'x.example', ttl: 60 },
      ],
    });
    expect(bad.status).toBe(400);
    expect(bad.json['errors']).toEqual([{ code: 81053, message: expect.any(String) }]);
    expect(sandbox.emulator.records.size).toBe(0);
  });

  it('refuses Load Balancing calls on an account without the subscription', async () => {
    sandbox = new CloudflareSandbox({ loadBalancing: false });
    const { status, json } = await call('POST', `accounts/${CREDS.accountId}/load_balancers/monitors`, { type: 'tcp', port: 65534 });
    expect(status).toBe(403);
    expect(json['success']).toBe(false);
    const subs = await call('GET', `accounts/${CREDS.accountId}/subscriptions`);
    expect((subs.json['result'] as Array<{ product: { name: string } }>).map((s) => s.product.name)).toEqual(['prod_dns']);
  });

  it('throttles past the account burst with a 429', async () => {
    sandbox = new CloudflareSandbox({ emulator: { rateLimit: { capacity: 3, refillPerSecond: 1 } } });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await call('GET', 'zones')).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });
});
