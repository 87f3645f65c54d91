// The Hetzner Cloud catalog the sandbox serves, read from a dated, sourced snapshot (hetzner-cloud.json): locations,
// data centers, server and load balancer types with their prices, system images, ISOs and the price list.
import { readSnapshot, type SnapshotHeader } from '../snapshot-file.js';

/** `price` in hetzner-cloud-openapi.json: decimal strings, without and with VAT. */
export type HetznerPrice = {
  net: string;
  gross: string;
};
/** `price_per_time`: what a type costs in one location. */
export type HetznerPricePerTime = {
  location: string;
  price_hourly: HetznerPrice;
  price_monthly: HetznerPrice;
  included_traffic: number;
  price_per_tb_traffic: HetznerPrice;
};
/** `deprecation_info`: deprecated from `announced`, not orderable after `unavailable_after`. */
export type HetznerDeprecation = {
  announced: string;
  unavailable_after: string;
};
export type HetznerLocation = {
  id: number;
  name: string;
  description: string;
  country: string;
  city: string;
  latitude: number;
  longitude: number;
  network_zone: string;
};
export type HetznerDatacenter = {
  id: number;
  name: string;
  description: string;
  /** The name of its location. */
  location: string;
};
/** `server_type` as GET /server_types returns it. */
export type HetznerServerType = {
  id: number;
  name: string;
  description: string;
  category: string;
  cores: number;
  memory: number;
  disk: number;
  cpu_type: 'shared' | 'dedicated';
  architecture: 'x86' | 'arm';
  storage_type: 'local' | 'network';
  deprecated: boolean;
  deprecation: HetznerDeprecation | null;
  prices: HetznerPricePerTime[];
  locations: Array<{ id: number; name: string; deprecation: HetznerDeprecation | null }>;
};
/** `load_balancer_type` as GET /load_balancer_types returns it. */
export type HetznerLoadBalancerType = {
  id: number;
  name: string;
  description: string;
  max_connections: number;
  max_services: number;
  max_targets: number;
  max_assigned_certificates: number;
  deprecated: string | null;
  prices: HetznerPricePerTime[];
};
/** A system image: the fields the snapshot holds (the rest of `image` is the same for every system image). */
export type HetznerSystemImage = {
  id: number;
  name: string;
  description: string;
  type: 'system';
  os_flavor: string;
  os_version: string;
  architecture: 'x86' | 'arm';
  created: string;
  deprecated: string | null;
  disk_size: number;
};
export type HetznerIso = {
  id: number;
  name: string;
  description: string;
  type: string;
  architecture: 'x86' | 'arm' | null;
  deprecation: HetznerDeprecation | null;
};
/** GET /pricing's parts that are not per server or load balancer type (list_prices_response). */
export type HetznerPriceList = {
  currency: string;
  vat_rate: string;
  image: { price_per_gb_month: HetznerPrice };
  volume: { price_per_gb_month: HetznerPrice };
  server_backup: { percentage: string };
  floating_ip: { price_monthly: HetznerPrice };
  floating_ips: Array<{ type: 'ipv4' | 'ipv6'; prices: Array<{ location: string; price_monthly: HetznerPrice }> }>;
  primary_ips: Array<{ type: 'ipv4' | 'ipv6'; prices: Array<{ location: string; price_hourly: HetznerPrice; price_monthly: HetznerPrice }> }>;
};

/** The snapshot file: its public sources, the date it describes, the choices made, and the catalog. */
export type HetznerCatalogSnapshot = SnapshotHeader & {
  locations: HetznerLocation[];
  datacenters: HetznerDatacenter[];
  server_types: HetznerServerType[];
  load_balancer_types: HetznerLoadBalancerType[];
  images: HetznerSystemImage[];
  isos: HetznerIso[];
  pricing: HetznerPriceList;
};

export const HETZNER_CATALOG_FILE = 'hetzner-cloud.json';

let loaded: HetznerCatalogSnapshot | undefined;

/** The snapshot, read once; a file without its source or date is refused (the catalog must say where it comes from). */
export function hetznerCatalog(): HetznerCatalogSnapshot {
  if (loaded) return loaded;
  loaded = readSnapshot<HetznerCatalogSnapshot>('hetzner', HETZNER_CATALOG_FILE);
  return loaded;
}
