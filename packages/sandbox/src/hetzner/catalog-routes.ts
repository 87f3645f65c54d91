// The read-only catalogs of the Hetzner Cloud API as it serves them (catalog.ts holds the data): locations, data
// centers, server and load balancer types, images and ISOs, each a list and one by id, and the price list (GET /pricing).
import { EmulatorError, type Json, reply } from '../emulator/index.js';
import type { HetznerServerType, HetznerSystemImage } from '../catalogs/hetzner/hetzner-catalog.js';
import {
  HETZNER_DATACENTERS,
  HETZNER_IMAGES,
  HETZNER_ISOS,
  HETZNER_LOAD_BALANCER_TYPES,
  HETZNER_LOCATIONS,
  HETZNER_PRICE_LIST,
  HETZNER_SERVER_TYPES,
  hetznerOrderable,
} from './catalog.js';
import { queryBoolean } from '../openapi/validator.js';
import { hetznerLabelSelector } from './label-selector.js';
import { type HetznerProject, type HetznerRoute, idParam, SORT_ID_NAME_CREATED } from './project.js';

/**
 * The server types GET /server_types lists at `now`: every type that some location still sells or has not yet retired
 * ("Once this date is reached, the resource will not be returned by resource type list endpoint", `deprecation_info` in
 * hetzner-cloud-openapi.json). A type retired everywhere is still found by id (servers of that type keep it).
 */
export function listedServerTypes(now: number): HetznerServerType[] {
  return HETZNER_SERVER_TYPES.filter((t) => t.locations.some((l) => l.deprecation === null || Date.parse(l.deprecation.unavailable_after) > now));
}

/** `server_type` as the snapshot holds it (its per-location deprecations, prices and the older top-level fields). */
export function serverTypeJson(t: HetznerServerType): Json {
  return structuredClone(t);
}

/** A system image as `image` describes it: published by Hetzner, bound to nothing, never deleted. */
export function imageJson(i: HetznerSystemImage): Json {
  return {
    ...i,
    status: 'available',
    labels: {},
    protection: { delete: false },
    rapid_deploy: true,
    created_from: null,
    bound_to: null,
    deleted: null,
    image_size: null,
  };
}

/** `data_center`: its location in full and the server types it supports / can sell now (past `unavailable_after`, not). */
function datacenterJson(name: string, now: number): Json {
  const d = HETZNER_DATACENTERS.find((x) => x.name === name)!;
  const location = HETZNER_LOCATIONS.find((l) => l.name === d.location);
  const supported = listedServerTypes(now)
    .filter((t) => t.locations.some((l) => l.name === d.location))
    .map((t) => t.id);
  const available = HETZNER_SERVER_TYPES.filter((t) => hetznerOrderable(t, d.location, now)).map((t) => t.id);
  return { id: d.id, name: d.name, description: d.description, location, server_types: { supported, available, available_for_migration: available } };
}

/** The one data center the sandbox has in each location (a server's and a primary IP's `datacenter`). */
export function datacenterOf(location: string, now: number): Json {
  return datacenterJson(HETZNER_DATACENTERS.find((d) => d.location === location)!.name, now);
}

/**
 * GET /pricing (list_prices_response): the price list, and every server and load balancer type's prices per location.
 */
export function pricingJson(): Json {
  return {
    pricing: {
      ...structuredClone(HETZNER_PRICE_LIST),
      server_types: HETZNER_SERVER_TYPES.map((t) => ({ id: t.id, name: t.name, prices: structuredClone(t.prices) })),
      load_balancer_types: HETZNER_LOAD_BALANCER_TYPES.map((t) => ({ id: t.id, name: t.name, prices: structuredClone(t.prices) })),
    },
  };
}

/** The catalog routes: `GET /<collection>` (filtered by `name`, and what else `filter` keeps) and `GET /<collection>/{id}`. */
export function catalogRoutes(p: HetznerProject): HetznerRoute[] {
  const named = (items: Json[], query: URLSearchParams) => items.filter((i) => query.get('name') === null || i['name'] === query.get('name'));
  /** `architecture` filters images and ISOs; ISOs without one only with include_architecture_wildcard (GET /isos). */
  const ofArchitecture = (items: Json[], query: URLSearchParams) => {
    const arch = query.get('architecture');
    return items.filter((i) => !arch || i['architecture'] === arch);
  };
  /**
   * GET /images' filters: `type` and `status` (each repeatable), `bound_to` (a server's backups and snapshots: the
   * system images are bound to none), `label_selector`, `architecture`, and `include_deprecated` (deprecated images are
   * left out unless it is true, hetzner-cloud-openapi.json).
   */
  const images = (items: Json[], query: URLSearchParams) => {
    const types = query.getAll('type');
    const status = query.getAll('status');
    const boundTo = query.getAll('bound_to');
    const selector = query.get('label_selector');
    const matches = selector === null ? undefined : hetznerLabelSelector(selector);
    const deprecatedToo = queryBoolean(query.get('include_deprecated') ?? '') === true;
    return ofArchitecture(items, query).filter(
      (i) =>
        (types.length === 0 || types.includes(String(i['type']))) &&
        (status.length === 0 || status.includes(String(i['status']))) &&
        (boundTo.length === 0 || boundTo.includes(String(i['bound_to']))) &&
        (matches === undefined || matches(i['labels'] as Record<string, string>)) &&
        (deprecatedToo || i['deprecated'] === null || i['deprecated'] === undefined),
    );
  };
  /** GET /isos: an ISO of no architecture only with `include_architecture_wildcard` when an architecture is asked. */
  const isos = (items: Json[], query: URLSearchParams) => {
    const arch = query.get('architecture');
    const wildcard = queryBoolean(query.get('include_architecture_wildcard') ?? '') === true;
    return items.filter((i) => !arch || i['architecture'] === arch || (wildcard && i['architecture'] === null));
  };
  const catalog = (
    collection: string,
    key: string,
    all: () => Json[],
    sortable: readonly string[] | undefined,
    filter: (items: Json[], query: URLSearchParams) => Json[] = (items) => items,
    extra: Json = {},
    byId?: () => Json[],
  ): HetznerRoute[] => [
    [`GET /${collection}`, (c) => reply({ ...p.listJson(collection, filter(named(all(), c.query), c.query), c.query, sortable), ...extra })],
    [
      `GET /${collection}/{id}`,
      (c) => {
        const id = idParam(c);
        const item = (byId ?? all)().find((i) => i['id'] === id);
        if (!item) throw new EmulatorError(404, 'not_found', `${key} with ID '${String(id)}' not found`);
        return reply({ [key]: item });
      },
    ],
  ];
  return [
    ...catalog(
      'server_types',
      'server_type',
      () => listedServerTypes(p.now()).map(serverTypeJson),
      undefined,
      undefined,
      {},
      () => HETZNER_SERVER_TYPES.map(serverTypeJson),
    ),
    ...catalog('load_balancer_types', 'load_balancer_type', () => HETZNER_LOAD_BALANCER_TYPES.map((t) => structuredClone(t)), undefined),
    ...catalog('images', 'image', () => HETZNER_IMAGES.map(imageJson), SORT_ID_NAME_CREATED, images),
    ...catalog('isos', 'iso', () => HETZNER_ISOS.map((i) => structuredClone(i)), undefined, isos),
    ...catalog('locations', 'location', () => HETZNER_LOCATIONS.map((l) => ({ ...l })), ['id', 'name']),
    ...catalog('datacenters', 'datacenter', () => HETZNER_DATACENTERS.map((d) => datacenterJson(d.name, p.now())), ['id', 'name'], undefined, {
      recommendation: 4,
    }),
    ['GET /pricing', () => reply(pricingJson())],
  ];
}
