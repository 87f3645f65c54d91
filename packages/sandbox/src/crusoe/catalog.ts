// What the sandbox Crusoe project offers: locations, instance types (CPU, GPU, InfiniBand), images, IB
// networks, stock per location and type, and the project's quota. Product names follow crusoe-notes.md §2.2.
import { CMK_NFS_CONTROL_PLANE_IMAGES, CMK_NFS_GB200_WORKER_IMAGES, CMK_NFS_WORKER_IMAGES, CMK_AUTOCLUSTERS_MIN_VERSIONS } from '@kubeplane/sdk/internal';

export const CRUSOE_LOCATIONS = ['us-east1-a', 'us-northcentral1-a', 'us-southcentral1-a', 'eu-iceland1-a'] as const;

export interface CrusoeTypeSpec {
  product_name: string;
  description: string;
  cpu_cores: number;
  cpu_type: string;
  memory_gb: number;
  disk_gb: number;
  num_gpu: number;
  gpu_type: string;
}

const cpu = (family: 'c1a' | 's1a', n: number): CrusoeTypeSpec => ({
  product_name: `${family}.${n}x`,
  description: `${family} ${n} vCPU`,
  cpu_cores: n,
  cpu_type: 'AMD EPYC',
  memory_gb: family === 'c1a' ? n * 4 : n * 8,
  disk_gb: 0,
  num_gpu: 0,
  gpu_type: '',
});
const gpu = (name: string, gpus: number, cores: number, memory: number, gpuType: string, cpuType = 'Intel Xeon'): CrusoeTypeSpec => ({
  product_name: name,
  description: `${gpus}x ${gpuType}`,
  cpu_cores: cores,
  cpu_type: cpuType,
  memory_gb: memory,
  disk_gb: 7680,
  num_gpu: gpus,
  gpu_type: gpuType,
});

export const CRUSOE_TYPES: readonly CrusoeTypeSpec[] = [
  cpu('c1a', 2),
  cpu('c1a', 4),
  cpu('c1a', 8),
  cpu('c1a', 16),
  cpu('c1a', 32),
  cpu('s1a', 20),
  cpu('s1a', 40),
  cpu('s1a', 80),
  gpu('a40.1x', 1, 6, 60, 'A40'),
  gpu('a40.8x', 8, 48, 480, 'A40'),
  gpu('l40s-48gb.8x', 8, 64, 1024, 'L40S'),
  gpu('a100-80gb.8x', 8, 96, 960, 'A100-80GB'),
  gpu('a100-80gb-sxm-ib.8x', 8, 176, 1440, 'A100-80GB-SXM'),
  gpu('h100-80gb-sxm-ib.8x', 8, 176, 1440, 'H100-80GB-SXM'),
  gpu('h200-141gb-sxm-ib.8x', 8, 176, 1920, 'H200-141GB-SXM'),
  gpu('gb200-186gb-nvl-ib.4x', 4, 144, 900, 'GB200', 'NVIDIA Grace'),
];

export const CRUSOE_IMAGES = [
  { id: 'img-0001', name: 'ubuntu22.04', tags: ['latest'], description: 'Ubuntu 22.04 LTS', arm64: false },
  { id: 'img-0002', name: 'ubuntu24.04', tags: ['latest'], description: 'Ubuntu 24.04 LTS', arm64: false },
  { id: 'img-0003', name: 'ubuntu22.04-nvidia-sxm-docker', tags: ['latest'], description: 'Ubuntu 22.04 with NVIDIA drivers (SXM)', arm64: false },
  { id: 'img-0004', name: 'ubuntu24.04-nvidia-nvl-arm64-gb200', tags: ['latest'], description: 'Ubuntu 24.04 arm64 for GB200 NVL', arm64: true },
] as const;

/**
 * The locations that offer a type, where not all do: a cloud's GPU generations live in some data centers only, and
 * Crusoe's `GET /capacities` lists capacity per type and location (crusoe-api-v1-swagger.json, `CapacityV1`). The
 * sandbox's sets are invented, of that shape.
 */
const OFFERED_IN: Record<string, readonly string[]> = {
  'gb200-186gb-nvl-ib.4x': ['us-southcentral1-a'],
  'h200-141gb-sxm-ib.8x': ['us-east1-a', 'us-southcentral1-a'],
};

export function crusoeOffers(location: string, type: string): boolean {
  const only = OFFERED_IN[type];
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
