// Crusoe Managed Kubernetes (CMK) facts from the seeds (cmk-cluster-details.txt, cmk-addons.txt) and
// crusoe-notes.md, as data; and a pure check that turns them into warnings for one cluster.
import * as z from 'zod';
import { optionalKey, requiredKey, type ProviderProfile } from './profile.js';

/** `1.33.4-cmk.15`, `1.33.4-cmk.5-gb200`: Kubernetes version, Crusoe build counter, optional variant. */
export interface CmkVersion {
  major: number;
  minor: number;
  patch: number;
  build: number;
  variant?: string;
  /** `1.33` */
  minorVersion: string;
}

const CMK_VERSION = /^(\d+)\.(\d+)\.(\d+)-cmk\.(\d+)(?:-([a-z0-9]+))?$/;

/** Reads a CMK version (`1.33.4-cmk.15`), or undefined when the text is not one. */
export function parseCmkVersion(text: string): CmkVersion | undefined {
  const m = CMK_VERSION.exec(text);
  if (!m) return undefined;
  const [, major, minor, patch, build, variant] = m;
  return {
    major: Number(major),
    minor: Number(minor),
    patch: Number(patch),
    build: Number(build),
    minorVersion: `${major}.${minor}`,
    ...(variant ? { variant } : {}),
  };
}

/** Orders by Kubernetes version, then by the CMK build counter; the variant does not order. */
export function compareCmkVersions(a: CmkVersion, b: CmkVersion): number {
  return a.major - b.major || a.minor - b.minor || a.patch - b.patch || a.build - b.build;
}

/**
 * Minors CMK supports. The cluster-details seed says 1.30, "with planned support for 1.31 and 1.32"; the
 * add-ons seed (newer) lists images for 1.31–1.33, so 1.30–1.33 are supported.
 */
export const CMK_SUPPORTED_MINORS = ['1.30', '1.31', '1.32', '1.33'] as const;

/** Control-plane images that include CSI Helm chart v0.10.3+ (NFS for shared volumes), per minor. */
export const CMK_NFS_CONTROL_PLANE_IMAGES: Readonly<Record<string, string>> = { '1.33': '1.33.4-cmk.15', '1.32': '1.32.7-cmk.18', '1.31': '1.31.7-cmk.21' };

/** Worker images with the NFS client pre-installed, per minor. */
export const CMK_NFS_WORKER_IMAGES: Readonly<Record<string, string>> = {
  '1.33': '1.33.4-cmk.4',
  '1.32': '1.32.7-cmk.16',
  '1.31': '1.31.7-cmk.9',
  '1.30': '1.30.8-cmk.16',
};

/** GB200 worker images with the NFS client pre-installed, per minor. */
export const CMK_NFS_GB200_WORKER_IMAGES: Readonly<Record<string, string>> = { '1.33': '1.33.4-cmk.5-gb200' };

/** AutoClusters (node remediation) needs at least these cluster versions (crusoe-notes.md §3.4); every minor above 1.33 qualifies. */
export const CMK_AUTOCLUSTERS_MIN_VERSIONS: Readonly<Record<string, string>> = { '1.33': '1.33.4-cmk.20', '1.32': '1.32.7-cmk.22', '1.31': '1.31.7-cmk.24' };

/** How long a worker without the NFS packages takes to fetch them before its first NFS mount (seed: about 6 minutes). */
export const CMK_NFS_PACKAGE_DOWNLOAD_SECONDS = 360;

/** The id of a Crusoe Managed Kubernetes add-on. */
export type CmkAddonId = 'crusoe_csi' | 'nvidia_gpu_operator' | 'nvidia_network_operator' | 'cluster_autoscaler';

/** A Crusoe Managed Kubernetes add-on: its id, name and what it needs. */
export interface CmkAddon {
  id: CmkAddonId;
  name: string;
  /** What it needs or does, from the seeds. */
  note: string;
  /** Crusoe upgrades it (Cilium, NVIDIA operators) or the user does (CSI, the rest). */
  upgradedBy: 'crusoe' | 'user';
}

/** The add-ons that can be chosen at cluster creation (immutable afterwards; installable later through Helm). */
export const CMK_ADDONS: readonly CmkAddon[] = [
  {
    id: 'crusoe_csi',
    name: 'Crusoe CSI driver',
    note: 'persistent and shared disks as PersistentVolumes; NFS shared volumes from chart v0.10.3',
    upgradedBy: 'user',
  },
  { id: 'nvidia_gpu_operator', name: 'NVIDIA GPU Operator', note: 'exposes NVIDIA GPUs as allocatable resources', upgradedBy: 'crusoe' },
  { id: 'nvidia_network_operator', name: 'NVIDIA Network Operator', note: 'exposes InfiniBand HCAs; for IB-enabled instance types', upgradedBy: 'crusoe' },
  {
    id: 'cluster_autoscaler',
    name: 'Cluster Autoscaler (crusoecloud)',
    note: 'no default limits: pools without --nodes=min:max:pool get min 1, max 254',
    upgradedBy: 'user',
  },
];

/**
 * The managed secret CMK creates for Crusoe add-ons, and its keys. Its namespace is that of Crusoe's add-ons (the
 * seeds do not say; crusoe-system is our reading).
 */
export const CMK_ADDON_SECRET = {
  /** The Secret's name for a cluster. */
  name: (cluster: string) => `cmk-${cluster}`,
  namespace: 'crusoe-system',
  accessKey: 'CRUSOE_ACCESS_KEY',
  secretKey: 'CRUSOE_SECRET_KEY',
} as const;

/** Firewall rules CMK creates, updates and removes with a cluster (cmk-cluster-details.txt). */
export const CMK_MANAGED_FIREWALL_RULES = [
  { prefix: 'cmk-cp-api-access-cp-', purpose: 'public API access to the control plane' },
  { prefix: 'cmk-cp-metrics-access-cp-', purpose: 'port 24224 on control-plane nodes, metrics export' },
  { prefix: 'cmk-cp-fluent-bit-access-cp-', purpose: 'port 24224 on control-plane nodes, log export' },
  { prefix: 'cmk-cp-ssh-access-cp-', purpose: 'SSH to control-plane nodes from Crusoe-managed IPs' },
] as const;

/** Whether a Crusoe instance type is a CPU or a GPU type. */
export type CrusoeInstanceKind = 'cpu' | 'gpu';

/** A family of Crusoe instance types and what its types support. */
export interface CrusoeInstanceFamily {
  /** `c1a`, `s1a`, or a GPU product prefix such as `h100-80gb`. */
  family: string;
  kind: CrusoeInstanceKind;
  /** Shared filesystem volumes with NFS work on every type of the family (CSI chart 0.10.18+). */
  nfsSharedVolumes: 'all-types';
  /** Older CSI drivers (before chart 0.10.18) allowed shared volumes only on these types of the family. */
  legacySharedVolumeTypes: 'all' | readonly string[];
  infiniband: boolean;
  architecture: 'x86_64' | 'arm64';
}

/** The Crusoe instance families kubeplane knows. */
export const CRUSOE_INSTANCE_FAMILIES: readonly CrusoeInstanceFamily[] = [
  { family: 'c1a', kind: 'cpu', nfsSharedVolumes: 'all-types', legacySharedVolumeTypes: 'all', infiniband: false, architecture: 'x86_64' },
  { family: 's1a', kind: 'cpu', nfsSharedVolumes: 'all-types', legacySharedVolumeTypes: 'all', infiniband: false, architecture: 'x86_64' },
  { family: 'a40', kind: 'gpu', nfsSharedVolumes: 'all-types', legacySharedVolumeTypes: ['a40.8x'], infiniband: false, architecture: 'x86_64' },
  {
    family: 'a100-80gb',
    kind: 'gpu',
    nfsSharedVolumes: 'all-types',
    legacySharedVolumeTypes: ['a100-80gb.8x', 'a100-80gb-sxm-ib.8x'],
    infiniband: true,
    architecture: 'x86_64',
  },
  {
    family: 'l40s-48gb',
    kind: 'gpu',
    nfsSharedVolumes: 'all-types',
    legacySharedVolumeTypes: ['l40s-48gb.8x', 'l40s-48gb.10x'],
    infiniband: false,
    architecture: 'x86_64',
  },
  {
    family: 'h100-80gb',
    kind: 'gpu',
    nfsSharedVolumes: 'all-types',
    legacySharedVolumeTypes: ['h100-80gb-sxm-ib.8x'],
    infiniband: true,
    architecture: 'x86_64',
  },
  {
    family: 'h200-141gb',
    kind: 'gpu',
    nfsSharedVolumes: 'all-types',
    legacySharedVolumeTypes: ['h200-141gb-sxm-ib.8x'],
    infiniband: true,
    architecture: 'x86_64',
  },
  {
    family: 'b200-180gb',
    kind: 'gpu',
    nfsSharedVolumes: 'all-types',
    legacySharedVolumeTypes: ['b200-180gb-sxm-ib.8x'],
    infiniband: true,
    architecture: 'x86_64',
  },
  {
    family: 'gb200-186gb',
    kind: 'gpu',
    nfsSharedVolumes: 'all-types',
    legacySharedVolumeTypes: ['gb200-186gb-nvl-4x', 'gb200-186gb-nvl-ib.4x'],
    infiniband: true,
    architecture: 'arm64',
  },
];

/** The family of a product name (`h100-80gb-sxm-ib.8x` -> h100-80gb, `c1a.16x` -> c1a), when known. */
export function crusoeInstanceFamily(productName: string): CrusoeInstanceFamily | undefined {
  const base = productName.split('.')[0] ?? productName;
  return CRUSOE_INSTANCE_FAMILIES.find((f) => base === f.family || base.startsWith(`${f.family}-`));
}

/** InfiniBand types carry `-ib` in their product name (`h100-80gb-sxm-ib.8x`). */
export function isInfinibandType(productName: string): boolean {
  return /-ib(\.|$)/.test(productName);
}

/** Whether a Crusoe instance type is a GB200 type (its workers need GB200 images). */
export function isGb200Type(productName: string): boolean {
  return productName.startsWith('gb200');
}

/** What the Crusoe cluster checks read: the CMK version, add-ons, pools and project settings. */
export interface CrusoeClusterCheckInput {
  /** The CMK cluster version (`1.33.4-cmk.15`). */
  version: string;
  addons?: readonly string[];
  pools: ReadonlyArray<{ name: string; productName: string; nodePoolVersion?: string; autoscaler?: { min: number; max: number } }>;
  /** The project is NFS-enabled (shared volumes are meant to mount over NFS). */
  nfs?: boolean;
  autoClusters?: boolean;
}

/** A warning about a Crusoe cluster: its code and a message a person can act on. */
export interface CrusoeWarning {
  code:
    | 'unsupported-version'
    | 'control-plane-before-nfs-csi'
    | 'worker-image-before-nfs'
    | 'gb200-image-mismatch'
    | 'version-skew'
    | 'missing-gpu-operator'
    | 'missing-network-operator'
    | 'autoclusters-version'
    | 'autoclusters-non-gpu'
    | 'autoscaler-defaults'
    | 'unknown-version-format';
  /** `version`, `pools[1].nodePoolVersion`, … relative to the checked cluster. */
  path: string;
  message: string;
}

/** Warnings (never errors) for a CMK cluster against the seeds' tables. Pure. */
export function crusoeClusterWarnings(input: CrusoeClusterCheckInput): CrusoeWarning[] {
  const out: CrusoeWarning[] = [];
  const addons = new Set(input.addons ?? []);
  const cp = parseCmkVersion(input.version);
  if (!cp) {
    out.push({
      code: 'unknown-version-format',
      path: 'version',
      message: `"${input.version}" is not a CMK version (MAJOR.MINOR.PATCH-cmk.N, e.g. 1.33.4-cmk.15)`,
    });
  } else {
    if (!(CMK_SUPPORTED_MINORS as readonly string[]).includes(cp.minorVersion)) {
      out.push({
        code: 'unsupported-version',
        path: 'version',
        message:
          `CMK supports Kubernetes ${CMK_SUPPORTED_MINORS[0]}–${CMK_SUPPORTED_MINORS[CMK_SUPPORTED_MINORS.length - 1]}; ` +
          `${cp.minorVersion} is not among them (check GET /kubernetes/versions)`,
      });
    }
    const nfsCp = CMK_NFS_CONTROL_PLANE_IMAGES[cp.minorVersion];
    const nfsCpVersion = nfsCp ? parseCmkVersion(nfsCp) : undefined;
    if ((input.nfs || addons.has('crusoe_csi')) && nfsCpVersion && compareCmkVersions(cp, nfsCpVersion) < 0) {
      out.push({
        code: 'control-plane-before-nfs-csi',
        path: 'version',
        message:
          `${input.version} predates ${nfsCp}, the first ${cp.minorVersion} control-plane ` +
          `image with CSI chart v0.10.3+; shared volumes mount over virtiofs, not NFS`,
      });
    }
    if (input.autoClusters) {
      const min = CMK_AUTOCLUSTERS_MIN_VERSIONS[cp.minorVersion];
      const minVersion = min ? parseCmkVersion(min) : undefined;
      const below = minVersion ? compareCmkVersions(cp, minVersion) < 0 : cp.major === 1 && cp.minor < 33;
      if (below)
        out.push({
          code: 'autoclusters-version',
          path: 'version',
          message: `AutoClusters needs ${min ?? 'a 1.31+ CMK version'} or later; ${input.version} is older`,
        });
    }
  }
  input.pools.forEach((pool, i) => {
    const family = crusoeInstanceFamily(pool.productName);
    const gpu = family?.kind === 'gpu';
    if (gpu && !addons.has('nvidia_gpu_operator')) {
      out.push({
        code: 'missing-gpu-operator',
        path: `pools[${i}].productName`,
        message:
          `pool ${pool.name} uses GPU type ${pool.productName} but the cluster has no nvidia_gpu_operator ` +
          `add-on; GPUs will not be allocatable until it is installed (add-ons are chosen at creation)`,
      });
    }
    if (isInfinibandType(pool.productName) && !addons.has('nvidia_network_operator')) {
      out.push({
        code: 'missing-network-operator',
        path: `pools[${i}].productName`,
        message: `pool ${pool.name} uses InfiniBand type ${pool.productName} but the cluster has no nvidia_network_operator add-on; HCAs will not be exposed`,
      });
    }
    if (addons.has('cluster_autoscaler') && !pool.autoscaler) {
      out.push({
        code: 'autoscaler-defaults',
        path: `pools[${i}]`,
        message: `pool ${pool.name} has no autoscaler limits; the CMK autoscaler manages it with min 1, max 254 unless --nodes=<min>:<max>:${pool.name} is set`,
      });
    }
    if (!pool.nodePoolVersion) return;
    const np = parseCmkVersion(pool.nodePoolVersion);
    if (!np) {
      out.push({ code: 'unknown-version-format', path: `pools[${i}].nodePoolVersion`, message: `"${pool.nodePoolVersion}" is not a CMK node pool version` });
      return;
    }
    if (cp && (np.major !== cp.major || np.minor > cp.minor)) {
      out.push({
        code: 'version-skew',
        path: `pools[${i}].nodePoolVersion`,
        message: `pool ${pool.name} runs ${np.minorVersion}, newer than the control plane's ${cp.minorVersion}; kubelets must not be newer than the API server`,
      });
    }
    const gb200 = isGb200Type(pool.productName);
    if (gb200 !== (np.variant === 'gb200')) {
      out.push({
        code: 'gb200-image-mismatch',
        path: `pools[${i}].nodePoolVersion`,
        message: gb200
          ? `pool ${pool.name} is GB200 (${pool.productName}) but ${pool.nodePoolVersion} is not a -gb200 ` +
            `worker image (e.g. ${CMK_NFS_GB200_WORKER_IMAGES[np.minorVersion] ?? '1.33.4-cmk.5-gb200'})`
          : `pool ${pool.name} (${pool.productName}) uses the GB200 image ${pool.nodePoolVersion}`,
      });
    }
    const table = gb200 ? CMK_NFS_GB200_WORKER_IMAGES : CMK_NFS_WORKER_IMAGES;
    const nfsWorker = table[np.minorVersion];
    const nfsWorkerVersion = nfsWorker ? parseCmkVersion(nfsWorker) : undefined;
    if ((input.nfs || addons.has('crusoe_csi')) && nfsWorkerVersion && compareCmkVersions(np, nfsWorkerVersion) < 0) {
      out.push({
        code: 'worker-image-before-nfs',
        path: `pools[${i}].nodePoolVersion`,
        message:
          `pool ${pool.name} uses ${pool.nodePoolVersion}, older than ${nfsWorker}, the first ${np.minorVersion} worker image with NFS pre-installed; ` +
          `each node downloads the NFS packages (about ${CMK_NFS_PACKAGE_DOWNLOAD_SECONDS / 60} minutes) before its first shared-volume mount`,
      });
    }
  });
  if (input.autoClusters && input.pools.length > 0 && !input.pools.some((p) => crusoeInstanceFamily(p.productName)?.kind === 'gpu')) {
    out.push({
      code: 'autoclusters-non-gpu',
      path: 'addons',
      message: `AutoClusters remediates GPU nodes only; none of the pools (${input.pools.map((p) => `${p.name}: ${p.productName}`).join(', ')}) is covered`,
    });
  }
  return out;
}

/** The node issues AutoClusters remediates, as its configuration API names them (crusoe-notes.md §3.4). */
export const CMK_REMEDIATION_ISSUES = ['XID_74', 'XID_79', 'GPU_FELL_OFF_THE_BUS', 'HCA_FELL_OFF_THE_BUS', 'VM_NOT_RUNNING'] as const;

/**
 * The `autoclusters` add-on's `config` in a manifest: per-issue overrides of CMK's default (REPLACE_NODE), and
 * whether a replacement may come from the project's reservations. Issues not named keep CMK's default.
 */
export const autoclustersConfigSchema = z.strictObject({
  remediation: z
    .partialRecord(
      z.enum(CMK_REMEDIATION_ISSUES, { error: `issue must be one of ${CMK_REMEDIATION_ISSUES.join(', ')}` }),
      z.enum(['REPLACE_NODE', 'OFF'], { error: 'action must be REPLACE_NODE or OFF' }),
    )
    .optional(),
  fallbackToProjectReservations: z.boolean().optional(),
});
/** The `autoclusters` add-on's settings. */
export type AutoclustersConfig = z.infer<typeof autoclustersConfigSchema>;

/** The Crusoe provider type's profile (see profile.ts). */
export const CRUSOE_PROFILE: ProviderProfile<'crusoe'> = {
  type: 'crusoe',
  credentials: [requiredKey('accesskey'), requiredKey('secretkey'), optionalKey('project')],
  dns: false,
  // Crusoe bills some VMs as spot (InstanceV1.billing_type: "On-demand, Spot, or PoC"), but nothing in a create request
  // asks for it: InstancesPostRequestV1 (crusoe-api-v1-swagger.json) has no spot or preemptible field, and its
  // reservation_specification.selection_strategy chooses between reservations and on-demand only (lowest_cost | on_demand).
  spot: false,
  noSpotReason:
    "Crusoe's API cannot ask for a spot VM: its create request (InstancesPostRequestV1) has no spot field, and " +
    'reservation_specification.selection_strategy chooses only between reservations and on-demand; billing_type Spot is only reported',
  compute: true,
  managedKubernetes: true,
  reservedIps: false,
  // The provider wraps the cloud-config, base64-encoded, into a startup script held to 32 KiB (startup-script.ts).
  userData: { limit: 24_064, binary: false, source: "Crusoe startup script (text): base64 of the cloud-config plus a wrapper within kubeplane's 32 KiB bound" },
  // The storage disk is a persistent-ssd disk attached as `data`: a virtio disk whose serial is the disk's
  // `serial_number` (DiskV1), so udev links it as /dev/disk/by-id/virtio-<serial>.
  storageDisk: { byId: ['/dev/disk/by-id/virtio-*'], source: 'Crusoe Cloud API v1, DiskV1.serial_number' },
  // crusoecloud/crusoe-cloud-controller-manager, internal/instances/instances.go (InstanceMetadata): region = the VM's
  // location and no zone; kubeplane sets zone = the location (a Crusoe location is one site, named like a zone:
  // `us-east1-a`) so every node has one, as topology spreading and CSI topology expect.
  topology: ({ region }) => ({ region, zone: region }),
  nvidiaGpus: (serverType) => crusoeInstanceFamily(serverType)?.kind === 'gpu',
  infiniband: isInfinibandType,
};
