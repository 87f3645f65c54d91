// What the Hetzner emulator lends the modules of its resource kinds (volumes, floating IPs, load balancers,
// certificates): ids, the clock, actions, name and label checks and list responses, so each kind is one module.
import { ApiError, type Json, type Labels } from './api-error.js';

export interface ActionResource {
  id: number;
  type: string;
}

export interface HetznerProject {
  id(): number;
  now(): number;
  /** A timestamp as the API writes it (ISO 8601, seconds). */
  iso(ms: number): string;
  /** A new action that finishes `durationMs` from now, as JSON. */
  action(command: string, resources: ActionResource[], durationMs: number): Json;
  labels(value: unknown): Labels;
  name(value: unknown, collection: Iterable<{ name: string }>, what: string): string;
  /** A list response: `name` and `label_selector` filters, `sort` over `sortable`, then one page. */
  list<T extends { name: string; labels: Labels }>(
    key: string,
    items: Iterable<T>,
    toJson: (item: T) => Json,
    query: URLSearchParams,
    sortable: readonly string[] | undefined,
  ): Json;
  publicIp(): string;
  /** The server with this id, or 404 `not_found`. */
  serverId(value: unknown, field: string): number;
  locationJson(name: string): Json;
}

/** The resource in `map` under `id`, or the API's 404 `not_found`. */
export function found<T>(map: Map<number, T>, id: number, what: string): T {
  const item = map.get(id);
  if (!item) throw new ApiError(404, 'not_found', `${what} with ID '${id}' not found`);
  return item;
}

/** The sort fields most collections document (`sort` enums in hetzner-cloud-openapi.json). */
export const SORT_ID_NAME_CREATED = ['id', 'name', 'created'] as const;
