// The static part of the emulated Hetzner project: locations, data centers, server and load balancer types, images
// and ISOs, as the dated, sourced snapshot in ../catalogs/hetzner/ holds them (in the shapes of hetzner-cloud-openapi.json).
import {
  type HetznerDatacenter,
  type HetznerIso,
  type HetznerLoadBalancerType,
  type HetznerLocation,
  type HetznerServerType,
  type HetznerSystemImage,
  hetznerCatalog,
} from '../catalogs/hetzner/hetzner-catalog.js';

const catalog = hetznerCatalog();

export const HETZNER_LOCATIONS: readonly HetznerLocation[] = catalog.locations;

/**
 * The data centers of each location (GET /datacenters, `data_center` in hetzner-cloud-openapi.json): a pool's `zone` on
 * Hetzner names one (Claudie's `zone: fsn1-dc14`).
 */
export const HETZNER_DATACENTERS: readonly HetznerDatacenter[] = catalog.datacenters;

/**
 * Server types with their per-location support and deprecation (`server_types[].locations[]`, `server_type_location`:
 * a type is supported only in the locations listed, deprecated where `deprecation` is set, unavailable there once
 * `deprecation.unavailable_after` is past) and their prices per location.
 */
export const HETZNER_SERVER_TYPES: readonly HetznerServerType[] = catalog.server_types;

export const HETZNER_IMAGES: readonly HetznerSystemImage[] = catalog.images;

/** Load balancer types (GET /load_balancer_types, `load_balancer_type`) with their limits and prices. */
export const HETZNER_LOAD_BALANCER_TYPES: readonly HetznerLoadBalancerType[] = catalog.load_balancer_types;

/** Public ISOs (GET /isos, `iso`): installer images a server can boot from. */
export const HETZNER_ISOS: readonly HetznerIso[] = catalog.isos;

/** GET /pricing's price list besides the per-type prices. */
export const HETZNER_PRICE_LIST = catalog.pricing;

/** Whether a type can be ordered in a location at `now`: listed there and not past its `unavailable_after`. */
export function hetznerOrderable(t: HetznerServerType, location: string, now: number): boolean {
  const where = t.locations.find((l) => l.name === location);
  if (!where) return false;
  return where.deprecation === null || Date.parse(where.deprecation.unavailable_after) > now;
}
