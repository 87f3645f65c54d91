// The typed domain the planner and the engine work on: clusters, pools, nodes, load balancers and DNS
// records, with deterministic identities. Desired and current state share these types (as in Claudie),
// so comparing them is a matter of matching names.
import type { AddonDef, ProviderType, SecretRef, Taint } from '../manifest/index.js';
import type { KubernetesVersion } from '../manifest/kubernetes-versions.js';

/** The role of a node: control plane, compute or load balancer. */
export type NodeRole = 'control' | 'compute' | 'loadbalancer';

/** One node of the desired state: name, pool, role and where it runs. */
export interface NodeSpec {
  /** Cloud resource name, hostname and Kubernetes node name. */
  name: string;
  /** 1..255, stable for the life of the node. */
  index: number;
  pool: string;
  role: NodeRole;
  /** The node's address on the cluster's WireGuard overlay (`network`). */
  overlayIp: string;
  /** Static machines: the address kubeplane reaches them at. */
  staticEndpoint?: string;
  /** Static machines: how kubeplane logs in (Claudie's defaults: port 22, user root). The key stays where secretRef points. */
  staticAccess?: { port: number; username: string; secretRef: SecretRef };
  /** Observed from the cloud (current state only). */
  observed?: { providerId?: string; publicIPv4?: string; privateIPv4?: string; status?: 'creating' | 'running' | 'ready' | 'not-ready' | 'deleting' };
}

/** The provider, region and zone a pool's machines are created in. */
export interface PoolProvider {
  name: string;
  type: ProviderType;
  region: string;
  zone?: string;
  /** An existing subnet (id or name) the pool's machines go in (`providerSpec.subnet`). */
  subnet?: string;
}

/** A pool of the desired state: its machines, their size, labels and taints. */
export interface PoolSpec {
  /** Unique within its cluster (or load balancer): the manifest's pool name, or its worker copy's name. */
  name: string;
  /** The manifest pool this one is built from, when its name differs (the worker copy of a control pool). */
  blueprint?: string;
  kind: 'dynamic' | 'static';
  role: NodeRole;
  /** Manifest path of the pool's definition, for messages. */
  sourcePath: string;
  provider?: PoolProvider;
  serverType?: string;
  image?: string;
  /** GB; 0 means no storage disk. Only compute pools get one. */
  storageDiskSize: number;
  machineSpec?: { cpuCount?: number; memory?: number; nvidiaGpuCount?: number; nvidiaGpuType?: string };
  spot: boolean;
  /** The number of nodes wanted now (an autoscaled pool: its current target). */
  count: number;
  autoscaler?: { min: number; max: number };
  labels: Record<string, string>;
  annotations: Record<string, string>;
  taints: Taint[];
  /** Hash of the fields that cannot change without replacing the machines. */
  templateHash: string;
  nodes: NodeSpec[];
}

/** A load balancer's role in the desired state: the port and the pools it forwards to. */
export interface LbRoleSpec {
  name: string;
  protocol: 'tcp' | 'udp';
  port: number;
  targetPort: number;
  targetPools: string[];
  proxyProtocol: boolean;
  stickySessions: boolean;
}

/** The DNS record a load balancer is reached at, and the provider that serves it. */
export interface DnsSpec {
  zone: string;
  provider: string;
  providerType: ProviderType;
  hostname: string;
  /** `<hostname>.<zone>` */
  fqdn: string;
  alternativeNames: string[];
}

/** A load balancer of the desired state. */
export interface LoadBalancerSpec {
  name: string;
  id: string;
  sourcePath: string;
  /** True when it carries the API-server role (targetPort 6443). */
  api: boolean;
  roles: LbRoleSpec[];
  dns: DnsSpec;
  pools: PoolSpec[];
}

/** Where the API server is reached: a load balancer, a control plane's reserved IP, or the managed service. */
export type ApiEndpoint =
  | { kind: 'load-balancer'; host: string; port: number; loadBalancer: string }
  | { kind: 'reserved-ip'; port: number; node: string; pool: string }
  | { kind: 'managed' };

/** A cloud network for one provider and region (VPC / Hetzner network), with a subnet per zone. */
export interface ProviderNetworkSpec {
  provider: string;
  providerType: ProviderType;
  region: string;
  cidr: string;
  subnets: Array<{ zone: string | null; cidr: string }>;
  /** An existing subnet (id or name) the manifest names for this provider region: adopted, not made. */
  existingSubnet?: string;
}

/** A cluster of the desired state, everything the planner and the engine act on. */
export interface ClusterSpec {
  name: string;
  id: string;
  project: string;
  sourcePath: string;
  version: KubernetesVersion;
  /** The overlay network all nodes and load balancers of the cluster share. */
  network: string;
  podCidr: string;
  serviceCidr: string;
  controlPlane: 'self-managed' | 'managed';
  apiEndpoint: ApiEndpoint;
  pools: PoolSpec[];
  loadBalancers: LoadBalancerSpec[];
  networks: ProviderNetworkSpec[];
  addons: AddonDef[];
  /** Managed control planes: the CNAME in the user's zone for the provider's API name (`alternativeNames` empty). */
  apiDns?: DnsSpec;
  access: { apiAllowedCidrs: string[]; sshAllowedCidrs: string[] };
  upgrade: { strategy: 'rolling' | 'on-delete'; maxSurge: number };
  encryption: { secretsAtRest: boolean };
  /** Workers NotReady this many minutes (machine running) are replaced; 0: never. */
  remediation: { notReadyMinutes: number };
  installationProxy?: { mode: 'on' | 'off' | 'default'; endpoint: string; noProxy: string };
}

/** The clusters a project's manifest asks for. */
export interface DesiredState {
  project: string;
  clusters: ClusterSpec[];
}

/** What exists, as last recorded and observed; same shape as the desired state. */
export interface CurrentState {
  project: string;
  clusters: ClusterSpec[];
}

/** A project's current state when nothing exists yet. */
export const emptyState = (project: string): CurrentState => ({ project, clusters: [] });

/** Every node of a cluster: its Kubernetes nodes, then its load balancers' nodes. */
export function allNodes(cluster: ClusterSpec): NodeSpec[] {
  return [...cluster.pools.flatMap((p) => p.nodes), ...cluster.loadBalancers.flatMap((lb) => lb.pools.flatMap((p) => p.nodes))];
}
