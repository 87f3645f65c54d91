// What the sandbox Crusoe project offers: locations, instance types (CPU, GPU, InfiniBand) and images from the dated,
// sourced snapshot in ../catalogs/crusoe/; IB networks, stock per location and type, and the project's quota.
import { CMK_NFS_CONTROL_PLANE_IMAGES, CMK_NFS_GB200_WORKER_IMAGES, CMK_NFS_WORKER_IMAGES, CMK_AUTOCLUSTERS_MIN_VERSIONS } from '@kubeplane/sdk/internal';
import { type CrusoeImageSpec, type CrusoeTypeSpec, crusoeCatalog } from '../catalogs/crusoe/crusoe-catalog.js';

const catalog = crusoeCatalog();

export type { CrusoeTypeSpec } from '../catalogs/crusoe/crusoe-catalog.js';

export const CRUSOE_LOCATIONS: readonly string[] = catalog.locations;

export const CRUSOE_TYPES: readonly CrusoeTypeSpec[] = catalog.instance_types;

export const CRUSOE_IMAGES: readonly CrusoeImageSpec[] = catalog.images;

/**
 * Whether a location offers a type: a cloud's GPU generations live in some data centers only, and Crusoe's
 * `GET /capacities` lists capacity per type and location (crusoe-api-v1-swagger.json, `CapacityV1`). The snapshot's
 * `offered_in` names the types that only some locations offer (its notes say which sets are sourced).
 */
export function crusoeOffers(location: string, type: string): boolean {
  const only = catalog.offered_in[type];
  return only === undefined || only.includes(location);
}

/** VMs of a type a location can still start (GPU stock is scarce; CPU is plenty); none where it is not offered. */
export function initialStock(location: string, type: CrusoeTypeSpec): number {
  if (!crusoeOffers(location, type.product_name)) return 0;
  if (type.num_gpu === 0) return 10_000;
  return location === 'us-east1-a' ? 16 : 4;
}

/** One IB network per location, with capacity for the IB slice types. */
export const CRUSOE_IB_NETWORKS = CRUSOE_LOCATIONS.map((location, i) => ({
  id: `ibn-000${i + 1}`,
  name: `ib-${location}`,
  location,
  capacities: CRUSOE_TYPES.filter((t) => /-ib\./.test(t.product_name)).map((t) => ({ slice_type: t.product_name, quantity: 64 })),
}));

/** The project's VM quota (the sandbox's own figure: 200 VMs, 64 GPU VMs). */
export const CRUSOE_QUOTA = { vms: 200, gpuVms: 64 } as const;

/** CMK versions: the seeds' images, plus older builds so that warnings and validation have something to find. */
export const CMK_CLUSTER_VERSIONS = [
  ...new Set([
    '1.30.8-cmk.12',
    '1.31.7-cmk.9',
    '1.32.7-cmk.3',
    ...Object.values(CMK_NFS_CONTROL_PLANE_IMAGES),
    ...Object.values(CMK_AUTOCLUSTERS_MIN_VERSIONS),
  ]),
];
// 1.33.4-cmk.6: a worker image newer than the seeds' NFS-baked one, so node image rotations have somewhere to go.
export const CMK_NODE_POOL_VERSIONS = [
  ...new Set([
    '1.30.8-cmk.12',
    '1.32.7-cmk.3',
    '1.33.4-cmk.3',
    ...Object.values(CMK_NFS_WORKER_IMAGES),
    '1.33.4-cmk.6',
    ...Object.values(CMK_NFS_GB200_WORKER_IMAGES),
  ]),
];
export const CMK_ADDON_IDS = ['crusoe_csi', 'nvidia_gpu_operator', 'nvidia_network_operator', 'cluster_autoscaler', 'autocluster_active_testing'] as const;
