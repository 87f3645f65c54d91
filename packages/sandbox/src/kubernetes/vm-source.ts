// What the simulated kubelets need from the sandbox clouds: the machines that exist, their state and the user-data
// they were created with, and the control planes a cloud runs itself (Crusoe CMK). Each cloud emulator implements
// SandboxVmSource; the Kubernetes emulator only reads it.

/** A machine's power state: each cloud's own states (EC2's, Hetzner's `off`, Crusoe's…) mapped onto these. */
export type SandboxVmState = 'pending' | 'running' | 'stopping' | 'stopped' | 'terminated';

/** A machine a managed service (CMK node pool) created and registers itself: no kubeplane user-data. */
export interface SandboxManagedNode {
  /** The `host:port` of the managed control plane the machine joins (SandboxManagedCluster.endpoint). */
  endpoint: string;
  /** The Kubernetes node name it registers as. */
  nodeName: string;
  labels: Record<string, string>;
  taints: Array<{ key: string; value?: string; effect: string }>;
  /** `crusoe://<vm-id>` */
  providerId: string;
  kubeletVersion?: string;
}

/**
 * A machine of a sandbox cloud as the simulated kubelets see it: its state, the user-data it boots from, its addresses
 * and size.
 */
export interface SandboxVm {
  /** The sandbox cloud that runs it (its registry name, clouds/index.ts). Together with `name` it identifies the machine. */
  cloud: string;
  name: string;
  /**
   * The cloud's own id of this machine (EC2 instance id, Hetzner server id, Crusoe VM id). One name can belong to two
   * machines at once, e.g. a duplicate EC2 launch that was terminated (listed for an hour) beside the one that runs:
   * the id tells them apart. Absent when a source cannot tell; then one name is taken for one machine.
   */
  id?: string;
  state: SandboxVmState;
  /** Virtual ms since the epoch when the machine entered `running` (its first boot starts then). */
  runningSinceMs?: number;
  /** When it stopped running, if the cloud knows (otherwise: when the Kubernetes emulator first noticed). */
  stoppedAtMs?: number;
  /**
   * The user-data as the cloud received it: raw bytes, text, or base64 (EC2's wire format), each possibly gzip
   * (cloud-init inflates gzip itself). An empty string means none.
   */
  userData: string | Uint8Array;
  publicIPv4?: string;
  privateIPv4?: string;
  /** The machine type's size from the cloud's catalog (the kubelet reports it as the Node's capacity). */
  machine?: { vcpus: number; memoryMiB: number; diskGiB?: number; gpus?: number };
  /**
   * Disks attached besides the root disk, as the machine sees them: the `/dev/disk/by-id` name udev gives each on the
   * real cloud (EC2 `nvme-Amazon_Elastic_Block_Store_vol…`, Hetzner `scsi-0HC_Volume_<id>`, Crusoe `virtio-<serial>`)
   * and its size. The netns mode gives each machine these disks.
   */
  dataDisks?: Array<{ byId: string; sizeGB: number }>;
  /** Set for machines of a managed node pool: they join the managed control plane on their own. */
  managed?: SandboxManagedNode;
}

/** A Helm release a managed service installs with its cluster (Helm 3's record of it, as `helm upgrade` later finds it). */
export interface ServiceRelease {
  chart: string;
  version: string;
  appVersion: string;
  release: string;
  namespace: string;
  /** The values the service installed it with. */
  values: Record<string, unknown>;
  /** Whether the chart's objects are rendered too (false: the service's own objects stand for them). */
  render: boolean;
}

/** A control plane the cloud runs (CMK): the Kubernetes emulator serves its API while it is running. */
export interface SandboxManagedCluster {
  cloud: string;
  /** The provider-side cluster name (kubeplane passes its cluster id). */
  name: string;
  /** `host:port` the API answers at, e.g. `<name>.crusoecloudcompute.com:6443`. */
  endpoint: string;
  /** `v1.33.4` */
  kubernetesVersion: string;
  state: 'provisioning' | 'running' | 'deleting';
  /** When it started running (virtual ms); the API answers from then on. */
  runningSinceMs?: number;
  /** The cluster CA certificate (PEM) the admin kubeconfig from get-credentials trusts. */
  caPem: string;
  /** Provider add-on ids installed at creation (`cluster_autoscaler` → crusoe-system/cluster-autoscaler). */
  addons: string[];
  /** The Helm releases the service installs them as (CMK: never auto-upgraded, seeds/cmk-addons.txt). */
  addonReleases?: ServiceRelease[];
  /**
   * The API server's serving certificate (signed by `caPem`, for the endpoint's host) and its key, so the served
   * sandbox can answer over real TLS. A private key: never logged.
   */
  serving?: { certPem: string; keyPem: string };
  /** The cluster's pod range (CMK's cluster_cidr), cut into each node's podCIDR. */
  podSubnet?: string;
  /** The cluster's Service range (CMK's service_cluster_ip_range). */
  serviceSubnet?: string;
  /** The size of each node's pod range (CMK's node_cidr_mask_size). */
  nodeCidrMaskSize?: number;
}

/**
 * Where the Kubernetes emulator finds the machines that boot (a Sandbox, or each cloud emulator): it only reads them.
 */
export interface SandboxVmSource {
  /**
   * Every machine the source has, with its state and user-data; machines that are gone may still be listed, as the
   * cloud lists them (an EC2 instance for an hour after it terminated).
   */
  listVms(): SandboxVm[];
  /** Control planes the cloud runs; absent for clouds without a managed Kubernetes service. */
  listManagedClusters?(): SandboxManagedCluster[];
}
