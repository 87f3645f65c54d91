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
type Body = Record<string, unknown> & { error?: { code: string } };
const body = <T>(r: { body: unknown }) => r.body as T;
interface ServerBody {
  server: {
    id: number;
    status: string;
    name: string;
    labels: Record<string, string>;
    datacenter: { name: string };
    private_net: Array<{ mac_address: string }>;
    public_net: { firewalls: Array<{ id: number }> };
    volumes: number[];
  };
}

async function running(name: string, extra: Record<string, unknown> = {}): Promise<number> {
  const r = await api.post('servers', { json: { name, server_type: 'cpx22', image: 'ubuntu-24.04', location: 'fsn1', ...extra } });
  expect(r.statusCode).toBe(201);
  sandbox.clock.advance(300_000);
  return body<ServerBody>(r).server.id;
}

describe('Hetzner emulator: servers', () => {
  it('accepts a power action sent with no body at all, as the hcloud CLI sends it', async () => {
    const id = await running('s');
    const r = await fetch(`${HETZNER_API}/servers/${id}/actions/poweroff`, {
      method: 'POST',
      headers: { authorization: `Bearer ${SANDBOX_CREDENTIALS.hetznerToken}` },
    });
    expect(r.status).toBe(201);
    expect(((await r.json()) as { action: { command: string } }).action.command).toBe('stop_server');
    expect((await api.post(`servers/${id}/actions/poweron`, { body: 'not json', headers: { 'content-type': 'application/json' } })).statusCode).toBe(400);
  });

  it('moves through stopping to off on shutdown and through starting to running on poweron', async () => {
    const id = await running('s');
    const status = async () => body<ServerBody>(await api.get(`servers/${id}`)).server.status;
    await api.post(`servers/${id}/actions/shutdown`);
    expect(await status()).toBe('stopping');
    sandbox.clock.advance(60_000);
    expect(await status()).toBe('off');
    expect(sandbox.listVms().find((v) => v.id === String(id))?.state).toBe('stopped');
    await api.post(`servers/${id}/actions/poweron`);
    expect(await status()).toBe('starting');
    sandbox.clock.advance(60_000);
    expect(await status()).toBe('running');
  });

  it('renames a server and replaces its labels with PUT', async () => {
    const id = await running('old', { labels: { a: '1' } });
    const r = await api.put(`servers/${id}`, { json: { name: 'new', labels: { b: '2' } } });
    expect(body<ServerBody>(r).server).toMatchObject({ name: 'new', labels: { b: '2' } });
    expect(body<Body>(await api.put(`servers/${id}`, { json: { labels: { 'bad key': 'x' } } })).error?.code).toBe('invalid_input');
  });

  it('answers a malformed label selector with 400 invalid_input', async () => {
    const r = await api.get('servers', { searchParams: { label_selector: 'a=b=c' } });
    expect(r.statusCode).toBe(400);
    expect(body<Body>(r).error?.code).toBe('invalid_input');
  });

  it('gives every private interface its own MAC, and a world built with the same seed the same ones', async () => {
    const build = async () => {
      const net = body<{ network: { id: number } }>(
        await api.post('networks', {
          json: { name: 'n', ip_range: '10.0.0.0/16', subnets: [{ type: 'cloud', ip_range: '10.0.1.0/24', network_zone: 'eu-central' }] },
        }),
      ).network.id;
      const macs: string[] = [];
      for (const name of ['a', 'b', 'c']) {
        const id = await running(name, { networks: [net] });
        macs.push(body<ServerBody>(await api.get(`servers/${id}`)).server.private_net[0]!.mac_address);
      }
      return macs;
    };
    const first = await build();
    expect(new Set(first).size).toBe(3);
    sandbox.close();
    sandbox = new Sandbox({ seed: 7 }).listen();
    expect(await build()).toEqual(first);
    sandbox.close();
    sandbox = new Sandbox({ seed: 8 }).listen();
    expect(await build()).not.toEqual(first);
  });

  it('lists a firewall applied by label selector on the servers it matches, and on the firewall with them', async () => {
    const web = await running('web', { labels: { role: 'web' } });
    await running('db', { labels: { role: 'db' } });
    const fw = body<{ firewall: { id: number } }>(
      await api.post('firewalls', { json: { name: 'fw', apply_to: [{ type: 'label_selector', label_selector: { selector: 'role=web' } }] } }),
    ).firewall.id;
    const shown = body<{ firewall: { applied_to: Array<{ type: string; applied_to_resources?: Array<{ server: { id: number } }> }> } }>(
      await api.get(`firewalls/${fw}`),
    ).firewall.applied_to;
    expect(shown).toEqual([expect.objectContaining({ type: 'label_selector', applied_to_resources: [{ type: 'server', server: { id: web } }] })]);
    expect(body<ServerBody>(await api.get(`servers/${web}`)).server.public_net.firewalls).toEqual([{ id: fw, status: 'applied' }]);
  });

  it("answers POST /primary_ips with its create action and the IP's data center", async () => {
    const r = body<{ primary_ip: { datacenter: { name: string } }; action: { command: string } | null }>(
      await api.post('primary_ips', { json: { name: 'ip', type: 'ipv4', assignee_type: 'server', location: 'nbg1' } }),
    );
    expect(r.action?.command).toBe('create_primary_ip');
    expect(r.primary_ip.datacenter.name).toBe('nbg1-dc3');
  });

  it('sends Date on the virtual clock that RateLimit-Reset counts in', async () => {
    sandbox.clock.advance(3_600_000);
    const r = await api.get('locations');
    expect(Date.parse(String(r.headers['date']))).toBe(Math.floor(sandbox.clock.now() / 1000) * 1000);
    expect(Number(r.headers['ratelimit-reset'])).toBe(Math.ceil(sandbox.clock.now() / 1000) + 1);
  });

  it("detaches a deleted server's volumes and keeps them", async () => {
    const id = await running('s');
    const vol = body<{ volume: { id: number } }>(await api.post('volumes', { json: { name: 'v', size: 10, server: id } })).volume.id;
    expect(body<ServerBody>(await api.get(`servers/${id}`)).server.volumes).toEqual([vol]);
    await api.delete(`servers/${id}`);
    expect(body<{ volume: { server: number | null } }>(await api.get(`volumes/${vol}`)).volume.server).toBeNull();
  });

  it('deletes an assigned floating IP until 1 May 2026, then asks for it to be unassigned first', async () => {
    const id = await running('s');
    const create = async (name: string) =>
      body<{ floating_ip: { id: number } }>(await api.post('floating_ips', { json: { name, type: 'ipv4', server: id } })).floating_ip.id;
    expect((await api.delete(`floating_ips/${await create('early')}`)).statusCode).toBe(204);
    sandbox.clock.advance(Date.parse('2026-05-01T00:00:00Z') - sandbox.clock.now());
    const late = await api.delete(`floating_ips/${await create('late')}`);
    expect(late.statusCode).toBe(422);
    expect(body<Body>(late).error?.code).toBe('must_be_unassigned');
  });

  it('puts a server on a data center of its location and sorts servers by name', async () => {
    await running('zeta');
    await running('alpha');
    const list = body<{ servers: Array<{ name: string; datacenter: { name: string } }> }>(
      await api.get('servers', { searchParams: { sort: 'name:asc' } }),
    ).servers;
    expect(list.map((s) => s.name)).toEqual(['alpha', 'zeta']);
    expect(list[0]!.datacenter.name).toBe('fsn1-dc14');
  });

  it('deletes an assigned primary IP only from a server that is off, and unassigns it from the server', async () => {
    const ip = body<{ primary_ip: { id: number } }>(
      await api.post('primary_ips', { json: { name: 'ip', type: 'ipv4', assignee_type: 'server', location: 'fsn1' } }),
    ).primary_ip.id;
    const id = await running('s', { public_net: { ipv4: ip, enable_ipv6: false } });
    const refused = await api.delete(`primary_ips/${ip}`);
    expect(refused.statusCode).toBe(422);
    expect(body<Body>(refused).error?.code).toBe('server_not_stopped');
    await api.post(`servers/${id}/actions/poweroff`);
    sandbox.clock.advance(10_000);
    expect((await api.delete(`primary_ips/${ip}`)).statusCode).toBe(204);
    expect(body<{ server: { public_net: { ipv4: unknown } } }>(await api.get(`servers/${id}`)).server.public_net.ipv4).toBeNull();
  });
});
