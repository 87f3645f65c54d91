// The Hetzner Cloud API emulator (JSON over HTTPS, hetzner-cloud-openapi.json): servers, networks, firewalls,
// primary IPs, SSH keys, placement groups, volumes, floating IPs, load balancers, certificates, DNS zones, actions and
// catalogs; label selectors, pagination, the project's rate limit with RateLimit-* headers and the
// {error:{code,message}} envelope. This class wires the project's store, the dialect (dialect.ts) and each family's
// routes onto the emulator frame, and is what the sandbox and tests hold.
import { RATE_LIMITS, TokenBucket, type TokenBucketLimits, type TokenBucketState } from '@kubeplane/sdk/provider';
import type { HttpHandler } from 'msw';
import type { SandboxContext } from '../context.js';
import { type Collection, EmulatorError, type EmulatorFrame, frameHandlers, type Json, RouteTable, type StoreState, type WireCall } from '../emulator/index.js';
import type { InventoryItem } from '../inventory.js';
import type { SandboxVm, SandboxVmSource } from '../kubernetes/vm-source.js';
import { actionRoutes } from './actions.js';
import { HETZNER_IMAGES } from './catalog.js';
import { catalogRoutes } from './catalog-routes.js';
import { documentValidator, requestChecker } from '../openapi/request-check.js';
import { Certificates } from './certificates.js';
import { HETZNER_DOCUMENT, hetznerRefusal } from './document.js';
import { hetznerDialect, overBudget, unauthorized } from './dialect.js';
import { DnsZones, type RRSet, type Zone } from './dns-zones.js';
import { Firewalls } from './firewalls.js';
import { FloatingIps } from './floating-ips.js';
import { LoadBalancers } from './load-balancers.js';
import { Networks } from './networks.js';
import { PlacementGroups } from './placement-groups.js';
import { PrimaryIps } from './primary-ips.js';
import { found, HetznerProject } from './project.js';
import type { Action, Firewall, Network, PlacementGroup, PrimaryIp, Server, SshKey } from './resources.js';
import { Servers } from './servers.js';
import { SshKeys } from './ssh-keys.js';
import { Volumes } from './volumes.js';

export type { RRSet, Zone } from './dns-zones.js';
export type { Action, Firewall, Network, PlacementGroup, PrimaryIp, Server, SshKey } from './resources.js';

/**
 * The Hetzner Cloud API's base URL, which the emulator answers and its vendored OpenAPI document
 * (hetzner-cloud-openapi.json) describes.
 */
export const HETZNER_API = 'https://api.hetzner.cloud/v1';

/** How the emulated Hetzner project starts: its token, rate limit and the DNS zones its owner already has. */
export interface HetznerEmulatorOptions {
  /** The API token the project accepts. */
  token: string;
  /** The project's rate limit (default: 3600 per hour, refilling 1 per second). */
  rateLimit?: TokenBucketLimits;
  /** Requests already spent by other tools sharing the project when the sandbox starts. */
  initiallySpent?: number;
  /** The sandbox's seed, from which private interfaces' MAC addresses are derived (default 1). */
  macSeed?: number;
  /** DNS zones that exist in the project before the test (user-owned). */
  dnsZones?: string[];
  /** Whether requests are checked against Hetzner's OpenAPI document, as the API checks them (default true). */
  checkRequests?: boolean;
}

/**
 * Everything the emulator keeps, as plain data (sandbox snapshots). It includes the servers' user-data, which
 * holds cluster private keys: whoever writes it to disk writes it with mode 0600, and nobody logs it.
 */
export interface HetznerEmulatorState {
  rateLimit: TokenBucketLimits;
  budget: TokenBucketState;
  macSeed: number;
  /** Every resource (servers, networks… DNS zones and RRSets, actions) and the id counters. */
  store: StoreState;
  throttled: number;
  requests: number;
  requestTimes: number[];
}

/**
 * The Hetzner Cloud API (JSON over HTTPS at HETZNER_API) of one project, as `sandbox.hetzner`: servers, networks,
 * firewalls, volumes, load balancers, DNS zones… with actions, label selectors, pagination, the rate limit and its
 * `{error:{code,message}}` envelope. Under the conformance check its traffic is validated against
 * hetzner-cloud-openapi.json.
 */
export class HetznerEmulator implements SandboxVmSource {
  readonly #ctx: SandboxContext;
  readonly #token: string;
  readonly #project: HetznerProject;
  readonly #servers: Servers;
  readonly #frame: EmulatorFrame<Json>;
  /** The families whose every path below `/<family>/{id}` looks the resource up before the rest of the path. */
  readonly #looksUpFirst: Record<string, [Map<number, unknown>, string]>;
  readonly budget: TokenBucket;
  readonly servers: Collection<number, Server>;
  readonly networks: Collection<number, Network>;
  readonly firewalls: Collection<number, Firewall>;
  readonly primaryIps: Collection<number, PrimaryIp>;
  readonly sshKeys: Collection<number, SshKey>;
  readonly placementGroups: Collection<number, PlacementGroup>;
  readonly actions: Collection<number, Action>;
  readonly dns: DnsZones;
  readonly volumes: Volumes;
  readonly floatingIps: FloatingIps;
  readonly loadBalancers: LoadBalancers;
  readonly certificates: Certificates;
  /** How many 429s the emulator has sent. */
  throttled = 0;
  requests = 0;
  /** Virtual time of every request received, for rate assertions. */
  readonly requestTimes: number[] = [];

  constructor(ctx: SandboxContext, options: HetznerEmulatorOptions) {
    this.#ctx = ctx;
    this.#token = options.token;
    const limits = options.rateLimit ?? RATE_LIMITS.hetznerProject;
    this.budget = new TokenBucket(limits, ctx.clock, limits.capacity - (options.initiallySpent ?? 0));
    const p = new HetznerProject(ctx, options.macSeed ?? 1);
    this.#project = p;
    this.servers = p.servers;
    this.networks = p.networks;
    this.firewalls = p.firewalls;
    this.primaryIps = p.primaryIps;
    this.sshKeys = p.sshKeys;
    this.placementGroups = p.placementGroups;
    this.actions = p.actions;
    // Made in the order the inventory lists them, after the project's own.
    const serverLocation = (id: number) => found(p.servers, id, 'server').location.name;
    this.volumes = new Volumes(p, serverLocation);
    this.floatingIps = new FloatingIps(p, serverLocation);
    this.loadBalancers = new LoadBalancers(p, () => [...p.servers.values()]);
    this.certificates = new Certificates(p);
    this.dns = new DnsZones(p);
    for (const name of options.dnsZones ?? ['example.de']) this.addDnsZone(name);
    const networks = new Networks(p);
    const firewalls = new Firewalls(p);
    const primaryIps = new PrimaryIps(p);
    const placementGroups = new PlacementGroups(p);
    const neighbours = {
      networks,
      firewalls,
      primaryIps,
      placementGroups,
      volumes: this.volumes,
      floatingIps: this.floatingIps,
      loadBalancers: this.loadBalancers,
    };
    this.#servers = new Servers(p, neighbours);
    this.#looksUpFirst = {
      servers: [this.servers, 'server'],
      firewalls: [this.firewalls, 'firewall'],
      volumes: [this.volumes.items, 'volume'],
      floating_ips: [this.floatingIps.items, 'floating_ip'],
      load_balancers: [this.loadBalancers.items, 'load_balancer'],
      certificates: [this.certificates.items, 'certificate'],
    };
    const routes = new RouteTable<Json>([
      ...this.#servers.routes(),
      ...this.volumes.routes(),
      ...this.floatingIps.routes(),
      ...this.loadBalancers.routes(),
      ...this.certificates.routes(),
      ...networks.routes(),
      ...firewalls.routes(),
      ...primaryIps.routes(),
      ...new SshKeys(p).routes(),
      ...placementGroups.routes(),
      ...actionRoutes(p, {
        servers: (id) => p.servers.has(id),
        floating_ips: (id) => this.floatingIps.items.has(id),
        primary_ips: (id) => p.primaryIps.has(id),
        volumes: (id) => this.volumes.items.has(id),
        load_balancers: (id) => this.loadBalancers.items.has(id),
        networks: (id) => p.networks.has(id),
        firewalls: (id) => p.firewalls.has(id),
        certificates: (id) => this.certificates.items.has(id),
        images: (id) => HETZNER_IMAGES.some((i) => i.id === id),
      }),
      ...catalogRoutes(p),
      ...this.dns.routes(),
    ]);
    this.#frame = {
      cloud: 'hetzner',
      base: HETZNER_API,
      dialect: hetznerDialect({ now: () => p.now(), rateHeaders: () => this.#rateHeaders() }),
      routes,
      // Fault rules and call counts name a request no route takes by its path, numeric segments as `{id}`.
      unroutedOperation: (call) => `${call.method} ${call.path.replace(/\/\d+(?=\/|$)/g, '/{id}')}`,
      received: () => {
        this.requests += 1;
        this.requestTimes.push(p.now());
      },
      // Refused before the rate limit: the answer carries no RateLimit-* headers.
      authenticate: (call) => (call.request.headers.get('authorization') === `Bearer ${this.#token}` ? undefined : unauthorized(true)),
      rateLimit: () => (this.budget.tryTake(1) > 0 ? overBudget(this.#rateHeaders()) : undefined),
      throttled: () => {
        this.throttled += 1;
      },
      unknown: (call) => this.#unknown(call),
      // Query parameters and bodies as Hetzner's OpenAPI document has them, refused as the API refuses them.
      ...(options.checkRequests === false ? {} : { checkRequest: requestChecker(HETZNER_DOCUMENT, { unknownFields: true, refuse: hetznerRefusal }) }),
    };
  }

  /** The wire operations the emulator serves (`GET /servers/{id}`), for the coverage table. */
  servedOperations(): string[] {
    return this.#frame.routes.operations();
  }

  /** A DNS zone the project's owner made (with its SOA and NS records), unless one of that name exists. */
  addDnsZone(name: string): void {
    this.dns.add(name);
  }

  get zones(): Map<number, Zone> {
    return this.dns.zones;
  }

  /** The RRSets of every zone, in the order they were made. */
  get rrsets(): RRSet[] {
    return [...this.dns.rrsets.values()];
  }

  /** A deep copy of the emulator's state. */
  state(): HetznerEmulatorState {
    return {
      rateLimit: { ...this.budget.limits },
      budget: structuredClone(this.budget.state()),
      macSeed: this.#project.macSeed,
      store: this.#project.store.state(),
      throttled: this.throttled,
      requests: this.requests,
      requestTimes: [...this.requestTimes],
    };
  }

  /** Replaces the emulator's state with a copy of `state` (the rate limit is the constructor's option). */
  restore(state: HetznerEmulatorState): void {
    this.budget.restore(structuredClone(state.budget));
    this.#project.macSeed = state.macSeed;
    this.#project.store.restore(state.store);
    this.throttled = state.throttled;
    this.requests = state.requests;
    this.requestTimes.splice(0, this.requestTimes.length, ...state.requestTimes);
  }

  /** The msw handlers serving HETZNER_API; the Sandbox installs them (with the conformance check when it is on). */
  handlers(): HttpHandler[] {
    return frameHandlers(this.#ctx, this.#frame);
  }

  /**
   * Every resource the project holds (servers, networks, primary IPs, DNS records…), read from its state, not through
   * the API.
   */
  inventory(): InventoryItem[] {
    return this.#project.store.inventory();
  }

  /** The servers as machines for the simulated kubelets (vm-source.ts). */
  listVms(): SandboxVm[] {
    return this.#servers.listVms();
  }

  /**
   * `RateLimit-Reset` is "a UNIX timestamp of the point in time when your request limit will be reset"
   * (https://docs.hetzner.cloud/reference/cloud#rate-limiting), so it is in the sandbox's virtual time, and every
   * response carries a `Date` of that same clock (dialect.ts): a client that waits `Reset - Date`, the only reading
   * that does not assume its clock is the server's, waits the right virtual time. Served at speed > 1 that is longer in
   * real time than needed, never shorter, so the retry finds the budget refilled. A client that reads Reset against
   * its own wall clock sees a reset long past, as it would against a server whose clock is skewed.
   */
  #rateHeaders(): Record<string, string> {
    const remaining = Math.floor(this.budget.available());
    const { capacity, refillPerSecond } = this.budget.limits;
    const reset = Math.ceil(this.#project.now() / 1000 + (capacity - remaining) / refillPerSecond);
    return { 'RateLimit-Limit': String(capacity), 'RateLimit-Remaining': String(remaining), 'RateLimit-Reset': String(reset) };
  }

  /**
   * A request no route takes, answered as the API's router finds it: below /zones the zone, then the RRSet; elsewhere
   * an id that is not an integer, or (in the families that look it up first) one of no resource, is a resource not
   * found; anything else is not an endpoint.
   */
  #unknown(call: WireCall): EmulatorError {
    const segments = call.path.split('/').filter(Boolean);
    if (segments[0] === 'zones') return this.dns.unrouted(call.method, segments.slice(1).map(decodeSegment));
    const [collection, idText] = segments;
    if (idText !== undefined && !Number.isInteger(Number(idText))) return new EmulatorError(404, 'not_found', `${collection}/${idText} not found`);
    const family = collection === undefined ? undefined : this.#looksUpFirst[collection];
    if (idText !== undefined && family && !family[0].has(Number(idText)))
      return new EmulatorError(404, 'not_found', `${family[1]} with ID '${Number(idText)}' not found`);
    // An operation Hetzner's API has and the sandbox does not emulate is refused in the sealed sandbox's words, with
    // `unsupported_error` (400, "the given resource does not support this"): never `not_found`, which a client reads as
    // "the server is gone" (a Terraform provider drops it from its state), and never a code hcloud-go retries.
    const documented = documentValidator(HETZNER_DOCUMENT)?.operationName(call.method, call.url.pathname);
    if (documented)
      return new EmulatorError(
        400,
        'unsupported_error',
        `the sandbox does not serve ${documented}: Hetzner's API has it, the sandbox does not emulate it (docs/sandbox.md)`,
      );
    return new EmulatorError(404, 'not_found', `${call.method} ${call.path} is not an endpoint of this API`);
  }
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
