import got from 'got';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Sandbox, SANDBOX_CREDENTIALS } from '../sandbox.js';
import { HETZNER_API } from './emulator.js';

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = new Sandbox({ seed: 1, hetzner: { rateLimit: { capacity: 20, refillPerSecond: 1 } } }).listen();
});
afterEach(() => sandbox.close());

const api = got.extend({
  prefixUrl: HETZNER_API,
  throwHttpErrors: false,
  retry: { limit: 0 },
  responseType: 'json',
  headers: { authorization: `Bearer ${SANDBOX_CREDENTIALS.hetznerToken}` },
});
type Body = Record<string, unknown> & { error?: { code: string; message: string } };
const server = (name: string, labels: Record<string, string> = {}) => ({ name, server_type: 'cpx22', image: 'ubuntu-24.04', location: 'fsn1', labels });

describe('Hetzner emulator (wire format)', () => {
  it('answers an unknown token with 401 and the error envelope', async () => {
    const r = await api.get('servers', { headers: { authorization: 'Bearer nope' } });
    expect(r.statusCode).toBe(401);
    expect((r.body as unknown as Body).error?.code).toBe('unauthorized');
  });

  it('returns a create_server action that progresses with the virtual clock', async () => {
    const r = await api.post('servers', { json: server('a1') });
    expect(r.statusCode).toBe(201);
    const body = r.body as unknown as { server: { id: number; status: string }; action: { id: number; status: string } };
    expect(body.server.status).toBe('initializing');
    sandbox.clock.advance(120_000);
    const action = (await api.get(`actions/${body.action.id}`)).body as unknown as { action: { status: string; progress: number } };
    expect(action.action).toMatchObject({ status: 'success', progress: 100 });
    const s = (await api.get(`servers/${body.server.id}`)).body as unknown as { server: { status: string } };
    expect(s.server.status).toBe('running');
  });

  it("attaches a server to a network only through a subnet of its location's network zone (fsn1, nbg1 and hel1 share eu-central)", async () => {
    const created = await api.post('networks', {
      json: { name: 'n1', ip_range: '10.0.0.0/16', subnets: [{ type: 'cloud', ip_range: '10.0.1.0/24', network_zone: 'eu-central' }] },
    });
    const id = (created.body as unknown as { network: { id: number } }).network.id;
    for (const location of ['fsn1', 'nbg1', 'hel1'])
      expect((await api.post('servers', { json: { ...server(`in-${location}`), location, networks: [id] } })).statusCode).toBe(201);
    // ccx13: a type Hetzner sells in Ashburn (cpx22 is not), so the network is what is refused.
    const ash = await api.post('servers', { json: { ...server('in-ash'), server_type: 'ccx13', location: 'ash', networks: [id] } });
    expect(ash.statusCode).toBe(400);
    expect((ash.body as unknown as Body).error).toMatchObject({ code: 'invalid_input', message: expect.stringContaining('network zone us-east') });
  });

  it("checks a name as the API documents it: a server's is a hostname, a volume's or a network's any string", async () => {
    // kubeplane's `<node>-storage` of a Claudie test set: 64 characters with `_`, fine for a volume (no documented pattern).
    const volume = 'succeeds-on-last-4-cluster-0-y71vddd-htz-ctrl-nodes-w-01-storage';
    expect(volume.length).toBe(64);
    expect((await api.post('volumes', { json: { name: volume, size: 10, location: 'fsn1' } })).statusCode).toBe(201);
    expect((await api.post('networks', { json: { name: 'my net_1', ip_range: '10.0.0.0/16' } })).statusCode).toBe(201);
    // A server's name must be a valid hostname (RFC 1123): no `_`, labels of at most 63 characters.
    for (const name of ['web_1', `${'a'.repeat(64)}`, '-web', 'web.']) {
      const r = await api.post('servers', { json: server(name) });
      expect(r.statusCode, name).toBe(400);
      expect((r.body as unknown as Body).error, name).toMatchObject({ code: 'invalid_input', message: "invalid input in field 'name'" });
    }
    expect((await api.post('servers', { json: server(`${'a'.repeat(63)}.example`) })).statusCode).toBe(201);
    // A firewall's name is limited to 128 characters; an empty name is nothing's.
    expect((await api.post('firewalls', { json: { name: 'f'.repeat(129) } })).statusCode).toBe(400);
    expect((await api.post('firewalls', { json: { name: 'f'.repeat(128) } })).statusCode).toBe(201);
    expect((await api.post('volumes', { json: { name: '', size: 10, location: 'fsn1' } })).statusCode).toBe(400);
  });

  it('finds an SSH key by its fingerprint and refuses the same key under a second name', async () => {
    const publicKey = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIF1vC2mH8m3pZ0cVqYk7W8eQm1xk6b7pQ8m2y1q3aL9Z test';
    const first = (await api.post('ssh_keys', { json: { name: 'k1', public_key: publicKey } })).body as unknown as { ssh_key: { fingerprint: string } };
    const again = await api.post('ssh_keys', { json: { name: 'k2', public_key: publicKey } });
    expect((again.body as unknown as Body).error?.code).toBe('uniqueness_error');
    await api.post('ssh_keys', { json: { name: 'other', public_key: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIH3eC6F8mgbVf1kEXnBFqQyrm0Ae4jMX0lCezHzDdJ3X x' } });
    const found = (await api.get('ssh_keys', { searchParams: { fingerprint: first.ssh_key.fingerprint } })).body as unknown as {
      ssh_keys: Array<{ name: string }>;
    };
    expect(found.ssh_keys.map((k) => k.name)).toEqual(['k1']);
  });

  it('rejects a second server with the same name as uniqueness_error (409)', async () => {
    await api.post('servers', { json: server('dup') });
    const r = await api.post('servers', { json: server('dup') });
    expect(r.statusCode).toBe(409);
    expect((r.body as unknown as Body).error?.code).toBe('uniqueness_error');
  });

  it('filters by label selector and pages at most 50 per page', async () => {
    sandbox.close();
    sandbox = new Sandbox({ seed: 1 }).listen();
    for (let i = 0; i < 60; i++) await api.post('servers', { json: server(`n${i}`, { 'kubeplane.dev/cluster-id': i < 55 ? 'c1' : 'c2' }) });
    const r = await api.get('servers', { searchParams: { label_selector: 'kubeplane.dev/cluster-id=c1', per_page: 100 } });
    const body = r.body as unknown as { servers: unknown[]; meta: { pagination: { per_page: number; next_page: number | null; total_entries: number } } };
    expect(body.servers).toHaveLength(50);
    expect(body.meta.pagination).toMatchObject({ per_page: 50, next_page: 2, total_entries: 55 });
    const excluded = (await api.get('servers', { searchParams: { label_selector: 'kubeplane.dev/cluster-id!=c1' } })).body as unknown as { servers: unknown[] };
    expect(excluded.servers).toHaveLength(5);
  });

  it('sends RateLimit headers and a 429 once the project budget is spent, then recovers at 1 per second', async () => {
    let last = await api.get('locations');
    expect(last.headers['ratelimit-limit']).toBe('20');
    for (let i = 0; i < 19; i++) last = await api.get('locations');
    expect(last.headers['ratelimit-remaining']).toBe('0');
    const throttled = await api.get('locations');
    expect(throttled.statusCode).toBe(429);
    expect((throttled.body as unknown as Body).error?.code).toBe('rate_limit_exceeded');
    expect(Number(throttled.headers['ratelimit-reset'])).toBeGreaterThan(sandbox.clock.now() / 1000);
    sandbox.clock.advance(1000);
    expect((await api.get('locations')).statusCode).toBe(200);
  });

  it('rejects user data over 32 KiB as invalid_input', async () => {
    const r = await api.post('servers', { json: { ...server('big'), user_data: 'x'.repeat(33 * 1024) } });
    expect(r.statusCode).toBe(400);
    expect((r.body as unknown as Body).error?.code).toBe('invalid_input');
  });

  it('refuses to delete a firewall still applied to a server', async () => {
    const fw = (await api.post('firewalls', { json: { name: 'fw', rules: [] } })).body as unknown as { firewall: { id: number } };
    await api.post('servers', { json: { ...server('s'), firewalls: [{ firewall: fw.firewall.id }] } });
    const r = await api.delete(`firewalls/${fw.firewall.id}`);
    expect(r.statusCode).toBe(422);
    expect((r.body as unknown as Body).error?.code).toBe('resource_in_use');
  });

  it('serves zone RRSets: create, uniqueness, set_records as an action, delete; the zone apex is not inventory', async () => {
    const created = await api.post('zones/example.de/rrsets', {
      json: { name: 'api', type: 'A', ttl: 60, records: [{ value: '192.0.2.1' }], labels: { 'kubeplane.dev/cluster-id': 'c1' } },
    });
    expect(created.statusCode).toBe(201);
    expect((await api.post('zones/example.de/rrsets', { json: { name: 'api', type: 'A', records: [{ value: '192.0.2.2' }] } })).statusCode).toBe(409);
    const set = (await api.post('zones/example.de/rrsets/api/A/actions/set_records', { json: { records: [{ value: '192.0.2.3' }] } })).body as unknown as {
      action: { id: number; status: string };
    };
    expect(set.action.status).toBe('running');
    sandbox.clock.advance(10_000);
    expect(((await api.get(`actions/${set.action.id}`)).body as unknown as { action: { status: string } }).action.status).toBe('success');
    expect(sandbox.inventory().filter((i) => i.kind === 'dns-record')).toEqual([expect.objectContaining({ clusterId: 'c1', name: 'api/A' })]);
    expect((await api.delete('zones/example.de/rrsets/api/A')).statusCode).toBe(201);
    expect((await api.get('zones/example.de/rrsets/api/A')).statusCode).toBe(404);
  });
});
