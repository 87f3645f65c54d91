// The kubeadm configuration file (`--config`), read as kubeadm reads it: multi-document YAML of the kubeadm.k8s.io
// API versions this kubeadm knows (v1beta4 from 1.31: cmd/kubeadm/app/apis/kubeadm/v1beta4/doc.go), with the
// defaults kubeadm applies (cmd/kubeadm/app/apis/kubeadm/v1beta4/defaults.go) for the fields the stand-in uses.
import { parseAllDocuments, stringify as stringifyYaml } from 'yaml';
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
  controlPlane?: { advertiseAddress: string; bindPort: number; certificateKey?: string };
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
    const error = kubeadmDocumentError(d, kubeadmVersion);
    if (error) throw new KubeadmConfigError(error);
  }
  return docs;
}

/** The fields holding command-line arguments, and the Go struct that declares each (for the decoder's message). */
const EXTRA_ARGS_FIELDS: ReadonlyArray<{ kind: string; path: readonly string[]; struct: string }> = [
  { kind: 'InitConfiguration', path: ['nodeRegistration', 'kubeletExtraArgs'], struct: 'NodeRegistrationOptions' },
  { kind: 'JoinConfiguration', path: ['nodeRegistration', 'kubeletExtraArgs'], struct: 'NodeRegistrationOptions' },
  { kind: 'ClusterConfiguration', path: ['apiServer', 'extraArgs'], struct: 'ControlPlaneComponent' },
  { kind: 'ClusterConfiguration', path: ['controllerManager', 'extraArgs'], struct: 'ControlPlaneComponent' },
  { kind: 'ClusterConfiguration', path: ['scheduler', 'extraArgs'], struct: 'ControlPlaneComponent' },
  { kind: 'ClusterConfiguration', path: ['etcd', 'local', 'extraArgs'], struct: 'LocalEtcd' },
];

/**
 * Why kubeadm refuses one config document, in its words, or undefined: an API version it does not read, or an
 * argument field of the other version's shape. v1beta3's extraArgs are maps (map[string]string); v1beta4 made them
 * lists of {name, value} (cmd/kubeadm/app/apis/kubeadm/v1beta4/types.go Arg), and kubeadm decodes strictly, so either
 * shape under the other version is Go's unmarshalling error. Shared with the fast simulation (user-data.ts).
 */
export function kubeadmDocumentError(doc: Json, kubeadmVersion: string): string | undefined {
  const apiVersion = s(doc['apiVersion']);
  const kind = s(doc['kind']);
  const versionError = kubeadmApiVersionError(apiVersion, kind, kubeadmVersion);
  if (versionError || !apiVersion.startsWith('kubeadm.k8s.io/')) return versionError;
  const lists = apiVersion === 'kubeadm.k8s.io/v1beta4';
  for (const field of EXTRA_ARGS_FIELDS.filter((f) => f.kind === kind)) {
    let value: unknown = doc;
    for (const key of field.path) value = value === undefined || value === null ? undefined : o(value)[key];
    if (value === undefined || value === null) continue;
    const got = Array.isArray(value) ? 'array' : typeof value === 'object' ? 'object' : typeof value === 'string' ? 'string' : 'number';
    const fits = lists
      ? Array.isArray(value) && value.every((a) => typeof o(a)['name'] === 'string')
      : got === 'object' && Object.values(o(value)).every((v) => typeof v === 'string');
    if (!fits)
      return (
        `error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${got} into Go struct field ` +
        `${field.struct}.${field.path.join('.')} of type ${lists ? '[]v1beta4.Arg' : 'map[string]string'}`
      );
  }
  return undefined;
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

/** A ClusterConfiguration document with kubeadm's defaults for the fields the stand-ins use. */
function clusterConfig(cluster: Json, kubeadmVersion: string): ClusterConfig {
  const networking = o(cluster['networking']);
  const local = o(o(cluster['etcd'])['local']);
  const controlPlaneEndpoint = s(cluster['controlPlaneEndpoint']);
  return {
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
  };
}

export function parseInitConfig(text: string, kubeadmVersion: string): InitConfig {
  const docs = documents(text, kubeadmVersion);
  const init = docs.find((d) => d['kind'] === 'InitConfiguration') ?? {};
  const endpoint = o(init['localAPIEndpoint']);
  return {
    kind: 'init',
    cluster: clusterConfig(docs.find((d) => d['kind'] === 'ClusterConfiguration') ?? {}, kubeadmVersion),
    node: nodeRegistration(init),
    advertiseAddress: s(endpoint['advertiseAddress']),
    bindPort: typeof endpoint['bindPort'] === 'number' ? endpoint['bindPort'] : 6443,
    kubelet: kubeletConfiguration(docs.find((d) => d['kind'] === 'KubeletConfiguration')),
    tokens: (Array.isArray(init['bootstrapTokens']) ? init['bootstrapTokens'] : []).map((t) => s(o(t)['token'])).filter((t) => t.length > 0),
  };
}

/** Where kubeadm init's upload-config phase stores the cluster's configuration, and the kubelet's (phases/uploadconfig, phases/kubelet). */
export const KUBEADM_CONFIGMAP = 'kubeadm-config';
export const KUBELET_CONFIGMAP = 'kubelet-config';

/**
 * The ConfigMaps kubeadm init uploads to kube-system, from its config: kubeadm-config (key ClusterConfiguration) and
 * kubelet-config (key kubelet), which every later `kubeadm join` reads instead of its own file's documents. The
 * ClusterConfiguration carries the defaults the stand-ins apply. Empty when the config does not parse.
 */
export function uploadedConfigMaps(
  text: string,
  kubeadmVersion: string,
): Array<{ metadata: { name: string; namespace: string }; data: Record<string, string> }> {
  let docs: Json[];
  try {
    docs = documents(text, kubeadmVersion);
  } catch {
    return [];
  }
  const given = docs.find((d) => d['kind'] === 'ClusterConfiguration') ?? {};
  const cluster = clusterConfig(given, kubeadmVersion);
  const stored = {
    ...given,
    kubernetesVersion: cluster.kubernetesVersion,
    networking: { ...o(given['networking']), serviceSubnet: cluster.serviceSubnet, dnsDomain: cluster.dnsDomain },
  };
  return [
    { metadata: { name: KUBEADM_CONFIGMAP, namespace: 'kube-system' }, data: { ClusterConfiguration: stringifyYaml(stored) } },
    {
      metadata: { name: KUBELET_CONFIGMAP, namespace: 'kube-system' },
      data: { kubelet: stringifyYaml(kubeletConfiguration(docs.find((d) => d['kind'] === 'KubeletConfiguration'))) },
    },
  ];
}

/** The ClusterConfiguration of a kubeadm-config ConfigMap's data, as a join reads it. */
export function clusterConfigFromConfigMap(data: Record<string, unknown>, kubeadmVersion: string): ClusterConfig {
  const text = typeof data['ClusterConfiguration'] === 'string' ? data['ClusterConfiguration'] : '';
  return clusterConfig(o(parseAllDocuments(text)[0]?.toJS()), kubeadmVersion);
}

export function parseJoinConfig(text: string, kubeadmVersion: string): JoinConfig {
  const docs = documents(text, kubeadmVersion);
  const join = docs.find((d) => d['kind'] === 'JoinConfiguration');
  if (!join) throw new KubeadmConfigError('no JoinConfiguration kind was found in the YAML file');
  const token = o(o(join['discovery'])['bootstrapToken']);
  const apiServerEndpoint = s(token['apiServerEndpoint']);
  if (!apiServerEndpoint) throw new KubeadmConfigError('discovery.bootstrapToken.apiServerEndpoint: Invalid value: "": the apiServerEndpoint must be set');
  const cpSection = join['controlPlane'] === undefined || join['controlPlane'] === null ? undefined : o(join['controlPlane']);
  const cp = cpSection === undefined ? undefined : o(cpSection['localAPIEndpoint']);
  const certificateKey = s(cpSection?.['certificateKey']);
  return {
    kind: 'join',
    node: nodeRegistration(join),
    apiServerEndpoint,
    token: s(token['token']),
    caCertHashes: list(token['caCertHashes']),
    ...(cp
      ? {
          controlPlane: {
            advertiseAddress: s(cp['advertiseAddress']),
            bindPort: typeof cp['bindPort'] === 'number' ? cp['bindPort'] : 6443,
            ...(certificateKey ? { certificateKey } : {}),
          },
        }
      : {}),
  };
}

/** The first address of a service network: the `kubernetes` Service's ClusterIP. */
export function firstServiceIp(cidr: string): string {
  const [net = '0.0.0.0'] = cidr.split('/');
  const n = net.split('.').reduce((acc, p) => acc * 256 + Number(p), 0) + 1;
  return [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join('.');
}
