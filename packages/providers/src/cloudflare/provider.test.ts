import { afterEach, describe, expect, it } from 'vitest';
import { KubeplaneError, Redacted } from '@kubeplane/sdk';
import { settle, type Outcome } from '@kubeplane/sdk/provider';
import { CLOUDFLARE_SANDBOX_CREDENTIALS as CREDS, CloudflareSandbox } from '@kubeplane/sandbox';
import { CloudflareProvider } from './provider.js';

let sandbox: CloudflareSandbox;
afterEach(() => sandbox.stop());
const run = <T>(call: (attempt: number) => Promise<Outcome<T>>): Promise<T> => settle(call, { clock: sandbox.clock, maxAttempts: 200 });
const options = () => ({ apiToken: Redacted.of(CREDS.apiToken), accountId: CREDS.accountId, clock: sandbox.clock, random: () => 0.5 });
const zone = CREDS.zone;
const failover = (cluster: string) => {
  const name = `api.${cluster}.${zone}`;
  return [
    {
      name,
      type: 'A' as const,
      ttl: 30,
      values: ['203.0.113.10'],
      setIdentifier: 'lb-1',
      failover: { role: 'primary' as const, healthCheck: { ip: '203.0.113.10', port: 65534 } },
    },
    {
      name,
      type: 'A' as const,
      ttl: 30,
      values: ['203.0.113.11'],
      setIdentifier: 'lb-2',
      failover: { role: 'secondary' as const, healthCheck: { ip: '203.0.113.11', port: 65534 } },
    },
  ];
};

describe('CloudflareProvider.connect', () => {
  it('finds the Load Balancing subscription and offers failover', async () => {
    sandbox = new CloudflareSandbox({ loadBalancing: true });
    const provider = await CloudflareProvider.connect(options());
    expect(provider.capabilities.dnsFailover).toBe(true);
  });

  it('carries on without failover when the account has no Load Balancing (claudie#2005)', async () => {
    sandbox = new CloudflareSandbox({ loadBalancing: false });
    const provider = await CloudflareProvider.connect(options());
    expect(provider.capabilities.dnsFailover).toBe(false);
    expect(provider.capabilities.dns).toBe(true);
  });

  it('surfaces a token that may not read subscriptions as auth, naming the permission (claudie#2029)', async () => {
    sandbox = new CloudflareSandbox();
    sandbox.injectWireFault('GET /accounts/{id}/subscriptions', 'auth', 1);
    const error = await CloudflareProvider.connect(options()).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(KubeplaneError);
    expect((error as KubeplaneError).kind).toBe('auth');
    expect((error as KubeplaneError).message).toMatch(/Billing:Read/);
  });
});

describe('Cloudflare failover', () => {
  it('builds a TCP 65534 monitor and a pool per record set, and a load balancer with the primary first', async () => {
    sandbox = new CloudflareSandbox({ loadBalancing: true });
    const provider = new CloudflareProvider({ ...options(), loadBalancing: true });
    await run(() => provider.dns.upsertRecords(zone, 'c1', failover('c1')));
    const monitors = [...sandbox.emulator.monitors.values()];
    expect(monitors.map((m) => [m.type, m.port])).toEqual([
      ['tcp', 65534],
      ['tcp', 65534],
    ]);
    const [lb] = [...sandbox.emulator.loadBalancers.values()];
    expect(lb?.name).toBe(`api.c1.${zone}`);
    expect(lb?.steering_policy).toBe('off');
    const primary = sandbox.emulator.pools.get(lb?.default_pools[0] ?? '');
    expect(primary?.origins.map((o) => o['address'])).toEqual(['203.0.113.10']);
    expect(lb?.fallback_pool).toBe(lb?.default_pools[1]);
    expect([...sandbox.emulator.records.values()]).toEqual([]);
  });

  it('moves an origin by updating its pool, without new monitors or load balancers', async () => {
    sandbox = new CloudflareSandbox({ loadBalancing: true });
    const provider = new CloudflareProvider({ ...options(), loadBalancing: true });
    await run(() => provider.dns.upsertRecords(zone, 'c1', failover('c1')));
    const moved = failover('c1').map((r, i) => (i === 1 ? { ...r, values: ['203.0.113.99'] } : r));
    await run(() => provider.dns.upsertRecords(zone, 'c1', moved));
    expect(sandbox.emulator.monitors.size).toBe(2);
    expect(sandbox.emulator.loadBalancers.size).toBe(1);
    expect([...sandbox.emulator.pools.values()].flatMap((p) => p.origins.map((o) => o['address'])).sort()).toEqual(['203.0.113.10', '203.0.113.99']);
  });

  it('writes failover records plain, with a warning, on an account without Load Balancing', async () => {
    sandbox = new CloudflareSandbox({ loadBalancing: false });
    const provider = new CloudflareProvider({ ...options(), loadBalancing: false });
    const change = await run(() => provider.dns.upsertRecords(zone, 'c1', failover('c1')));
    expect(change.warnings?.[0]).toMatch(/no Load Balancing subscription/);
    expect([...sandbox.emulator.records.values()].map((r) => r.content).sort()).toEqual(['203.0.113.10', '203.0.113.11']);
    expect(sandbox.emulator.log.some((l) => l.path.includes('load_balancers/'))).toBe(false);
  });

  it('tears down records, load balancers, pools and monitors of one cluster only', async () => {
    sandbox = new CloudflareSandbox({ loadBalancing: true });
    const provider = new CloudflareProvider({ ...options(), loadBalancing: true });
    await run(() => provider.dns.upsertRecords(zone, 'c1', [...failover('c1'), { name: `www.c1.${zone}`, type: 'A', ttl: 60, values: ['203.0.113.5'] }]));
    await run(() => provider.dns.upsertRecords(zone, 'c2', [{ name: `www.c2.${zone}`, type: 'A', ttl: 60, values: ['203.0.113.6'] }]));
    expect((await run(() => provider.listClusterResources('c1', ''))).length).toBe(6);
    await run(() => provider.teardownCluster('c1', ''));
    expect(sandbox.liveResources('c1')).toEqual([]);
    expect(sandbox.liveResources('c2')).toHaveLength(1);
  });
});

describe('Cloudflare records', () => {
  it('lists the zones the token can see', async () => {
    sandbox = new CloudflareSandbox();
    const provider = new CloudflareProvider({ ...options(), loadBalancing: false });
    expect((await run(() => provider.zones())).map((z) => z.name)).toEqual([zone]);
  });

  it('refuses to take over a record it did not create', async () => {
    sandbox = new CloudflareSandbox();
    const provider = new CloudflareProvider({ ...options(), loadBalancing: true });
    await run(() => provider.dns.upsertRecords(zone, 'other', [{ name: `api.${zone}`, type: 'A', ttl: 60, values: ['192.0.2.1'] }]));
    const error = await provider.dns.upsertRecords(zone, 'mine', [{ name: `api.${zone}`, type: 'A', ttl: 60, values: ['192.0.2.2'] }]).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((error as KubeplaneError).kind).toBe('conflict');
    expect([...sandbox.emulator.records.values()].map((r) => r.content)).toEqual(['192.0.2.1']);
  });

  it('writes a whole change in one batch request', async () => {
    sandbox = new CloudflareSandbox();
    const provider = new CloudflareProvider({ ...options(), loadBalancing: false });
    await run(() =>
      provider.dns.upsertRecords(zone, 'c1', [
        { name: `a.c1.${zone}`, type: 'A', ttl: 60, values: ['192.0.2.1', '192.0.2.2'] },
        { name: `b.c1.${zone}`, type: 'CNAME', ttl: 60, values: [`a.c1.${zone}`] },
      ]),
    );
    const writes = sandbox.emulator.log.filter((l) => l.method !== 'GET');
    expect(writes.map((w) => w.path)).toEqual([`/zones/${[...sandbox.emulator.zones.keys()][0] ?? ''}/dns_records/batch`]);
    expect(sandbox.emulator.records.size).toBe(3);
  });
});
