// What Cloudflare publishes that the sandbox's Cloudflare emulator checks, read from a dated, sourced snapshot
// (cloudflare-api.json): DNS record types and which can be proxied, Load Balancing regions and monitor types.
import { readSnapshot, type SnapshotHeader } from '../snapshot-file.js';

/** The snapshot file: its public sources, the date it describes, the choices made, and the lists. */
export type CloudflareCatalogSnapshot = SnapshotHeader & {
  dns_record_types: string[];
  proxiable_record_types: string[];
  load_balancing_regions: Array<{ code: string; name: string }>;
  monitor_types: string[];
};

export const CLOUDFLARE_CATALOG_FILE = 'cloudflare-api.json';

let loaded: CloudflareCatalogSnapshot | undefined;

/** The snapshot, read once; a file without its source or date is refused. */
export function cloudflareCatalog(): CloudflareCatalogSnapshot {
  if (loaded) return loaded;
  loaded = readSnapshot<CloudflareCatalogSnapshot>('cloudflare', CLOUDFLARE_CATALOG_FILE);
  return loaded;
}
