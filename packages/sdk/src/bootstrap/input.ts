// The explicit input of bootstrap rendering: everything a node needs to configure itself, already resolved
// from the manifest and the desired state (the adapter lives with the model). Nothing here is optional by accident.

/** The role of a node in bootstrap: control plane, compute or load balancer. */
export type BootstrapNodeRole = 'control' | 'compute' | 'loadbalancer';
/** The operating systems the bootstrap scripts support. */
export type BootstrapOs = 'ubuntu-22.04' | 'ubuntu-24.04';
/** The CPU architectures the bootstrap scripts support. */
export type BootstrapArch = 'amd64' | 'arm64';

/** The Kubernetes version a cluster is bootstrapped with. */
export interface BootstrapKubernetesVersion {
  major: number;
  minor: number;
  patch: number;
}

/** How nodes reach the API server: its kind of endpoint and its port. */
export interface BootstrapApiEndpoint {
  /** A DNS name (the API load balancer's hostname) or an IPv4 address (a reserved IP). */
  host: string;
  port: number;
  kind: 'load-balancer-dns' | 'reserved-ip';
}

/** A taint put on a node when it registers. */
export interface BootstrapTaint {
  key: string;
  value?: string;
  effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
}

/** One node as bootstrap sees it: name, role, addresses, labels and taints. */
export interface BootstrapNode {
  /** The node's name; also its hostname and its Kubernetes node name. */
  name: string;
  role: BootstrapNodeRole;
  pool: string;
  /** The node's address on the WireGuard overlay (inside the cluster's `network`). */
  overlayIp: string;
  /** `host:port` where other nodes reach this node's WireGuard; unknown before the machine exists. */
  publicEndpoint?: string;
  /** True where the node's public address is NAT'ed (AWS public IPs are 1:1 NAT). */
  behindNat?: boolean;
  labels: Record<string, string>;
  taints: BootstrapTaint[];
  os: BootstrapOs;
  arch: BootstrapArch;
  /** The provider type (`aws`, `hetzner`, ...); it decides the user-data size limit. */
  provider: string;
  /**
   * The storage disk the provider attaches (the pool's `storageDiskSize`, compute nodes only): its size and the
   * `/dev/disk/by-id` globs that find it (the provider profile's `storageDisk`). Absent: no storage disk.
   */
  storageDisk?: { sizeGB: number; byId: readonly string[] };
}

/** One role of a load balancer: the port it listens on and the nodes it forwards to. */
export interface BootstrapLbRole {
  name: string;
  protocol: 'tcp' | 'udp';
  port: number;
  targetPort: number;
  /** Overlay IPs of the target pools' nodes. */
  targets: string[];
  proxyProtocol: boolean;
  stickySessions: boolean;
}

/** A load balancer as bootstrap sees it: its name and roles. */
export interface BootstrapLoadBalancer {
  /** The LB cluster's name; its nodes are the `loadbalancer` nodes whose `pool` is listed in `pools`. */
  name: string;
  pools: string[];
  roles: BootstrapLbRole[];
}

/** Everything bootstrap needs to know of a cluster to render its nodes' scripts. */
export interface BootstrapCluster {
  name: string;
  clusterId: string;
  kubernetesVersion: BootstrapKubernetesVersion;
  apiEndpoint: BootstrapApiEndpoint;
  /** The WireGuard overlay network, e.g. `192.168.2.0/24`. */
  network: string;
  podCidr: string;
  serviceCidr: string;
  nodes: BootstrapNode[];
  loadBalancers: BootstrapLoadBalancer[];
  secretsAtRest: boolean;
  /** The HTTP proxy the nodes install through (the manifest's installationProxy, resolved); absent: none. */
  installationProxy?: BootstrapInstallationProxy;
}

/** The HTTP proxy nodes use while installing packages, when the manifest turns it on. */
export interface BootstrapInstallationProxy {
  /** The proxy URL, for HTTP and HTTPS alike (`http://proxy.claudie.io:8880`). */
  endpoint: string;
  /** Hosts, domains and CIDRs reached without the proxy (NO_PROXY). */
  noProxy: string[];
}

/** Pinned add-on and tool versions; defaults in `versions.ts`, overridable per render. */
export interface BootstrapVersions {
  cilium: string;
  ciliumCli: string;
  /** The pkgs.k8s.io Debian revision appended to the Kubernetes version (`1.31.4-1.1`). */
  kubernetesPackageRevision: string;
  /**
   * The fingerprint (40 hex digits) of the only key the Kubernetes package repository may be signed with; nodes
   * refuse a `Release.key` holding any other. Pin a mirror's own key here.
   */
  kubernetesReleaseKeyFingerprint: string;
}
