// The Cloudflare provider (DNS only): zones and records, written in one atomic batch per change; health-checked
// failover through Cloudflare Load Balancing (a TCP monitor and a pool per record set, a load balancer per name)
// when the account has it, and plain records when it does not (berops/claudie#2005, #2029).
import { createHash } from 'node:crypto';
import * as z from 'zod';
import { KubeplaneError, type Clock, type Redacted } from '@kubeplane/sdk';
import {
  RateBudgets,
  type RateBudgetSource,
  done,
  guardedCall,
  type CallContext,
  type Capabilities,
  type DnsApi,
  type DnsChange,
  type DnsRecord,
  type Outcome,
  type Provider,
  type TaggedResource,
} from '@kubeplane/sdk/provider';
import { CLOUDFLARE_RATE_LIMIT, CloudflareClient } from './client.js';
import {
  dnsRecordSchema,
  loadBalancerSchema,
  monitorSchema,
  poolSchema,
  subscriptionSchema,
  zoneSchema,
  type CfDnsRecord,
  type CfLoadBalancer,
  type CfPool,
} from './schemas.js';

const PROVIDER = 'cloudflare';
/** Ownership mark on records (comment) and on monitors, pools and load balancers (description). */
const MARK = 'kubeplane:';
const LB_PRODUCT = 'prod_load_balancing';

/** How the Cloudflare provider is built: the API token, account, whether it has Load Balancing, clock and rate budgets. */
export interface CloudflareProviderOptions {
  apiToken: Redacted<string>;
  accountId: string;
  clock: Clock;
  /** Whether the account has Load Balancing (`CloudflareProvider.connect` finds out). Without it, failover records are written plain. */
  loadBalancing: boolean;
  budgets?: RateBudgetSource;
  baseUrl?: string;
  /** A source of [0,1) randomness for backoff jitter; pass a seeded one in tests. */
  random?: () => number;
}

type RecordRef = Pick<DnsRecord, 'name' | 'type' | 'setIdentifier'>;

const owner = (clusterId: string) => `${MARK}${clusterId}`;
const ownerOf = (text: string | null | undefined): string | undefined => (text?.startsWith(MARK) ? text.slice(MARK.length).split(':')[0] : undefined);
const short = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 10);

/** The Cloudflare provider (DNS only): records, with health-checked failover through Load Balancing when the account has it. */
export class CloudflareProvider implements Provider {
  readonly name = PROVIDER;
  readonly capabilities: Capabilities;
  readonly dns: DnsApi;
  readonly client: CloudflareClient;
  readonly accountId: string;
  readonly #random: () => number;
  readonly #zones = new Map<string, string>();
  #changes = 0;

  constructor(options: CloudflareProviderOptions) {
    const budgets = options.budgets ?? new RateBudgets(options.clock);
    this.accountId = options.accountId;
    this.client = new CloudflareClient({
      apiToken: options.apiToken,
      clock: options.clock,
      budget: budgets.get(`cloudflare:${options.accountId}`, CLOUDFLARE_RATE_LIMIT),
      ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
    });
    this.#random = options.random ?? Math.random;
    this.capabilities = {
      compute: false,
      network: false,
      dns: true,
      dnsFailover: options.loadBalancing,
      attachReservedIpAfterCreate: false,
      managedKubernetes: false,
    };
    const g = <T>(c: CallContext | undefined, call: () => Promise<Outcome<T>>) => this.#guard(c, call);
    this.dns = {
      upsertRecords: (zone, clusterId, records, c) => g(c, () => this.#upsert(zone, clusterId, records)),
      // Cloudflare applies a change when the API answers; there is nothing to poll.
      changeStatus: (id, c) => g(c, () => Promise.resolve(done({ id, status: 'in-sync' as const }))),
      listRecords: (zone, c) => g(c, async () => done(await this.#list(zone))),
      deleteRecords: (zone, clusterId, refs, c) => g(c, () => this.#delete(zone, clusterId, refs)),
      zones: (c) => g(c, async () => done((await this.client.list('zones', zoneSchema)).map((z2) => z2.name))),
    };
  }

  /**
   * Builds the provider after asking the account whether it has Load Balancing (GET /accounts/{id}/subscriptions,
   * product `prod_load_balancing`, as Claudie does since #2029). A missing subscription is not an error: failover
   * then degrades to plain records. A token that may not read subscriptions is (auth), with what to grant.
   */
  static async connect(options: Omit<CloudflareProviderOptions, 'loadBalancing'>): Promise<CloudflareProvider> {
    const probe = new CloudflareProvider({ ...options, loadBalancing: false });
    const subscriptions = await probe.client.call('GET', `accounts/${options.accountId}/subscriptions`, z.array(subscriptionSchema), {
      resource: `account ${options.accountId}`,
    });
    const has = subscriptions.result.some(
      (s) => s.product?.name === LB_PRODUCT || /load.?balanc/i.test(s.rate_plan?.id ?? '') || /load balancing/i.test(s.product?.public_name ?? ''),
    );
    return new CloudflareProvider({ ...options, loadBalancing: has });
  }

  /** The zones the token can see (name and id), for validating `dns.dnsZone` before anything is written. */
  zones(context?: CallContext): Promise<Outcome<Array<{ id: string; name: string }>>> {
    return this.#guard(context, async () => done((await this.client.list('zones', zoneSchema)).map((z2) => ({ id: z2.id, name: z2.name }))));
  }

  /** What the provider shows of itself in logs: never the token. */
  toJSON(): Record<string, unknown> {
    return { provider: PROVIDER, accountId: this.accountId, capabilities: this.capabilities };
  }

  /** Budget waits, throttles and transient failures become pending; terminal errors propagate. */
  #guard<T>(context: CallContext | undefined, call: () => Promise<Outcome<T>>): Promise<Outcome<T>> {
    return guardedCall(call, context?.attempt ?? 0, this.#random);
  }

  /** DNS-only: there is nothing tagged but records, monitors, pools and load balancers. */
  listClusterResources(clusterId: string, _region: string, context?: CallContext): Promise<Outcome<TaggedResource[]>> {
    return this.#guard(context, async () => {
      const out: TaggedResource[] = [];
      for (const zone of await this.client.list('zones', zoneSchema)) {
        for (const r of await this.client.list(`zones/${zone.id}/dns_records`, dnsRecordSchema))
          if (ownerOf(r.comment) === clusterId) out.push({ kind: 'dns-record', id: r.id, name: r.name });
        if (this.capabilities.dnsFailover)
          for (const lb of await this.client.list(`zones/${zone.id}/load_balancers`, loadBalancerSchema))
            if (ownerOf(lb.description) === clusterId) out.push({ kind: 'other', detail: 'load-balancer', id: lb.id, name: lb.name });
      }
      if (this.capabilities.dnsFailover) {
        for (const p of await this.#pools()) if (ownerOf(p.description) === clusterId) out.push({ kind: 'other', detail: 'pool', id: p.id, name: p.name });
        for (const m of await this.#monitors()) if (ownerOf(m.description) === clusterId) out.push({ kind: 'other', detail: 'monitor', id: m.id });
      }
      return done(out);
    });
  }

  /** Removes every record, load balancer, pool and monitor marked with the cluster, in dependency order. */
  teardownCluster(clusterId: string, _region: string, context?: CallContext): Promise<Outcome<void>> {
    return this.#guard(context, async () => {
      for (const zone of await this.client.list('zones', zoneSchema)) {
        const records = (await this.client.list(`zones/${zone.id}/dns_records`, dnsRecordSchema)).filter((r) => ownerOf(r.comment) === clusterId);
        if (records.length)
          await this.client.call('POST', `zones/${zone.id}/dns_records/batch`, z.unknown(), { body: { deletes: records.map((r) => ({ id: r.id })) } });
        if (this.capabilities.dnsFailover) {
          for (const lb of await this.client.list(`zones/${zone.id}/load_balancers`, loadBalancerSchema))
            if (ownerOf(lb.description) === clusterId) await this.#deleteQuietly(`zones/${zone.id}/load_balancers/${lb.id}`);
        }
      }
      if (this.capabilities.dnsFailover) await this.#sweepPools(clusterId, () => true);
      return done(undefined);
    });
  }

  async #zoneId(zone: string): Promise<string> {
    const cached = this.#zones.get(zone);
    if (cached) return cached;
    const found = (await this.client.list('zones', zoneSchema, { name: zone })).find((z2) => z2.name === zone);
    if (!found)
      throw new KubeplaneError('not-found', `cloudflare zone ${zone} is not in this account (or the token cannot see it)`, {
        provider: PROVIDER,
        code: 'zone_not_found',
        resource: zone,
      });
    this.#zones.set(zone, found.id);
    return found.id;
  }

  #pools(): Promise<CfPool[]> {
    return this.client.list(`accounts/${this.accountId}/load_balancers/pools`, poolSchema);
  }

  #monitors() {
    return this.client.list(`accounts/${this.accountId}/load_balancers/monitors`, monitorSchema);
  }

  async #deleteQuietly(path: string): Promise<void> {
    try {
      await this.client.call('DELETE', path, z.unknown());
    } catch (error) {
      if (!(error instanceof KubeplaneError && error.kind === 'not-found')) throw error;
    }
  }

  async #upsert(zone: string, clusterId: string, records: DnsRecord[]): Promise<Outcome<DnsChange>> {
    const zoneId = await this.#zoneId(zone);
    const warnings: string[] = [];
    const health = records.filter((r) => r.failover || r.healthCheck);
    const plain: DnsRecord[] = records.filter((r) => !r.failover && !r.healthCheck);
    if (health.length && !this.capabilities.dnsFailover) {
      // No Load Balancing on the account: what Claudie does since #2029 — carry on without health checks, all
      // values of a name in one plain record set, and say so.
      const byName = new Map<string, DnsRecord>();
      for (const r of health) {
        const key = `${r.name}/${r.type}`;
        const prev = byName.get(key);
        byName.set(key, { name: r.name, type: r.type, ttl: Math.min(prev?.ttl ?? r.ttl, r.ttl), values: [...new Set([...(prev?.values ?? []), ...r.values])] });
      }
      plain.push(...byName.values());
      warnings.push(
        `the Cloudflare account has no Load Balancing subscription: ${[...byName.keys()].join(', ')} written as plain records without health checks`,
      );
    }
    await this.#applyPlain(zoneId, clusterId, plain);
    if (health.length && this.capabilities.dnsFailover) await this.#applyLoadBalanced(zoneId, clusterId, health);
    this.#changes += 1;
    return done({
      id: `cf-${zoneId.slice(0, 8)}-${this.#changes}-${short(JSON.stringify(records))}`,
      status: 'in-sync',
      ...(warnings.length ? { warnings } : {}),
    });
  }

  /** One atomic batch per zone: deletes, patches and posts bring the names' record sets to the values asked. */
  async #applyPlain(zoneId: string, clusterId: string, records: DnsRecord[]): Promise<void> {
    if (records.length === 0) return;
    const existing = await this.client.list(`zones/${zoneId}/dns_records`, dnsRecordSchema);
    const deletes: Array<{ id: string }> = [];
    const patches: Array<{ id: string; ttl: number; comment: string }> = [];
    const posts: Array<Record<string, unknown>> = [];
    for (const r of records) {
      const same = existing.filter((e) => e.name === r.name && e.type === r.type);
      const foreign = existing.filter(
        (e) => e.name === r.name && ownerOf(e.comment) !== clusterId && (e.type === r.type || e.type === 'CNAME' || r.type === 'CNAME'),
      );
      if (foreign.length)
        throw new KubeplaneError(
          'conflict',
          `cloudflare ${r.type} ${r.name} exists and is not kubeplane's for cluster ${clusterId}; remove it or choose another hostname`,
          { provider: PROVIDER, code: 'record_not_owned', resource: r.name },
        );
      for (const e of same) {
        if (!r.values.includes(e.content)) deletes.push({ id: e.id });
        else if (e.ttl !== r.ttl) patches.push({ id: e.id, ttl: r.ttl, comment: owner(clusterId) });
      }
      for (const value of r.values)
        if (!same.some((e) => e.content === value))
          posts.push({ name: r.name, type: r.type, content: value, ttl: r.ttl, proxied: false, comment: owner(clusterId) });
    }
    if (deletes.length + patches.length + posts.length === 0) return;
    await this.client.call('POST', `zones/${zoneId}/dns_records/batch`, z.unknown(), {
      body: { deletes, patches, posts },
      resource: records.map((r) => r.name).join(', '),
    });
  }

  /** Per record set a TCP monitor and a pool; per name a load balancer, pools ordered primary first. */
  async #applyLoadBalanced(zoneId: string, clusterId: string, records: DnsRecord[]): Promise<void> {
    const monitors = await this.#monitors();
    const pools = await this.#pools();
    const lbs = await this.client.list(`zones/${zoneId}/load_balancers`, loadBalancerSchema);
    const byName = new Map<string, DnsRecord[]>();
    for (const r of records) byName.set(r.name, [...(byName.get(r.name) ?? []), r]);
    for (const [name, sets] of byName) {
      const ordered = [...sets].sort((a, b) => (a.failover?.role === 'primary' ? -1 : 0) - (b.failover?.role === 'primary' ? -1 : 0));
      const poolIds: string[] = [];
      for (const r of ordered) {
        const setId = r.setIdentifier ?? r.failover?.role ?? 'default';
        const desc = `${owner(clusterId)}:${name}:${setId}`;
        const check = r.failover?.healthCheck ?? r.healthCheck;
        const monitorBody = { type: 'tcp', port: check?.port ?? 65534, interval: 60, timeout: 5, retries: 2, description: desc };
        let monitor = monitors.find((m) => m.description === desc);
        if (!monitor)
          monitor = (await this.client.call('POST', `accounts/${this.accountId}/load_balancers/monitors`, monitorSchema, { body: monitorBody, resource: name }))
            .result;
        else if (monitor.port !== monitorBody.port)
          await this.client.call('PUT', `accounts/${this.accountId}/load_balancers/monitors/${monitor.id}`, monitorSchema, {
            body: monitorBody,
            resource: name,
          });
        const poolBody = {
          name: `kp-${short(`${clusterId}/${name}`)}-${setId}`.slice(0, 60).replace(/[^a-zA-Z0-9_-]/g, '-'),
          description: desc,
          monitor: monitor.id,
          enabled: true,
          origins: r.values.map((address, i) => ({ name: `${setId}-${i + 1}`, address, enabled: true })),
        };
        let pool = pools.find((p) => p.description === desc);
        if (!pool)
          pool = (await this.client.call('POST', `accounts/${this.accountId}/load_balancers/pools`, poolSchema, { body: poolBody, resource: name })).result;
        else if (JSON.stringify(pool.origins.map((o) => o.address).sort()) !== JSON.stringify([...r.values].sort()) || pool.monitor !== monitor.id) {
          await this.client.call('PUT', `accounts/${this.accountId}/load_balancers/pools/${pool.id}`, poolSchema, { body: poolBody, resource: name });
        }
        poolIds.push(pool.id);
      }
      const failover = ordered.some((r) => r.failover);
      const body = {
        name,
        description: `${owner(clusterId)}:${name}`,
        default_pools: poolIds,
        fallback_pool: poolIds[poolIds.length - 1],
        proxied: false,
        ttl: Math.min(...ordered.map((r) => r.ttl)),
        steering_policy: failover ? 'off' : 'random',
      };
      const lb = lbs.find((l) => l.name === name);
      if (lb && ownerOf(lb.description) !== clusterId)
        throw new KubeplaneError('conflict', `cloudflare load balancer ${name} is not kubeplane's for cluster ${clusterId}`, {
          provider: PROVIDER,
          code: 'lb_not_owned',
          resource: name,
        });
      if (!lb) await this.client.call('POST', `zones/${zoneId}/load_balancers`, loadBalancerSchema, { body, resource: name });
      else if (JSON.stringify(lb.default_pools) !== JSON.stringify(poolIds) || lb.steering_policy !== body.steering_policy)
        await this.client.call('PUT', `zones/${zoneId}/load_balancers/${lb.id}`, loadBalancerSchema, { body, resource: name });
    }
  }

  async #list(zone: string): Promise<DnsRecord[]> {
    const zoneId = await this.#zoneId(zone);
    const records = await this.client.list(`zones/${zoneId}/dns_records`, dnsRecordSchema);
    const grouped = new Map<string, CfDnsRecord[]>();
    for (const r of records) grouped.set(`${r.name}/${r.type}`, [...(grouped.get(`${r.name}/${r.type}`) ?? []), r]);
    const out: DnsRecord[] = [...grouped.values()].map((rs) => ({
      name: rs[0]?.name ?? '',
      type: (rs[0]?.type ?? 'A') as DnsRecord['type'],
      ttl: rs[0]?.ttl ?? 1,
      values: rs.map((r) => r.content).sort(),
    }));
    if (this.capabilities.dnsFailover) {
      const pools = new Map((await this.#pools()).map((p) => [p.id, p] as const));
      const monitors = new Map((await this.#monitors()).map((m) => [m.id, m] as const));
      for (const lb of await this.client.list(`zones/${zoneId}/load_balancers`, loadBalancerSchema)) out.push(...this.#lbRecords(lb, pools, monitors));
    }
    return out;
  }

  #lbRecords(lb: CfLoadBalancer, pools: Map<string, CfPool>, monitors: Map<string, z.infer<typeof monitorSchema>>): DnsRecord[] {
    return lb.default_pools.flatMap((id, i) => {
      const pool = pools.get(id);
      if (!pool) return [];
      const setIdentifier = pool.description?.split(':').at(-1) ?? pool.name;
      const port = pool.monitor ? monitors.get(pool.monitor)?.port : undefined;
      const values = pool.origins.map((o) => o.address);
      const healthCheck = port !== undefined && values[0] ? { ip: values[0], port } : undefined;
      return [
        {
          name: lb.name,
          type: 'A' as const,
          ttl: lb.ttl ?? 30,
          values,
          setIdentifier,
          ...(lb.steering_policy === 'off'
            ? { failover: { role: i === 0 ? ('primary' as const) : ('secondary' as const), ...(healthCheck ? { healthCheck } : {}) } }
            : healthCheck
              ? { healthCheck }
              : {}),
        },
      ];
    });
  }

  async #delete(zone: string, clusterId: string, refs: RecordRef[]): Promise<Outcome<void>> {
    const zoneId = await this.#zoneId(zone);
    const existing = await this.client.list(`zones/${zoneId}/dns_records`, dnsRecordSchema);
    const doomed = existing.filter((e) => ownerOf(e.comment) === clusterId && refs.some((r) => r.name === e.name && r.type === e.type));
    if (doomed.length)
      await this.client.call('POST', `zones/${zoneId}/dns_records/batch`, z.unknown(), { body: { deletes: doomed.map((r) => ({ id: r.id })) } });
    if (this.capabilities.dnsFailover) {
      const names = new Set(refs.map((r) => r.name));
      const lbs = (await this.client.list(`zones/${zoneId}/load_balancers`, loadBalancerSchema)).filter(
        (l) => names.has(l.name) && ownerOf(l.description) === clusterId,
      );
      const pools = await this.#pools();
      for (const lb of lbs) {
        const removing = (p: CfPool) =>
          refs.some((r) => r.name === lb.name && (r.setIdentifier === undefined || p.description?.endsWith(`:${r.setIdentifier}`)));
        const keep = lb.default_pools.filter((id) => {
          const p = pools.find((x) => x.id === id);
          return p !== undefined && !removing(p);
        });
        // The load balancer goes (or loses the pools) before the pools, and the pools before their monitors.
        if (keep.length === 0) await this.#deleteQuietly(`zones/${zoneId}/load_balancers/${lb.id}`);
        else
          await this.client.call('PUT', `zones/${zoneId}/load_balancers/${lb.id}`, loadBalancerSchema, {
            body: { ...lb, default_pools: keep, fallback_pool: keep[keep.length - 1] },
          });
      }
      await this.#sweepPools(clusterId, (p) =>
        refs.some(
          (r) =>
            p.description?.startsWith(`${owner(clusterId)}:${r.name}:`) && (r.setIdentifier === undefined || p.description.endsWith(`:${r.setIdentifier}`)),
        ),
      );
    }
    return done(undefined);
  }

  /** Deletes the cluster's pools (that match) and then the monitors no pool uses any more. */
  async #sweepPools(clusterId: string, match: (p: CfPool) => boolean): Promise<void> {
    const pools = await this.#pools();
    const gone = new Set<string>();
    for (const p of pools) {
      if (ownerOf(p.description) !== clusterId || !match(p)) continue;
      await this.#deleteQuietly(`accounts/${this.accountId}/load_balancers/pools/${p.id}`);
      gone.add(p.id);
    }
    const used = new Set(pools.filter((p) => !gone.has(p.id)).map((p) => p.monitor));
    for (const m of await this.#monitors())
      if (ownerOf(m.description) === clusterId && !used.has(m.id)) await this.#deleteQuietly(`accounts/${this.accountId}/load_balancers/monitors/${m.id}`);
  }
}
