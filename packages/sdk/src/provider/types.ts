// The plain types of the provider contract (docs/provider-contract.md). They do not depend on the manifest
// model: the engine adapts manifest objects into these requests.
import type { Outcome } from './outcome.js';
import type { KubernetesApi } from '../engine/ports/kubernetes.js';

/** Tag/label keys every provider writes on every resource it creates (rule C2). */
export const CLUSTER_ID_TAG = 'kubeplane.dev/cluster-id';
/** The tag that names the pool a cloud resource belongs to. */
export const NODEPOOL_TAG = 'kubeplane.dev/nodepool';
/** The deterministic resource name, as a tag, for clouds whose names are not unique keys (EC2). */
export const NAME_TAG = 'kubeplane.dev/name';

/** Names are DNS-1123 labels: `<clusterId>-<pool>-<nn>`, at most 63 characters. */
export const RESOURCE_NAME_PATTERN = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

// Node names come from the model (one definition of identity): `<clusterId>-<pool>-<nn>`, nn in hex 01..ff.
export { nodeName } from '../model/ids.js';

/** Extra per-call information from the engine. */
export interface CallContext {
  /** How many times this same call has returned pending before (0 on the first call); drives backoff. */
  attempt?: number;
}

/** The life-cycle state of a machine, in the terms every provider maps to. */
export type NodeState = 'pending' | 'running' | 'stopping' | 'stopped' | 'deleting' | 'deleted' | 'failed' | 'unknown';

/** A request for one machine: name, type, image, place, network, user-data and tags. */
export interface NodeRequest {
  /** Deterministic and unique per cluster, e.g. `<clusterId>-<pool>-<nn>`; with the token below, the idempotency key. */
  name: string;
  /**
   * This creation's token, kept by the engine (in its ledger, before the call) for as long as the creation is under
   * way: the same for every retry of it, new when a machine is created again under the same name. Providers whose
   * API takes a client token (EC2's ClientToken) build it from this, since a cloud remembers tokens far longer than it
   * lists the machines they made. Absent: the provider derives one of its own.
   */
  idempotencyToken?: string;
  clusterId: string;
  nodepool: string;
  /** Provider region (`eu-central-1`, `fsn1`'s network zone or location, per provider). */
  region: string;
  /** Availability zone / location within the region. */
  zone?: string;
  serverType: string;
  /** Image id or name (`ami-…`, `ubuntu-24.04`). */
  image: string;
  /**
   * Rendered cloud-init: text, or bytes when it had to be gzip-compressed to fit (cloud-init reads gzip).
   * A provider rejects it as `invalid` when over the cloud's size limit, or bytes where its API takes text only.
   */
  userData: string | Uint8Array;
  sshKeyName?: string;
  /** Extra labels/tags; the cluster and nodepool tags are added by the provider. */
  labels?: Record<string, string>;
  /** Names of networks (from ensureNetwork) the node joins. */
  networkName?: string;
  /** The subnet of an adopted network (`NetworkRequest.existingSubnet`) the node goes in, rather than one `networkName` picks. */
  subnetId?: string;
  /** Names of firewalls (from ensureFirewall) applied to the node. */
  firewallNames?: string[];
  /** Name of a reserved public IP (from ensureReservedIp) to become the node's public IPv4. */
  reservedIpName?: string;
  /** Placement spread group name, where the provider has one. */
  placementGroupName?: string;
  /**
   * A data disk of this many GiB created with the node and attached to it (the model's `storageDiskSize`); 0 or
   * absent means none. Providers without separate disks ignore it.
   */
  storageDiskGiB?: number;
  /**
   * Spot (preemptible) capacity instead of on-demand: cheaper, and the cloud may reclaim the machine (the model's
   * `spot`). Only providers whose profile offers spot get it (the manifest rules refuse it elsewhere); a provider
   * without spot refuses it as `invalid`, never makes an on-demand machine in its place.
   */
  spot?: boolean;
}

/** A machine as a provider reports it: its id, state and addresses. */
export interface NodeInfo {
  name: string;
  /** The cloud's own id, in the form Kubernetes uses for `spec.providerID` (`aws:///eu-central-1a/i-…`, `hcloud://42`). */
  providerId: string;
  /** The cloud's plain id (`i-…`, `42`). */
  id: string;
  clusterId: string;
  nodepool: string;
  state: NodeState;
  region: string;
  zone?: string;
  serverType: string;
  publicIPv4?: string;
  privateIPv4?: string;
  labels: Record<string, string>;
  createdAt?: string;
  /** The cloud reports the machine as spot capacity (EC2 `InstanceLifecycle: spot`); absent: on-demand or not reported. */
  spot?: boolean;
}

/** Which machines to list: those of a cluster, optionally of one pool or region. */
export interface NodeSelector {
  clusterId: string;
  nodepool?: string;
  region?: string;
}

/** A machine by its id and where it lives. */
export interface NodeRef {
  clusterId: string;
  name: string;
  region: string;
}

/** A machine type a region offers: CPUs, memory, GPUs, architecture, and where and until when it can be ordered. */
export interface ServerTypeInfo {
  name: string;
  vcpus: number;
  memoryGiB: number;
  architecture: 'x86_64' | 'arm64';
  gpus?: number;
  /**
   * Where the type can be ordered, when the cloud says (Hetzner `server_types[].locations`, EC2
   * DescribeInstanceTypeOfferings per zone): zone or location names. Absent: everywhere in the region.
   */
  availableIn?: string[];
  /** The cloud lists the type as deprecated: still orderable until `unavailableAfter` (ISO time), if given. */
  deprecation?: Deprecation;
  /** Deprecation per location (Hetzner `locations[].deprecation`), where it differs by location. */
  deprecationIn?: Record<string, Deprecation>;
  /** Machines of the type that can start now, per location, where the cloud says (Crusoe `GET /capacities` quantity). */
  stockIn?: Record<string, number>;
  /** The quota the type's machines count against (Crusoe `CapacityV1.quota_type`), a `QuotaInfo.name`. */
  quota?: string;
}

/** A project or account limit (Crusoe `GET /projects/{id}/quotas`). */
export interface QuotaInfo {
  name: string;
  description: string;
  max: number;
  available: number;
}

/** A catalog entry's deprecation, as the clouds publish it (Hetzner `deprecation_info`, EC2 `DeprecationTime`). */
export interface Deprecation {
  announced?: string;
  /** After this time the entry cannot be used to create anything. */
  unavailableAfter?: string;
}

/** An image a region offers: its id, name, architecture and whether it is deprecated. */
export interface ImageInfo {
  id: string;
  name: string;
  architecture: 'x86_64' | 'arm64';
  description?: string;
  /** The cloud lists the image as deprecated (Hetzner `deprecated`, EC2 `DeprecationTime` in the past). */
  deprecation?: Deprecation;
}

/** A region a provider offers. */
export interface RegionInfo {
  name: string;
  /** false: the region exists but the account has not enabled it (EC2 DescribeRegions `optInStatus` not-opted-in). */
  enabled?: boolean;
}

/** An availability zone of a region. */
export interface ZoneInfo {
  name: string;
  region: string;
}

/** The machines part of a provider: create, find, list and delete machines, and the catalog of types and images. */
export interface ComputeApi {
  /**
   * Ensures the node exists (find-before-create by name/tag, or a client token): calling it again after a
   * crash, a lost response or a concurrent duplicate never creates a second machine. Done as soon as the
   * cloud has accepted the node; its state may still be `pending`. Readiness is observed with `listNodes`.
   */
  createNode(request: NodeRequest, context?: CallContext): Promise<Outcome<NodeInfo>>;
  /** All nodes carrying the cluster tag (and nodepool tag when given), with as few paged calls as possible. */
  listNodes(selector: NodeSelector, context?: CallContext): Promise<Outcome<NodeInfo[]>>;
  /** One node by name, or null when it does not exist (or is already deleted). */
  getNode(ref: NodeRef, context?: CallContext): Promise<Outcome<NodeInfo | null>>;
  /** Requests deletion. Done when the node is gone or going; deleting a node that does not exist is done. */
  deleteNode(ref: NodeRef, context?: CallContext): Promise<Outcome<void>>;
  /** The machine types a region offers. */
  serverTypes(region: string, context?: CallContext): Promise<Outcome<ServerTypeInfo[]>>;
  /** The images a region offers. */
  images(region: string, context?: CallContext): Promise<Outcome<ImageInfo[]>>;
  /** The availability zones of a region. */
  zones(region: string, context?: CallContext): Promise<Outcome<ZoneInfo[]>>;
  /**
   * One image by id or name, for ids a catalog listing does not show (EC2: any AMI the account may launch, not only
   * the owner's list): null when the cloud has none of that id.
   */
  image?(region: string, ref: string, context?: CallContext): Promise<Outcome<ImageInfo | null>>;
  /** The regions the account can use (EC2 DescribeRegions, Hetzner locations, Crusoe locations), for preflight. */
  regions?(context?: CallContext): Promise<Outcome<RegionInfo[]>>;
  /** The account's limits on machines, where the cloud lists them with the types that count against each, for preflight. */
  quotas?(context?: CallContext): Promise<Outcome<QuotaInfo[]>>;
}

/** A subnet to create in a network. */
export interface SubnetRequest {
  cidr: string;
  zone?: string;
}

/** A request for a cluster's private network and its subnets. */
export interface NetworkRequest {
  name: string;
  clusterId: string;
  region: string;
  /** The network's range (RFC 1918), e.g. 10.0.0.0/16. */
  cidr: string;
  subnets: SubnetRequest[];
  labels?: Record<string, string>;
  /**
   * An existing subnet (id or name) in `region`, from the manifest: the provider adopts its network (returned with that
   * network's own name, and the subnet alone in `subnets`), creates neither, and adds only the rules the cluster needs,
   * named after `name`, so they are the cluster's to delete. A provider that cannot adopt one says so (`invalid`).
   */
  existingSubnet?: string;
}

/** A network as a provider reports it. */
export interface NetworkInfo {
  name: string;
  id: string;
  clusterId: string;
  cidr: string;
  subnets: Array<{ id: string; cidr: string; zone?: string }>;
  /** Set when the network is an existing one (`existingSubnet`): not the cluster's to delete. */
  adopted?: boolean;
}

/** The protocols a firewall rule can allow. */
export type FirewallProtocol = 'tcp' | 'udp' | 'icmp';

/** An inbound allow rule. Everything not allowed is denied; outbound is open. */
export interface FirewallRule {
  protocol: FirewallProtocol;
  /** A port or an inclusive range; absent for icmp. */
  port?: number | readonly [number, number];
  /** Source CIDRs. */
  sourceCidrs: string[];
  /** Also allow the cluster's own nodes (e.g. WireGuard between nodes). */
  fromClusterNodes?: boolean;
  description?: string;
}

/** A request for a cluster's firewall and its inbound rules. */
export interface FirewallRequest {
  name: string;
  clusterId: string;
  region: string;
  /** The network the firewall belongs to, where the cloud ties firewalls to networks (AWS security groups). */
  networkName?: string;
  rules: FirewallRule[];
  labels?: Record<string, string>;
}

/** A firewall as a provider reports it. */
export interface FirewallInfo {
  name: string;
  id: string;
  clusterId: string;
  rules: FirewallRule[];
}

/** A request for a reserved public IP (the API endpoint of a cluster without a load balancer). */
export interface ReservedIpRequest {
  name: string;
  clusterId: string;
  region: string;
  /** Where the cloud binds an IP to a location (Hetzner primary IPs). */
  zone?: string;
  labels?: Record<string, string>;
}

/** A reserved IP as a provider reports it. */
export interface ReservedIpInfo {
  name: string;
  id: string;
  clusterId: string;
  ip: string;
  /** The provider id of the node it is attached to, if any. */
  attachedTo?: string;
}

/** A request to upload a cluster's SSH public key. */
export interface SshKeyRequest {
  name: string;
  clusterId: string;
  region: string;
  /** An OpenSSH public key line (`ssh-ed25519 AAAA… comment`). */
  publicKey: string;
  labels?: Record<string, string>;
}

/** An SSH key as a provider reports it. */
export interface SshKeyInfo {
  name: string;
  id: string;
  clusterId: string;
  fingerprint?: string;
}

/** A cluster-scoped resource by name and region. */
export interface ScopedRef {
  clusterId: string;
  name: string;
  region: string;
}

/** The networking part of a provider: networks, firewalls, reserved IPs and SSH keys. */
export interface NetworkApi {
  /** Creates the network and its subnets, or finds them when they exist. */
  ensureNetwork(request: NetworkRequest, context?: CallContext): Promise<Outcome<NetworkInfo>>;
  /** Deletes a network; done when it is gone. */
  deleteNetwork(ref: ScopedRef, context?: CallContext): Promise<Outcome<void>>;
  /** Creates the firewall or brings its rules to exactly `request.rules` (added, updated and removed). */
  ensureFirewall(request: FirewallRequest, context?: CallContext): Promise<Outcome<FirewallInfo>>;
  /** Deletes a firewall; done when it is gone. */
  deleteFirewall(ref: ScopedRef, context?: CallContext): Promise<Outcome<void>>;
  /** Reserves a public IP, or finds the one reserved before. */
  ensureReservedIp(request: ReservedIpRequest, context?: CallContext): Promise<Outcome<ReservedIpInfo>>;
  /** Attaches the reserved IP to the node; pending while the node cannot take it yet. */
  attachReservedIp(ip: ScopedRef, node: NodeRef, context?: CallContext): Promise<Outcome<ReservedIpInfo>>;
  /** Releases a reserved IP; done when it is gone. */
  deleteReservedIp(ref: ScopedRef, context?: CallContext): Promise<Outcome<void>>;
  /** Uploads an SSH public key, or finds it when it exists. */
  ensureSshKey(request: SshKeyRequest, context?: CallContext): Promise<Outcome<SshKeyInfo>>;
  /** Deletes an SSH key; done when it is gone. */
  deleteSshKey(ref: ScopedRef, context?: CallContext): Promise<Outcome<void>>;
}

/** The DNS record types kubeplane writes. */
export type DnsRecordType = 'A' | 'AAAA' | 'CNAME';

/** A health check attached to a DNS record, so traffic goes only to healthy targets. */
export interface DnsHealthCheck {
  /** A TCP check on this IP and port (kubeplane's LB nodes answer on 65534). */
  ip: string;
  port: number;
}

/** A DNS record: name, type, TTL and values, with its failover role or health check when it has one. */
export interface DnsRecord {
  /** Fully qualified, without the trailing dot: `api.example.com`. */
  name: string;
  type: DnsRecordType;
  ttl: number;
  values: string[];
  /** For failover and multi-value sets: distinguishes records of the same name and type. */
  setIdentifier?: string;
  /** Health-checked failover: the record answers only while its check passes. */
  failover?: { role: 'primary' | 'secondary'; healthCheck?: DnsHealthCheck };
  /** Multi-value answer with a health check per value-set. */
  healthCheck?: DnsHealthCheck;
}

/** A change to a zone: the records to write and those to delete. */
export interface DnsChange {
  id: string;
  status: 'pending' | 'in-sync';
  /** What the provider could not do as asked but did otherwise (failover written as plain records without Load Balancing). */
  warnings?: string[];
}

/** The DNS part of a provider: read and change a zone's records. */
export interface DnsApi {
  /** Creates or updates all records in one change (atomic where the cloud allows it). */
  upsertRecords(zone: string, clusterId: string, records: DnsRecord[], context?: CallContext): Promise<Outcome<DnsChange>>;
  /** Done when the change is live on the cloud's name servers; pending before. */
  changeStatus(changeId: string, context?: CallContext): Promise<Outcome<DnsChange>>;
  /** The records of a zone. */
  listRecords(zone: string, context?: CallContext): Promise<Outcome<DnsRecord[]>>;
  /** Removes the records (and their health checks); records that are already gone are fine. */
  deleteRecords(
    zone: string,
    clusterId: string,
    records: Array<Pick<DnsRecord, 'name' | 'type' | 'setIdentifier'>>,
    context?: CallContext,
  ): Promise<Outcome<void>>;
  /** The zones the account holds (names without the trailing dot), so preflight can check `dnsZone` before anything is created. */
  zones?(context?: CallContext): Promise<Outcome<string[]>>;
}

/** A control plane the provider runs (Crusoe CMK). Requests are plain data, like the self-managed ones. */
export interface ManagedClusterRequest {
  /** The provider-side cluster name; kubeplane passes the cluster id, so names say whose a cluster is. */
  name: string;
  clusterId: string;
  /** The provider's location (Crusoe: `us-east1-a`). */
  region: string;
  /** A version from the provider's own list (`versions()`), e.g. CMK's `1.33.4-cmk.15`. */
  kubernetesVersion: string;
  /** Provider add-on ids (`crusoe_csi`, `nvidia_gpu_operator`, …); CMK fixes them at creation. */
  addons?: string[];
  /** The network (from `ensureNetwork`) whose subnet in `region` the control plane joins; the provider's default subnet when absent. */
  networkName?: string;
  /** An existing subnet (the manifest's `providerSpec.subnet`, resolved by `ensureNetwork`): used as it is, instead of `networkName`'s. */
  subnetId?: string;
  /** No public address on the API server. */
  privateApi?: boolean;
  /** Pod and service ranges, when not the provider's defaults. */
  podCidr?: string;
  serviceCidr?: string;
}

/** A managed Kubernetes cluster as the service reports it. */
export interface ManagedClusterInfo {
  name: string;
  id: string;
  clusterId: string;
  state: 'provisioning' | 'running' | 'updating' | 'deleting' | 'failed';
  apiEndpoint?: string;
  kubernetesVersion: string;
  /** The provider's project (Crusoe's `project_id`). */
  projectId?: string;
  /** The add-ons the provider installed at creation. */
  addons?: string[];
  /** Provider-run resources created with the cluster (CMK's `cmk-cp-*` firewall rules), for status and docs. */
  managedResources?: string[];
}

/** A taint on the nodes of a managed node pool. */
export interface ManagedNodeTaint {
  key: string;
  value?: string;
  effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
}

/** A request for a managed node pool: its count, machine type, version, labels and taints. */
export interface ManagedNodePoolRequest {
  clusterId: string;
  name: string;
  /** The provider's instance type (Crusoe product name, e.g. `h100-80gb-sxm-ib.8x`). */
  serverType: string;
  /** Desired node count; every update sends it (CMK resets a pool whose PATCH omits it). */
  count: number;
  labels?: Record<string, string>;
  /** The managed cluster's provider-side name (from `ensureCluster`); `clusterId` when absent. */
  clusterName?: string;
  /** Node image version from the provider's list (`1.33.4-cmk.4`, `1.33.4-cmk.5-gb200`); the provider's latest compatible one when absent. */
  kubernetesVersion?: string;
  taints?: ManagedNodeTaint[];
  /** An InfiniBand partition (name) for IB instance types; the provider ensures `<clusterId>-<pool>-ib` when absent. */
  infinibandPartitionName?: string;
  /** The OpenSSH public key the nodes accept. */
  sshPublicKey?: string;
  /**
   * Scale-down: the provider-side node ids (or names) to remove, chosen (and drained) by the engine. Required when
   * `count` is below the current count: the provider lowers the count, then deletes exactly these machines. Pass the
   * same list on every call until the pool is done (the machines may still be listed while they are deleted).
   */
  removeNodes?: string[];
  /**
   * The caller changed `kubernetesVersion` since it last set it: the pool is updated to it even when nothing else
   * differs (providers cannot always read a pool's version back). New machines get it; the caller rotates the old ones.
   */
  updateVersion?: boolean;
}

/** A managed node pool as the service reports it. */
export interface ManagedNodePoolInfo {
  name: string;
  id: string;
  /** Nodes whose machines are running. */
  ready: number;
  /** The pool's desired count as the provider holds it. */
  count: number;
  /** Provider-side ids of the pool's machines. */
  nodeIds: string[];
}

/** A node of a managed node pool as the service reports it. */
export interface ManagedNodeInfo {
  id: string;
  name: string;
  /** `crusoe://<vm-id>`: how the cluster's Node objects name the machine. */
  providerId: string;
  state: NodeState;
  createdAt?: string;
  privateIPv4?: string;
  publicIPv4?: string;
  /** False when the machine predates the pool's current configuration (its node image version): a rotation replaces it. */
  upToDate?: boolean;
}

/** The Kubernetes versions a managed service offers. */
export interface ManagedVersions {
  /** Control-plane versions the provider offers now, oldest first. */
  cluster: string[];
  /** Node (worker image) versions, oldest first. */
  nodePool: string[];
}

/** The managed Kubernetes part of a provider: clusters, node pools, versions and the admin kubeconfig. */
export interface ManagedKubernetesApi {
  /** Creates the cluster or checks it against the request. Pending while it is provisioning; done once it runs. */
  ensureCluster(request: ManagedClusterRequest, context?: CallContext): Promise<Outcome<ManagedClusterInfo>>;
  /** Deletes the cluster (its node pools first). Pending until it is gone; done when it does not exist. */
  deleteCluster(ref: ScopedRef, context?: CallContext): Promise<Outcome<void>>;
  /**
   * Creates the pool or converges its count, labels, taints and version (labels, taints and version apply to new
   * nodes). Pending while the provider works on it; done with the pool once its machines are accepted.
   */
  ensureNodePool(request: ManagedNodePoolRequest, context?: CallContext): Promise<Outcome<ManagedNodePoolInfo>>;
  /** Deletes a node pool and its machines; done when it is gone. */
  deleteNodePool(ref: ScopedRef, context?: CallContext): Promise<Outcome<void>>;
  /** The kubeconfig; it is a secret, so it comes back wrapped by the caller's SecretStore rules. */
  kubeconfig(ref: ScopedRef, context?: CallContext): Promise<Outcome<string>>;
  /** The versions the provider offers, for validation before anything is created. */
  versions(region: string, context?: CallContext): Promise<Outcome<ManagedVersions>>;
  /** The machines of one pool (`ref.name` = pool name), so the engine can choose, cordon and drain before a scale-down. */
  listNodePoolNodes(cluster: ScopedRef, pool: string, context?: CallContext): Promise<Outcome<ManagedNodeInfo[]>>;
  /**
   * The service's own settings for a running cluster, applied through the provider's API and through the
   * cluster's (`kubernetes`, built from the admin kubeconfig): for CMK the add-on credentials Secret, the
   * autoscaler's per-pool limits and AutoClusters remediation. Writes only what differs; pending while the cluster
   * is not ready for them (an add-on still installing). Absent when the service has nothing to configure.
   */
  configureCluster?(request: ManagedClusterConfig, kubernetes: ManagedClusterKubernetes, context?: CallContext): Promise<Outcome<ManagedClusterConfigResult>>;
}

/** What a managed cluster's settings are configured from (the manifest's cluster, as the engine sees it). */
export interface ManagedClusterConfig {
  clusterId: string;
  /** The provider-side cluster name (`ManagedClusterInfo.name`). */
  name: string;
  region: string;
  /** Autoscaled pools and their limits. */
  autoscaler: Array<{ pool: string; min: number; max: number }>;
  /** The manifest's add-ons with their config (`autoclusters` carries remediation settings). */
  addons: Array<{ name: string; config?: Record<string, unknown> }>;
}

/** What applying a managed cluster's settings wrote. */
export interface ManagedClusterConfigResult {
  /** What was written, for the engine's events (`secret cmk-x`, `autoscaler limits`, …); empty when all matched. */
  changed: string[];
}

/** The part of the cluster's API a managed service's settings need. */
export type ManagedClusterKubernetes = Pick<KubernetesApi, 'getSecret' | 'applySecret' | 'getDeploymentArgs' | 'setDeploymentArgs'>;

/** Which parts of the provider contract a provider implements. */
export interface Capabilities {
  compute: boolean;
  network: boolean;
  dns: boolean;
  /** DNS failover with health checks (Route 53). */
  dnsFailover: boolean;
  /** Reserved IPs can be attached after the node exists (AWS) rather than only at creation (Hetzner). */
  attachReservedIpAfterCreate: boolean;
  managedKubernetes: boolean;
  /**
   * Standalone reserved public IPs exist (EC2 Elastic IPs, Hetzner primary IPs). Absent means true. Crusoe has none:
   * a static public IP is allocated with its VM (`reservedIpName` in the node request), so `ensureReservedIp` is `invalid`.
   */
  reservedIps?: boolean;
  /**
   * A firewall's rules apply to every machine of its network, whichever machines name it (Crusoe VPC rules), rather
   * than only to the machines it is attached to (EC2 security groups, Hetzner firewalls). Absent means false. The
   * engine then keeps one firewall per region with the union of the roles' rules.
   */
  networkWideFirewalls?: boolean;
  /**
   * How far one resource of a kind reaches in the provider's account, so the engine makes it once per that scope
   * rather than once per region it uses. Absent (or a kind absent): `region`.
   */
  scopes?: ResourceScopes;
}

/**
 * `project`: one serves every region of the account (and the API may refuse a second copy: Hetzner keeps SSH key
 * fingerprints unique per project). `region`: each region has its own (EC2 key pairs, security groups, VPCs).
 */
export type ResourceScope = 'project' | 'region';

/**
 * The scope of each kind whose scope the engine follows. Networks and firewalls are made per provider region: each
 * network gets its own range from the model, and a Hetzner network or firewall (project resources) or a Crusoe VPC
 * made once per location under its own name is legal, where a second copy of an SSH key is not.
 */
export interface ResourceScopes {
  sshKey?: ResourceScope;
}

/** What a provider found carrying a cluster's tag, for teardown and leak checks. */
export interface TaggedResource {
  kind: 'node' | 'volume' | 'network' | 'subnet' | 'firewall' | 'reserved-ip' | 'ssh-key' | 'placement-group' | 'dns-record' | 'other';
  /** What `other` is, in the provider's words (`ib-partition`, `managed-cluster`, `node-pool`). */
  detail?: string;
  id: string;
  name?: string;
}

/** A cloud account as the engine drives it: its capabilities and the APIs behind them. */
export interface Provider {
  /** `aws`, `hetzner`, … */
  readonly name: string;
  readonly capabilities: Capabilities;
  /** Present exactly when the matching capability is true (rule C1). */
  readonly compute?: ComputeApi;
  readonly network?: NetworkApi;
  readonly dns?: DnsApi;
  readonly managedKubernetes?: ManagedKubernetesApi;
  /** Everything carrying the cluster tag in this region, even when the engine's state was lost. */
  listClusterResources(clusterId: string, region: string, context?: CallContext): Promise<Outcome<TaggedResource[]>>;
  /**
   * Deletes everything carrying the cluster tag in dependency order (nodes, IPs, firewalls, keys, networks).
   * Pending while something is still going; done when nothing tagged is left. Safe to call at any time.
   */
  teardownCluster(clusterId: string, region: string, context?: CallContext): Promise<Outcome<void>>;
}
