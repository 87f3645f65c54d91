// The resources of the emulated Cloudflare account, and what its route families (zones, DNS records, Load
// Balancing) share: lookups that answer Cloudflare's not-found codes, and routes named as the emulator names them.
import {
  type Collection,
  EmulatorError,
  type Json,
  numberedPage,
  pageSize,
  type Reply,
  reply,
  type RouteHandler,
  type RouteOptions,
} from '../emulator/index.js';
import { authenticationError } from './dialect.js';

export interface Zone {
  id: string;
  name: string;
}
export interface DnsRec {
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
export interface Monitor {
  id: string;
  type: string;
  port: number;
  description: string;
  interval: number;
  timeout: number;
  retries: number;
}
export interface Pool {
  id: string;
  name: string;
  description: string;
  monitor: string | null;
  origins: Json[];
  enabled: boolean;
  /** The Load Balancing regions that health-check the pool (null: all, Cloudflare's default). */
  check_regions?: string[];
}
export interface Lb {
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

/** When records and zones saved without a time were made. */
export const EPOCH = '2026-01-01T00:00:00Z';

export interface CloudflareWorld {
  readonly accountId: string;
  readonly zones: Collection<string, Zone>;
  readonly records: Collection<string, DnsRec>;
  readonly monitors: Collection<string, Monitor>;
  readonly pools: Collection<string, Pool>;
  readonly loadBalancers: Collection<string, Lb>;
  /** Whether the account has the Load Balancing subscription. */
  loadBalancing(): boolean;
  /** A new 32-hex id, from the emulator's counter. */
  id(): string;
  now(): number;
}

export type CloudflareRoute = [template: string, handler: RouteHandler<Json>, options: RouteOptions];

/**
 * A route whose wire operation (what faults and call counts name) writes every identifier as `{id}`, as the emulator
 * always has: `GET /zones/{zone}/dns_records/{record}` is `GET /zones/{id}/dns_records/{id}`.
 */
export function route(template: string, handler: RouteHandler<Json>, options: RouteOptions = {}): CloudflareRoute {
  return [template, handler, { name: template.replace(/\{\w+\}/g, '{id}'), ...options }];
}

/** The operation of a request no route matches: its method and path, each 32-hex identifier written `{id}`. */
export function unroutedOperation(call: { method: string; path: string }): string {
  return `${call.method} ${call.path.replace(/[0-9a-f]{32}/g, '{id}')}`;
}

export function zoneOf(w: CloudflareWorld, id: string): Zone {
  return w.zones.require(id, () => new EmulatorError(404, 7003, `Could not route to /zones/${id}, perhaps your object identifier is invalid?`));
}

/** Another account's path is refused as a bad token is. */
export function accountOf(w: CloudflareWorld, id: string): void {
  if (id !== w.accountId) throw authenticationError();
}

export function requireLoadBalancing(w: CloudflareWorld): void {
  // Without the subscription the Load Balancing endpoints refuse (the exact code is the emulator's assumption).
  if (!w.loadBalancing()) throw new EmulatorError(403, 1015, 'Load Balancing is not enabled for this account; purchase a Load Balancing subscription');
}

/**
 * What Cloudflare answers a method a path does not take, with an API token: 405, code 10000, "<METHOD> method not
 * allowed for the api_token authentication scheme" (reported for a record PUT without its id:
 * https://community.cloudflare.com/t/put-method-not-allowed-for-the-api-token-authentication-scheme/381292).
 */
export function methodNotAllowed(method: string): EmulatorError {
  return new EmulatorError(405, 10000, `${method} method not allowed for the api_token authentication scheme`);
}

export function iso(ms: number | undefined): string {
  return ms === undefined ? EPOCH : new Date(ms).toISOString();
}

/** A page of a list, `per_page` 5 to 5000 (default 100), with its `result_info`. */
export function page(items: readonly unknown[], query: URLSearchParams): Reply {
  const p = numberedPage(items, Number(query.get('page') ?? 1) || 1, pageSize(query.get('per_page'), { default: 100, min: 5, max: 5000 }));
  return reply(p.items, 200, {}, { result_info: { page: p.page, per_page: p.perPage, count: p.items.length, total_count: p.total, total_pages: p.lastPage } });
}
