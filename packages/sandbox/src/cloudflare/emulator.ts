// The Cloudflare API v4 emulator on the emulator frame: the `{success, errors, messages, result, result_info}` envelope
// (dialect.ts), zones and the token check (zones.ts), DNS records with the atomic batch endpoint (records.ts), account
// subscriptions, and Load Balancing (monitors, pools, load balancers) that only an account with the subscription may
// use (load-balancing.ts); the 1200-per-5-minutes limit; an inventory.
import { createHash } from 'node:crypto';
import type { HttpHandler } from 'msw';
import { TokenBucket, type TokenBucketLimits, type TokenBucketState } from '@kubeplane/sdk/provider';
import type { SandboxContext } from '../context.js';
import { EmulatorError, frameHandlers, type Json, ResourceStore, RouteTable, type WireCall } from '../emulator/index.js';
import { authenticationError, cloudflareDialect, rateLimited } from './dialect.js';
import { lbOf, loadBalancingRoutes, monitorOf, poolOf } from './load-balancing.js';
import { recordOf, recordRoutes } from './records.js';
import {
  accountOf,
  type CloudflareWorld,
  type DnsRec,
  type Lb,
  methodNotAllowed,
  type Monitor,
  type Pool,
  requireLoadBalancing,
  unroutedOperation,
  type Zone,
  zoneOf,
} from './world.js';
import { zoneRoutes } from './zones.js';

/** The Cloudflare API v4 base URL, which the emulator answers. */
export const CLOUDFLARE_API = 'https://api.cloudflare.com/client/v4';
/** The cloud name this emulator counts calls and takes faults under (a CloudName). */
export const CLOUDFLARE_CLOUD = 'cloudflare';

export type { DnsRec, Lb, Monitor, Pool, Zone } from './world.js';

/** One resource in the Cloudflare inventory: a DNS record, a load balancer, a pool or a monitor (`health-check`). */
export interface CloudflareInventoryItem {
  cloud: 'cloudflare';
  kind: 'dns-record' | 'load-balancer' | 'pool' | 'health-check';
  id: string;
  name?: string;
  /** From the `kubeplane:<cluster>` comment or description. */
  clusterId?: string;
}

/**
 * How the emulated Cloudflare account starts: its API token and account id, its zones, and whether it has Load
 * Balancing.
 */
export interface CloudflareEmulatorOptions {
  apiToken: string;
  accountId: string;
  zones: string[];
  /** Whether the account has the Load Balancing subscription. */
  loadBalancing: boolean;
  /** Cloudflare's limit: 1200 requests per 5 minutes. */
  rateLimit?: { capacity: number; refillPerSecond: number };
}

/**
 * Everything the emulator keeps, as plain data (sandbox snapshots): the account, its subscription and rate limit,
 * the id counter, and every zone, record, monitor, pool and load balancer (the store's collections, as entry lists).
 * Not in it: the API token (given again on restore) and `log`, which is for assertions.
 */
export interface CloudflareEmulatorState {
  accountId: string;
  loadBalancing: boolean;
  rateLimit: TokenBucketLimits;
  budget: TokenBucketState;
  seq: number;
  zones: Array<[string, Zone]>;
  records: Array<[string, DnsRec]>;
  monitors: Array<[string, Monitor]>;
  pools: Array<[string, Pool]>;
  loadBalancers: Array<[string, Lb]>;
}

/** The state's collections: the store's, by name. */
type Collections = Pick<CloudflareEmulatorState, 'zones' | 'records' | 'monitors' | 'pools' | 'loadBalancers'>;

const VERIFY_TOKEN = 'GET /user/tokens/verify';

/**
 * The Cloudflare API v4 (at CLOUDFLARE_API) of one account, as `sandbox.cloudflare`: the `{success, errors, result}`
 * envelope, zones and the token check, DNS records with the batch endpoint, and Load Balancing (monitors, pools, load
 * balancers) for an account with the subscription; 1200 requests per 5 minutes. No vendored document covers it.
 */
export class CloudflareEmulator {
  readonly #ctx: SandboxContext;
  readonly #options: CloudflareEmulatorOptions;
  readonly budget: TokenBucket;
  readonly #store = new ResourceStore();
  readonly #seq = this.#store.counter('seq');
  readonly zones = this.#store.collection<string, Zone>('zones');
  readonly records = this.#store.collection<string, DnsRec>('records');
  readonly monitors = this.#store.collection<string, Monitor>('monitors');
  readonly pools = this.#store.collection<string, Pool>('pools');
  readonly loadBalancers = this.#store.collection<string, Lb>('loadBalancers');
  /** Accepted requests (method, path, body), for assertions. */
  readonly log: Array<{ method: string; path: string; body?: Json }> = [];
  readonly #world: CloudflareWorld;
  readonly #routes: RouteTable<Json>;

  constructor(ctx: SandboxContext, options: CloudflareEmulatorOptions) {
    this.#ctx = ctx;
    this.#options = { ...options };
    const limits = options.rateLimit ?? { capacity: 1200, refillPerSecond: 4 };
    this.budget = new TokenBucket(limits, ctx.clock);
    this.#world = {
      accountId: options.accountId,
      zones: this.zones,
      records: this.records,
      monitors: this.monitors,
      pools: this.pools,
      loadBalancers: this.loadBalancers,
      loadBalancing: () => this.#options.loadBalancing,
      id: () => this.#id(),
      now: () => ctx.clock.now(),
    };
    this.#routes = new RouteTable([...zoneRoutes(this.#world, options.apiToken), ...recordRoutes(this.#world), ...loadBalancingRoutes(this.#world)]);
    for (const name of options.zones) this.addZone(name);
  }

  /** A zone the account's owner added, unless one of that name exists. */
  addZone(name: string): void {
    if (this.zones.find((z) => z.name === name)) return;
    const z: Zone = { id: this.#id(), name };
    this.zones.set(z.id, z);
  }

  get accountId(): string {
    return this.#options.accountId;
  }

  /** A deep copy of the emulator's state (see CloudflareEmulatorState). */
  state(): CloudflareEmulatorState {
    const { collections, counters } = this.#store.state();
    return {
      accountId: this.#options.accountId,
      loadBalancing: this.#options.loadBalancing,
      rateLimit: { ...this.budget.limits },
      budget: this.budget.state(),
      seq: counters['seq'] ?? 0,
      ...(collections as Collections),
    };
  }

  /**
   * Replaces the emulator's state with a copy of `state`, which must be of this emulator's account (the rate limit
   * is the constructor's option).
   */
  restore(state: CloudflareEmulatorState): void {
    if (state.accountId !== this.#options.accountId)
      throw new Error(`cannot restore the Cloudflare state of account ${state.accountId} into the emulator of account ${this.#options.accountId}`);
    const { zones, records, monitors, pools, loadBalancers } = state;
    this.#options.loadBalancing = state.loadBalancing;
    this.budget.restore(state.budget);
    this.#store.restore({ collections: { zones, records, monitors, pools, loadBalancers } satisfies Collections, counters: { seq: state.seq } });
  }

  /** The msw handlers serving CLOUDFLARE_API; the Sandbox installs them. */
  handlers(): HttpHandler[] {
    const token = `Bearer ${this.#options.apiToken}`;
    return frameHandlers(this.#ctx, {
      cloud: CLOUDFLARE_CLOUD,
      base: CLOUDFLARE_API,
      dialect: cloudflareDialect(() => `${this.#id().slice(0, 16)}-SBX`),
      routes: this.#routes,
      unroutedOperation,
      authenticate: (call) => (call.request.headers.get('authorization') === token ? undefined : authenticationError()),
      rateLimit: () => (this.budget.tryTake(1) > 0 ? rateLimited(String(Math.ceil(1 / this.budget.limits.refillPerSecond))) : undefined),
      beforeRoute: (call, body) => {
        if (call.operation !== VERIFY_TOKEN) this.log.push({ method: call.method, path: call.path, ...(Object.keys(body).length ? { body } : {}) });
      },
      unknown: (call) => this.#unrouted(call),
    });
  }

  /**
   * Every DNS record, load balancer, pool and monitor, with the cluster its `kubeplane:<cluster>` comment or description
   * names.
   */
  inventory(): CloudflareInventoryItem[] {
    const owner = (text: string | null) => (text?.startsWith('kubeplane:') ? text.slice('kubeplane:'.length).split(':')[0] : undefined);
    const item = (kind: CloudflareInventoryItem['kind'], id: string, name: string | undefined, mark: string | null): CloudflareInventoryItem => {
      const clusterId = owner(mark);
      return { cloud: 'cloudflare', kind, id, ...(name !== undefined ? { name } : {}), ...(clusterId ? { clusterId } : {}) };
    };
    return [
      ...[...this.records.values()].map((r) => item('dns-record', r.id, r.name, r.comment)),
      ...[...this.loadBalancers.values()].map((l) => item('load-balancer', l.id, l.name, l.description)),
      ...[...this.pools.values()].map((p) => item('pool', p.id, p.name, p.description)),
      ...[...this.monitors.values()].map((m) => item('health-check', m.id, undefined, m.description)),
    ];
  }

  #id(): string {
    return createHash('md5').update(`cf-${this.#seq.next()}`).digest('hex');
  }

  /**
   * A request no route takes, answered as Cloudflare does: the zone or account first (7003, 10000), then the
   * subscription and the resource a Load Balancing path names (1015, 1001) or the record (81044); a path that takes
   * other methods is then 405, any other 404 code 7000.
   */
  #unrouted(call: WireCall): EmulatorError {
    const w = this.#world;
    const [a, b, c, d, e, ...more] = call.path.split('/').filter(Boolean);
    if (a === 'zones' && b) {
      const zone = zoneOf(w, b);
      if (c === 'dns_records' && e === undefined) {
        if (d !== undefined) recordOf(w, zone, d);
        return methodNotAllowed(call.method);
      }
      if (c === 'load_balancers' && e === undefined) {
        requireLoadBalancing(w);
        lbOf(w, zone, d);
        return methodNotAllowed(call.method);
      }
    }
    if (a === 'accounts' && b) {
      accountOf(w, b);
      if (c === 'load_balancers') {
        requireLoadBalancing(w);
        if ((d === 'monitors' || d === 'pools') && more.length === 0) {
          if (d === 'monitors') monitorOf(w, e);
          else poolOf(w, e);
          return methodNotAllowed(call.method);
        }
      }
    }
    return new EmulatorError(404, 7000, 'No route for that URI');
  }
}
