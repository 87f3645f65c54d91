// The Crusoe emulator's resources as plain data (what its state and snapshots hold), its latencies and its options.
import type { Json } from '../emulator/index.js';
import type { SandboxManagedNode } from '../kubernetes/vm-source.js';
import { LATENCY } from '../latency.js';
import type { CrusoeTypeSpec } from './catalog.js';
import type { CmkPki } from './cmk-pki.js';

/**
 * The Crusoe Cloud API's base URL, which the emulator answers and its vendored document (crusoe-api-v1-swagger.json)
 * describes.
 */
export const CRUSOE_API = 'https://api.cloud.crusoe.ai/v1';

/** The cloud name this emulator counts calls and takes faults under (a CloudName). */
export const CRUSOE_CLOUD = 'crusoe';

/**
 * Virtual-time latencies. VM create is latency-model.md's figure (120 s, an estimate there); the CMK figures are
 * composed from the model's own rows (a VM create, kubeadm init, two control-plane joins and the CNI for a
 * cluster; a VM create, a worker join and the CNI for a node pool). The rest are estimates of ours, not in the model.
 * A pool VM is `running` after `vmCreate`; its join and CNI (`cmkNodeJoin`) are the Kubernetes simulation's
 * (KUBE_TIMINGS.kubeadmJoinMs + ciliumReadyMs), counted there only: the figure here is the sum, for the record.
 */
export const CRUSOE_LATENCY = {
  vmCreate: 120_000,
  vmDelete: 30_000,
  firewallRule: 5_000,
  diskCreate: 10_000,
  diskDelete: 5_000,
  networkDelete: 5_000,
  cmkClusterCreate: 120_000 + 45_000 + 2 * 40_000 + 30_000,
  cmkClusterDelete: 60_000,
  cmkNodePoolCreate: 10_000,
  cmkNodePoolUpdate: 5_000,
  cmkNodeJoin: 20_000 + 30_000,
  apiCall: LATENCY.apiCall,
} as const;

/** One resource in the Crusoe inventory; `owner` (the name, or its CMK cluster's) says exactly whose it is. */
export interface CrusoeInventoryItem {
  cloud: 'crusoe';
  kind: string;
  id: string;
  name?: string;
  /** The kubeplane cluster id, when the name follows kubeplane's `<cluster>-<hash7>` ids (best effort; `owner` is exact). */
  clusterId?: string;
  /** The name whose prefix says whose it is: the resource's name, or the CMK cluster's name for what CMK made. */
  owner: string;
  state?: string;
}

/** How the emulated Crusoe project starts: its access keys, project id, clock skew allowed, quota and stock. */
export interface CrusoeEmulatorOptions {
  /** Access keys the project accepts: key id -> secret (unpadded base64url). */
  keys: Record<string, string>;
  projectId: string;
  /** Allowed difference between X-Crusoe-Timestamp and the clock (undocumented; 5 minutes here). */
  maxSkewSeconds?: number;
  quota?: { vms: number; gpuVms: number };
  /** Overrides the stock of a type in a location (`us-east1-a/h100-80gb-sxm-ib.8x` -> 0). */
  stock?: Record<string, number>;
  /** Whether requests are checked against Crusoe's Swagger document, as the API checks them (default true). */
  checkRequests?: boolean;
}

export interface Vm {
  id: string;
  name: string;
  type: CrusoeTypeSpec;
  location: string;
  image: string;
  state: 'STATE_PROVISIONING' | 'STATE_RUNNING' | 'STATE_DELETING';
  seq: number;
  createdAt: number;
  runningAt: number;
  subnetId: string;
  networkId: string;
  privateIp: string;
  publicIp?: { id: string; address: string; type: string };
  partitionId?: string;
  nodePoolId?: string;
  /** Data disks attached at creation. */
  diskIds: string[];
  /** Kept out of the inventory: user data may hold bootstrap secrets. */
  startupScript: string;
  /** A node-pool VM's Node as CMK registers it: the pool's labels and taints at the VM's creation (changes apply to new nodes only). */
  node?: SandboxManagedNode;
}
export interface Network {
  id: string;
  name: string;
  cidr: string;
  isDefault: boolean;
  deleting: boolean;
}
export interface Subnet {
  id: string;
  name: string;
  cidr: string;
  location: string;
  networkId: string;
  isDefault: boolean;
  deleting: boolean;
  nextHost: number;
}
export interface FwRule {
  id: string;
  name: string;
  networkId: string;
  action: string;
  direction: string;
  protocols: string[];
  sources: Json[];
  sourcePorts: string[];
  destinations: Json[];
  destinationPorts: string[];
  state: 'active' | 'inactive';
  isDefault: boolean;
  owner: string;
}
export interface SshKey {
  id: string;
  name: string;
  publicKey: string;
}
export interface Disk {
  id: string;
  name: string;
  type: string;
  sizeGiB: number;
  location: string;
  attachedTo?: string;
  ready: boolean;
  /** Virtual ms of the create request (absent in states saved before it was kept). */
  createdAt?: number;
}
export interface Partition {
  id: string;
  name: string;
  ibNetworkId: string;
}
export interface Cluster {
  id: string;
  name: string;
  location: string;
  version: string;
  subnetId: string;
  addOns: string[];
  state: string;
  private: boolean;
  /** The pod range (cluster_cidr), the Service range (service_cluster_ip_range) and each node's pod range's size. */
  clusterCidr?: string;
  serviceRange?: string;
  nodeCidrMaskSize?: number;
  remediation: Record<string, string>;
  fallback: boolean;
  /** When the create operation finishes (virtual ms): STATE_RUNNING, and the API answers, from then on. */
  runningAt: number;
  /** The control plane's CA, admin and serving certificates and keys (secrets: never in the inventory). */
  pki: CmkPki;
}
export interface Pool {
  id: string;
  name: string;
  clusterId: string;
  type: CrusoeTypeSpec;
  count: number;
  version: string;
  labels: Record<string, string>;
  taints: Json[];
  subnetId: string;
  partitionId?: string;
  state: string;
  nextIndex: number;
  hex: string;
}

/**
 * What finishing an operation does, as data, so that operations in flight can be snapshotted (operations.ts does
 * it). Each names its resource by id and finds it when the operation finishes; a resource gone by then is left
 * alone and the operation succeeds with a null result.
 */
export type OpCompletion =
  | { kind: 'none' }
  | {
      kind:
        | 'vm-created'
        | 'vm-deleted'
        | 'disk-created'
        | 'disk-deleted'
        | 'network-deleted'
        | 'subnet-deleted'
        | 'firewall-rule-applied'
        | 'firewall-rule-deleted'
        | 'cluster-created'
        | 'cluster-deleted'
        | 'pool-updated'
        | 'pool-deleted';
      id: string;
    }
  | { kind: 'pool-created'; id: string; vmsCreated: number };

/** The operation families, each with its own `<family>/operations[/{id}]` endpoints. */
export const OPERATION_FAMILIES = [
  'compute/vms/instances',
  'storage/disks',
  'networking/vpc-networks',
  'networking/vpc-subnets',
  'networking/vpc-firewall-rules',
  'kubernetes/clusters',
  'kubernetes/nodepools',
] as const;

export type OperationFamily = (typeof OPERATION_FAMILIES)[number];
