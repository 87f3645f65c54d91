// The kubeadm configuration file (`--config`), read as kubeadm reads it: multi-document YAML of the kubeadm.k8s.io
// API versions this kubeadm knows (v1beta4 from 1.31: cmd/kubeadm/app/apis/kubeadm/v1beta4/doc.go), with the
// defaults kubeadm applies (cmd/kubeadm/app/apis/kubeadm/v1beta4/defaults.go) for the fields the stand-in uses.
import { parseAllDocuments } from 'yaml';
import { parseVersion } from '../../kubernetes/kubeadm-rules.js';

type Json = Record<string, unknown>;

export interface ClusterConfig {
  clusterName: string;
  kubernetesVersion: string;
  controlPlaneEndpoint?: string;
  certificatesDir: string;
  serviceSubnet: string;
  dnsDomain: string;
  certSANs: string[];
  etcdDataDir: string;
  etcdServerCertSANs: string[];
  etcdPeerCertSANs: string[];
}

export interface NodeRegistration {
  name: string;
  criSocket?: string;
  kubeletExtraArgs: Record<string, string>;
}

export interface InitConfig {
  kind: 'init';
  cluster: ClusterConfig;
  node: NodeRegistration;
  advertiseAddress: string;
  bindPort: number;
  tokens: string[];
  /** The KubeletConfiguration document as kubeadm defaults it (the kubelet's config.yaml on every node). */
  kubelet: Json;
}

export interface JoinConfig {
  kind: 'join';
  node: NodeRegistration;
  apiServerEndpoint: string;
  token: string;
  caCertHashes: string[];
  controlPlane?: { advertiseAddress: string; bindPort: number };
}

export class KubeadmConfigError extends Error {}

function o(v: unknown): Json {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {};
}

function s(v: unknown, fallback = ''): string {
  return typeof v === 'string' ? v : fallback;
}

function list(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

function args(v: unknown): Record<string, string> {
  if (Array.isArray(v)) return Object.fromEntries(v.map(o).map((a) => [s(a['name']), s(a['value'])]));
  return Object.fromEntries(Object.entries(o(v)).map(([k, x]) => [k, String(x)]));
}

function documents(text: string, kubeadmVersion: string): Json[] {
  const docs = parseAllDocuments(text).map((d) => {
    if (d.errors.length > 0) throw new KubeadmConfigError(`error converting YAML to JSON: ${d.errors[0]?.message ?? ''}`);
    return o(d.toJS());
  });
  for (const d of docs) {
    const error = kubeadmApiVersionError(s(d['apiVersion']), s(d['kind']), kubeadmVersion);
    if (error) throw new KubeadmConfigError(error);
  }
  return docs;
}

/**
 * kubeadm's refusal of a config document of an API version it does not read (v1beta3 always, v1beta4 from 1.31), in
 * its words; undefined for one it reads or that is not kubeadm's. Shared with the fast simulation (user-data.ts).
 */
export function kubeadmApiVersionError(apiVersion: string, kind: string, kubeadmVersion: string): string | undefined {
  if (!apiVersion.startsWith('kubeadm.k8s.io/')) return undefined;
  const kubeadm = parseVersion(kubeadmVersion);
  const known = apiVersion === 'kubeadm.k8s.io/v1beta3' || (apiVersion === 'kubeadm.k8s.io/v1beta4' && (kubeadm === undefined || kubeadm.minor >= 31));
  return known
    ? undefined
    : `no kind "${kind}" is registered for version "${apiVersion}" in scheme "k8s.io/kubernetes/cmd/kubeadm/app/apis/kubeadm/scheme/scheme.go:31"`;
}

function nodeRegistration(doc: Json): NodeRegistration {
  const reg = o(doc['nodeRegistration']);
  const criSocket = s(reg['criSocket']);
  return { name: s(reg['name']), ...(criSocket ? { criSocket } : {}), kubeletExtraArgs: args(reg['kubeletExtraArgs']) };
}

/**
 * The KubeletConfiguration kubeadm writes to /var/lib/kubelet/config.yaml (and the kubelet-config ConfigMap): the
 * document given, with kubeadm's defaults (cmd/kubeadm/app/componentconfigs/kubelet.go: an empty cgroupDriver becomes
 * systemd since 1.22).
 */
export function kubeletConfiguration(doc: Json | undefined): Json {
  const given = doc ?? {};
  return {
    ...given,
    apiVersion: s(given['apiVersion'], 'kubelet.config.k8s.io/v1beta1'),
    kind: 'KubeletConfiguration',
    cgroupDriver: s(given['cgroupDriver']) || 'systemd',
  };
}

export function parseInitConfig(text: string, kubeadmVersion: string): InitConfig {
  const docs = documents(text, kubeadmVersion);
  const init = docs.find((d) => d['kind'] === 'InitConfiguration') ?? {};
  const cluster = docs.find((d) => d['kind'] === 'ClusterConfiguration') ?? {};
  const networking = o(cluster['networking']);
  const local = o(o(cluster['etcd'])['local']);
  const endpoint = o(init['localAPIEndpoint']);
  const controlPlaneEndpoint = s(cluster['controlPlaneEndpoint']);
  return {
    kind: 'init',
    cluster: {
      clusterName: s(cluster['clusterName'], 'kubernetes'),
      kubernetesVersion: s(cluster['kubernetesVersion'], kubeadmVersion),
      ...(controlPlaneEndpoint ? { controlPlaneEndpoint } : {}),
      certificatesDir: s(cluster['certificatesDir'], '/etc/kubernetes/pki'),
      serviceSubnet: s(networking['serviceSubnet'], '10.96.0.0/12'),
      dnsDomain: s(networking['dnsDomain'], 'cluster.local'),
      certSANs: list(o(cluster['apiServer'])['certSANs']),
      etcdDataDir: s(local['dataDir'], '/var/lib/etcd'),
      etcdServerCertSANs: list(local['serverCertSANs']),
      etcdPeerCertSANs: list(local['peerCertSANs']),
    },
    node: nodeRegistration(init),
    advertiseAddress: s(endpoint['advertiseAddress']),
    bindPort: typeof endpoint['bindPort'] === 'number' ? endpoint['bindPort'] : 6443,
    kubelet: kubeletConfiguration(docs.find((d) => d['kind'] === 'KubeletConfiguration')),
    tokens: (Array.isArray(init['bootstrapTokens']) ? init['bootstrapTokens'] : []).map((t) => s(o(t)['token'])).filter((t) => t.length > 0),
  };
}

export function parseJoinConfig(text: string, kubeadmVersion: string): JoinConfig {
  const docs = documents(text, kubeadmVersion);
  const join = docs.find((d) => d['kind'] === 'JoinConfiguration');
  if (!join) throw new KubeadmConfigError('no JoinConfiguration kind was found in the YAML file');
  const token = o(o(join['discovery'])['bootstrapToken']);
  const apiServerEndpoint = s(token['apiServerEndpoint']);
  if (!apiServerEndpoint) throw new KubeadmConfigError('discovery.bootstrapToken.apiServerEndpoint: Invalid value: "": the apiServerEndpoint must be set');
  const cp = join['controlPlane'] === undefined || join['controlPlane'] === null ? undefined : o(o(join['controlPlane'])['localAPIEndpoint']);
  return {
    kind: 'join',
    node: nodeRegistration(join),
    apiServerEndpoint,
    token: s(token['token']),
    caCertHashes: list(token['caCertHashes']),
    ...(cp ? { controlPlane: { advertiseAddress: s(cp['advertiseAddress']), bindPort: typeof cp['bindPort'] === 'number' ? cp['bindPort'] : 6443 } } : {}),
  };
}

/** The first address of a service network: the `kubernetes` Service's ClusterIP. */
export function firstServiceIp(cidr: string): string {
  const [net = '0.0.0.0'] = cidr.split('/');
  const n = net.split('.').reduce((acc, p) => acc * 256 + Number(p), 0) + 1;
  return [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join('.');
}
