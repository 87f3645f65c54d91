// kubeadm Init/Join/Cluster/Kubelet configuration in the API version each Kubernetes minor expects: v1beta3 up
// to 1.30, v1beta4 from 1.31 (whose extraArgs are lists of {name, value} and whose timeouts moved to `timeouts`).
import { toYaml } from '../yaml-text.js';
import { Redacted } from '../redacted.js';
import type { BootstrapCluster, BootstrapNode, BootstrapKubernetesVersion, BootstrapTaint } from './input.js';

/** The kubeadm configuration API versions kubeplane renders. */
export type KubeadmApiVersion = 'kubeadm.k8s.io/v1beta3' | 'kubeadm.k8s.io/v1beta4';
/** How kubeadm runs on a node: the first control plane, a further control plane, or a worker. */
export type KubeadmMode = 'init' | 'join-control-plane' | 'join';

/** The taint kubeadm puts on control-plane nodes. */
export const CONTROL_PLANE_TAINT: BootstrapTaint = { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' };
export const CRI_SOCKET = 'unix:///run/containerd/containerd.sock';
export const ENCRYPTION_CONFIG_DIR = '/etc/kubernetes/encryption';
export const ENCRYPTION_CONFIG_PATH = `${ENCRYPTION_CONFIG_DIR}/config.yaml`;
const API_BIND_PORT = 6443;
const BOOTSTRAP_TOKEN_TTL = '24h0m0s';
const DISCOVERY_TIMEOUT = '15m0s';

/** The kubeadm configuration API version to render for a Kubernetes version. */
export function kubeadmApiVersion(version: BootstrapKubernetesVersion): KubeadmApiVersion {
  return version.major === 1 && version.minor <= 30 ? 'kubeadm.k8s.io/v1beta3' : 'kubeadm.k8s.io/v1beta4';
}

/** The version as kubeadm and the package repositories spell it (`1.31.2`). */
export function kubernetesVersionString(version: BootstrapKubernetesVersion): string {
  return `v${version.major}.${version.minor}.${version.patch}`;
}

// NodeRestriction lets a kubelet set its own labels except under kubernetes.io/ and k8s.io/, where only these
// are allowed; the rest are applied by the engine once the node has joined.
const KUBELET_ALLOWED_EXACT = new Set([
  'kubernetes.io/hostname',
  'kubernetes.io/arch',
  'kubernetes.io/os',
  'beta.kubernetes.io/instance-type',
  'node.kubernetes.io/instance-type',
  'failure-domain.beta.kubernetes.io/region',
  'failure-domain.beta.kubernetes.io/zone',
  'topology.kubernetes.io/region',
  'topology.kubernetes.io/zone',
]);

function kubeletMaySet(key: string): boolean {
  const slash = key.indexOf('/');
  if (slash < 0) return true;
  const prefix = key.slice(0, slash);
  const restricted = prefix === 'kubernetes.io' || prefix.endsWith('.kubernetes.io') || prefix === 'k8s.io' || prefix.endsWith('.k8s.io');
  if (!restricted) return true;
  return KUBELET_ALLOWED_EXACT.has(key) || prefix === 'kubelet.kubernetes.io' || prefix === 'node.kubernetes.io';
}

/** A node's labels split into those kubelet may set itself and those set through the API after it joins. */
export interface NodeLabelSplit {
  /** Set by the kubelet at registration (`--node-labels`). */
  kubelet: Record<string, string>;
  /** Not settable by a kubelet under NodeRestriction: the engine patches them onto the Node after it joins. */
  deferred: Record<string, string>;
}

/** Splits a node's labels into those kubelet may set and those that need the API. */
export function splitNodeLabels(node: BootstrapNode): NodeLabelSplit {
  const all: Record<string, string> = { 'kubeplane.dev/pool': node.pool, 'kubeplane.dev/provider': node.provider, ...node.labels };
  const kubelet: Record<string, string> = {};
  const deferred: Record<string, string> = {};
  for (const key of Object.keys(all).sort()) {
    const value = all[key] ?? '';
    if (kubeletMaySet(key)) kubelet[key] = value;
    else deferred[key] = value;
  }
  return { kubelet, deferred };
}

function nodeTaints(node: BootstrapNode): Array<Record<string, string>> {
  const taints = node.role === 'control' ? [CONTROL_PLANE_TAINT, ...node.taints] : node.taints;
  const seen = new Set<string>();
  const out: Array<Record<string, string>> = [];
  for (const t of taints) {
    const id = `${t.key}:${t.effect}`;
    if (seen.has(id)) continue;
    seen.add(id);
    out.push(t.value === undefined ? { key: t.key, effect: t.effect } : { key: t.key, value: t.value, effect: t.effect });
  }
  return out;
}

type Args = Record<string, string>;

function extraArgs(apiVersion: KubeadmApiVersion, args: Args): Args | Array<{ name: string; value: string }> {
  if (apiVersion === 'kubeadm.k8s.io/v1beta3') return args;
  return Object.entries(args).map(([name, value]) => ({ name, value }));
}

function nodeRegistration(apiVersion: KubeadmApiVersion, node: BootstrapNode): Record<string, unknown> {
  const labels = splitNodeLabels(node).kubelet;
  const kubeletArgs: Args = { 'node-ip': node.overlayIp };
  const labelArg = Object.entries(labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
  if (labelArg) kubeletArgs['node-labels'] = labelArg;
  return {
    name: node.name,
    criSocket: CRI_SOCKET,
    taints: nodeTaints(node),
    kubeletExtraArgs: extraArgs(apiVersion, kubeletArgs),
  };
}

/** The API server's `host:port` as kubeadm's controlPlaneEndpoint. */
export function controlPlaneEndpoint(cluster: BootstrapCluster): string {
  return `${cluster.apiEndpoint.host}:${cluster.apiEndpoint.port}`;
}

function clusterConfiguration(apiVersion: KubeadmApiVersion, cluster: BootstrapCluster): Record<string, unknown> {
  const controlIps = cluster.nodes.filter((n) => n.role === 'control').map((n) => n.overlayIp);
  // Certificates kubeadm issues itself later (renewals, `kubeadm certs renew`) keep the endpoint and overlay IPs.
  const certSANs = [cluster.apiEndpoint.host, ...controlIps];
  const apiServer: Record<string, unknown> = { certSANs: [...new Set(certSANs)] };
  if (cluster.secretsAtRest) {
    apiServer['extraArgs'] = extraArgs(apiVersion, { 'encryption-provider-config': ENCRYPTION_CONFIG_PATH });
    apiServer['extraVolumes'] = [
      {
        name: 'encryption-config',
        hostPath: ENCRYPTION_CONFIG_DIR,
        mountPath: ENCRYPTION_CONFIG_DIR,
        readOnly: true,
        pathType: 'DirectoryOrCreate',
      },
    ];
  }
  return {
    apiVersion,
    kind: 'ClusterConfiguration',
    clusterName: cluster.name,
    kubernetesVersion: kubernetesVersionString(cluster.kubernetesVersion),
    controlPlaneEndpoint: controlPlaneEndpoint(cluster),
    certificatesDir: '/etc/kubernetes/pki',
    networking: { dnsDomain: 'cluster.local', podSubnet: cluster.podCidr, serviceSubnet: cluster.serviceCidr },
    apiServer,
    etcd: {
      local: {
        dataDir: '/var/lib/etcd',
        serverCertSANs: controlIps,
        peerCertSANs: controlIps,
      },
    },
  };
}

function kubeletConfiguration(): Record<string, unknown> {
  return {
    apiVersion: 'kubelet.config.k8s.io/v1beta1',
    kind: 'KubeletConfiguration',
    cgroupDriver: 'systemd',
    // Serving certificates signed by the cluster CA would need a CSR approver; keep the kubelet's self-signed one.
    serverTLSBootstrap: false,
  };
}

/** Everything one node's kubeadm configuration is rendered from. */
export interface KubeadmConfigInput {
  cluster: BootstrapCluster;
  node: BootstrapNode;
  mode: KubeadmMode;
  bootstrapToken: Redacted<string>;
  discoveryHash: string;
}

/** The kubeadm config file for a node (multi-document YAML); it carries the bootstrap token, hence Redacted. */
export function renderKubeadmConfig(input: KubeadmConfigInput): Redacted<string> {
  const { cluster, node, mode } = input;
  if (node.role === 'loadbalancer') throw new Error(`node ${node.name} is a load balancer; it runs no kubeadm`);
  if (mode !== 'join' && node.role !== 'control') throw new Error(`node ${node.name} is not a control-plane node`);
  const apiVersion = kubeadmApiVersion(cluster.kubernetesVersion);
  const token = input.bootstrapToken.reveal();
  const docs: Array<Record<string, unknown>> = [];
  if (mode === 'init') {
    docs.push({
      apiVersion,
      kind: 'InitConfiguration',
      bootstrapTokens: [
        {
          token,
          description: 'kubeplane node bootstrap token',
          ttl: BOOTSTRAP_TOKEN_TTL,
          usages: ['signing', 'authentication'],
          groups: ['system:bootstrappers:kubeadm:default-node-token'],
        },
      ],
      nodeRegistration: nodeRegistration(apiVersion, node),
      localAPIEndpoint: { advertiseAddress: node.overlayIp, bindPort: API_BIND_PORT },
      // Cilium replaces kube-proxy.
      skipPhases: ['addon/kube-proxy'],
    });
    docs.push(clusterConfiguration(apiVersion, cluster));
    docs.push(kubeletConfiguration());
  } else {
    const bootstrapToken = { apiServerEndpoint: controlPlaneEndpoint(cluster), token, caCertHashes: [input.discoveryHash] };
    const join: Record<string, unknown> = { apiVersion, kind: 'JoinConfiguration' };
    if (apiVersion === 'kubeadm.k8s.io/v1beta3') {
      join['discovery'] = { bootstrapToken, timeout: DISCOVERY_TIMEOUT };
    } else {
      join['discovery'] = { bootstrapToken };
      join['timeouts'] = { discovery: DISCOVERY_TIMEOUT };
    }
    join['nodeRegistration'] = nodeRegistration(apiVersion, node);
    if (mode === 'join-control-plane') {
      join['controlPlane'] = { localAPIEndpoint: { advertiseAddress: node.overlayIp, bindPort: API_BIND_PORT } };
    }
    docs.push(join);
  }
  return Redacted.of(docs.map((doc) => toYaml(doc)).join('---\n'));
}
