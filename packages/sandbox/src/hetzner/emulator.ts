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
import { matchesLabelSelector } from '../label-selector.js';
import { HETZNER_DATACENTERS, HETZNER_IMAGES, HETZNER_LOCATIONS, HETZNER_SERVER_TYPE_LOCATIONS, HETZNER_SERVER_TYPES } from './catalog.js';
import { sandboxPublicAddress } from '../public-addresses.js';

export const HETZNER_API = 'https://api.hetzner.cloud/v1';
const CLUSTER_LABEL = 'kubeplane.dev/cluster-id';
const USER_DATA_LIMIT = 32 * 1024;

type Labels = Record<string, string>;
type Json = Record<string, unknown>;

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
  privateNets: Array<{ network: number; ip: string }>;
  firewalls: number[];
  placementGroup?: number;
  userDataBytes: number;
  /** Kept in memory for the simulated kubelets (it holds bootstrap tokens): never in the inventory. */
  userData: string;
}
export interface Network { id: number; name: string; labels: Labels; ipRange: string; subnets: Array<{ type: string; ip_range: string; network_zone: string; gateway: string }>; created: number; nextHost: number }
export interface Firewall { id: number; name: string; labels: Labels; rules: Json[]; appliedTo: Json[]; created: number }
export interface PrimaryIp { id: number; name: string; labels: Labels; ip: string; assigneeId: number | null; autoDelete: boolean; location: (typeof HETZNER_LOCATIONS)[number]; created: number }
export interface SshKey { id: number; name: string; labels: Labels; publicKey: string; fingerprint: string; created: number }
export interface PlacementGroup { id: number; name: string; labels: Labels; created: number }
export interface Zone { id: number; name: string; labels: Labels; ttl: number; created: number }
export interface RRSet { zone: number; name: string; type: string; ttl: number | null; records: Array<{ value: string; comment?: string }>; labels: Labels }
export interface Action { id: number; command: string; started: number; finishAt: number; resources: Array<{ id: number; type: string }> }

class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Json = {},
  ) {
    super(message);
  }
}

export interface HetznerEmulatorOptions {
  /** The API token the project accepts. */
  token: string;
  /** The project's rate limit (default: 3600 per hour, refilling 1 per second). */
  rateLimit?: TokenBucketLimits;
  /** Requests already spent by other tools sharing the project when the sandbox starts. */
  initiallySpent?: number;
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
  servers: Array<[number, Server]>;
  networks: Array<[number, Network]>;
  firewalls: Array<[number, Firewall]>;
  primaryIps: Array<[number, PrimaryIp]>;
  sshKeys: Array<[number, SshKey]>;
  placementGroups: Array<[number, PlacementGroup]>;
  actions: Array<[number, Action]>;
  zones: Array<[number, Zone]>;
  rrsets: RRSet[];
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
  readonly servers = new Map<number, Server>();
  readonly networks = new Map<number, Network>();
  readonly firewalls = new Map<number, Firewall>();
  readonly primaryIps = new Map<number, PrimaryIp>();
  readonly sshKeys = new Map<number, SshKey>();
  readonly placementGroups = new Map<number, PlacementGroup>();
  readonly actions = new Map<number, Action>();
  readonly zones = new Map<number, Zone>();
  readonly rrsets: RRSet[] = [];
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
    for (const name of options.dnsZones ?? ['example.de']) this.addDnsZone(name);
  }

  /** A DNS zone the project's owner made (with its SOA and NS records), unless one of that name exists. */
  addDnsZone(name: string): void {
    if ([...this.zones.values()].some((z) => z.name === name)) return;
    const zone: Zone = { id: this.#id(), name, labels: {}, ttl: 3600, created: this.#ctx.clock.now() };
    this.zones.set(zone.id, zone);
    this.rrsets.push({ zone: zone.id, name: '@', type: 'SOA', ttl: 3600, records: [{ value: 'hydrogen.ns.hetzner.com. dns.hetzner.com. 2026010100 86400 10800 3600000 3600' }], labels: {} });
    this.rrsets.push({ zone: zone.id, name: '@', type: 'NS', ttl: 3600, records: [{ value: 'hydrogen.ns.hetzner.com.' }, { value: 'oxygen.ns.hetzner.com.' }, { value: 'helium.ns.hetzner.de.' }], labels: {} });
  }

  /** A deep copy of the emulator's state. */
  state(): HetznerEmulatorState {
    return structuredClone({
      rateLimit: { ...this.budget.limits },
      budget: this.budget.state(),
      nextId: this.#nextId,
      nextIp: this.#nextIp,
      servers: [...this.servers.entries()],
      networks: [...this.networks.entries()],
      firewalls: [...this.firewalls.entries()],
      primaryIps: [...this.primaryIps.entries()],
      sshKeys: [...this.sshKeys.entries()],
      placementGroups: [...this.placementGroups.entries()],
      actions: [...this.actions.entries()],
      zones: [...this.zones.entries()],
      rrsets: this.rrsets,
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
    this.throttled = s.throttled;
    this.requests = s.requests;
    this.requestTimes.splice(0, this.requestTimes.length, ...s.requestTimes);
  }

  handlers(): HttpHandler[] {
    return [http.all(`${HETZNER_API}/*`, async ({ request }) => this.#handle(request))];
  }

  inventory(): InventoryItem[] {
    const item = (kind: string, id: number, name: string, labels: Labels, state?: string): InventoryItem => ({
      cloud: 'hetzner', kind, id: String(id), name, ...(labels[CLUSTER_LABEL] ? { clusterId: labels[CLUSTER_LABEL] } : {}), ...(state ? { state } : {}),
    });
    return [
      ...[...this.servers.values()].map((s) => item('node', s.id, s.name, s.labels, this.#status(s))),
      ...[...this.networks.values()].map((n) => item('network', n.id, n.name, n.labels)),
      ...[...this.firewalls.values()].map((f) => item('firewall', f.id, f.name, f.labels)),
      ...[...this.primaryIps.values()].map((p) => item('reserved-ip', p.id, p.name, p.labels)),
      ...[...this.sshKeys.values()].map((k) => item('ssh-key', k.id, k.name, k.labels)),
      ...[...this.placementGroups.values()].map((g) => item('placement-group', g.id, g.name, g.labels)),
      ...this.rrsets.filter((r) => r.name !== '@').map((r) => ({ ...item('dns-record', r.zone, `${r.name}/${r.type}`, r.labels), id: `${r.zone}/${r.name}/${r.type}` })),
    ];
  }

  /** The servers as machines for the simulated kubelets (vm-source.ts). */
  listVms(): SandboxVm[] {
    return [...this.servers.values()].map((s) => {
      const running = this.#now() >= s.runningAt;
      return {
        cloud: 'hetzner',
        name: s.name,
        id: String(s.id),
        state: running ? 'running' : 'pending',
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

  #status(s: Server): string {
    return this.#now() >= s.runningAt ? 'running' : 'initializing';
  }

  #rateHeaders(): Record<string, string> {
    const remaining = Math.floor(this.budget.available());
    const { capacity, refillPerSecond } = this.budget.limits;
    const reset = Math.ceil(this.#now() / 1000 + (capacity - remaining) / refillPerSecond);
    return { 'RateLimit-Limit': String(capacity), 'RateLimit-Remaining': String(remaining), 'RateLimit-Reset': String(reset) };
  }

  #json(status: number, body: unknown, withRateHeaders = true): Response {
    const headers: Record<string, string> = { 'X-Correlation-Id': requestId(), ...(withRateHeaders ? this.#rateHeaders() : {}) };
    return HttpResponse.json(body as Json, { status, headers });
  }

  #error(e: ApiError, withRateHeaders = true): Response {
    return this.#json(e.status, { error: { code: e.code, message: e.message, details: e.details } }, withRateHeaders);
  }

  #faultResponse(kind: FaultKind): Response | 'lost-response' {
    switch (kind) {
      case 'throttled':
        this.throttled += 1;
        return HttpResponse.json({ error: { code: 'rate_limit_exceeded', message: 'limit of 3600 requests per hour reached', details: {} } }, { status: 429, headers: { 'RateLimit-Limit': '3600', 'RateLimit-Remaining': '0', 'RateLimit-Reset': String(Math.ceil(this.#now() / 1000 + 2)) } });
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
        return this.#error(new ApiError(403, 'resource_limit_exceeded', 'server limit exceeded: project limit is 10 servers; request an increase in the Hetzner console'));
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
      return HttpResponse.json({ error: { code: 'rate_limit_exceeded', message: 'limit of 3600 requests per hour reached', details: {} } }, { status: 429, headers: { ...headers, 'RateLimit-Remaining': '0' } });
    }
    const fault = this.#ctx.faults.take('hetzner', operation);
    if (fault === 'throttled') {
      this.throttled += 1;
      const reset = Math.ceil(this.#now() / 1000 + 2);
      return HttpResponse.json(
        { error: { code: 'rate_limit_exceeded', message: 'limit of 3600 requests per hour reached', details: {} } },
        { status: 429, headers: { 'RateLimit-Limit': '3600', 'RateLimit-Remaining': '0', 'RateLimit-Reset': String(reset) } },
      );
    }
    if (fault && fault !== 'lost-response') {
      const response = this.#faultResponse(fault);
      if (response !== 'lost-response') return response;
    }
    let body: Json = {};
    if (request.method === 'POST' || request.method === 'PUT') {
      try {
        body = (await request.json()) as Json;
      } catch {
        return this.#error(new ApiError(400, 'json_error', 'invalid JSON'));
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
    if (parts[0] === 'zones') return this.#routeZones(method, parts.slice(1).map(decodeURIComponent), query, body);
    const [collection, idText, sub, action] = parts;
    const id = idText === undefined ? undefined : Number(idText);
    if (idText !== undefined && !Number.isInteger(id)) throw new ApiError(404, 'not_found', `${collection}/${idText} not found`);
    switch (collection) {
      case 'servers':
        if (id === undefined) return method === 'GET' ? [200, this.#list('servers', [...this.servers.values()].filter((s) => this.#filter(s, query)).map((s) => this.#serverJson(s)), query)] : [201, this.#createServer(body)];
        if (method === 'GET' && sub === undefined) return [200, { server: this.#serverJson(this.#get(this.servers, id, 'server')) }];
        if (method === 'DELETE') return [200, { action: this.#deleteServer(id) }];
        break;
      case 'networks':
        if (id === undefined) return method === 'GET' ? [200, this.#list('networks', [...this.networks.values()].filter((n) => this.#filter(n, query)).map((n) => this.#networkJson(n)), query)] : [201, { network: this.#networkJson(this.#createNetwork(body)) }];
        if (method === 'GET') return [200, { network: this.#networkJson(this.#get(this.networks, id, 'network')) }];
        if (method === 'DELETE') {
          this.#get(this.networks, id, 'network');
          for (const s of this.servers.values()) s.privateNets = s.privateNets.filter((p) => p.network !== id);
          this.networks.delete(id);
          return [204, null];
        }
        break;
      case 'firewalls':
        if (id === undefined) return method === 'GET' ? [200, this.#list('firewalls', [...this.firewalls.values()].filter((f) => this.#filter(f, query)).map((f) => this.#firewallJson(f)), query)] : [201, this.#createFirewall(body)];
        if (method === 'GET') return [200, { firewall: this.#firewallJson(this.#get(this.firewalls, id, 'firewall')) }];
        if (method === 'DELETE') return [204, this.#deleteFirewall(id)];
        if (method === 'POST' && sub === 'actions' && action === 'set_rules') {
          const fw = this.#get(this.firewalls, id, 'firewall');
          fw.rules = this.#validateRules(body['rules']);
          return [201, { actions: [this.#action('set_firewall_rules', [{ id, type: 'firewall' }], 1_000)] }];
        }
        break;
      case 'primary_ips':
        if (id === undefined) return method === 'GET' ? [200, this.#list('primary_ips', [...this.primaryIps.values()].filter((p) => this.#filter(p, query)).map((p) => this.#primaryIpJson(p)), query)] : [201, { primary_ip: this.#primaryIpJson(this.#createPrimaryIp(body)), action: null }];
        if (method === 'GET') return [200, { primary_ip: this.#primaryIpJson(this.#get(this.primaryIps, id, 'primary_ip')) }];
        if (method === 'DELETE') {
          const ip = this.#get(this.primaryIps, id, 'primary_ip');
          if (ip.assigneeId !== null) throw new ApiError(409, 'conflict', `primary ip ${id} is assigned to server ${ip.assigneeId}; unassign it or delete the server first`);
          this.primaryIps.delete(id);
          return [204, null];
        }
        break;
      case 'ssh_keys':
        if (id === undefined) {
          // `fingerprint` filters the list to the one key with that MD5 fingerprint (GET /ssh_keys in the Cloud API's OpenAPI).
          const fingerprint = query.get('fingerprint');
          const keys = [...this.sshKeys.values()].filter((k) => this.#filter(k, query) && (fingerprint === null || k.fingerprint === fingerprint));
          return method === 'GET' ? [200, this.#list('ssh_keys', keys.map((k) => this.#sshKeyJson(k)), query)] : [201, { ssh_key: this.#sshKeyJson(this.#createSshKey(body)) }];
        }
        if (method === 'GET') return [200, { ssh_key: this.#sshKeyJson(this.#get(this.sshKeys, id, 'ssh_key')) }];
        if (method === 'DELETE') {
          this.#get(this.sshKeys, id, 'ssh_key');
          this.sshKeys.delete(id);
          return [204, null];
        }
        break;
      case 'placement_groups':
        if (id === undefined) return method === 'GET' ? [200, this.#list('placement_groups', [...this.placementGroups.values()].filter((g) => this.#filter(g, query)).map((g) => this.#placementJson(g)), query)] : [201, { placement_group: this.#placementJson(this.#createPlacementGroup(body)), action: null }];
        if (method === 'DELETE') {
          this.#get(this.placementGroups, id, 'placement_group');
          if ([...this.servers.values()].some((s) => s.placementGroup === id)) throw new ApiError(409, 'conflict', `placement group ${id} still has servers`);
          this.placementGroups.delete(id);
          return [204, null];
        }
        break;
      case 'actions':
        if (id !== undefined && method === 'GET') return [200, { action: this.#actionJson(this.#get(this.actions, id, 'action')) }];
        if (id === undefined && method === 'GET') {
          const ids = query.getAll('id').map(Number);
          return [200, this.#list('actions', [...this.actions.values()].filter((a) => ids.length === 0 || ids.includes(a.id)).map((a) => this.#actionJson(a)), query)];
        }
        break;
      case 'server_types':
        if (method === 'GET' && id === undefined) {
          return [
            200,
            this.#list(
              'server_types',
              HETZNER_SERVER_TYPES.map((t) => {
                const where = HETZNER_SERVER_TYPE_LOCATIONS[t.name];
                // The top-level `deprecated`/`deprecation` are the API's older fields, kept in step with the per-location ones.
                return { ...t, deprecated: where?.deprecation !== undefined, deprecation: where?.deprecation ?? null, prices: [], storage_type: 'local', locations: HETZNER_LOCATIONS.filter((l) => !where?.only || where.only.includes(l.name)).map((l) => ({ id: l.id, name: l.name, deprecation: where?.deprecation ?? null })) };
              }),
              query,
            ),
          ];
        }
        break;
      case 'images':
        if (method === 'GET' && id === undefined) {
          const arch = query.get('architecture');
          return [200, this.#list('images', HETZNER_IMAGES.filter((i) => !arch || i.architecture === arch).map((i) => ({ deprecated: null, ...i, status: 'available', labels: {}, protection: { delete: false }, rapid_deploy: true })), query)];
        }
        break;
      case 'locations':
        if (method === 'GET' && id === undefined) return [200, this.#list('locations', [...HETZNER_LOCATIONS], query)];
        break;
      case 'datacenters':
        // `data_center`: its location in full and the server types it supports / has available now.
        if (method === 'GET' && id === undefined) {
          const all = HETZNER_DATACENTERS.map((d) => {
            const location = HETZNER_LOCATIONS.find((l) => l.name === d.location);
            const ids = HETZNER_SERVER_TYPES.filter((t) => { const w = HETZNER_SERVER_TYPE_LOCATIONS[t.name]; return !w?.only || w.only.includes(d.location); }).map((t) => t.id);
            return { id: d.id, name: d.name, description: d.description, location, server_types: { supported: ids, available: ids, available_for_migration: ids } };
          });
          const name = query.get('name');
          return [200, { ...this.#list('datacenters', all.filter((d) => !name || d.name === name), query), recommendation: 4 }];
        }
        break;
    }
    throw new ApiError(404, 'not_found', `${method} ${path} is not an endpoint of this API`);
  }

  #routeZones(method: string, parts: string[], query: URLSearchParams, body: Json): [number, unknown] {
    const [zoneRef, sub, rrName, rrType, actions, action] = parts;
    if (zoneRef === undefined) {
      if (method === 'GET') return [200, this.#list('zones', [...this.zones.values()].filter((z) => this.#filter(z, query)).map((z) => this.#zoneJson(z)), query)];
      throw new ApiError(405, 'method_not_allowed', 'zones are created by the user in this sandbox');
    }
    const zone = [...this.zones.values()].find((z) => String(z.id) === zoneRef || z.name === zoneRef);
    if (!zone) throw new ApiError(404, 'not_found', `zone '${zoneRef}' not found`);
    if (sub === undefined && method === 'GET') return [200, { zone: this.#zoneJson(zone) }];
    if (sub !== 'rrsets') throw new ApiError(404, 'not_found', `${method} zones/${parts.join('/')} is not an endpoint of this API`);
    const change = (command: string) => this.#action(command, [{ id: zone.id, type: 'zone' }], LATENCY.hetznerDnsChange);
    if (rrName === undefined) {
      if (method === 'GET') {
        const sets = this.rrsets.filter((r) => r.zone === zone.id && (!query.get('name') || r.name === query.get('name')) && (!query.get('type') || r.type === query.get('type')) && (!query.get('label_selector') || matchesLabelSelector(r.labels, query.get('label_selector') ?? '')));
        return [200, this.#list('rrsets', sets.map((r) => this.#rrsetJson(r)), query)];
      }
      if (method === 'POST') {
        const name = String(body['name'] ?? '');
        const type = String(body['type'] ?? '');
        if (!/^(@|[a-z0-9*_]([a-z0-9-_.]*[a-z0-9])?)$/.test(name) || name.endsWith(zone.name)) throw new ApiError(400, 'invalid_input', `invalid rrset name '${name}': lower case, relative to the zone, '@' for the apex`, { fields: [{ name: 'name' }] });
        if (!['A', 'AAAA', 'CNAME', 'TXT', 'MX', 'SRV', 'CAA'].includes(type)) throw new ApiError(400, 'invalid_input', `invalid rrset type '${type}'`, { fields: [{ name: 'type' }] });
        if (this.rrsets.some((r) => r.zone === zone.id && r.name === name && r.type === type)) throw new ApiError(409, 'uniqueness_error', `rrset ${name}/${type} already exists`);
        const set: RRSet = { zone: zone.id, name, type, ttl: body['ttl'] === undefined ? null : Number(body['ttl']), records: this.#records(body['records']), labels: this.#labels(body['labels']) };
        this.rrsets.push(set);
        return [201, { rrset: this.#rrsetJson(set), action: change('create_rrset') }];
      }
    }
    const index = this.rrsets.findIndex((r) => r.zone === zone.id && r.name === rrName && r.type === rrType);
    const set = this.rrsets[index];
    if (!set) throw new ApiError(404, 'not_found', `rrset ${rrName ?? ''}/${rrType ?? ''} not found`);
    if (actions === undefined && method === 'GET') return [200, { rrset: this.#rrsetJson(set) }];
    if (actions === undefined && method === 'DELETE') {
      this.rrsets.splice(index, 1);
      return [201, { action: change('delete_rrset') }];
    }
    if (actions === 'actions' && method === 'POST' && action === 'set_records') {
      set.records = this.#records(body['records']);
      return [201, { action: change('set_rrset_records') }];
    }
    if (actions === 'actions' && method === 'POST' && action === 'change_ttl') {
      set.ttl = body['ttl'] === null || body['ttl'] === undefined ? null : Number(body['ttl']);
      return [201, { action: change('change_rrset_ttl') }];
    }
    throw new ApiError(404, 'not_found', `${method} zones/${parts.join('/')} is not an endpoint of this API`);
  }

  #records(value: unknown): RRSet['records'] {
    if (!Array.isArray(value) || value.length === 0 || value.length > 50) throw new ApiError(400, 'invalid_input', 'records must hold 1 to 50 records', { fields: [{ name: 'records' }] });
    const records = (value as Json[]).map((r) => ({ value: String(r['value'] ?? ''), ...(typeof r['comment'] === 'string' ? { comment: r['comment'] } : {}) }));
    if (new Set(records.map((r) => r.value)).size !== records.length) throw new ApiError(400, 'invalid_input', 'record values must be distinct', { fields: [{ name: 'records' }] });
    return records;
  }

  #zoneJson(z: Zone): Json {
    return { id: z.id, name: z.name, mode: 'primary', ttl: z.ttl, labels: z.labels, created: this.#iso(z.created), status: 'ok', registrar: 'other', record_count: this.rrsets.filter((r) => r.zone === z.id).length, primary_nameservers: [], protection: { delete: false }, authoritative_nameservers: { assigned: ['hydrogen.ns.hetzner.com.', 'oxygen.ns.hetzner.com.', 'helium.ns.hetzner.de.'], delegated: ['hydrogen.ns.hetzner.com.', 'oxygen.ns.hetzner.com.', 'helium.ns.hetzner.de.'], delegation_last_check: null, delegation_status: 'valid' } };
  }

  #rrsetJson(r: RRSet): Json {
    return { id: `${r.name}/${r.type}`, name: r.name, type: r.type, ttl: r.ttl, records: r.records, labels: r.labels, protection: { change: false }, zone: r.zone };
  }

  #get<T>(map: Map<number, T>, id: number, what: string): T {
    const found = map.get(id);
    if (!found) throw new ApiError(404, 'not_found', `${what} with ID '${id}' not found`);
    return found;
  }

  #filter(resource: { name: string; labels: Labels }, query: URLSearchParams): boolean {
    const name = query.get('name');
    if (name !== null && resource.name !== name) return false;
    const selector = query.get('label_selector');
    return selector === null || matchesLabelSelector(resource.labels, selector);
  }

  #list(key: string, items: unknown[], query: URLSearchParams): Json {
    const perPage = Math.min(50, Math.max(1, Number(query.get('per_page') ?? 25) || 25));
    const page = Math.max(1, Number(query.get('page') ?? 1) || 1);
    const lastPage = Math.max(1, Math.ceil(items.length / perPage));
    return {
      [key]: items.slice((page - 1) * perPage, page * perPage),
      meta: { pagination: { page, per_page: perPage, previous_page: page > 1 ? page - 1 : null, next_page: page < lastPage ? page + 1 : null, last_page: lastPage, total_entries: items.length } },
    };
  }

  #labels(value: unknown): Labels {
    if (value === undefined || value === null) return {};
    if (typeof value !== 'object' || Array.isArray(value)) throw new ApiError(400, 'invalid_input', 'invalid input in field labels', { fields: [{ name: 'labels', messages: ['must be an object'] }] });
    for (const [k, v] of Object.entries(value)) {
      if (typeof v !== 'string' || !/^([a-z0-9A-Z.-]+\/)?[a-zA-Z0-9]([-a-zA-Z0-9_.]{0,61}[a-zA-Z0-9])?$/.test(k) || !/^([a-zA-Z0-9]([-a-zA-Z0-9_.]{0,61}[a-zA-Z0-9])?)?$/.test(v)) {
        throw new ApiError(400, 'invalid_input', `invalid label ${k}`, { fields: [{ name: 'labels', messages: [`invalid label ${k}`] }] });
      }
    }
    return { ...(value as Labels) };
  }

  #name(value: unknown, collection: Iterable<{ name: string }>, what: string): string {
    if (typeof value !== 'string' || !/^[a-zA-Z0-9]([a-zA-Z0-9-.]{0,61}[a-zA-Z0-9])?$/.test(value)) {
      throw new ApiError(400, 'invalid_input', `invalid input in field 'name'`, { fields: [{ name: 'name', messages: ['must be a valid hostname'] }] });
    }
    for (const r of collection) if (r.name === value) throw new ApiError(409, 'uniqueness_error', `${what} name is already used`, { fields: [{ name: 'name' }] });
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
    return { id: a.id, command: a.command, status: finished ? 'success' : 'running', progress, started: this.#iso(a.started), finished: finished ? this.#iso(a.finishAt) : null, resources: a.resources, error: null };
  }

  #publicIp(): string {
    const n = this.#nextIp++;
    return sandboxPublicAddress('hetzner', n);
  }

  #createServer(body: Json): Json {
    const name = this.#name(body['name'], this.servers.values(), 'server');
    const serverType = HETZNER_SERVER_TYPES.find((t) => t.name === body['server_type'] || String(t.id) === String(body['server_type']));
    if (!serverType) throw new ApiError(400, 'invalid_input', `server type ${String(body['server_type'])} not found`, { fields: [{ name: 'server_type', messages: ['server type not found'] }] });
    const image = HETZNER_IMAGES.find((i) => (i.name === body['image'] || String(i.id) === String(body['image'])) && i.architecture === serverType.architecture);
    if (!image) throw new ApiError(400, 'invalid_input', `image ${String(body['image'])} not found`, { fields: [{ name: 'image', messages: ['image not found'] }] });
    const location = HETZNER_LOCATIONS.find((l) => l.name === (body['location'] ?? 'fsn1'));
    if (!location) throw new ApiError(400, 'invalid_input', `location ${String(body['location'])} not found`, { fields: [{ name: 'location' }] });
    const userData = typeof body['user_data'] === 'string' ? body['user_data'] : '';
    const userDataBytes = Buffer.byteLength(userData);
    if (userDataBytes > USER_DATA_LIMIT) throw new ApiError(400, 'invalid_input', 'user_data must not exceed 32 KiB', { fields: [{ name: 'user_data' }] });
    const labels = this.#labels(body['labels']);
    const networks = Array.isArray(body['networks']) ? (body['networks'] as unknown[]).map((n) => this.#get(this.networks, Number(n), 'network')) : [];
    // A server joins a network through a subnet of its location's network zone: "at least one Subnet with the zone
    // covering Server's location must exist" (Networks, IP address management, in reference/hetzner-cloud-openapi.json).
    for (const n of networks) {
      if (!n.subnets.some((sub) => sub.network_zone === location.network_zone)) {
        throw new ApiError(400, 'invalid_input', `network ${n.id} has no subnet in network zone ${location.network_zone} of location ${location.name}`, { fields: [{ name: 'networks' }] });
      }
    }
    const firewalls = Array.isArray(body['firewalls']) ? (body['firewalls'] as Array<{ firewall: unknown }>).map((f) => this.#get(this.firewalls, Number(f.firewall), 'firewall').id) : [];
    if (Array.isArray(body['ssh_keys'])) for (const k of body['ssh_keys'] as unknown[]) if (![...this.sshKeys.values()].some((x) => x.name === k || x.id === Number(k))) throw new ApiError(400, 'invalid_input', `ssh key ${String(k)} not found`, { fields: [{ name: 'ssh_keys' }] });
    const placement = body['placement_group'] === undefined || body['placement_group'] === null ? undefined : this.#get(this.placementGroups, Number(body['placement_group']), 'placement_group').id;
    const publicNet = (body['public_net'] ?? {}) as Json;
    let ipv4: Server['ipv4'];
    const id = this.#id();
    if (publicNet['ipv4'] !== undefined && publicNet['ipv4'] !== null) {
      const p = this.#get(this.primaryIps, Number(publicNet['ipv4']), 'primary_ip');
      if (p.assigneeId !== null) throw new ApiError(409, 'conflict', `primary ip ${p.id} is already assigned`);
      p.assigneeId = id;
      ipv4 = { id: p.id, ip: p.ip };
    } else if (publicNet['enable_ipv4'] !== false) {
      const p: PrimaryIp = { id: this.#id(), name: `primary_ip-${id}`, labels: {}, ip: this.#publicIp(), assigneeId: id, autoDelete: true, location, created: this.#now() };
      this.primaryIps.set(p.id, p);
      ipv4 = { id: p.id, ip: p.ip };
    }
    const boot = sample(LATENCY.hetznerCreateToRunning, this.#ctx.random);
    const server: Server = {
      id, name, labels, created: this.#now(), runningAt: this.#now() + boot, serverType, image, location,
      ...(ipv4 ? { ipv4 } : {}),
      privateNets: networks.map((n) => ({ network: n.id, ip: this.#privateIp(n) })),
      firewalls, ...(placement !== undefined ? { placementGroup: placement } : {}), userDataBytes, userData,
    };
    this.servers.set(id, server);
    const action = this.#action('create_server', [{ id, type: 'server' }], boot);
    return { server: this.#serverJson(server), action, next_actions: [this.#action('start_server', [{ id, type: 'server' }], boot)], root_password: null };
  }

  #privateIp(n: Network): string {
    const base = n.subnets[0]?.ip_range ?? n.ipRange;
    const [a, b, c] = base.split('/')[0]!.split('.');
    n.nextHost += 1;
    return `${a}.${b}.${Number(c) + Math.floor(n.nextHost / 250)}.${(n.nextHost % 250) + 1}`;
  }

  #deleteServer(id: number): Json {
    const server = this.#get(this.servers, id, 'server');
    this.servers.delete(id);
    for (const p of this.primaryIps.values()) {
      if (p.assigneeId === server.id) {
        if (p.autoDelete) this.primaryIps.delete(p.id);
        else p.assigneeId = null;
      }
    }
    return this.#action('delete_server', [{ id, type: 'server' }], 5_000);
  }

  #appliedFirewalls(s: Server): number[] {
    const ids = new Set(s.firewalls);
    for (const f of this.firewalls.values()) {
      for (const r of f.appliedTo) {
        const sel = (r['label_selector'] as { selector?: string } | undefined)?.selector;
        if (r['type'] === 'label_selector' && sel && matchesLabelSelector(s.labels, sel)) ids.add(f.id);
        if (r['type'] === 'server' && (r['server'] as { id?: number } | undefined)?.id === s.id) ids.add(f.id);
      }
    }
    return [...ids].filter((x) => this.firewalls.has(x));
  }

  #serverJson(s: Server): Json {
    return {
      id: s.id, name: s.name, status: this.#status(s), created: this.#iso(s.created), labels: s.labels,
      server_type: { ...s.serverType, deprecated: false, prices: [], storage_type: 'local' },
      image: { ...s.image, status: 'available' },
      location: s.location,
      public_net: {
        ipv4: s.ipv4 ? { id: s.ipv4.id, ip: s.ipv4.ip, blocked: false, dns_ptr: `static.${s.ipv4.ip}.clients.your-server.de` } : null,
        ipv6: null, floating_ips: [],
        firewalls: this.#appliedFirewalls(s).map((f) => ({ id: f, status: 'applied' })),
      },
      private_net: s.privateNets.map((p) => ({ network: p.network, ip: p.ip, alias_ips: [], mac_address: '86:00:00:2a:7d:e0' })),
      placement_group: s.placementGroup === undefined ? null : this.#placementJson(this.#get(this.placementGroups, s.placementGroup, 'placement_group')),
      protection: { delete: false, rebuild: false }, rescue_enabled: false, locked: false, backup_window: null,
      outgoing_traffic: 0, ingoing_traffic: 0, included_traffic: 21990232555520, primary_disk_size: s.serverType.disk, volumes: [], load_balancers: [], iso: null,
    };
  }

  #createNetwork(body: Json): Network {
    const name = this.#name(body['name'], this.networks.values(), 'network');
    const ipRange = body['ip_range'];
    if (typeof ipRange !== 'string' || !/^(10|172|192)\.\d+\.\d+\.\d+\/\d+$/.test(ipRange)) throw new ApiError(400, 'invalid_input', 'ip_range must be an RFC 1918 CIDR', { fields: [{ name: 'ip_range' }] });
    const subnets = Array.isArray(body['subnets']) ? (body['subnets'] as Json[]).map((s) => ({ type: String(s['type'] ?? 'cloud'), ip_range: String(s['ip_range']), network_zone: String(s['network_zone'] ?? 'eu-central'), gateway: String(s['ip_range']).replace(/\d+\/\d+$/, '1') })) : [];
    const n: Network = { id: this.#id(), name, labels: this.#labels(body['labels']), ipRange, subnets, created: this.#now(), nextHost: 1 };
    this.networks.set(n.id, n);
    return n;
  }

  #networkJson(n: Network): Json {
    return { id: n.id, name: n.name, ip_range: n.ipRange, subnets: n.subnets, routes: [], servers: [...this.servers.values()].filter((s) => s.privateNets.some((p) => p.network === n.id)).map((s) => s.id), load_balancers: [], labels: n.labels, created: this.#iso(n.created), protection: { delete: false }, expose_routes_to_vswitch: false };
  }

  #validateRules(value: unknown): Json[] {
    if (value === undefined) return [];
    if (!Array.isArray(value) || value.length > 50) throw new ApiError(400, 'invalid_input', 'rules must be an array of at most 50 rules', { fields: [{ name: 'rules' }] });
    return (value as Json[]).map((r) => {
      if (!['in', 'out'].includes(String(r['direction'])) || !['tcp', 'udp', 'icmp', 'esp', 'gre'].includes(String(r['protocol']))) throw new ApiError(400, 'invalid_input', 'invalid firewall rule', { fields: [{ name: 'rules' }] });
      if ((r['protocol'] === 'tcp' || r['protocol'] === 'udp') && typeof r['port'] !== 'string') throw new ApiError(400, 'invalid_input', 'port is required for tcp and udp rules', { fields: [{ name: 'rules' }] });
      return { direction: r['direction'], protocol: r['protocol'], port: r['port'] ?? null, source_ips: r['source_ips'] ?? [], destination_ips: r['destination_ips'] ?? [], description: r['description'] ?? null };
    });
  }

  #createFirewall(body: Json): Json {
    const name = this.#name(body['name'], this.firewalls.values(), 'firewall');
    const f: Firewall = { id: this.#id(), name, labels: this.#labels(body['labels']), rules: this.#validateRules(body['rules']), appliedTo: Array.isArray(body['apply_to']) ? (body['apply_to'] as Json[]) : [], created: this.#now() };
    this.firewalls.set(f.id, f);
    return { firewall: this.#firewallJson(f), actions: [] };
  }

  #deleteFirewall(id: number): null {
    const f = this.#get(this.firewalls, id, 'firewall');
    const direct = [...this.servers.values()].filter((s) => s.firewalls.includes(id));
    if (direct.length > 0) throw new ApiError(422, 'resource_in_use', `firewall ${id} is still applied to ${direct.length} server(s)`);
    this.firewalls.delete(f.id);
    return null;
  }

  #firewallJson(f: Firewall): Json {
    return { id: f.id, name: f.name, labels: f.labels, rules: f.rules, applied_to: f.appliedTo, created: this.#iso(f.created) };
  }

  #createPrimaryIp(body: Json): PrimaryIp {
    const name = this.#name(body['name'], this.primaryIps.values(), 'primary_ip');
    if (body['type'] !== 'ipv4') throw new ApiError(400, 'invalid_input', 'only ipv4 primary IPs are emulated', { fields: [{ name: 'type' }] });
    const location = HETZNER_LOCATIONS.find((l) => l.name === (body['location'] ?? 'fsn1'));
    if (!location) throw new ApiError(400, 'invalid_input', 'location not found', { fields: [{ name: 'location' }] });
    const p: PrimaryIp = { id: this.#id(), name, labels: this.#labels(body['labels']), ip: this.#publicIp(), assigneeId: null, autoDelete: body['auto_delete'] === true, location, created: this.#now() };
    this.primaryIps.set(p.id, p);
    return p;
  }

  #primaryIpJson(p: PrimaryIp): Json {
    return { id: p.id, name: p.name, labels: p.labels, ip: p.ip, type: 'ipv4', assignee_id: p.assigneeId, assignee_type: 'server', auto_delete: p.autoDelete, blocked: false, location: p.location, dns_ptr: [], protection: { delete: false }, created: this.#iso(p.created) };
  }

  #createSshKey(body: Json): SshKey {
    const name = this.#name(body['name'], this.sshKeys.values(), 'ssh_key');
    const publicKey = body['public_key'];
    if (typeof publicKey !== 'string' || !/^(ssh-ed25519|ssh-rsa|ecdsa-sha2-nistp256) [A-Za-z0-9+/=]+/.test(publicKey)) throw new ApiError(400, 'invalid_input', 'invalid public key', { fields: [{ name: 'public_key' }] });
    const digest = createHash('md5').update(Buffer.from(publicKey.split(' ')[1] ?? '', 'base64')).digest('hex');
    const fingerprint = digest.match(/../g)!.join(':');
    if ([...this.sshKeys.values()].some((k) => k.fingerprint === fingerprint)) throw new ApiError(409, 'uniqueness_error', 'SSH key with the same fingerprint already exists', { fields: [{ name: 'public_key' }] });
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
    return { id: g.id, name: g.name, labels: g.labels, type: 'spread', servers: [...this.servers.values()].filter((s) => s.placementGroup === g.id).map((s) => s.id), created: this.#iso(g.created) };
  }
}
