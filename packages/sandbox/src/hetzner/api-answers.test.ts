// What the Hetzner emulator answers where it once answered wrongly (issue 38): requests checked against Hetzner's
// OpenAPI document, documented error codes instead of `conflict`, list filters, IPv6, action endpoints per resource.
import got from 'got';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Sandbox, SANDBOX_CREDENTIALS } from '../sandbox.js';
import { HETZNER_API } from './emulator.js';

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = new Sandbox({ seed: 7 }).listen();
});
afterEach(() => sandbox.close());

const api = got.extend({
  prefixUrl: HETZNER_API,
  throwHttpErrors: false,
  retry: { limit: 0 },
  responseType: 'json',
  headers: { authorization: `Bearer ${SANDBOX_CREDENTIALS.hetznerToken}` },
});
interface ErrorBody {
  error: { code: string; message: string; details: { fields?: Array<{ name: string; messages?: string[] }> } };
}
const error = (r: { body: unknown }) => (r.body as unknown as ErrorBody).error;
const server = { name: 's', server_type: 'cpx22', image: 'ubuntu-24.04', location: 'fsn1' };

async function created(extra: Record<string, unknown> = {}): Promise<{ id: number; public_net: Record<string, { id: number; ip: string } | null> }> {
  const r = await api.post('servers', { json: { ...server, ...extra } });
  expect(r.statusCode).toBe(201);
  sandbox.clock.advance(300_000);
  return (r.body as unknown as { server: { id: number; public_net: Record<string, { id: number; ip: string } | null> } }).server;
}

describe('Hetzner emulator: requests checked against the OpenAPI document', () => {
  it('refuses a body field of the wrong type with invalid_input naming the field', async () => {
    const r = await api.post('servers', { json: { ...server, start_after_create: 'yes' } });
    expect(r.statusCode).toBe(400);
    expect(error(r)).toMatchObject({ code: 'invalid_input', message: "invalid input in field 'start_after_create'" });
    expect(error(r).details.fields?.[0]?.name).toBe('start_after_create');
  });

  it('refuses a missing required field by its name, not as "image undefined not found"', async () => {
    const r = await api.post('servers', { json: { name: 's', server_type: 'cpx22' } });
    expect(r.statusCode).toBe(400);
    expect(error(r).message).toBe("invalid input in field 'image'");
    expect(error(r).details.fields).toEqual([{ name: 'image', messages: ['is required'] }]);
  });

  it('refuses a body field the API does not know', async () => {
    const r = await api.post('servers', { json: { ...server, colour: 'blue' } });
    expect(error(r)).toMatchObject({ code: 'invalid_input', message: "invalid input: unknown field name 'colour'" });
  });

  it('refuses a page that is not a number and a status that is not one', async () => {
    expect(error(await api.get('servers', { searchParams: { page: 'abc' } }))).toMatchObject({
      code: 'invalid_input',
      message: "invalid input in field 'page'",
    });
    expect(error(await api.get('servers', { searchParams: { status: 'sleeping' } })).code).toBe('invalid_input');
    expect(error(await api.get('images', { searchParams: { include_deprecated: 'yes' } })).code).toBe('invalid_input');
    expect((await api.get('servers', { searchParams: { page: '2', per_page: '5' } })).statusCode).toBe(200);
  });

  it('asks GET /actions for the ids it lists, as the API has since listing every action was removed', async () => {
    expect(error(await api.get('actions')).code).toBe('invalid_input');
  });
});

describe('Hetzner emulator: documented error codes', () => {
  it('refuses a primary IP already assigned with primary_ip_assigned, never the retried conflict', async () => {
    const first = await created({ name: 'a' });
    const r = await api.post('servers', { json: { ...server, name: 'b', public_net: { ipv4: first.public_net['ipv4']!.id } } });
    expect(r.statusCode).toBe(422);
    expect(error(r).code).toBe('primary_ip_assigned');
  });

  it('refuses an ipv6 primary IP given as ipv4 with primary_ip_version_mismatch, and one of another location with primary_ip_datacenter_mismatch', async () => {
    const v6 = (await api.post('primary_ips', { json: { name: 'v6', type: 'ipv6', assignee_type: 'server', location: 'fsn1' } })).body as unknown as {
      primary_ip: { id: number };
    };
    expect(error(await api.post('servers', { json: { ...server, public_net: { ipv4: v6.primary_ip.id } } })).code).toBe('primary_ip_version_mismatch');
    const v4 = (await api.post('primary_ips', { json: { name: 'v4', type: 'ipv4', assignee_type: 'server', location: 'nbg1' } })).body as unknown as {
      primary_ip: { id: number };
    };
    expect(error(await api.post('servers', { json: { ...server, public_net: { ipv4: v4.primary_ip.id } } })).code).toBe('primary_ip_datacenter_mismatch');
  });

  it('refuses a power action while the server is still starting, or another power action runs, with 423 locked', async () => {
    const r = await api.post('servers', { json: server });
    const id = (r.body as unknown as { server: { id: number } }).server.id;
    const early = await api.post(`servers/${id}/actions/poweroff`);
    expect(early.statusCode).toBe(423);
    expect(error(early).code).toBe('locked');
    sandbox.clock.advance(300_000);
    expect((await api.post(`servers/${id}/actions/poweroff`)).statusCode).toBe(201);
    expect(error(await api.post(`servers/${id}/actions/poweron`)).code).toBe('locked');
    sandbox.clock.advance(10_000);
    expect((await api.post(`servers/${id}/actions/poweron`)).statusCode).toBe(201);
  });

  it('refuses to delete a firewall applied after its creation with resource_in_use', async () => {
    const s = await created();
    const fw = (await api.post('firewalls', { json: { name: 'fw' } })).body as unknown as { firewall: { id: number } };
    await api.post(`firewalls/${fw.firewall.id}/actions/apply_to_resources`, { json: { apply_to: [{ type: 'server', server: { id: s.id } }] } });
    const r = await api.delete(`firewalls/${fw.firewall.id}`);
    expect(r.statusCode).toBe(422);
    expect(error(r).code).toBe('resource_in_use');
  });

  it('refuses to delete a placement group that still holds a server with resource_in_use, never the retried conflict', async () => {
    const group = (await api.post('placement_groups', { json: { name: 'g', type: 'spread' } })).body as unknown as { placement_group: { id: number } };
    await created({ placement_group: group.placement_group.id });
    const r = await api.delete(`placement_groups/${group.placement_group.id}`);
    expect(r.statusCode).toBe(422);
    expect(error(r).code).toBe('resource_in_use');
  });

  it('refuses a primary IP with neither location, datacenter nor assignee on both fields', async () => {
    const r = await api.post('primary_ips', { json: { name: 'nowhere', type: 'ipv4', assignee_type: 'server' } });
    expect(error(r).message).toBe("invalid input in fields 'assignee_id', 'datacenter'");
  });
});

describe('Hetzner emulator: what it does not emulate', () => {
  it("refuses an operation Hetzner's API has with unsupported_error in the sealed sandbox's words, never not_found", async () => {
    const s = await created();
    const r = await api.post(`servers/${s.id}/actions/rebuild`, { json: { image: 'ubuntu-24.04' } });
    expect(r.statusCode).toBe(400);
    expect(error(r)).toMatchObject({
      code: 'unsupported_error',
      message: expect.stringContaining('the sandbox does not serve POST /servers/{id}/actions/rebuild') as unknown,
    });
    expect(error(await api.get('nonsense')).code).toBe('not_found');
  });
});

describe('Hetzner emulator: IPv6', () => {
  it('gives a server an IPv6 /64 network as a primary IP of type ipv6, beside its IPv4', async () => {
    const s = await created();
    expect(s.public_net['ipv6']?.ip).toMatch(/^2001:db8:[0-9a-f]+:[0-9a-f]+::\/64$/);
    const ips = (await api.get('primary_ips')).body as unknown as { primary_ips: Array<{ id: number; type: string; assignee_id: number }> };
    expect(ips.primary_ips.filter((ip) => ip.assignee_id === s.id).map((ip) => ip.type)).toEqual(['ipv4', 'ipv6']);
    expect(ips.primary_ips.find((ip) => ip.type === 'ipv6')?.id).toBe(s.public_net['ipv6']?.id);
  });

  it('makes floating IPs of type ipv6 (a /64) and gives a load balancer an IPv6 address', async () => {
    const fip = (await api.post('floating_ips', { json: { type: 'ipv6', home_location: 'fsn1', name: 'f6' } })).body as unknown as {
      floating_ip: { type: string; ip: string };
    };
    expect(fip.floating_ip).toMatchObject({ type: 'ipv6', ip: expect.stringMatching(/::\/64$/) as unknown });
    const lb = (await api.post('load_balancers', { json: { name: 'lb', load_balancer_type: 'lb11', location: 'fsn1' } })).body as unknown as {
      load_balancer: { public_net: { ipv6: { ip: string } } };
    };
    expect(lb.load_balancer.public_net.ipv6.ip).toMatch(/^2001:db8:[0-9a-f:]+::1$/);
  });

  it('refuses a managed certificate as not emulated, not as invalid input', async () => {
    const r = await api.post('certificates', { json: { name: 'm', type: 'managed', domain_names: ['example.de'] } });
    expect(error(r)).toMatchObject({
      code: 'unsupported_error',
      message: expect.stringContaining('the sandbox does not serve managed certificates') as unknown,
    });
  });

  it('leaves IPv6 out when enable_ipv6 is false', async () => {
    expect((await created({ public_net: { enable_ipv4: true, enable_ipv6: false } })).public_net['ipv6']).toBeNull();
  });
});

describe('Hetzner emulator: list filters and action endpoints', () => {
  it('leaves deprecated images out unless include_deprecated, and filters images by type', async () => {
    const names = async (q: Record<string, string>) =>
      ((await api.get('images', { searchParams: { per_page: '50', ...q } })).body as unknown as { images: Array<{ name: string }> }).images.map((i) => i.name);
    expect(await names({})).not.toContain('ubuntu-20.04');
    expect(await names({ include_deprecated: 'true' })).toContain('ubuntu-20.04');
    // As python3-hcloud sends it (Python's str(True)), and the API takes it.
    expect(await names({ include_deprecated: 'True' })).toContain('ubuntu-20.04');
    expect(await names({ type: 'snapshot' })).toEqual([]);
    expect((await names({ type: 'system' })).length).toBeGreaterThan(0);
  });

  it("lists a server's actions, one of them by id, and the servers' actions by status", async () => {
    const s = await created();
    const own = (await api.get(`servers/${s.id}/actions`)).body as unknown as { actions: Array<{ id: number; command: string }> };
    expect(own.actions.map((a) => a.command)).toEqual(['create_server', 'start_server']);
    const one = (await api.get(`servers/${s.id}/actions/${own.actions[0]!.id}`)).body as unknown as { action: { command: string } };
    expect(one.action.command).toBe('create_server');
    const done = (await api.get('servers/actions', { searchParams: { status: 'success' } })).body as unknown as { actions: unknown[] };
    expect(done.actions).toHaveLength(2);
    expect((await api.get(`volumes/actions/${own.actions[0]!.id}`)).statusCode).toBe(404);
    expect((await api.get('servers/999999/actions')).statusCode).toBe(404);
  });
});
