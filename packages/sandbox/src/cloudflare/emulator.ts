// The Cloudflare API v4 emulator on msw: the `{success, errors, messages, result, result_info}` envelope, zones,
// DNS records (with the atomic batch endpoint), account subscriptions, and Load Balancing (monitors, pools, load
// balancers) that only an account with the subscription may use; the 1200-per-5-minutes limit; an inventory.
import { createHash } from 'node:crypto';
import { http, HttpResponse, type HttpHandler } from 'msw';
import { TokenBucket, type TokenBucketLimits, type TokenBucketState } from '@kubeplane/sdk';
import { type SandboxContext, countCall } from '../context.js';
import type { FaultKind } from '../faults.js';
import { refill } from '../state-entries.js';

export const CLOUDFLARE_API = 'https://api.cloudflare.com/client/v4';
/** The cloud name this emulator counts calls and takes faults under (a CloudName). */
export const CLOUDFLARE_CLOUD = 'cloudflare';

type Json = Record<string, unknown>;

export interface CloudflareInventoryItem {
  cloud: 'cloudflare';
  kind: 'dns-record' | 'load-balancer' | 'pool' | 'health-check';
  id: string;
  name?: string;
  /** From the `kubeplane:<cluster>` comment or description. */
  clusterId?: string;
}

export interface CloudflareEmulatorOptions {
  apiToken: string;
  accountId: string;
  zones: string[];
  /** Whether the account has the Load Balancing subscription. */
  loadBalancing: boolean;
  /** Cloudflare's limit: 1200 requests per 5 minutes. */
  rateLimit?: { capacity: number; refillPerSecond: number };
}

class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

interface Zone {
  id: string;
  name: string;
}
interface DnsRec {
  id: string;
  zoneId: string;
  name: string;
  type: string;
  content: string;
  ttl: number;
  proxied: boolean;
  comment: string | null;
  /** Virtual ms of the create and of the last change (absent in states saved before they were kept). */
  createdOn?: number;
  modifiedOn?: number;
}

/** The sandbox's nameservers, as Cloudflare assigns a pair per account (the names are the sandbox's). */
const NAME_SERVERS = ['ada.ns.cloudflare.com', 'bob.ns.cloudflare.com'];
/** When records and zones saved without a time were made. */
const EPOCH = '2026-01-01T00:00:00Z';
interface Monitor {
  id: string;
  type: string;
  port: number;
  description: string;
  interval: number;
  timeout: number;
  retries: number;
}
interface Pool {
  id: string;
  name: string;
  description: string;
  monitor: string | null;
  origins: Json[];
  enabled: boolean;
}
interface Lb {
  id: string;
  zoneId: string;
  name: string;
  description: string;
  default_pools: string[];
  fallback_pool: string;
  ttl: number;
  steering_policy: string;
  proxied: boolean;
}

/**
 * Everything the emulator keeps, as plain data (sandbox snapshots): the account, its subscription and rate limit,
 * the id counter, and every zone, record, monitor, pool and load balancer. Maps are arrays of entries. Not in it:
 * the API token (given again on restore) and `log`, which is for assertions.
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

export class CloudflareEmulator {
  readonly #ctx: SandboxContext;
  readonly #options: CloudflareEmulatorOptions;
  readonly budget: TokenBucket;
  #seq = 0;
  readonly zones = new Map<string, Zone>();
  readonly records = new Map<string, DnsRec>();
  readonly monitors = new Map<string, Monitor>();
  readonly pools = new Map<string, Pool>();
  readonly loadBalancers = new Map<string, Lb>();
  /** Accepted requests (method, path, body), for assertions. */
  readonly log: Array<{ method: string; path: string; body?: Json }> = [];

  constructor(ctx: SandboxContext, options: CloudflareEmulatorOptions) {
    this.#ctx = ctx;
    this.#options = { ...options };
    const limits = options.rateLimit ?? { capacity: 1200, refillPerSecond: 4 };
    this.budget = new TokenBucket(limits, ctx.clock);
    for (const name of options.zones) this.addZone(name);
  }

  /** A zone the account's owner added, unless one of that name exists. */
  addZone(name: string): void {
    if ([...this.zones.values()].some((z) => z.name === name)) return;
    const z: Zone = { id: this.#id(), name };
    this.zones.set(z.id, z);
  }

  get accountId(): string {
    return this.#options.accountId;
  }

  /** A deep copy of the emulator's state (see CloudflareEmulatorState). */
  state(): CloudflareEmulatorState {
    return structuredClone({
      accountId: this.#options.accountId,
      loadBalancing: this.#options.loadBalancing,
      rateLimit: { ...this.budget.limits },
      budget: this.budget.state(),
      seq: this.#seq,
      zones: [...this.zones.entries()],
      records: [...this.records.entries()],
      monitors: [...this.monitors.entries()],
      pools: [...this.pools.entries()],
      loadBalancers: [...this.loadBalancers.entries()],
    });
  }

  /**
   * Replaces the emulator's state with a copy of `state`, which must be of this emulator's account (the rate limit
   * is the constructor's option).
   */
  restore(state: CloudflareEmulatorState): void {
    if (state.accountId !== this.#options.accountId)
      throw new Error(`cannot restore the Cloudflare state of account ${state.accountId} into the emulator of account ${this.#options.accountId}`);
    const s = structuredClone(state);
    this.#options.loadBalancing = s.loadBalancing;
    this.budget.restore(s.budget);
    this.#seq = s.seq;
    refill(this.zones, s.zones);
    refill(this.records, s.records);
    refill(this.monitors, s.monitors);
    refill(this.pools, s.pools);
    refill(this.loadBalancers, s.loadBalancers);
  }

  handlers(): HttpHandler[] {
    return [http.all(`${CLOUDFLARE_API}/*`, async ({ request }) => this.#handle(request))];
  }

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
    this.#seq += 1;
    return createHash('md5').update(`cf-${this.#seq}`).digest('hex');
  }

  #ok(result: unknown, info?: Json, messages: Json[] = []): Response {
    return HttpResponse.json(
      { success: true, errors: [], messages, result, ...(info ? { result_info: info } : {}) },
      { headers: { 'cf-ray': `${this.#id().slice(0, 16)}-SBX` } },
    );
  }

  #iso(ms: number | undefined): string {
    return ms === undefined ? EPOCH : new Date(ms).toISOString();
  }

  #fail(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
    return HttpResponse.json(
      { success: false, errors: [{ code, message }], messages: [], result: null },
      { status, headers: { 'cf-ray': `${this.#id().slice(0, 16)}-SBX`, ...headers } },
    );
  }

  #fault(kind: FaultKind): Response | 'lost-response' {
    switch (kind) {
      case 'throttled':
        return this.#fail(429, 971, 'Please wait and consider throttling your request speed', { 'Retry-After': '3' });
      case 'throttled-no-headers':
        return this.#fail(429, 971, 'Please wait and consider throttling your request speed');
      case 'server-error':
        return this.#fail(500, 10002, 'An unknown error has occurred');
      case 'timeout':
        return HttpResponse.error();
      case 'lost-response':
        return 'lost-response';
      case 'capacity':
      case 'quota':
        return this.#fail(400, 81045, 'Record quota exceeded.');
      case 'auth':
        return this.#fail(403, 10000, 'Authentication error');
    }
  }

  async #handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const path = url.pathname.replace(/^\/client\/v4/, '');
    const operation = `${request.method} ${path.replace(/[0-9a-f]{32}/g, '{id}')}`;
    countCall(this.#ctx, CLOUDFLARE_CLOUD, operation);
    if (path === '/user/tokens/verify' && request.method === 'GET') return this.#verifyToken(request);
    if (request.headers.get('authorization') !== `Bearer ${this.#options.apiToken}`) return this.#fail(403, 10000, 'Authentication error');
    if (this.budget.tryTake(1) > 0)
      return this.#fail(429, 971, 'Please wait and consider throttling your request speed', {
        'Retry-After': String(Math.ceil(1 / this.budget.limits.refillPerSecond)),
      });
    const fault = this.#ctx.faults.take(CLOUDFLARE_CLOUD, operation);
    if (fault && fault !== 'lost-response') {
      const response = this.#fault(fault);
      if (response !== 'lost-response') return response;
    }
    let body: Json = {};
    if (request.method !== 'GET' && request.method !== 'DELETE') {
      const text = await request.text();
      if (text) {
        try {
          body = JSON.parse(text) as Json;
        } catch {
          return this.#fail(400, 9207, 'Request body is invalid.');
        }
      }
    }
    this.log.push({ method: request.method, path, ...(Object.keys(body).length ? { body } : {}) });
    try {
      const [result, info] = this.#route(request.method, path.split('/').filter(Boolean), url.searchParams, body);
      if (fault === 'lost-response') return HttpResponse.error();
      return this.#ok(result, info);
    } catch (e) {
      if (e instanceof ApiError) return this.#fail(e.status, e.code, e.message);
      throw e;
    }
  }

  /**
   * GET /user/tokens/verify (https://developers.cloudflare.com/api/resources/user/subresources/tokens/methods/verify):
   * the token's id and status, with the "valid and active" message (the troubleshooting page's example,
   * https://developers.cloudflare.com/fundamentals/api/troubleshooting/); an unknown token is 401, code 1000.
   */
  #verifyToken(request: Request): Response {
    if (request.headers.get('authorization') !== `Bearer ${this.#options.apiToken}`) return this.#fail(401, 1000, 'Invalid API Token');
    const id = createHash('md5').update(`cf-token/${this.#options.apiToken}`).digest('hex');
    return this.#ok({ id, status: 'active' }, undefined, [{ code: 10000, message: 'This API Token is valid and active', type: null }]);
  }

  #page<T>(items: T[], query: URLSearchParams): [T[], Json] {
    const perPage = Math.min(5000, Math.max(5, Number(query.get('per_page') ?? 100) || 100));
    const page = Math.max(1, Number(query.get('page') ?? 1) || 1);
    const slice = items.slice((page - 1) * perPage, page * perPage);
    return [slice, { page, per_page: perPage, count: slice.length, total_count: items.length, total_pages: Math.max(1, Math.ceil(items.length / perPage)) }];
  }

  #route(method: string, parts: string[], query: URLSearchParams, body: Json): [unknown, Json?] {
    const [a, b, c, d, e] = parts;
    if (a === 'zones' && b === undefined && method === 'GET') {
      const name = query.get('name');
      return this.#page(
        [...this.zones.values()].filter((z) => !name || z.name === name).map((z) => this.#zoneJson(z)),
        query,
      );
    }
    if (a === 'zones' && b) {
      const zone = this.zones.get(b);
      if (!zone) throw new ApiError(404, 7003, `Could not route to /zones/${b}, perhaps your object identifier is invalid?`);
      if (c === undefined && method === 'GET') return [this.#zoneJson(zone)];
      if (c === 'dns_records') return this.#records(method, zone, d, query, body);
      if (c === 'load_balancers') return [this.#lbs(method, zone, d, body)];
    }
    if (a === 'accounts' && b) {
      if (b !== this.#options.accountId) throw new ApiError(403, 10000, 'Authentication error');
      if (c === 'subscriptions' && method === 'GET') {
        return [
          [
            { id: 'sub-dns', product: { name: 'prod_dns', public_name: 'DNS' }, rate_plan: { id: 'free', public_name: 'Free' }, state: 'Paid' },
            ...(this.#options.loadBalancing
              ? [
                  {
                    id: 'sub-lb',
                    product: { name: 'prod_load_balancing', public_name: 'Load Balancing' },
                    rate_plan: { id: 'load_balancing_basic', public_name: 'Load Balancing' },
                    state: 'Paid',
                  },
                ]
              : []),
          ],
        ];
      }
      if (c === 'load_balancers') {
        this.#requireLb();
        if (d === 'monitors') return [this.#monitorsRoute(method, e, body)];
        if (d === 'pools') return [this.#poolsRoute(method, e, body)];
      }
    }
    throw new ApiError(404, 7000, 'No route for that URI');
  }

  /**
   * A zone as GET /zones/{zone_id} gives it (https://developers.cloudflare.com/api/resources/zones/methods/get/): a
   * full setup, active, on the account, with its assigned nameservers. Plan and permissions are left out.
   */
  #zoneJson(z: Zone): Json {
    return {
      id: z.id,
      name: z.name,
      status: 'active',
      paused: false,
      type: 'full',
      development_mode: 0,
      name_servers: [...NAME_SERVERS],
      original_name_servers: null,
      original_registrar: null,
      original_dnshost: null,
      created_on: EPOCH,
      modified_on: EPOCH,
      activated_on: EPOCH,
      account: { id: this.#options.accountId, name: 'kubeplane sandbox' },
      owner: { id: null, type: 'user', email: null },
      meta: { step: 2, custom_certificate_quota: 0, page_rule_quota: 3, phishing_detected: false },
    };
  }

  #requireLb(): void {
    // Without the subscription the Load Balancing endpoints refuse (the exact code is the emulator's assumption).
    if (!this.#options.loadBalancing) throw new ApiError(403, 1015, 'Load Balancing is not enabled for this account; purchase a Load Balancing subscription');
  }

  /** A DNS record as the API gives it (https://developers.cloudflare.com/api/resources/dns/subresources/records/methods/get/). */
  #recordJson(r: DnsRec): Json {
    const zone = this.zones.get(r.zoneId);
    return {
      id: r.id,
      zone_id: r.zoneId,
      zone_name: zone?.name ?? '',
      name: r.name,
      type: r.type,
      content: r.content,
      proxiable: r.type !== 'TXT',
      proxied: r.proxied,
      ttl: r.ttl,
      settings: {},
      meta: {},
      comment: r.comment,
      tags: [],
      created_on: this.#iso(r.createdOn),
      modified_on: this.#iso(r.modifiedOn ?? r.createdOn),
    };
  }

  /**
   * A record's name as Cloudflare stores it: "DNS record name (or @ for the zone apex)"
   * (https://developers.cloudflare.com/api/resources/dns/subresources/records/methods/create/), and a name that does
   * not end in the zone is relative to it, as in the dashboard (`www` is `www.<zone>`). A fully qualified name
   * (trailing dot) outside the zone is refused.
   */
  #recordName(zone: Zone, raw: unknown): string {
    const given = String(raw ?? '').trim();
    if (given === '') throw new ApiError(400, 9007, 'DNS record name is required.');
    if (given === '@') return zone.name;
    const absolute = given.endsWith('.');
    const name = given.replace(/\.$/, '').toLowerCase();
    if (name === zone.name || name.endsWith(`.${zone.name}`)) return name;
    if (absolute) throw new ApiError(400, 1004, `DNS Validation Error: ${name} is not in zone ${zone.name}`);
    return `${name}.${zone.name}`;
  }

  #validateRecord(zone: Zone, input: Json, except: Set<string>, pending: DnsRec[]): DnsRec {
    const name = this.#recordName(zone, input['name']);
    const type = String(input['type'] ?? '');
    const content = String(input['content'] ?? '');
    if (!['A', 'AAAA', 'CNAME', 'TXT'].includes(type)) throw new ApiError(400, 1004, `DNS Validation Error: unsupported type ${type}`);
    if (type === 'A' && !/^\d{1,3}(\.\d{1,3}){3}$/.test(content)) throw new ApiError(400, 9005, 'Content for A record must be a valid IPv4 address.');
    const ttl = Number(input['ttl'] ?? 1);
    if (!(ttl === 1 || (ttl >= 30 && ttl <= 86400))) throw new ApiError(400, 1004, 'DNS Validation Error: ttl must be 1 (auto) or between 30 and 86400');
    const others = [...[...this.records.values()].filter((r) => !except.has(r.id)), ...pending].filter((r) => r.zoneId === zone.id && r.name === name);
    if (others.some((r) => r.type === type && r.content === content)) throw new ApiError(400, 81058, 'An identical record already exists.');
    if (others.some((r) => (r.type === 'CNAME') !== (type === 'CNAME') && ['A', 'AAAA', 'CNAME'].includes(r.type)))
      throw new ApiError(400, 81053, 'An A, AAAA, or CNAME record with that host already exists.');
    const now = this.#ctx.clock.now();
    return {
      id: this.#id(),
      zoneId: zone.id,
      name,
      type,
      content,
      ttl,
      proxied: input['proxied'] === true,
      comment: typeof input['comment'] === 'string' ? input['comment'] : null,
      createdOn: now,
      modifiedOn: now,
    };
  }

  #records(method: string, zone: Zone, id: string | undefined, query: URLSearchParams, body: Json): [unknown, Json?] {
    if (id === undefined && method === 'GET') {
      const name = query.get('name');
      const type = query.get('type');
      return this.#page(
        [...this.records.values()]
          .filter((r) => r.zoneId === zone.id && (!name || r.name === name) && (!type || r.type === type))
          .map((r) => this.#recordJson(r)),
        query,
      );
    }
    if (id === undefined && method === 'POST') {
      const r = this.#validateRecord(zone, body, new Set(), []);
      this.records.set(r.id, r);
      return [this.#recordJson(r)];
    }
    if (id === 'batch' && method === 'POST') {
      // All or nothing: validate every part against the state after the deletes, then apply.
      const list = (k: string) => (Array.isArray(body[k]) ? (body[k] as Json[]) : []);
      const deletes = list('deletes').map((x) => String(x['id']));
      for (const d of deletes)
        if (!this.records.has(d) || this.records.get(d)?.zoneId !== zone.id) throw new ApiError(404, 81044, `Record ${d} does not exist.`);
      const gone = new Set(deletes);
      const patched = list('patches').map((p) => {
        const cur = this.records.get(String(p['id']));
        if (!cur || gone.has(cur.id)) throw new ApiError(404, 81044, `Record ${String(p['id'])} does not exist.`);
        return {
          ...cur,
          ...(p['ttl'] !== undefined ? { ttl: Number(p['ttl']) } : {}),
          ...(typeof p['comment'] === 'string' ? { comment: p['comment'] } : {}),
          ...(typeof p['content'] === 'string' ? { content: p['content'] } : {}),
        };
      });
      // Puts overwrite whole records, as PUT on one record does.
      const replaced = new Set([...gone, ...patched.map((p) => p.id)]);
      const put: DnsRec[] = [];
      for (const p of list('puts')) {
        const cur = this.records.get(String(p['id']));
        if (!cur || cur.zoneId !== zone.id || replaced.has(cur.id)) throw new ApiError(404, 81044, `Record ${String(p['id'])} does not exist.`);
        replaced.add(cur.id);
        const next = this.#validateRecord(zone, p, replaced, put);
        put.push({ ...next, id: cur.id, ...(cur.createdOn !== undefined ? { createdOn: cur.createdOn } : {}) });
      }
      const posted: DnsRec[] = [];
      for (const p of list('posts')) posted.push(this.#validateRecord(zone, p, replaced, [...put, ...posted]));
      for (const d of deletes) this.records.delete(d);
      for (const p of patched) this.records.set(p.id, p);
      for (const p of put) this.records.set(p.id, p);
      for (const p of posted) this.records.set(p.id, p);
      return [
        {
          deletes: deletes.map((d) => ({ id: d })),
          patches: patched.map((r) => this.#recordJson(r)),
          puts: put.map((r) => this.#recordJson(r)),
          posts: posted.map((r) => this.#recordJson(r)),
        },
      ];
    }
    if (id === undefined) throw this.#methodNotAllowed(method);
    const r = this.records.get(id);
    if (!r || r.zoneId !== zone.id) throw new ApiError(404, 81044, 'Record does not exist.');
    if (method === 'GET') return [this.#recordJson(r)];
    if (method === 'DELETE') {
      this.records.delete(r.id);
      return [{ id: r.id }];
    }
    // PUT overwrites the record (every field as for a create); PATCH changes the fields given
    // (https://developers.cloudflare.com/api/resources/dns/subresources/records/methods/update/ and .../edit/). Both
    // keep the id and the creation time and are checked as a create is, against the zone's other records.
    if (method === 'PUT' || method === 'PATCH') {
      const input = method === 'PUT' ? body : { name: r.name, type: r.type, content: r.content, ttl: r.ttl, proxied: r.proxied, comment: r.comment, ...body };
      const next = this.#validateRecord(zone, input, new Set([r.id]), []);
      Object.assign(r, {
        name: next.name,
        type: next.type,
        content: next.content,
        ttl: next.ttl,
        proxied: next.proxied,
        comment: next.comment,
        modifiedOn: next.modifiedOn,
      });
      return [this.#recordJson(r)];
    }
    throw this.#methodNotAllowed(method);
  }

  /**
   * What Cloudflare answers a method a path does not take, with an API token: 405, code 10000, "<METHOD> method not
   * allowed for the api_token authentication scheme" (reported for a record PUT without its id:
   * https://community.cloudflare.com/t/put-method-not-allowed-for-the-api-token-authentication-scheme/381292).
   */
  #methodNotAllowed(method: string): ApiError {
    return new ApiError(405, 10000, `${method} method not allowed for the api_token authentication scheme`);
  }

  #monitorsRoute(method: string, id: string | undefined, body: Json): unknown {
    const json = (m: Monitor) => ({ ...m });
    if (id === undefined && method === 'GET') return [...this.monitors.values()].map(json);
    const fields = (): Omit<Monitor, 'id'> => {
      if (body['type'] !== 'tcp' && body['type'] !== 'http' && body['type'] !== 'https')
        throw new ApiError(400, 1002, 'monitor type must be tcp, http or https');
      const port = Number(body['port']);
      if (body['type'] === 'tcp' && !(port >= 1 && port <= 65535)) throw new ApiError(400, 1002, 'a tcp monitor needs a port');
      return {
        type: String(body['type']),
        port,
        description: String(body['description'] ?? ''),
        interval: Number(body['interval'] ?? 60),
        timeout: Number(body['timeout'] ?? 5),
        retries: Number(body['retries'] ?? 2),
      };
    };
    if (id === undefined && method === 'POST') {
      const m: Monitor = { id: this.#id(), ...fields() };
      this.monitors.set(m.id, m);
      return json(m);
    }
    const m = id ? this.monitors.get(id) : undefined;
    if (!m) throw new ApiError(404, 1001, 'monitor not found');
    if (method === 'GET') return json(m);
    if (method === 'PUT') {
      Object.assign(m, fields());
      return json(m);
    }
    if (method === 'DELETE') {
      if ([...this.pools.values()].some((p) => p.monitor === m.id)) throw new ApiError(400, 1002, 'monitor is referenced by pools');
      this.monitors.delete(m.id);
      return { id: m.id };
    }
    throw this.#methodNotAllowed(method);
  }

  #poolsRoute(method: string, id: string | undefined, body: Json): unknown {
    if (id === undefined && method === 'GET') return [...this.pools.values()];
    const fields = (): Omit<Pool, 'id'> => {
      const origins = Array.isArray(body['origins']) ? (body['origins'] as Json[]) : [];
      if (origins.length === 0) throw new ApiError(400, 1002, 'a pool needs at least one origin');
      const monitor = typeof body['monitor'] === 'string' ? body['monitor'] : null;
      if (monitor && !this.monitors.has(monitor)) throw new ApiError(400, 1002, `monitor ${monitor} not found`);
      return { name: String(body['name'] ?? ''), description: String(body['description'] ?? ''), monitor, origins, enabled: body['enabled'] !== false };
    };
    if (id === undefined && method === 'POST') {
      const f = fields();
      if ([...this.pools.values()].some((p) => p.name === f.name)) throw new ApiError(400, 1002, `a pool named ${f.name} already exists`);
      const p: Pool = { id: this.#id(), ...f };
      this.pools.set(p.id, p);
      return p;
    }
    const p = id ? this.pools.get(id) : undefined;
    if (!p) throw new ApiError(404, 1001, 'pool not found');
    if (method === 'GET') return p;
    if (method === 'PUT') {
      Object.assign(p, fields());
      return p;
    }
    if (method === 'DELETE') {
      if ([...this.loadBalancers.values()].some((l) => l.default_pools.includes(p.id) || l.fallback_pool === p.id))
        throw new ApiError(400, 1002, 'pool is referenced by load balancers');
      this.pools.delete(p.id);
      return { id: p.id };
    }
    throw this.#methodNotAllowed(method);
  }

  #lbs(method: string, zone: Zone, id: string | undefined, body: Json): unknown {
    if (id === undefined && method === 'GET') {
      if (!this.#options.loadBalancing) return [];
      return [...this.loadBalancers.values()].filter((l) => l.zoneId === zone.id);
    }
    this.#requireLb();
    const fields = (): Omit<Lb, 'id' | 'zoneId'> => {
      const pools = Array.isArray(body['default_pools']) ? (body['default_pools'] as unknown[]).map(String) : [];
      const fallback = String(body['fallback_pool'] ?? '');
      for (const p of [...pools, fallback]) if (!this.pools.has(p)) throw new ApiError(400, 1002, `pool ${p} not found`);
      return {
        name: String(body['name'] ?? ''),
        description: String(body['description'] ?? ''),
        default_pools: pools,
        fallback_pool: fallback,
        ttl: Number(body['ttl'] ?? 30),
        steering_policy: String(body['steering_policy'] ?? 'off'),
        proxied: body['proxied'] === true,
      };
    };
    if (id === undefined && method === 'POST') {
      const f = fields();
      if ([...this.records.values()].some((r) => r.zoneId === zone.id && r.name === f.name))
        throw new ApiError(400, 1002, `a DNS record for ${f.name} already exists`);
      const l: Lb = { id: this.#id(), zoneId: zone.id, ...f };
      this.loadBalancers.set(l.id, l);
      return l;
    }
    const l = id ? this.loadBalancers.get(id) : undefined;
    if (!l || l.zoneId !== zone.id) throw new ApiError(404, 1001, 'load balancer not found');
    if (method === 'GET') return l;
    if (method === 'PUT') {
      Object.assign(l, fields());
      return l;
    }
    if (method === 'DELETE') {
      this.loadBalancers.delete(l.id);
      return { id: l.id };
    }
    throw this.#methodNotAllowed(method);
  }
}
