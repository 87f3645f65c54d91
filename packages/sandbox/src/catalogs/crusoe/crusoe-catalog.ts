// The Crusoe Cloud catalog the sandbox serves, read from a dated, sourced snapshot (crusoe-cloud.json): locations,
// VM types (GET /compute/vms/types), the locations that offer a type where not all do, and curated images.
import { readSnapshot, type SnapshotHeader } from '../snapshot-file.js';

/** `VMType` as GET /projects/{pid}/compute/vms/types returns it (crusoe-api-v1-swagger.json). */
export type CrusoeTypeSpec = {
  product_name: string;
  description: string;
  cpu_cores: number;
  cpu_type: string;
  memory_gb: number;
  memory_type: string;
  disk_gb: number;
  disk_type: string;
  num_gpu: number;
  gpu_type: string;
};
/** A curated image (`Image`, less the per-location and date fields the emulator fills in). */
export type CrusoeImageSpec = {
  id: string;
  name: string;
  tags: string[];
  description: string;
  arm64: boolean;
};
/** The snapshot file: its public sources, the date it describes, the choices made, and the catalog. */
export type CrusoeCatalogSnapshot = SnapshotHeader & {
  locations: string[];
  instance_types: CrusoeTypeSpec[];
  /** Types offered only in some locations; a type not named here is offered in every location. */
  offered_in: Record<string, string[]>;
  images: CrusoeImageSpec[];
};

export const CRUSOE_CATALOG_FILE = 'crusoe-cloud.json';

let loaded: CrusoeCatalogSnapshot | undefined;

/** The snapshot, read once; a file without its source or date is refused. */
export function crusoeCatalog(): CrusoeCatalogSnapshot {
  if (loaded) return loaded;
  loaded = readSnapshot<CrusoeCatalogSnapshot>('crusoe', CRUSOE_CATALOG_FILE);
  return loaded;
}
