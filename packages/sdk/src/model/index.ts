// Model: the typed domain (clusters, pools, nodes, load balancers) and the desired state built from a manifest.
export {
  allNodes,
  type ApiEndpoint,
  type ClusterSpec,
  type CurrentState,
  type DesiredState,
  type DnsSpec,
  emptyState,
  type LbRoleSpec,
  type LoadBalancerSpec,
  type NodeRole,
  type NodeSpec,
  type PoolProvider,
  type PoolSpec,
  type ProviderNetworkSpec,
} from './types.js';
export { clusterId, computeInstanceName, defaultHostname, loadBalancerId, nodeName, shortHash } from './ids.js';
export { type Cidr, cidrsOverlap, formatIPv4, hostAt, hostIndexOf, IPV4_PATTERNS, isCidr, parseCidr, parseIPv4, usableHosts } from './ipv4.js';
export { buildDesiredState, DEFAULT_NOT_READY_MINUTES, DEFAULT_POD_CIDR, DEFAULT_SERVICE_CIDR } from './desired-state.js';
