// The plain types of the provider contract (docs/provider-contract.md). They do not depend on the manifest
// model: the engine adapts manifest objects into these requests.
import type { Outcome } from './outcome.js';

/** Tag/label keys every provider writes on every resource it creates (rule C2). */
export const CLUSTER_ID_TAG = 'kubeplane.dev/cluster-id';
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

export type NodeState = 'pending' | 'running' | 'stopping' | 'stopped' | 'deleting' | 'deleted' | 'failed' | 'unknown';

export interface NodeRequest {
  /** Deterministic and unique per cluster, e.g. `<clusterId>-<pool>-<nn>`; the idempotency key. */
  name: string;
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
  /** Names of firewalls (from ensureFirewall) applied to the node. */
  firewallNames?: string[];
  /** Name of a reserved public IP (from ensureReservedIp) to become the node's public IPv4. */
  reservedIpName?: string;
  /** Placement spread group name, where the provider has one. */
  placementGroupName?: string;
}

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
}

export interface NodeSelector {
  clusterId: string;
  nodepool?: string;
  region?: string;
}

export interface NodeRef {
  clusterId: string;
  name: string;
  region: string;
}

export interface ServerTypeInfo {
  name: string;
  vcpus: number;
  memoryGiB: number;
  architecture: 'x86_64' | 'arm64';
  gpus?: number;
}

export interface ImageInfo {
  id: string;
  name: string;
  architecture: 'x86_64' | 'arm64';
  description?: string;
}

export interface ZoneInfo {
  name: string;
  region: string;
}

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
  serverTypes(region: string, context?: CallContext): Promise<Outcome<ServerTypeInfo[]>>;
  images(region: string, context?: CallContext): Promise<Outcome<ImageInfo[]>>;
  zones(region: string, context?: CallContext): Promise<Outcome<ZoneInfo[]>>;
}

export interface SubnetRequest {
  cidr: string;
  zone?: string;
}

export interface NetworkRequest {
  name: string;
  clusterId: string;
  region: string;
  /** The network's range (RFC 1918), e.g. 10.0.0.0/16. */
  cidr: string;
  subnets: SubnetRequest[];
  labels?: Record<string, string>;
}

export interface NetworkInfo {
  name: string;
  id: string;
  clusterId: string;
  cidr: string;
  subnets: Array<{ id: string; cidr: string; zone?: string }>;
}

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

export interface FirewallRequest {
  name: string;
  clusterId: string;
  region: string;
  /** The network the firewall belongs to, where the cloud ties firewalls to networks (AWS security groups). */
  networkName?: string;
  rules: FirewallRule[];
  labels?: Record<string, string>;
}

export interface FirewallInfo {
  name: string;
  id: string;
  clusterId: string;
  rules: FirewallRule[];
}

export interface ReservedIpRequest {
  name: string;
  clusterId: string;
  region: string;
  /** Where the cloud binds an IP to a location (Hetzner primary IPs). */
  zone?: string;
  labels?: Record<string, string>;
}

export interface ReservedIpInfo {
  name: string;
  id: string;
  clusterId: string;
  ip: string;
  /** The provider id of the node it is attached to, if any. */
  attachedTo?: string;
}

export interface SshKeyRequest {
  name: string;
  clusterId: string;
  region: string;
  /** An OpenSSH public key line (`ssh-ed25519 AAAA… comment`). */
  publicKey: string;
  labels?: Record<string, string>;
}

export interface SshKeyInfo {
  name: string;
  id: string;
  clusterId: string;
  fingerprint?: string;
}

export interface ScopedRef {
  clusterId: string;
  name: string;
  region: string;
}

export interface NetworkApi {
  ensureNetwork(request: NetworkRequest, context?: CallContext): Promise<Outcome<NetworkInfo>>;
  deleteNetwork(ref: ScopedRef, context?: CallContext): Promise<Outcome<void>>;
  /** Creates the firewall or brings its rules to exactly `request.rules` (added, updated and removed). */
  ensureFirewall(request: FirewallRequest, context?: CallContext): Promise<Outcome<FirewallInfo>>;
  deleteFirewall(ref: ScopedRef, context?: CallContext): Promise<Outcome<void>>;
  ensureReservedIp(request: ReservedIpRequest, context?: CallContext): Promise<Outcome<ReservedIpInfo>>;
  /** Attaches the reserved IP to the node; pending while the node cannot take it yet. */
  attachReservedIp(ip: ScopedRef, node: NodeRef, context?: CallContext): Promise<Outcome<ReservedIpInfo>>;
  deleteReservedIp(ref: ScopedRef, context?: CallContext): Promise<Outcome<void>>;
  ensureSshKey(request: SshKeyRequest, context?: CallContext): Promise<Outcome<SshKeyInfo>>;
  deleteSshKey(ref: ScopedRef, context?: CallContext): Promise<Outcome<void>>;
}

export type DnsRecordType = 'A' | 'AAAA' | 'CNAME';

export interface DnsHealthCheck {
  /** A TCP check on this IP and port (kubeplane's LB nodes answer on 65534). */
  ip: string;
  port: number;
}

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

export interface DnsChange {
  id: string;
  status: 'pending' | 'in-sync';
}

export interface DnsApi {
  /** Creates or updates all records in one change (atomic where the cloud allows it). */
  upsertRecords(zone: string, clusterId: string, records: DnsRecord[], context?: CallContext): Promise<Outcome<DnsChange>>;
  /** Done when the change is live on the cloud's name servers; pending before. */
  changeStatus(changeId: string, context?: CallContext): Promise<Outcome<DnsChange>>;
  listRecords(zone: string, context?: CallContext): Promise<Outcome<DnsRecord[]>>;
  /** Removes the records (and their health checks); records that are already gone are fine. */
  deleteRecords(zone: string, clusterId: string, records: Array<Pick<DnsRecord, 'name' | 'type' | 'setIdentifier'>>, context?: CallContext): Promise<Outcome<void>>;
}

/** Declared now, implemented for Crusoe CMK later: a control plane the provider runs. */
export interface ManagedClusterRequest {
  name: string;
  clusterId: string;
  region: string;
  kubernetesVersion: string;
  addons?: string[];
}

export interface ManagedClusterInfo {
  name: string;
  id: string;
  clusterId: string;
  state: 'provisioning' | 'running' | 'updating' | 'deleting' | 'failed';
  apiEndpoint?: string;
  kubernetesVersion: string;
}

export interface ManagedNodePoolRequest {
  clusterId: string;
  name: string;
  serverType: string;
  count: number;
  labels?: Record<string, string>;
}

export interface ManagedKubernetesApi {
  ensureCluster(request: ManagedClusterRequest, context?: CallContext): Promise<Outcome<ManagedClusterInfo>>;
  deleteCluster(ref: ScopedRef, context?: CallContext): Promise<Outcome<void>>;
  ensureNodePool(request: ManagedNodePoolRequest, context?: CallContext): Promise<Outcome<{ name: string; id: string; ready: number }>>;
  deleteNodePool(ref: ScopedRef, context?: CallContext): Promise<Outcome<void>>;
  /** The kubeconfig; it is a secret, so it comes back wrapped by the caller's SecretStore rules. */
  kubeconfig(ref: ScopedRef, context?: CallContext): Promise<Outcome<string>>;
}

export interface Capabilities {
  compute: boolean;
  network: boolean;
  dns: boolean;
  /** DNS failover with health checks (Route 53). */
  dnsFailover: boolean;
  /** Reserved IPs can be attached after the node exists (AWS) rather than only at creation (Hetzner). */
  attachReservedIpAfterCreate: boolean;
  managedKubernetes: boolean;
}

/** What a provider found carrying a cluster's tag, for teardown and leak checks. */
export interface TaggedResource {
  kind: 'node' | 'network' | 'subnet' | 'firewall' | 'reserved-ip' | 'ssh-key' | 'placement-group' | 'dns-record' | 'other';
  id: string;
  name?: string;
}

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
