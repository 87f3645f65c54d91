// The read-only catalogs of the Hetzner Cloud API as it serves them (catalog.ts holds the data): locations, data
// centers, server and load balancer types, images and ISOs, each a list and one by id.
import { EmulatorError, type Json, reply } from '../emulator/index.js';
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
import { type HetznerProject, type HetznerRoute, idParam, SORT_ID_NAME_CREATED } from './project.js';

export function serverTypeJson(t: (typeof HETZNER_SERVER_TYPES)[number]): Json {
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
export function imageJson(i: (typeof HETZNER_IMAGES)[number]): Json {
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
function datacenterJson(name: string): Json {
  const d = HETZNER_DATACENTERS.find((x) => x.name === name)!;
  const location = HETZNER_LOCATIONS.find((l) => l.name === d.location);
  const ids = HETZNER_SERVER_TYPES.filter((t) => {
    const w = HETZNER_SERVER_TYPE_LOCATIONS[t.name];
    return !w?.only || w.only.includes(d.location);
  }).map((t) => t.id);
  return { id: d.id, name: d.name, description: d.description, location, server_types: { supported: ids, available: ids, available_for_migration: ids } };
}

/** The one data center the sandbox has in each location (a server's and a primary IP's `datacenter`). */
export function datacenterOf(location: string): Json {
  return datacenterJson(HETZNER_DATACENTERS.find((d) => d.location === location)!.name);
}

/** The catalog routes: `GET /<collection>` (filtered by `name`, and what else `filter` keeps) and `GET /<collection>/{id}`. */
export function catalogRoutes(p: HetznerProject): HetznerRoute[] {
  const named = (items: Json[], query: URLSearchParams) => items.filter((i) => query.get('name') === null || i['name'] === query.get('name'));
  /** `architecture` filters images and ISOs; ISOs without one only with include_architecture_wildcard (GET /isos). */
  const ofArchitecture = (items: Json[], query: URLSearchParams) => {
    const arch = query.get('architecture');
    return items.filter((i) => !arch || i['architecture'] === arch);
  };
  const catalog = (
    collection: string,
    key: string,
    all: () => Json[],
    sortable: readonly string[] | undefined,
    filter: (items: Json[], query: URLSearchParams) => Json[] = (items) => items,
    extra: Json = {},
  ): HetznerRoute[] => [
    [`GET /${collection}`, (c) => reply({ ...p.listJson(collection, filter(named(all(), c.query), c.query), c.query, sortable), ...extra })],
    [
      `GET /${collection}/{id}`,
      (c) => {
        const id = idParam(c);
        const item = all().find((i) => i['id'] === id);
        if (!item) throw new EmulatorError(404, 'not_found', `${key} with ID '${String(id)}' not found`);
        return reply({ [key]: item });
      },
    ],
  ];
  return [
    ...catalog('server_types', 'server_type', () => HETZNER_SERVER_TYPES.map(serverTypeJson), undefined),
    ...catalog('load_balancer_types', 'load_balancer_type', () => HETZNER_LOAD_BALANCER_TYPES.map((t) => ({ ...t, deprecated: null, prices: [] })), undefined),
    ...catalog('images', 'image', () => HETZNER_IMAGES.map(imageJson), SORT_ID_NAME_CREATED, ofArchitecture),
    ...catalog('isos', 'iso', () => HETZNER_ISOS.map((i) => ({ ...i }) as Json), undefined, ofArchitecture),
    ...catalog('locations', 'location', () => HETZNER_LOCATIONS.map((l) => ({ ...l }) as Json), ['id', 'name']),
    ...catalog('datacenters', 'datacenter', () => HETZNER_DATACENTERS.map((d) => datacenterJson(d.name)), ['id', 'name'], undefined, { recommendation: 4 }),
  ];
}
