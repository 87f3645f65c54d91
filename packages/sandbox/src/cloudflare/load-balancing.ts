// Load Balancing, which only an account with the subscription may use: monitors and pools of the account, and load
// balancers of a zone (a zone's list is empty without the subscription). A monitor a pool uses, or a pool a load
// balancer uses, cannot be deleted.
import { cloudflareCatalog } from '../catalogs/cloudflare/cloudflare-catalog.js';
import { EmulatorError, type Json, type Reply, reply, type RoutedCall } from '../emulator/index.js';
import {
  accountOf,
  type CloudflareRoute,
  type CloudflareWorld,
  type Lb,
  type Monitor,
  type Pool,
  requireLoadBalancing,
  route,
  type Zone,
  zoneOf,
} from './world.js';

type Call = RoutedCall<Json>;

export function loadBalancingRoutes(w: CloudflareWorld): CloudflareRoute[] {
  /** An account route: the account's own, with the subscription. */
  const account = (c: Call) => {
    accountOf(w, c.params['account'] ?? '');
    requireLoadBalancing(w);
  };
  const monitor = (c: Call) => {
    account(c);
    return monitorOf(w, c.params['monitor']);
  };
  const pool = (c: Call) => {
    account(c);
    return poolOf(w, c.params['pool']);
  };
  const zone = (c: Call) => zoneOf(w, c.params['zone'] ?? '');
  const lb = (c: Call) => {
    const z = zone(c);
    requireLoadBalancing(w);
    return lbOf(w, z, c.params['lb']);
  };
  const monitors = '/accounts/{account}/load_balancers/monitors';
  const pools = '/accounts/{account}/load_balancers/pools';
  const lbs = '/zones/{zone}/load_balancers';
  return [
    route(`GET ${monitors}`, (c) => {
      account(c);
      return reply([...w.monitors.values()].map((m) => ({ ...m })));
    }),
    route(`POST ${monitors}`, (c) => {
      account(c);
      const m: Monitor = { id: w.id(), ...monitorFields(c.body) };
      w.monitors.set(m.id, m);
      return reply({ ...m });
    }),
    route(`GET ${monitors}/{monitor}`, (c) => reply({ ...monitor(c) })),
    route(`PUT ${monitors}/{monitor}`, (c) => reply({ ...Object.assign(monitor(c), monitorFields(c.body)) })),
    route(`DELETE ${monitors}/{monitor}`, (c) => {
      const m = monitor(c);
      if (w.pools.find((p) => p.monitor === m.id)) throw new EmulatorError(400, 1002, 'monitor is referenced by pools');
      w.monitors.delete(m.id);
      return reply({ id: m.id });
    }),
    route(`GET ${pools}`, (c) => {
      account(c);
      return reply([...w.pools.values()]);
    }),
    route(`POST ${pools}`, (c) => {
      account(c);
      const f = poolFields(w, c.body);
      if (w.pools.find((p) => p.name === f.name)) throw new EmulatorError(400, 1002, `a pool named ${f.name} already exists`);
      const p: Pool = { id: w.id(), ...f };
      w.pools.set(p.id, p);
      return reply(p);
    }),
    route(`GET ${pools}/{pool}`, (c) => reply(pool(c))),
    route(`PUT ${pools}/{pool}`, (c) => reply(Object.assign(pool(c), poolFields(w, c.body)))),
    route(`DELETE ${pools}/{pool}`, (c) => {
      const p = pool(c);
      if (w.loadBalancers.find((l) => l.default_pools.includes(p.id) || l.fallback_pool === p.id))
        throw new EmulatorError(400, 1002, 'pool is referenced by load balancers');
      w.pools.delete(p.id);
      return reply({ id: p.id });
    }),
    route(`GET ${lbs}`, (c) => {
      const z = zone(c);
      return reply(w.loadBalancing() ? w.loadBalancers.filter((l) => l.zoneId === z.id) : []);
    }),
    route(`POST ${lbs}`, (c) => createLb(w, zone(c), c.body)),
    route(`GET ${lbs}/{lb}`, (c) => reply(lb(c))),
    route(`PUT ${lbs}/{lb}`, (c) => reply(Object.assign(lb(c), lbFields(w, c.body)))),
    route(`DELETE ${lbs}/{lb}`, (c) => {
      const l = lb(c);
      w.loadBalancers.delete(l.id);
      return reply({ id: l.id });
    }),
  ];
}

export function monitorOf(w: CloudflareWorld, id: string | undefined): Monitor {
  const m = id ? w.monitors.get(id) : undefined;
  if (!m) throw new EmulatorError(404, 1001, 'monitor not found');
  return m;
}

export function poolOf(w: CloudflareWorld, id: string | undefined): Pool {
  const p = id ? w.pools.get(id) : undefined;
  if (!p) throw new EmulatorError(404, 1001, 'pool not found');
  return p;
}

export function lbOf(w: CloudflareWorld, zone: Zone, id: string | undefined): Lb {
  const l = id ? w.loadBalancers.get(id) : undefined;
  if (!l || l.zoneId !== zone.id) throw new EmulatorError(404, 1001, 'load balancer not found');
  return l;
}

function monitorFields(body: Json): Omit<Monitor, 'id'> {
  const types = cloudflareCatalog().monitor_types;
  if (!types.includes(String(body['type']))) throw new EmulatorError(400, 1002, `monitor type must be one of ${types.join(', ')}`);
  const port = Number(body['port']);
  if (body['type'] === 'tcp' && !(port >= 1 && port <= 65535)) throw new EmulatorError(400, 1002, 'a tcp monitor needs a port');
  return {
    type: String(body['type']),
    port,
    description: String(body['description'] ?? ''),
    interval: Number(body['interval'] ?? 60),
    timeout: Number(body['timeout'] ?? 5),
    retries: Number(body['retries'] ?? 2),
  };
}

function poolFields(w: CloudflareWorld, body: Json): Omit<Pool, 'id'> {
  const origins = Array.isArray(body['origins']) ? (body['origins'] as Json[]) : [];
  if (origins.length === 0) throw new EmulatorError(400, 1002, 'a pool needs at least one origin');
  const monitor = typeof body['monitor'] === 'string' ? body['monitor'] : null;
  if (monitor && !w.monitors.has(monitor)) throw new EmulatorError(400, 1002, `monitor ${monitor} not found`);
  // check_regions: the Load Balancing regions whose data centers probe the pool (Cloudflare's region codes).
  const regions = cloudflareCatalog().load_balancing_regions.map((r) => r.code);
  const checkRegions = Array.isArray(body['check_regions']) ? (body['check_regions'] as unknown[]).map(String) : undefined;
  const unknown = checkRegions?.filter((r) => !regions.includes(r)) ?? [];
  if (unknown.length > 0) throw new EmulatorError(400, 1002, `check_regions: unknown region ${unknown.join(', ')}; regions are ${regions.join(', ')}`);
  return {
    name: String(body['name'] ?? ''),
    description: String(body['description'] ?? ''),
    monitor,
    origins,
    enabled: body['enabled'] !== false,
    // Always set, so a PUT without it clears an earlier list (undefined is left out of the JSON).
    check_regions: checkRegions,
  };
}

function lbFields(w: CloudflareWorld, body: Json): Omit<Lb, 'id' | 'zoneId'> {
  const pools = Array.isArray(body['default_pools']) ? (body['default_pools'] as unknown[]).map(String) : [];
  const fallback = String(body['fallback_pool'] ?? '');
  for (const p of [...pools, fallback]) if (!w.pools.has(p)) throw new EmulatorError(400, 1002, `pool ${p} not found`);
  return {
    name: String(body['name'] ?? ''),
    description: String(body['description'] ?? ''),
    default_pools: pools,
    fallback_pool: fallback,
    ttl: Number(body['ttl'] ?? 30),
    steering_policy: String(body['steering_policy'] ?? 'off'),
    proxied: body['proxied'] === true,
  };
}

function createLb(w: CloudflareWorld, zone: Zone, body: Json): Reply {
  requireLoadBalancing(w);
  const f = lbFields(w, body);
  if (w.records.find((r) => r.zoneId === zone.id && r.name === f.name)) throw new EmulatorError(400, 1002, `a DNS record for ${f.name} already exists`);
  const l: Lb = { id: w.id(), zoneId: zone.id, ...f };
  w.loadBalancers.set(l.id, l);
  return reply(l);
}
