// The sandbox's Hetzner catalog is Hetzner's, as of its snapshot (../catalogs/hetzner/hetzner-cloud.json): the current
// server types where Hetzner sells them, their prices, the announced deprecations, and nothing sold after its date.
import got from 'got';
import { afterEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '@kubeplane/sdk/provider';
import { Sandbox, SANDBOX_CREDENTIALS } from '../sandbox.js';
import { HETZNER_API } from './emulator.js';

const api = got.extend({
  prefixUrl: HETZNER_API,
  throwHttpErrors: false,
  retry: { limit: 0 },
  responseType: 'json',
  headers: { authorization: `Bearer ${SANDBOX_CREDENTIALS.hetznerToken}` },
});

interface Price {
  location: string;
  price_hourly: { net: string; gross: string };
  price_monthly: { net: string; gross: string };
}
interface Deprecation {
  announced: string;
  unavailable_after: string;
}
interface ServerType {
  id: number;
  name: string;
  cores: number;
  memory: number;
  disk: number;
  cpu_type: string;
  architecture: string;
  deprecated: boolean;
  deprecation: Deprecation | null;
  prices: Price[];
  locations: Array<{ name: string; deprecation: Deprecation | null }>;
}
type Body = { error?: { code: string; message: string } };

let sandbox: Sandbox | undefined;
afterEach(() => sandbox?.close());

/** A sandbox listening from `start` (default: the sandbox's own start, 2026-01-01). */
function open(start?: string): Sandbox {
  sandbox = new Sandbox({ seed: 1, ...(start ? { clock: new VirtualClock(Date.parse(start)) } : {}) }).listen();
  return sandbox;
}

async function serverTypes(query: Record<string, string> = {}): Promise<ServerType[]> {
  const r = await api.get('server_types', { searchParams: { per_page: '50', ...query } });
  expect(r.statusCode).toBe(200);
  return (r.body as unknown as { server_types: ServerType[] }).server_types;
}

const locationsOf = (t: ServerType | undefined) => (t?.locations ?? []).map((l) => l.name).sort();

describe('the Hetzner catalog (GET /server_types, /pricing, /datacenters)', () => {
  it('offers the 2025 shared lines (cx23-cx53, cpx22-cpx62), the ARM cax and the dedicated ccx lines, cpx52 in hel1 among them', async () => {
    open();
    const types = await serverTypes();
    const byName = new Map(types.map((t) => [t.name, t]));
    for (const name of ['cx23', 'cx33', 'cx43', 'cx53', 'cpx22', 'cpx32', 'cpx42', 'cpx52', 'cpx62', 'cax11', 'cax21', 'cax31', 'cax41'])
      expect(locationsOf(byName.get(name)), name).toEqual(expect.arrayContaining(['fsn1', 'hel1', 'nbg1']));
    for (const name of ['ccx13', 'ccx23', 'ccx33', 'ccx43', 'ccx53', 'ccx63'])
      expect(locationsOf(byName.get(name)), name).toEqual(['ash', 'fsn1', 'hel1', 'hil', 'nbg1', 'sin']);
    expect(byName.get('cpx52')).toMatchObject({ cores: 12, memory: 24, disk: 480, cpu_type: 'shared', architecture: 'x86' });
    expect(byName.get('cax41')).toMatchObject({ cores: 16, memory: 32, architecture: 'arm' });
    expect(byName.get('ccx63')).toMatchObject({ cores: 48, memory: 192, cpu_type: 'dedicated' });
    // Neither the cost-optimized nor the ARM line is sold in the US.
    expect(locationsOf(byName.get('cx23'))).not.toContain('ash');
    expect(locationsOf(byName.get('cax11'))).not.toContain('hil');
  });

  it('creates a cpx52 server in hel1, and refuses a cax11 in ash as Hetzner does (unsupported location for server type)', async () => {
    open();
    const created = await api.post('servers', { json: { name: 'big', server_type: 'cpx52', image: 'ubuntu-24.04', location: 'hel1' } });
    expect(created.statusCode).toBe(201);
    const refused = await api.post('servers', { json: { name: 'arm-us', server_type: 'cax11', image: 'ubuntu-24.04', location: 'ash' } });
    expect(refused.statusCode).toBe(400);
    expect((refused.body as unknown as Body).error).toEqual({ code: 'invalid_input', message: 'unsupported location for server type', details: {} });
  });

  it('prices every type where it is sold: per location, net and gross, hourly and monthly, in GET /server_types and GET /pricing', async () => {
    open();
    const cpx52 = (await serverTypes({ name: 'cpx52' }))[0];
    const hel1 = cpx52?.prices.find((p) => p.location === 'hel1');
    expect(hel1?.price_monthly).toEqual({ net: '28.4900', gross: '33.9031' });
    expect(Number(hel1?.price_hourly.net)).toBeGreaterThan(0);
    const pricing = (await api.get('pricing')).body as unknown as {
      pricing: {
        currency: string;
        vat_rate: string;
        server_types: Array<{ name: string; prices: Price[] }>;
        load_balancer_types: Array<{ name: string; prices: Price[] }>;
      };
    };
    expect(pricing.pricing).toMatchObject({ currency: 'EUR', vat_rate: '19.00' });
    const priced = new Map(pricing.pricing.server_types.map((t) => [t.name, t.prices.map((p) => p.location)]));
    for (const name of ['cx23', 'cpx22', 'cpx52', 'cax11', 'ccx13']) expect(priced.get(name)?.length, name).toBeGreaterThan(0);
    expect(pricing.pricing.load_balancer_types.map((t) => t.name)).toEqual(['lb11', 'lb21', 'lb31']);
    for (const t of pricing.pricing.load_balancer_types) expect(t.prices.map((p) => p.location)).toContain('fsn1');
    const lbTypes = (await api.get('load_balancer_types')).body as unknown as { load_balancer_types: Array<{ name: string; prices: Price[] }> };
    expect(lbTypes.load_balancer_types.find((t) => t.name === 'lb11')?.prices.find((p) => p.location === 'fsn1')?.price_monthly.net).toBe('5.3900');
  });

  it('lists the generations Hetzner deprecated on 2025-10-16 with their deprecation until 2025-12-31, and no longer after', async () => {
    open('2025-11-01T00:00:00Z');
    const before = new Map((await serverTypes()).map((t) => [t.name, t]));
    const retiring = { announced: '2025-10-16T00:00:00Z', unavailable_after: '2025-12-31T00:00:00Z' };
    // cx22: deprecated in every location it had, so also in the older top-level fields.
    expect(before.get('cx22')).toMatchObject({ deprecated: true, deprecation: retiring });
    expect(before.get('cx22')?.locations.every((l) => l.deprecation !== null)).toBe(true);
    // cpx11: deprecated in the EU, still sold in the US.
    const cpx11 = before.get('cpx11')?.locations;
    expect(cpx11?.find((l) => l.name === 'fsn1')?.deprecation).toEqual(retiring);
    expect(cpx11?.find((l) => l.name === 'ash')?.deprecation).toBeNull();
    expect(before.get('cpx11')).toMatchObject({ deprecated: false, deprecation: null });

    sandbox!.clock.advanceTo(Date.parse('2026-01-02T00:00:00Z'));
    const after = new Map((await serverTypes()).map((t) => [t.name, t]));
    expect(after.has('cx22')).toBe(false);
    expect(after.has('cpx11')).toBe(true);
    // Found by id still: servers of a retired type keep it.
    expect((await api.get(`server_types/${before.get('cx22')?.id}`)).statusCode).toBe(200);
    const cx22 = await api.post('servers', { json: { name: 'old', server_type: 'cx22', image: 'ubuntu-24.04', location: 'fsn1' } });
    expect((cx22.body as unknown as Body).error?.message).toBe('server type cx22 not found');
    const cpx11InEu = await api.post('servers', { json: { name: 'old-eu', server_type: 'cpx11', image: 'ubuntu-24.04', location: 'nbg1' } });
    expect((cpx11InEu.body as unknown as Body).error?.message).toBe('unsupported location for server type');
    expect((await api.post('servers', { json: { name: 'us', server_type: 'cpx11', image: 'ubuntu-24.04', location: 'ash' } })).statusCode).toBe(201);
  });

  it('lists in each data center the types it supports and, past their date, no longer the retired ones as available', async () => {
    open();
    const dcs = (
      (await api.get('datacenters')).body as unknown as {
        datacenters: Array<{ name: string; server_types: { supported: number[]; available: number[] } }>;
      }
    ).datacenters;
    expect(dcs.map((d) => d.name).sort()).toEqual(['ash-dc1', 'fsn1-dc14', 'hel1-dc2', 'hil-dc1', 'nbg1-dc3', 'sin-dc1']);
    const types = new Map((await serverTypes()).map((t) => [t.id, t.name]));
    const hel1 = dcs.find((d) => d.name === 'hel1-dc2')!;
    expect(hel1.server_types.available.map((id) => types.get(id))).toContain('cpx52');
    expect(hel1.server_types.available.map((id) => types.get(id))).not.toContain('cpx21');
    expect(dcs.find((d) => d.name === 'ash-dc1')!.server_types.available.map((id) => types.get(id))).toContain('cpx21');
  });

  it("answers for a server of a world an older sandbox saved (its type without prices) with the catalog's type", async () => {
    const first = open();
    const created = (await api.post('servers', { json: { name: 'kept', server_type: 'cpx32', image: 'ubuntu-24.04', location: 'nbg1' } })).body as unknown as {
      server: { id: number };
    };
    const world = first.snapshot();
    first.close();
    sandbox = undefined;
    const hetzner = world.clouds['hetzner'] as { store: { collections: Record<string, Array<[unknown, { serverType: Record<string, unknown> }]>> } };
    for (const [, server] of hetzner.store.collections['servers'] ?? []) {
      delete server.serverType['prices'];
      delete server.serverType['locations'];
    }
    sandbox = Sandbox.fromSnapshot(world).listen();
    const r = await api.get(`servers/${created.server.id}`);
    expect(r.statusCode).toBe(200);
    const type = (r.body as unknown as { server: { server_type: ServerType } }).server.server_type;
    expect(type.name).toBe('cpx32');
    expect(type.prices.map((p) => p.location)).toContain('nbg1');
  });

  it('lists the system images by name and architecture (ubuntu-22.04, ubuntu-24.04, debian-12 for x86 and arm)', async () => {
    open();
    const images = (
      (await api.get('images', { searchParams: { per_page: '50' } })).body as unknown as { images: Array<{ name: string; architecture: string }> }
    ).images;
    for (const name of ['ubuntu-22.04', 'ubuntu-24.04', 'debian-12'])
      expect(
        images.filter((i) => i.name === name).map((i) => i.architecture),
        name,
      ).toEqual(expect.arrayContaining(['x86', 'arm']));
  });
});
