// The Hetzner Cloud API emulator (JSON over HTTPS, hetzner-cloud-openapi.json): servers, networks, firewalls,
// primary IPs, SSH keys, placement groups, actions, catalogs; label selectors, pagination, the project's
// rate limit with RateLimit-* headers and the {error:{code,message}} envelope.
import { createHash } from 'node:crypto';
import { http, HttpResponse, type HttpHandler } from 'msw';
import { TokenBucket, RATE_LIMITS, type TokenBucketLimits, type TokenBucketState } from '@kubeplane/sdk';
import { type SandboxContext, countCall, requestId } from '../context.js';
import type { FaultKind } from '../faults.js';
import type { InventoryItem } from '../inventory.js';
import type { SandboxVm, SandboxVmSource } from '../kubernetes/vm-source.js';
import { LATENCY, sample } from '../latency.js';
import {
  HETZNER_DATACENTERS,
  HETZNER_IMAGE_CREATED,
  HETZNER_IMAGE_DISK_GB,
  HETZNER_IMAGES,
  HETZNER_ISOS,
  HETZNER_LOAD_BALANCER_TYPES,
  HETZNER_LOCATIONS,
  HETZNER_SERVER_TYPE_LOCATIONS,
  HETZNER_SERVER_TYPES,
} from './catalog.js';
import { sandboxPublicAddress } from '../public-addresses.js';
import { ApiError, invalidInput, type Json, type Labels } from './api-error.js';
import { hetznerLabelSelector } from './label-selector.js';
import { page, sorted } from './listing.js';
import { found, SORT_ID_NAME_CREATED, type HetznerProject } from './project.js';
import { Volumes, type Volume } from './volumes.js';
import { FloatingIps, type FloatingIp } from './floating-ips.js';
import { LoadBalancers, type LoadBalancer } from './load-balancers.js';
import { Certificates, type Certificate } from './certificates.js';
import { privateNetMac } from './mac-addresses.js';
import { DnsZones, type RRSet, type Zone } from './dns-zones.js';

export type { RRSet, Zone } from './dns-zones.js';

export const HETZNER_API = 'https://api.hetzner.cloud/v1';
const CLUSTER_LABEL = 'kubeplane.dev/cluster-id';
const USER_DATA_LIMIT = 32 * 1024;
// DELETE /primary_ips/{id}: from this date an assigned Primary IP "needs to be unassigned before it can be deleted".
const MUST_UNASSIGN_FROM = Date.parse('2026-05-01T00:00:00Z');

export interface Server {
  id: number;
  name: string;
  labels: Labels;
  created: number;
  runningAt: number;
  serverType: (typeof HETZNER_SERVER_TYPES)[number];
  image: (typeof HETZNER_IMAGES)[number];
  location: (typeof HETZNER_LOCATIONS)[number];
  ipv4?: { id: number; ip: string };
  privateNets: Array<{ network: number; ip: string; mac?: string }>;
  /** Whether the server is (to be) powered off, and when the last power action completes; on when unset. */
  power?: { on: boolean; at: number };
  firewalls: number[];
  placementGroup?: number;
  userDataBytes: number;
  /** Kept in memory for the simulated kubelets (it holds bootstrap tokens): never in the inventory. */
  userData: string;
}
export interface Network {
  id: number;
  name: string;
  labels: Labels;
  ipRange: string;
  subnets: Array<{ type: string; ip_range: string; network_zone: string; gateway: string }>;
  created: number;
  nextHost: number;
}
export interface Firewall {
  id: number;
  name: string;
  labels: Labels;
  rules: Json[];
  appliedTo: Json[];
  created: number;
}
export interface PrimaryIp {
  id: number;
  name: string;
  labels: Labels;
  ip: string;
  assigneeId: number | null;
  autoDelete: boolean;
  location: (typeof HETZNER_LOCATIONS)[number];
  created: number;
}
export interface SshKey {
  id: number;
  name: string;
  labels: Labels;
  publicKey: string;
  fingerprint: string;
  created: number;
}
export interface PlacementGroup {
  id: number;
  name: string;
  labels: Labels;
  created: number;
}
export interface Action {
  id: number;
  command: string;
  started: number;
  finishAt: number;
  resources: Array<{ id: number; type: string }>;
}

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
}

/**
 * Everything the emulator keeps, as plain data (sandbox snapshots). It includes the servers' user-data, which
 * holds cluster private keys: whoever writes it to disk writes it with mode 0600, and nobody logs it.
 */
export interface HetznerEmulatorState {
  rateLimit: TokenBucketLimits;
  budget: TokenBucketState;
  nextId: number;
  nextIp: number;
  /** Absent in snapshots taken before MACs were derived from the seed (they used 1). */
  macSeed?: number;
  servers: Array<[number, Server]>;
  networks: Array<[number, Network]>;
  firewalls: Array<[number, Firewall]>;
  primaryIps: Array<[number, PrimaryIp]>;
  sshKeys: Array<[number, SshKey]>;
  placementGroups: Array<[number, PlacementGroup]>;
  actions: Array<[number, Action]>;
  zones: Array<[number, Zone]>;
  rrsets: RRSet[];
  /** Absent in snapshots taken before these kinds were emulated. */
  volumes?: Array<[number, Volume]>;
  floatingIps?: Array<[number, FloatingIp]>;
  loadBalancers?: Array<[number, LoadBalancer]>;
  certificates?: Array<[number, Certificate]>;
  throttled: number;
  requests: number;
  requestTimes: number[];
}

export class HetznerEmulator implements SandboxVmSource {
  readonly #ctx: SandboxContext;
  readonly #token: string;
  readonly budget: TokenBucket;
  #nextId = 1000;
  #nextIp = 1;
  #macSeed: number;
  readonly servers = new Map<number, Server>();
  readonly networks = new Map<number, Network>();
  readonly firewalls = new Map<number, Firewall>();
  readonly primaryIps = new Map<number, PrimaryIp>();
  readonly sshKeys = new Map<number, SshKey>();
  readonly placementGroups = new Map<number, PlacementGroup>();
  readonly actions = new Map<number, Action>();
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
    this.#macSeed = options.macSeed ?? 1;
    const limits = options.rateLimit ?? RATE_LIMITS.hetznerProject;
    this.budget = new TokenBucket(limits, ctx.clock, limits.capacity - (options.initiallySpent ?? 0));
    const project = this.#project();
    this.dns = new DnsZones(project);
    for (const name of options.dnsZones ?? ['example.de']) this.addDnsZone(name);
    const serverLocation = (id: number) => found(this.servers, id, 'server').location.name;
    this.volumes = new Volumes(project, serverLocation);
    this.floatingIps = new FloatingIps(project, serverLocation);
    this.loadBalancers = new LoadBalancers(project, () => [...this.servers.values()]);
    this.certificates = new Certificates(project);
  }

  #project(): HetznerProject {
    return {
      id: () => this.#id(),
      now: () => this.#now(),
      iso: (ms) => this.#iso(ms),
      action: (command, resources, durationMs) => this.#action(command, resources, durationMs),
      labels: (value) => this.#labels(value),
      name: (value, collection, what) => this.#name(value, collection, what),
      list: (key, items, toJson, query, sortable) => this.#listOf(key, items, toJson, query, sortable),
      publicIp: () => this.#publicIp(),
      serverId: (value, field) => {
        const server = [...this.servers.values()].find((s) => s.id === Number(value) || s.name === value);
        if (!server) throw new ApiError(404, 'not_found', `server '${String(value)}' not found`, { fields: [{ name: field }] });
        return server.id;
      },
      locationJson: (name) => ({ ...HETZNER_LOCATIONS.find((l) => l.name === name)! }),
    };
  }

  /** A DNS zone the project's owner made (with its SOA and NS records), unless one of that name exists. */
  addDnsZone(name: string): void {
    this.dns.add(name);
  }

  get zones(): Map<number, Zone> {
    return this.dns.zones;
  }

  get rrsets(): RRSet[] {
    return this.dns.rrsets;
  }

  /** A deep copy of the emulator's state. */
  state(): HetznerEmulatorState {
    return structuredClone({
      rateLimit: { ...this.budget.limits },
      budget: this.budget.state(),
      nextId: this.#nextId,
      nextIp: this.#nextIp,
      macSeed: this.#macSeed,
      servers: [...this.servers.entries()],
      networks: [...this.networks.entries()],
      firewalls: [...this.firewalls.entries()],
      primaryIps: [...this.primaryIps.entries()],
      sshKeys: [...this.sshKeys.entries()],
      placementGroups: [...this.placementGroups.entries()],
      actions: [...this.actions.entries()],
      zones: [...this.zones.entries()],
      rrsets: this.rrsets,
      volumes: [...this.volumes.items.entries()],
      floatingIps: [...this.floatingIps.items.entries()],
      loadBalancers: [...this.loadBalancers.items.entries()],
      certificates: [...this.certificates.items.entries()],
      throttled: this.throttled,
      requests: this.requests,
      requestTimes: this.requestTimes,
    });
  }

  /** Replaces the emulator's state with a copy of `state` (the rate limit is the constructor's option). */
  restore(state: HetznerEmulatorState): void {
    const s = structuredClone(state);
    this.budget.restore(s.budget);
    this.#nextId = s.nextId;
    this.#nextIp = s.nextIp;
    this.#macSeed = s.macSeed ?? 1;
    const refill = <K, V>(map: Map<K, V>, entries: Array<[K, V]>): void => {
      map.clear();
      for (const [k, v] of entries) map.set(k, v);
    };
    refill(this.servers, s.servers);
    refill(this.networks, s.networks);
    refill(this.firewalls, s.firewalls);
    refill(this.primaryIps, s.primaryIps);
    refill(this.sshKeys, s.sshKeys);
    refill(this.placementGroups, s.placementGroups);
    refill(this.actions, s.actions);
    refill(this.zones, s.zones);
    this.rrsets.splice(0, this.rrsets.length, ...s.rrsets);
    refill(this.volumes.items, s.volumes ?? []);
    refill(this.floatingIps.items, s.floatingIps ?? []);
    refill(this.loadBalancers.items, s.loadBalancers ?? []);
    refill(this.certificates.items, s.certificates ?? []);
    this.throttled = s.throttled;
    this.requests = s.requests;
    this.requestTimes.splice(0, this.requestTimes.length, ...s.requestTimes);
  }

  handlers(): HttpHandler[] {
    return [http.all(`${HETZNER_API}/*`, async ({ request }) => this.#handle(request))];
  }

  inventory(): InventoryItem[] {
    const item = (kind: string, id: number, name: string, labels: Labels, state?: string): InventoryItem => ({
      cloud: 'hetzner',
      kind,
      id: String(id),
      name,
      ...(labels[CLUSTER_LABEL] ? { clusterId: labels[CLUSTER_LABEL] } : {}),
      ...(state ? { state } : {}),
    });
    return [
      ...[...this.servers.values()].map((s) => item('node', s.id, s.name, s.labels, this.#status(s))),
      ...[...this.networks.values()].map((n) => item('network', n.id, n.name, n.labels)),
      ...[...this.firewalls.values()].map((f) => item('firewall', f.id, f.name, f.labels)),
      ...[...this.primaryIps.values()].map((p) => item('reserved-ip', p.id, p.name, p.labels)),
      ...[...this.sshKeys.values()].map((k) => item('ssh-key', k.id, k.name, k.labels)),
      ...[...this.placementGroups.values()].map((g) => item('placement-group', g.id, g.name, g.labels)),
      ...[...this.volumes.items.values()].map((v) => item('volume', v.id, v.name, v.labels)),
      ...[...this.floatingIps.items.values()].map((f) => item('floating-ip', f.id, f.name, f.labels)),
      ...[...this.loadBalancers.items.values()].map((lb) => item('load-balancer', lb.id, lb.name, lb.labels)),
      ...[...this.certificates.items.values()].map((c) => item('certificate', c.id, c.name, c.labels)),
      ...this.rrsets
        .filter((r) => r.name !== '@')
        .map((r) => ({ ...item('dns-record', r.zone, `${r.name}/${r.type}`, r.labels), id: `${r.zone}/${r.name}/${r.type}` })),
    ];
  }

  /** The servers as machines for the simulated kubelets (vm-source.ts). */
  listVms(): SandboxVm[] {
    return [...this.servers.values()].map((s) => {
      const status = this.#status(s);
      const running = status === 'running';
      return {
        cloud: 'hetzner',
        name: s.name,
        id: String(s.id),
        state: running ? 'running' : status === 'off' ? 'stopped' : status === 'stopping' ? 'stopping' : 'pending',
        ...(running ? { runningSinceMs: s.runningAt } : {}),
        userData: s.userData,
        machine: { vcpus: s.serverType.cores, memoryMiB: s.serverType.memory * 1024, diskGiB: s.serverType.disk },
        ...(s.ipv4 ? { publicIPv4: s.ipv4.ip } : {}),
        ...(s.privateNets[0] ? { privateIPv4: s.privateNets[0].ip } : {}),
      };
    });
  }

  #id(): number {
    return ++this.#nextId;
  }

  #now(): number {
    return this.#ctx.clock.now();
  }

  #iso(ms: number): string {
    return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
  }

  /**
   * `server.status`: initializing until first boot, then what the last power action left (`off`, or `running`), with
   * `stopping`/`starting` while that action runs (the status enum of `server` in hetzner-cloud-openapi.json).
   */
  #status(s: Server): string {
    if (this.#now() < s.runningAt) return 'initializing';
    if (!s.power) return 'running';
    const settled = this.#now() >= s.power.at;
    if (s.power.on) return settled ? 'running' : 'starting';
    return settled ? 'off' : 'stopping';
  }

  /**
   * `RateLimit-Reset` is "a UNIX timestamp of the point in time when your request limit will be reset"
   * (https://docs.hetzner.cloud/reference/cloud#rate-limiting), so it is in the sandbox's virtual time, and every
   * response carries a `Date` of that same clock (#json): a client that waits `Reset - Date`, the only reading that
   * does not assume its clock is the server's, waits the right virtual time. Served at speed > 1 that is longer in real
   * time than needed, never shorter, so the retry finds the budget refilled. A client that reads Reset against its
   * own wall clock sees a reset long past, as it would against a server whose clock is skewed.
   */
  #rateHeaders(): Record<string, string> {
    const remaining = Math.floor(this.budget.available());
    const { capacity, refillPerSecond } = this.budget.limits;
    const reset = Math.ceil(this.#now() / 1000 + (capacity - remaining) / refillPerSecond);
    return { 'RateLimit-Limit': String(capacity), 'RateLimit-Remaining': String(remaining), 'RateLimit-Reset': String(reset) };
  }

  #json(status: number, body: unknown, withRateHeaders = true): Response {
    const headers: Record<string, string> = {
      'X-Correlation-Id': requestId(),
      Date: new Date(this.#now()).toUTCString(),
      ...(withRateHeaders ? this.#rateHeaders() : {}),
    };
    // A 204 has no body (RFC 9110 §15.3.5); the API sends none.
    if (status === 204) return new HttpResponse(null, { status, headers });
    return HttpResponse.json(body as Json, { status, headers });
  }

  #error(e: ApiError, withRateHeaders = true): Response {
    return this.#json(e.status, { error: { code: e.code, message: e.message, details: e.details } }, withRateHeaders);
  }

  #faultResponse(kind: FaultKind): Response | 'lost-response' {
    switch (kind) {
      case 'throttled':
        this.throttled += 1;
        return HttpResponse.json(
          { error: { code: 'rate_limit_exceeded', message: 'limit of 3600 requests per hour reached', details: {} } },
          {
            status: 429,
            headers: {
              Date: new Date(this.#now()).toUTCString(),
              'RateLimit-Limit': '3600',
              'RateLimit-Remaining': '0',
              'RateLimit-Reset': String(Math.ceil(this.#now() / 1000 + 2)),
            },
          },
        );
      case 'throttled-no-headers':
        this.throttled += 1;
        return this.#error(new ApiError(429, 'rate_limit_exceeded', 'limit of 3600 requests per hour reached'), false);
      case 'server-error':
        return this.#error(new ApiError(500, 'server_error', 'Error while processing the request'));
      case 'timeout':
        return HttpResponse.error();
      case 'lost-response':
        return 'lost-response';
      case 'capacity':
        return this.#error(new ApiError(412, 'resource_unavailable', 'server type unavailable in this location'));
      case 'quota':
        return this.#error(
          new ApiError(403, 'resource_limit_exceeded', 'server limit exceeded: project limit is 10 servers; request an increase in the Hetzner console'),
        );
      case 'auth':
        return this.#error(new ApiError(401, 'unauthorized', 'unable to authenticate'));
    }
  }

  async #handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const path = url.pathname.replace(/^\/v1/, '');
    const template = path.replace(/\/\d+(?=\/|$)/g, '/{id}');
    const operation = `${request.method} ${template}`;
    countCall(this.#ctx, 'hetzner', operation);
    this.requests += 1;
    this.requestTimes.push(this.#now());

    if (request.headers.get('authorization') !== `Bearer ${this.#token}`) {
      return this.#error(new ApiError(401, 'unauthorized', 'unable to authenticate'), false);
    }
    if (this.budget.tryTake(1) > 0) {
      this.throttled += 1;
      const headers = this.#rateHeaders();
      return HttpResponse.json(
        { error: { code: 'rate_limit_exceeded', message: 'limit of 3600 requests per hour reached', details: {} } },
        { status: 429, headers: { Date: new Date(this.#now()).toUTCString(), ...headers, 'RateLimit-Remaining': '0' } },
      );
    }
    const fault = this.#ctx.faults.take('hetzner', operation);
    if (fault === 'throttled') {
      this.throttled += 1;
      const reset = Math.ceil(this.#now() / 1000 + 2);
      return HttpResponse.json(
        { error: { code: 'rate_limit_exceeded', message: 'limit of 3600 requests per hour reached', details: {} } },
        {
          status: 429,
          headers: { Date: new Date(this.#now()).toUTCString(), 'RateLimit-Limit': '3600', 'RateLimit-Remaining': '0', 'RateLimit-Reset': String(reset) },
        },
      );
    }
    if (fault && fault !== 'lost-response') {
      const response = this.#faultResponse(fault);
      if (response !== 'lost-response') return response;
    }
    let body: Json = {};
    if (request.method === 'POST' || request.method === 'PUT') {
      // Actions without parameters (poweroff, reboot, unassign…) are sent with no body at all by the hcloud CLI and
      // hcloud-go: an empty body is an empty request object, not a JSON error.
      const text = await request.text();
      if (text.trim() !== '') {
        try {
          const parsed = JSON.parse(text) as unknown;
          if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
          body = parsed as Json;
        } catch {
          return this.#error(new ApiError(400, 'json_error', 'invalid JSON'));
        }
      }
    }
    try {
      const [status, result] = this.#route(request.method, path, url.searchParams, body);
      if (fault === 'lost-response') return HttpResponse.error();
      return this.#json(status, result);
    } catch (e) {
      if (e instanceof ApiError) return this.#error(e);
      throw e;
    }
  }

  #route(method: string, path: string, query: URLSearchParams, body: Json): [number, unknown] {
    const parts = path.split('/').filter(Boolean);
    if (parts[0] === 'zones') return this.dns.route(method, parts.slice(1).map(decodeURIComponent), query, body);
    const [collection, idText, sub, action] = parts;
    const id = idText === undefined ? undefined : Number(idText);
    if (idText !== undefined && !Number.isInteger(id)) throw new ApiError(404, 'not_found', `${collection}/${idText} not found`);
    const routed = this.#routeResource(collection ?? '', method, id, sub, action, query, body);
    if (routed) return routed;
    throw new ApiError(404, 'not_found', `${method} ${path} is not an endpoint of this API`);
  }

  #routeResource(
    collection: string,
    method: string,
    id: number | undefined,
    sub: string | undefined,
    action: string | undefined,
    query: URLSearchParams,
    body: Json,
  ): [number, unknown] | undefined {
    switch (collection) {
      case 'servers':
        return this.#routeServers(method, id, sub, action, query, body);
      case 'volumes':
        return this.volumes.route(method, id, sub, action, query, body);
      case 'floating_ips':
        return this.floatingIps.route(method, id, sub, action, query, body);
      case 'load_balancers':
        return this.loadBalancers.route(method, id, sub, action, query, body);
      case 'certificates':
        return this.certificates.route(method, id, sub, query, body);
      case 'networks':
        if (id === undefined)
          return method === 'GET'
            ? [200, this.#listOf('networks', this.networks.values(), (n) => this.#networkJson(n), query, SORT_ID_NAME_CREATED)]
            : [201, { network: this.#networkJson(this.#createNetwork(body)) }];
        if (method === 'GET' && sub === undefined) return [200, { network: this.#networkJson(found(this.networks, id, 'network')) }];
        if (method === 'PUT' && sub === undefined) {
          const n = found(this.networks, id, 'network');
          if (body['name'] !== undefined && body['name'] !== n.name) n.name = this.#name(body['name'], this.networks.values(), 'network');
          if (body['labels'] !== undefined) n.labels = this.#labels(body['labels']);
          return [200, { network: this.#networkJson(n) }];
        }
        if (method === 'POST' && sub === 'actions' && action === 'add_subnet') {
          const n = found(this.networks, id, 'network');
          n.subnets.push(this.#subnet(n, body));
          return [201, { action: this.#action('add_subnet', [{ id, type: 'network' }], 1_000) }];
        }
        if (method === 'DELETE') {
          found(this.networks, id, 'network');
          for (const s of this.servers.values()) s.privateNets = s.privateNets.filter((p) => p.network !== id);
          this.networks.delete(id);
          return [204, undefined];
        }
        return undefined;
      case 'firewalls':
        return this.#routeFirewalls(method, id, sub, action, query, body);
      case 'primary_ips':
        if (id === undefined) {
          if (method === 'GET') {
            const ip = query.get('ip');
            return [
              200,
              this.#listOf(
                'primary_ips',
                [...this.primaryIps.values()].filter((p) => ip === null || p.ip === ip),
                (p) => this.#primaryIpJson(p),
                query,
                ['id', 'created'],
              ),
            ];
          }
          const created = this.#createPrimaryIp(body);
          // POST /primary_ips answers `create_primary_ip` as its action (create_primary_ip_response).
          return [
            201,
            { primary_ip: this.#primaryIpJson(created), action: this.#action('create_primary_ip', [{ id: created.id, type: 'primary_ip' }], 1_000) },
          ];
        }
        if (method === 'GET' && sub === undefined) return [200, { primary_ip: this.#primaryIpJson(found(this.primaryIps, id, 'primary_ip')) }];
        if (method === 'PUT' && sub === undefined) {
          const ip = found(this.primaryIps, id, 'primary_ip');
          if (body['name'] !== undefined && body['name'] !== ip.name) ip.name = this.#name(body['name'], this.primaryIps.values(), 'primary_ip');
          if (body['labels'] !== undefined) ip.labels = this.#labels(body['labels']);
          if (typeof body['auto_delete'] === 'boolean') ip.autoDelete = body['auto_delete'];
          return [200, { primary_ip: this.#primaryIpJson(ip) }];
        }
        if (method === 'DELETE') {
          const ip = found(this.primaryIps, id, 'primary_ip');
          // DELETE /primary_ips/{id}: an assigned IP is unassigned automatically until 1 May 2026 (422
          // must_be_unassigned after), and only from a server that is off (422 server_not_stopped).
          if (ip.assigneeId !== null) {
            if (this.#now() >= MUST_UNASSIGN_FROM)
              throw new ApiError(422, 'must_be_unassigned', `primary ip ${id} is assigned to server ${ip.assigneeId}; unassign it first`);
            this.#unassignPrimaryIp(ip);
          }
          this.primaryIps.delete(id);
          return [204, undefined];
        }
        if (method === 'POST' && sub === 'actions' && action === 'assign') {
          const ip = found(this.primaryIps, id, 'primary_ip');
          const server = found(this.servers, this.#project().serverId(body['assignee_id'], 'assignee_id'), 'server');
          // POST /primary_ips/{id}/actions/assign: the server must be off and without an IP of this type.
          if (ip.assigneeId !== null) throw new ApiError(422, 'primary_ip_already_assigned', `primary ip ${id} is already assigned to server ${ip.assigneeId}`);
          if (this.#status(server) !== 'off') throw new ApiError(422, 'server_not_stopped', 'The Server is running, but needs to be powered off');
          if (server.ipv4) throw new ApiError(422, 'server_has_ipv4', `server ${server.id} already has a primary IPv4`);
          ip.assigneeId = server.id;
          server.ipv4 = { id: ip.id, ip: ip.ip };
          return [
            201,
            {
              action: this.#action(
                'assign_primary_ip',
                [
                  { id, type: 'primary_ip' },
                  { id: server.id, type: 'server' },
                ],
                1_000,
              ),
            },
          ];
        }
        if (method === 'POST' && sub === 'actions' && action === 'unassign') {
          const ip = found(this.primaryIps, id, 'primary_ip');
          const server = ip.assigneeId;
          this.#unassignPrimaryIp(ip);
          return [
            201,
            { action: this.#action('unassign_primary_ip', [{ id, type: 'primary_ip' }, ...(server === null ? [] : [{ id: server, type: 'server' }])], 1_000) },
          ];
        }
        return undefined;
      case 'ssh_keys':
        if (id === undefined) {
          // `fingerprint` filters the list to the one key with that MD5 fingerprint (GET /ssh_keys in the Cloud API's OpenAPI).
          const fingerprint = query.get('fingerprint');
          const keys = [...this.sshKeys.values()].filter((k) => fingerprint === null || k.fingerprint === fingerprint);
          return method === 'GET'
            ? [200, this.#listOf('ssh_keys', keys, (k) => this.#sshKeyJson(k), query, ['id', 'name'])]
            : [201, { ssh_key: this.#sshKeyJson(this.#createSshKey(body)) }];
        }
        if (method === 'GET') return [200, { ssh_key: this.#sshKeyJson(found(this.sshKeys, id, 'ssh_key')) }];
        if (method === 'PUT') {
          const k = found(this.sshKeys, id, 'ssh_key');
          if (body['name'] !== undefined && body['name'] !== k.name) k.name = this.#name(body['name'], this.sshKeys.values(), 'ssh_key');
          if (body['labels'] !== undefined) k.labels = this.#labels(body['labels']);
          return [200, { ssh_key: this.#sshKeyJson(k) }];
        }
        if (method === 'DELETE') {
          found(this.sshKeys, id, 'ssh_key');
          this.sshKeys.delete(id);
          return [204, undefined];
        }
        return undefined;
      case 'placement_groups':
        if (id === undefined)
          return method === 'GET'
            ? [200, this.#listOf('placement_groups', this.placementGroups.values(), (g) => this.#placementJson(g), query, SORT_ID_NAME_CREATED)]
            : [201, { placement_group: this.#placementJson(this.#createPlacementGroup(body)), action: null }];
        if (method === 'GET') return [200, { placement_group: this.#placementJson(found(this.placementGroups, id, 'placement_group')) }];
        if (method === 'DELETE') {
          found(this.placementGroups, id, 'placement_group');
          if ([...this.servers.values()].some((s) => s.placementGroup === id)) throw new ApiError(409, 'conflict', `placement group ${id} still has servers`);
          this.placementGroups.delete(id);
          return [204, undefined];
        }
        return undefined;
      case 'actions':
        if (id !== undefined && method === 'GET') return [200, { action: this.#actionJson(found(this.actions, id, 'action')) }];
        if (id === undefined && method === 'GET') {
          const ids = query.getAll('id').map(Number);
          return [
            200,
            this.#list(
              'actions',
              [...this.actions.values()].filter((a) => ids.length === 0 || ids.includes(a.id)).map((a) => this.#actionJson(a)),
              query,
              undefined,
            ),
          ];
        }
        return undefined;
    }
    return method === 'GET' && sub === undefined ? this.#routeCatalog(collection, id, query) : undefined;
  }

  /** The read-only catalogs: locations, data centers, server and load balancer types, images, ISOs. */
  #routeCatalog(collection: string, id: number | undefined, query: URLSearchParams): [number, unknown] | undefined {
    const one = (key: string, items: Json[]): [number, unknown] => {
      const item = items.find((i) => i['id'] === id);
      if (!item) throw new ApiError(404, 'not_found', `${key} with ID '${String(id)}' not found`);
      return [200, { [key]: item }];
    };
    const named = (items: Json[]) => items.filter((i) => query.get('name') === null || i['name'] === query.get('name'));
    switch (collection) {
      case 'server_types': {
        const all = HETZNER_SERVER_TYPES.map((t) => this.#serverTypeJson(t));
        return id === undefined ? [200, this.#list('server_types', named(all), query, undefined)] : one('server_type', all);
      }
      case 'load_balancer_types': {
        const all = HETZNER_LOAD_BALANCER_TYPES.map((t) => ({ ...t, deprecated: null, prices: [] }));
        return id === undefined ? [200, this.#list('load_balancer_types', named(all), query, undefined)] : one('load_balancer_type', all);
      }
      case 'images': {
        const arch = query.get('architecture');
        const all = HETZNER_IMAGES.map((i) => this.#imageJson(i));
        return id === undefined
          ? [
              200,
              this.#list(
                'images',
                named(all).filter((i) => !arch || i['architecture'] === arch),
                query,
                SORT_ID_NAME_CREATED,
              ),
            ]
          : one('image', all);
      }
      case 'isos': {
        // `architecture` filters, and ISOs without one only with include_architecture_wildcard (GET /isos).
        const arch = query.get('architecture');
        const all = HETZNER_ISOS.map((i) => ({ ...i }) as Json);
        return id === undefined
          ? [
              200,
              this.#list(
                'isos',
                named(all).filter((i) => !arch || i['architecture'] === arch),
                query,
                undefined,
              ),
            ]
          : one('iso', all);
      }
      case 'locations': {
        const all = HETZNER_LOCATIONS.map((l) => ({ ...l }) as Json);
        return id === undefined ? [200, this.#list('locations', named(all), query, ['id', 'name'])] : one('location', all);
      }
      case 'datacenters': {
        const all = HETZNER_DATACENTERS.map((d) => this.#datacenterJson(d.name));
        return id === undefined ? [200, { ...this.#list('datacenters', named(all), query, ['id', 'name']), recommendation: 4 }] : one('datacenter', all);
      }
    }
    return undefined;
  }

  #routeServers(
    method: string,
    id: number | undefined,
    sub: string | undefined,
    action: string | undefined,
    query: URLSearchParams,
    body: Json,
  ): [number, unknown] | undefined {
    if (id === undefined) {
      if (method === 'GET') {
        const status = query.getAll('status');
        return [
          200,
          this.#listOf(
            'servers',
            [...this.servers.values()].filter((s) => status.length === 0 || status.includes(this.#status(s))),
            (s) => this.#serverJson(s),
            query,
            SORT_ID_NAME_CREATED,
          ),
        ];
      }
      return method === 'POST' ? [201, this.#createServer(body)] : undefined;
    }
    const server = found(this.servers, id, 'server');
    if (sub === undefined) {
      if (method === 'GET') return [200, { server: this.#serverJson(server) }];
      // PUT /servers/{id} (replace_server_request): name and labels, the labels replaced as a whole.
      if (method === 'PUT') {
        if (body['name'] !== undefined && body['name'] !== server.name) server.name = this.#name(body['name'], this.servers.values(), 'server');
        if (body['labels'] !== undefined) server.labels = this.#labels(body['labels']);
        return [200, { server: this.#serverJson(server) }];
      }
      if (method === 'DELETE') return [200, { action: this.#deleteServer(id) }];
      return undefined;
    }
    if (sub !== 'actions' || method !== 'POST') return undefined;
    const power = (command: string, on: boolean, ms: number): [number, unknown] => {
      // A power action on a server still booting waits for the boot: it completes after both.
      const at = Math.max(this.#now(), server.runningAt) + ms;
      server.power = { on, at };
      return [201, { action: this.#action(command, [{ id, type: 'server' }], at - this.#now()) }];
    };
    // The commands hcloud-go and the API name these actions (`action.command`): poweroff is stop_server, etc.
    switch (action) {
      case 'poweroff':
        return power('stop_server', false, 2_000);
      case 'shutdown':
        // "the action status ... only reflects whether the action was sent": the emulated OS honours ACPI.
        return power('shutdown_server', false, 10_000);
      case 'poweron':
        return power('start_server', true, 5_000);
      case 'reboot':
        return power('reboot_server', true, 15_000);
      case 'reset':
        return power('reset_server', true, 10_000);
    }
    return undefined;
  }

  #routeFirewalls(
    method: string,
    id: number | undefined,
    sub: string | undefined,
    action: string | undefined,
    query: URLSearchParams,
    body: Json,
  ): [number, unknown] | undefined {
    if (id === undefined)
      return method === 'GET'
        ? [200, this.#listOf('firewalls', this.firewalls.values(), (f) => this.#firewallJson(f), query, SORT_ID_NAME_CREATED)]
        : [201, this.#createFirewall(body)];
    const fw = found(this.firewalls, id, 'firewall');
    if (sub === undefined) {
      if (method === 'GET') return [200, { firewall: this.#firewallJson(fw) }];
      if (method === 'PUT') {
        if (body['name'] !== undefined && body['name'] !== fw.name) fw.name = this.#name(body['name'], this.firewalls.values(), 'firewall');
        if (body['labels'] !== undefined) fw.labels = this.#labels(body['labels']);
        return [200, { firewall: this.#firewallJson(fw) }];
      }
      if (method === 'DELETE') return [204, this.#deleteFirewall(id)];
      return undefined;
    }
    if (sub !== 'actions' || method !== 'POST') return undefined;
    switch (action) {
      case 'set_rules':
        fw.rules = this.#validateRules(body['rules']);
        return [201, { actions: [this.#action('set_firewall_rules', [{ id, type: 'firewall' }], 1_000)] }];
      case 'apply_to_resources':
        return [201, { actions: this.#applyFirewall(fw, this.#firewallResources(body['apply_to'])) }];
      case 'remove_from_resources':
        return [201, { actions: this.#removeFirewall(fw, this.#firewallResources(body['remove_from'])) }];
    }
    return undefined;
  }

  #filter(resource: { name: string; labels: Labels }, query: URLSearchParams): boolean {
    const name = query.get('name');
    if (name !== null && resource.name !== name) return false;
    const selector = query.get('label_selector');
    return selector === null || hetznerLabelSelector(selector)(resource.labels);
  }

  /** A list response of JSON items: sorted as `sort` asks where the endpoint documents `sortable` fields, one page. */
  #list(key: string, items: Json[], query: URLSearchParams, sortable: readonly string[] | undefined): Json {
    return page(key, sorted(items, query, sortable), query);
  }

  /** A list of resources filtered by `name` and `label_selector` (a malformed selector is a 400), as #list. */
  #listOf<T extends { name: string; labels: Labels }>(
    key: string,
    items: Iterable<T>,
    toJson: (item: T) => Json,
    query: URLSearchParams,
    sortable: readonly string[] | undefined,
  ): Json {
    const selector = query.get('label_selector');
    if (selector !== null) hetznerLabelSelector(selector);
    return this.#list(key, [...items].filter((i) => this.#filter(i, query)).map(toJson), query, sortable);
  }

  #labels(value: unknown): Labels {
    if (value === undefined || value === null) return {};
    if (typeof value !== 'object' || Array.isArray(value))
      throw new ApiError(400, 'invalid_input', 'invalid input in field labels', { fields: [{ name: 'labels', messages: ['must be an object'] }] });
    for (const [k, v] of Object.entries(value)) {
      if (
        typeof v !== 'string' ||
        !/^([a-z0-9A-Z.-]+\/)?[a-zA-Z0-9]([-a-zA-Z0-9_.]{0,61}[a-zA-Z0-9])?$/.test(k) ||
        !/^([a-zA-Z0-9]([-a-zA-Z0-9_.]{0,61}[a-zA-Z0-9])?)?$/.test(v)
      ) {
        throw new ApiError(400, 'invalid_input', `invalid label ${k}`, { fields: [{ name: 'labels', messages: [`invalid label ${k}`] }] });
      }
    }
    return { ...(value as Labels) };
  }

  #name(value: unknown, collection: Iterable<{ name: string }>, what: string): string {
    if (typeof value !== 'string' || !/^[a-zA-Z0-9]([a-zA-Z0-9-.]{0,61}[a-zA-Z0-9])?$/.test(value)) {
      throw new ApiError(400, 'invalid_input', `invalid input in field 'name'`, { fields: [{ name: 'name', messages: ['must be a valid hostname'] }] });
    }
    for (const r of collection)
      if (r.name === value) throw new ApiError(409, 'uniqueness_error', `${what} name is already used`, { fields: [{ name: 'name' }] });
    return value;
  }

  #action(command: string, resources: Array<{ id: number; type: string }>, durationMs: number): Json {
    const a: Action = { id: this.#id(), command, started: this.#now(), finishAt: this.#now() + durationMs, resources };
    this.actions.set(a.id, a);
    return this.#actionJson(a);
  }

  #actionJson(a: Action): Json {
    const finished = this.#now() >= a.finishAt;
    const progress = finished ? 100 : Math.floor(((this.#now() - a.started) / Math.max(1, a.finishAt - a.started)) * 100);
    return {
      id: a.id,
      command: a.command,
      status: finished ? 'success' : 'running',
      progress,
      started: this.#iso(a.started),
      finished: finished ? this.#iso(a.finishAt) : null,
      resources: a.resources,
      error: null,
    };
  }

  #publicIp(): string {
    const n = this.#nextIp++;
    return sandboxPublicAddress('hetzner', n);
  }

  #createServer(body: Json): Json {
    const name = this.#name(body['name'], this.servers.values(), 'server');
    const serverType = HETZNER_SERVER_TYPES.find((t) => t.name === body['server_type'] || String(t.id) === String(body['server_type']));
    if (!serverType)
      throw new ApiError(400, 'invalid_input', `server type ${String(body['server_type'])} not found`, {
        fields: [{ name: 'server_type', messages: ['server type not found'] }],
      });
    const image = HETZNER_IMAGES.find(
      (i) => (i.name === body['image'] || String(i.id) === String(body['image'])) && i.architecture === serverType.architecture,
    );
    if (!image)
      throw new ApiError(400, 'invalid_input', `image ${String(body['image'])} not found`, { fields: [{ name: 'image', messages: ['image not found'] }] });
    const location = HETZNER_LOCATIONS.find((l) => l.name === (body['location'] ?? 'fsn1'));
    if (!location) throw new ApiError(400, 'invalid_input', `location ${String(body['location'])} not found`, { fields: [{ name: 'location' }] });
    const userData = typeof body['user_data'] === 'string' ? body['user_data'] : '';
    const userDataBytes = Buffer.byteLength(userData);
    if (userDataBytes > USER_DATA_LIMIT) throw new ApiError(400, 'invalid_input', 'user_data must not exceed 32 KiB', { fields: [{ name: 'user_data' }] });
    const labels = this.#labels(body['labels']);
    const networks = Array.isArray(body['networks']) ? (body['networks'] as unknown[]).map((n) => found(this.networks, Number(n), 'network')) : [];
    // A server joins a network through a subnet of its location's network zone: "at least one Subnet with the zone
    // covering Server's location must exist" (Networks, IP address management, in reference/hetzner-cloud-openapi.json).
    for (const n of networks) {
      if (!n.subnets.some((sub) => sub.network_zone === location.network_zone)) {
        throw new ApiError(400, 'invalid_input', `network ${n.id} has no subnet in network zone ${location.network_zone} of location ${location.name}`, {
          fields: [{ name: 'networks' }],
        });
      }
    }
    const firewalls = Array.isArray(body['firewalls'])
      ? (body['firewalls'] as Array<{ firewall: unknown }>).map((f) => found(this.firewalls, Number(f.firewall), 'firewall').id)
      : [];
    if (Array.isArray(body['ssh_keys']))
      for (const k of body['ssh_keys'] as unknown[])
        if (![...this.sshKeys.values()].some((x) => x.name === k || x.id === Number(k)))
          throw new ApiError(400, 'invalid_input', `ssh key ${String(k)} not found`, { fields: [{ name: 'ssh_keys' }] });
    const placement =
      body['placement_group'] === undefined || body['placement_group'] === null
        ? undefined
        : found(this.placementGroups, Number(body['placement_group']), 'placement_group').id;
    const publicNet = (body['public_net'] ?? {}) as Json;
    let ipv4: Server['ipv4'];
    const id = this.#id();
    if (publicNet['ipv4'] !== undefined && publicNet['ipv4'] !== null) {
      const p = found(this.primaryIps, Number(publicNet['ipv4']), 'primary_ip');
      if (p.assigneeId !== null) throw new ApiError(409, 'conflict', `primary ip ${p.id} is already assigned`);
      p.assigneeId = id;
      ipv4 = { id: p.id, ip: p.ip };
    } else if (publicNet['enable_ipv4'] !== false) {
      const p: PrimaryIp = {
        id: this.#id(),
        name: `primary_ip-${id}`,
        labels: {},
        ip: this.#publicIp(),
        assigneeId: id,
        autoDelete: true,
        location,
        created: this.#now(),
      };
      this.primaryIps.set(p.id, p);
      ipv4 = { id: p.id, ip: p.ip };
    }
    const boot = sample(LATENCY.hetznerCreateToRunning, this.#ctx.random);
    const server: Server = {
      id,
      name,
      labels,
      created: this.#now(),
      runningAt: this.#now() + boot,
      serverType,
      image,
      location,
      ...(ipv4 ? { ipv4 } : {}),
      privateNets: networks.map((n) => ({ network: n.id, ip: this.#privateIp(n), mac: privateNetMac(this.#macSeed, id, n.id, this.#macs()) })),
      firewalls,
      ...(placement !== undefined ? { placementGroup: placement } : {}),
      userDataBytes,
      userData,
    };
    this.servers.set(id, server);
    const action = this.#action('create_server', [{ id, type: 'server' }], boot);
    return { server: this.#serverJson(server), action, next_actions: [this.#action('start_server', [{ id, type: 'server' }], boot)], root_password: null };
  }

  /** Takes `ip` off its server, which must be off ("A Server must be powered off", POST .../actions/unassign). */
  #unassignPrimaryIp(ip: PrimaryIp): void {
    if (ip.assigneeId === null) return;
    const server = this.servers.get(ip.assigneeId);
    if (server && this.#status(server) !== 'off') throw new ApiError(422, 'server_not_stopped', 'The Server is running, but needs to be powered off');
    if (server) delete server.ipv4;
    ip.assigneeId = null;
  }

  /** Every MAC in use on a private network interface, so a new one is unique in the project. */
  #macs(): Set<string> {
    return new Set([...this.servers.values()].flatMap((s) => s.privateNets.flatMap((p) => (p.mac ? [p.mac] : []))));
  }

  #privateIp(n: Network): string {
    const base = n.subnets[0]?.ip_range ?? n.ipRange;
    const [a, b, c] = base.split('/')[0]!.split('.');
    n.nextHost += 1;
    return `${a}.${b}.${Number(c) + Math.floor(n.nextHost / 250)}.${(n.nextHost % 250) + 1}`;
  }

  #deleteServer(id: number): Json {
    const server = found(this.servers, id, 'server');
    this.servers.delete(id);
    for (const p of this.primaryIps.values()) {
      if (p.assigneeId === server.id) {
        if (p.autoDelete) this.primaryIps.delete(p.id);
        else p.assigneeId = null;
      }
    }
    // "Any resources attached to the server (like Volumes, Primary IPs, Floating IPs, Firewalls, Placement Groups)
    // are detached while the server is deleted" (DELETE /servers/{id}).
    this.volumes.detachAll(id);
    this.floatingIps.unassignAll(id);
    this.loadBalancers.forgetServer(id);
    for (const f of this.firewalls.values())
      f.appliedTo = f.appliedTo.filter((r) => !(r['type'] === 'server' && (r['server'] as { id?: number } | undefined)?.id === id));
    return this.#action('delete_server', [{ id, type: 'server' }], 5_000);
  }

  /** The firewalls that apply to `s`: given at its creation, applied to it by id, or through a label selector. */
  #appliedFirewalls(s: Server): number[] {
    return [...this.firewalls.values()].filter((f) => this.#firewallServers(f).includes(s.id)).map((f) => f.id);
  }

  /** The servers `f` applies to: what #appliedFirewalls reads from the other side, so both views always agree. */
  #firewallServers(f: Firewall): number[] {
    const ids = new Set<number>();
    for (const s of this.servers.values()) if (s.firewalls.includes(f.id)) ids.add(s.id);
    for (const r of f.appliedTo) {
      if (r['type'] === 'server') ids.add(Number((r['server'] as { id?: number } | undefined)?.id));
      const sel = (r['label_selector'] as { selector?: string } | undefined)?.selector;
      if (r['type'] === 'label_selector' && sel) {
        const matches = hetznerLabelSelector(sel);
        for (const s of this.servers.values()) if (matches(s.labels)) ids.add(s.id);
      }
    }
    return [...ids].filter((id) => this.servers.has(id)).sort((a, b) => a - b);
  }

  /** `apply_to`/`remove_from` resources (firewall_resource): a server by id or a label selector. */
  #firewallResources(value: unknown): Json[] {
    if (!Array.isArray(value)) throw invalidInput('apply_to', 'must be an array of resources');
    return (value as Json[]).map((r) => {
      if (r['type'] === 'server') return { type: 'server', server: { id: this.#project().serverId((r['server'] as Json | undefined)?.['id'], 'server') } };
      if (r['type'] === 'label_selector') {
        const selector = String((r['label_selector'] as Json | undefined)?.['selector'] ?? '');
        hetznerLabelSelector(selector);
        return { type: 'label_selector', label_selector: { selector } };
      }
      throw invalidInput('apply_to', 'type must be server or label_selector');
    });
  }

  #sameResource(a: Json, b: Json): boolean {
    return a['type'] === b['type'] && JSON.stringify(a['server'] ?? a['label_selector']) === JSON.stringify(b['server'] ?? b['label_selector']);
  }

  #applyFirewall(f: Firewall, resources: Json[]): Json[] {
    return resources.map((r) => {
      const server = (r['server'] as { id?: number } | undefined)?.id;
      // 422 `firewall_already_applied` ("Firewall was already applied on resource", POST .../apply_to_resources).
      if (f.appliedTo.some((x) => this.#sameResource(x, r)) || (server !== undefined && found(this.servers, server, 'server').firewalls.includes(f.id))) {
        throw new ApiError(422, 'firewall_already_applied', `firewall ${f.id} is already applied to this resource`);
      }
      f.appliedTo.push(r);
      return this.#action('apply_firewall', [{ id: f.id, type: 'firewall' }, ...(server === undefined ? [] : [{ id: server, type: 'server' }])], 1_000);
    });
  }

  #removeFirewall(f: Firewall, resources: Json[]): Json[] {
    return resources.map((r) => {
      const server = (r['server'] as { id?: number } | undefined)?.id;
      const before = f.appliedTo.length;
      f.appliedTo = f.appliedTo.filter((x) => !this.#sameResource(x, r));
      const direct = server === undefined ? undefined : this.servers.get(server);
      const wasDirect = direct?.firewalls.includes(f.id) ?? false;
      if (direct) direct.firewalls = direct.firewalls.filter((x) => x !== f.id);
      // 422 `firewall_already_removed` (POST /firewalls/{id}/actions/remove_from_resources).
      if (f.appliedTo.length === before && !wasDirect) throw new ApiError(422, 'firewall_already_removed', `firewall ${f.id} is not applied to this resource`);
      return this.#action('remove_firewall', [{ id: f.id, type: 'firewall' }, ...(server === undefined ? [] : [{ id: server, type: 'server' }])], 1_000);
    });
  }

  #serverTypeJson(t: (typeof HETZNER_SERVER_TYPES)[number]): Json {
    const where = HETZNER_SERVER_TYPE_LOCATIONS[t.name];
    // The top-level `deprecated`/`deprecation` are the API's older fields, kept in step with the per-location ones.
    return {
      ...t,
      deprecated: where?.deprecation !== undefined,
      deprecation: where?.deprecation ?? null,
      prices: [],
      storage_type: 'local',
      locations: HETZNER_LOCATIONS.filter((l) => !where?.only || where.only.includes(l.name)).map((l) => ({
        id: l.id,
        name: l.name,
        deprecation: where?.deprecation ?? null,
      })),
    };
  }

  /** A system image as `image` describes it: published by Hetzner, bound to nothing, never deleted. */
  #imageJson(i: (typeof HETZNER_IMAGES)[number]): Json {
    return {
      deprecated: null,
      ...i,
      status: 'available',
      labels: {},
      protection: { delete: false },
      rapid_deploy: true,
      created: HETZNER_IMAGE_CREATED,
      created_from: null,
      bound_to: null,
      deleted: null,
      disk_size: HETZNER_IMAGE_DISK_GB,
      image_size: null,
    };
  }

  /** `data_center`: its location in full and the server types it supports / has available now. */
  #datacenterJson(name: string): Json {
    const d = HETZNER_DATACENTERS.find((x) => x.name === name)!;
    const location = HETZNER_LOCATIONS.find((l) => l.name === d.location);
    const ids = HETZNER_SERVER_TYPES.filter((t) => {
      const w = HETZNER_SERVER_TYPE_LOCATIONS[t.name];
      return !w?.only || w.only.includes(d.location);
    }).map((t) => t.id);
    return { id: d.id, name: d.name, description: d.description, location, server_types: { supported: ids, available: ids, available_for_migration: ids } };
  }

  /** The one data center the sandbox has in each location (a server's and a primary IP's `datacenter`). */
  #datacenterOf(location: string): Json {
    return this.#datacenterJson(HETZNER_DATACENTERS.find((d) => d.location === location)!.name);
  }

  #serverJson(s: Server): Json {
    return {
      id: s.id,
      name: s.name,
      status: this.#status(s),
      created: this.#iso(s.created),
      labels: s.labels,
      server_type: this.#serverTypeJson(s.serverType),
      image: this.#imageJson(s.image),
      location: s.location,
      datacenter: this.#datacenterOf(s.location.name),
      public_net: {
        ipv4: s.ipv4 ? { id: s.ipv4.id, ip: s.ipv4.ip, blocked: false, dns_ptr: `static.${s.ipv4.ip}.clients.your-server.de` } : null,
        ipv6: null,
        floating_ips: this.floatingIps.assignedTo(s.id),
        firewalls: this.#appliedFirewalls(s).map((f) => ({ id: f, status: 'applied' })),
      },
      private_net: s.privateNets.map((p) => ({
        network: p.network,
        ip: p.ip,
        alias_ips: [],
        mac_address: p.mac ?? privateNetMac(this.#macSeed, s.id, p.network, new Set()),
      })),
      placement_group: s.placementGroup === undefined ? null : this.#placementJson(found(this.placementGroups, s.placementGroup, 'placement_group')),
      protection: { delete: false, rebuild: false },
      rescue_enabled: false,
      locked: false,
      backup_window: null,
      outgoing_traffic: 0,
      ingoing_traffic: 0,
      included_traffic: 21990232555520,
      primary_disk_size: s.serverType.disk,
      volumes: this.volumes.attachedTo(s.id),
      load_balancers: this.loadBalancers.targeting(s.id),
      iso: null,
    };
  }

  #createNetwork(body: Json): Network {
    const name = this.#name(body['name'], this.networks.values(), 'network');
    const ipRange = body['ip_range'];
    if (typeof ipRange !== 'string' || !/^(10|172|192)\.\d+\.\d+\.\d+\/\d+$/.test(ipRange))
      throw new ApiError(400, 'invalid_input', 'ip_range must be an RFC 1918 CIDR', { fields: [{ name: 'ip_range' }] });
    const n: Network = { id: this.#id(), name, labels: this.#labels(body['labels']), ipRange, subnets: [], created: this.#now(), nextHost: 1 };
    if (Array.isArray(body['subnets'])) for (const sub of body['subnets'] as Json[]) n.subnets.push(this.#subnet(n, sub));
    this.networks.set(n.id, n);
    return n;
  }

  /** A subnet (`subnets[]` of POST /networks, the body of add_subnet): its gateway is the range's first address. */
  #subnet(n: Network, body: Json): Network['subnets'][number] {
    const type = String(body['type'] ?? 'cloud');
    if (!['cloud', 'server', 'vswitch'].includes(type)) throw invalidInput('type', 'must be cloud, server or vswitch');
    const range = typeof body['ip_range'] === 'string' ? body['ip_range'] : undefined;
    if (range === undefined || !/^\d+\.\d+\.\d+\.\d+\/\d+$/.test(range)) throw invalidInput('ip_range', `a subnet of ${n.ipRange} is required`);
    return { type, ip_range: range, network_zone: String(body['network_zone'] ?? 'eu-central'), gateway: range.replace(/\d+\/\d+$/, '1') };
  }

  #networkJson(n: Network): Json {
    return {
      id: n.id,
      name: n.name,
      ip_range: n.ipRange,
      subnets: n.subnets,
      routes: [],
      servers: [...this.servers.values()].filter((s) => s.privateNets.some((p) => p.network === n.id)).map((s) => s.id),
      load_balancers: [],
      labels: n.labels,
      created: this.#iso(n.created),
      protection: { delete: false },
      expose_routes_to_vswitch: false,
    };
  }

  #validateRules(value: unknown): Json[] {
    if (value === undefined) return [];
    if (!Array.isArray(value) || value.length > 50)
      throw new ApiError(400, 'invalid_input', 'rules must be an array of at most 50 rules', { fields: [{ name: 'rules' }] });
    return (value as Json[]).map((r) => {
      if (!['in', 'out'].includes(String(r['direction'])) || !['tcp', 'udp', 'icmp', 'esp', 'gre'].includes(String(r['protocol'])))
        throw new ApiError(400, 'invalid_input', 'invalid firewall rule', { fields: [{ name: 'rules' }] });
      if ((r['protocol'] === 'tcp' || r['protocol'] === 'udp') && typeof r['port'] !== 'string')
        throw new ApiError(400, 'invalid_input', 'port is required for tcp and udp rules', { fields: [{ name: 'rules' }] });
      return {
        direction: r['direction'],
        protocol: r['protocol'],
        port: r['port'] ?? null,
        source_ips: r['source_ips'] ?? [],
        destination_ips: r['destination_ips'] ?? [],
        description: r['description'] ?? null,
      };
    });
  }

  #createFirewall(body: Json): Json {
    const name = this.#name(body['name'], this.firewalls.values(), 'firewall');
    const f: Firewall = {
      id: this.#id(),
      name,
      labels: this.#labels(body['labels']),
      rules: this.#validateRules(body['rules']),
      appliedTo: body['apply_to'] === undefined ? [] : this.#firewallResources(body['apply_to']),
      created: this.#now(),
    };
    this.firewalls.set(f.id, f);
    return { firewall: this.#firewallJson(f), actions: [] };
  }

  #deleteFirewall(id: number): null {
    const f = found(this.firewalls, id, 'firewall');
    const direct = [...this.servers.values()].filter((s) => s.firewalls.includes(id));
    if (direct.length > 0) throw new ApiError(422, 'resource_in_use', `firewall ${id} is still applied to ${direct.length} server(s)`);
    this.firewalls.delete(f.id);
    return null;
  }

  #firewallJson(f: Firewall): Json {
    // `applied_to` lists every server the firewall applies to by id (whether given at the server's creation or
    // applied later) and each label selector with the servers it matches (`applied_to_resources`).
    const selectors = f.appliedTo.filter((r) => r['type'] === 'label_selector');
    const bySelector = new Set<number>();
    const selectorEntries = selectors.map((r) => {
      const matches = hetznerLabelSelector(String((r['label_selector'] as Json)['selector']));
      const ids = [...this.servers.values()].filter((s) => matches(s.labels)).map((s) => s.id);
      for (const id of ids) bySelector.add(id);
      return { ...r, applied_to_resources: ids.map((id) => ({ type: 'server', server: { id } })) };
    });
    const direct = [...this.servers.values()]
      .filter((s) => s.firewalls.includes(f.id) || f.appliedTo.some((r) => r['type'] === 'server' && (r['server'] as { id?: number }).id === s.id))
      .map((s) => ({ type: 'server', server: { id: s.id } }));
    return { id: f.id, name: f.name, labels: f.labels, rules: f.rules, applied_to: [...direct, ...selectorEntries], created: this.#iso(f.created) };
  }

  #createPrimaryIp(body: Json): PrimaryIp {
    const name = this.#name(body['name'], this.primaryIps.values(), 'primary_ip');
    if (body['type'] !== 'ipv4') throw new ApiError(400, 'invalid_input', 'only ipv4 primary IPs are emulated', { fields: [{ name: 'type' }] });
    const location = HETZNER_LOCATIONS.find((l) => l.name === (body['location'] ?? 'fsn1'));
    if (!location) throw new ApiError(400, 'invalid_input', 'location not found', { fields: [{ name: 'location' }] });
    const p: PrimaryIp = {
      id: this.#id(),
      name,
      labels: this.#labels(body['labels']),
      ip: this.#publicIp(),
      assigneeId: null,
      autoDelete: body['auto_delete'] === true,
      location,
      created: this.#now(),
    };
    this.primaryIps.set(p.id, p);
    return p;
  }

  #primaryIpJson(p: PrimaryIp): Json {
    return {
      id: p.id,
      name: p.name,
      labels: p.labels,
      ip: p.ip,
      type: 'ipv4',
      assignee_id: p.assigneeId,
      assignee_type: 'server',
      auto_delete: p.autoDelete,
      blocked: false,
      location: p.location,
      datacenter: this.#datacenterOf(p.location.name),
      dns_ptr: [],
      protection: { delete: false },
      created: this.#iso(p.created),
    };
  }

  #createSshKey(body: Json): SshKey {
    const name = this.#name(body['name'], this.sshKeys.values(), 'ssh_key');
    const publicKey = body['public_key'];
    if (typeof publicKey !== 'string' || !/^(ssh-ed25519|ssh-rsa|ecdsa-sha2-nistp256) [A-Za-z0-9+/=]+/.test(publicKey))
      throw new ApiError(400, 'invalid_input', 'invalid public key', { fields: [{ name: 'public_key' }] });
    const digest = createHash('md5')
      .update(Buffer.from(publicKey.split(' ')[1] ?? '', 'base64'))
      .digest('hex');
    const fingerprint = digest.match(/../g)!.join(':');
    if ([...this.sshKeys.values()].some((k) => k.fingerprint === fingerprint))
      throw new ApiError(409, 'uniqueness_error', 'SSH key with the same fingerprint already exists', { fields: [{ name: 'public_key' }] });
    const k: SshKey = { id: this.#id(), name, labels: this.#labels(body['labels']), publicKey, fingerprint, created: this.#now() };
    this.sshKeys.set(k.id, k);
    return k;
  }

  #sshKeyJson(k: SshKey): Json {
    return { id: k.id, name: k.name, labels: k.labels, public_key: k.publicKey, fingerprint: k.fingerprint, created: this.#iso(k.created) };
  }

  #createPlacementGroup(body: Json): PlacementGroup {
    const name = this.#name(body['name'], this.placementGroups.values(), 'placement_group');
    const g: PlacementGroup = { id: this.#id(), name, labels: this.#labels(body['labels']), created: this.#now() };
    this.placementGroups.set(g.id, g);
    return g;
  }

  #placementJson(g: PlacementGroup): Json {
    return {
      id: g.id,
      name: g.name,
      labels: g.labels,
      type: 'spread',
      servers: [...this.servers.values()].filter((s) => s.placementGroup === g.id).map((s) => s.id),
      created: this.#iso(g.created),
    };
  }
}
