// Reads a machine's user-data the way its first boot would: inflate/decode it as cloud-init does, take the files
// cloud-init writes and the command it runs, and from the bootstrap script find the kubeadm config it would use.
// A mistake here is a BootFailure with the message the node's logs would show.
import { parseAllDocuments } from 'yaml';
import { CloudConfigInvalid, parseCloudConfig, type CloudConfig } from '../netns/cloud-init.js';
import { kubeadmDocumentError } from '../netns/standins/kubeadm-config.js';

export { decodeUserData } from '../netns/cloud-init.js';

export type BootMode = 'init' | 'join' | 'join-control-plane' | 'loadbalancer';

export interface BootTaint {
  key: string;
  value?: string;
  effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
}

export interface KubeadmInit {
  controlPlaneEndpoint: string;
  clusterName: string;
  kubernetesVersion: string;
  /** InitConfiguration.bootstrapTokens, with kubeadm's defaults (usages signing and authentication, the default node group). */
  tokens: Array<{ token: string; ttlMs: number; usages: string[]; groups: string[] }>;
  advertiseAddress?: string;
  /** ClusterConfiguration networking.serviceSubnet (kubeadm's default is 10.96.0.0/12). */
  serviceSubnet?: string;
  /** ClusterConfiguration networking.podSubnet (no default: without it, nodes get no podCIDR). */
  podSubnet?: string;
}

export interface KubeadmJoin {
  apiServerEndpoint: string;
  token: string;
  caCertHashes: string[];
  controlPlane: boolean;
}

/**
 * What a machine's user-data tells its first boot (`readBootConfig`): hostname, bootstrap mode, the files cloud-init
 * writes, and the kubeadm configuration of a Kubernetes node.
 */
export interface NodeBootConfig {
  hostname: string;
  mode: BootMode;
  /** Every file cloud-init writes, by path. */
  files: Map<string, string>;
  arch?: string;
  /** `v1.31.4`, from the kubelet package the script pins. */
  kubeletVersion?: string;
  /** Absent on load-balancer nodes. */
  kubeadm?: {
    /** The kubeadm configuration file the script passes with --config, as written. */
    configText: string;
    nodeName: string;
    /** nodeRegistration.criSocket, when set. */
    criSocket?: string;
    taints: BootTaint[];
    kubeletArgs: Record<string, string>;
    init?: KubeadmInit;
    join?: KubeadmJoin;
  };
}

export class BootFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BootFailure';
  }
}

type Json = Record<string, unknown>;

function asObject(value: unknown): Json | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : undefined;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** kubeadm's duration format (`24h0m0s`, `15m`, `90s`) in ms. */
export function parseDuration(text: string): number {
  let ms = 0;
  let matched = false;
  for (const m of text.matchAll(/(\d+(?:\.\d+)?)(h|ms|m|s)/g)) {
    matched = true;
    const n = Number(m[1]);
    ms += n * (m[2] === 'h' ? 3600_000 : m[2] === 'm' ? 60_000 : m[2] === 's' ? 1000 : 1);
  }
  if (!matched) throw new BootFailure(`kubeadm: invalid duration ${JSON.stringify(text)}`);
  return ms;
}

function extraArgs(value: unknown): Record<string, string> {
  if (Array.isArray(value)) {
    const out: Record<string, string> = {};
    for (const item of value) {
      const o = asObject(item);
      const name = str(o?.['name']);
      if (name !== undefined) out[name] = str(o?.['value']) ?? '';
    }
    return out;
  }
  const o = asObject(value) ?? {};
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, String(v)]));
}

function taints(value: unknown): BootTaint[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((item): BootTaint[] => {
    const o = asObject(item);
    const key = str(o?.['key']);
    const effect = str(o?.['effect']);
    if (!key || (effect !== 'NoSchedule' && effect !== 'PreferNoSchedule' && effect !== 'NoExecute')) return [];
    const v = str(o?.['value']);
    return [v === undefined ? { key, effect } : { key, value: v, effect }];
  });
}

function parseKubeadm(
  text: string,
  mode: 'init' | 'join' | 'join-control-plane',
  kubeadmVersion: string,
): Omit<NonNullable<NodeBootConfig['kubeadm']>, 'configText'> {
  const docs = parseAllDocuments(text).map((d) => {
    // kubeadm's words for a config it cannot read (as the netns kubeadm-config.ts says them).
    if (d.errors.length > 0)
      throw new BootFailure(`kubeadm ${mode === 'init' ? 'init' : 'join'}: error converting YAML to JSON: ${d.errors[0]?.message ?? ''}`);
    return asObject(d.toJS()) ?? {};
  });
  const byKind = (kind: string): Json | undefined => docs.find((d) => d['kind'] === kind);
  for (const d of docs) {
    const error = kubeadmDocumentError(d, kubeadmVersion);
    if (error) throw new BootFailure(`kubeadm ${mode === 'init' ? 'init' : 'join'}: ${error}`);
  }
  if (mode === 'init') {
    const init = byKind('InitConfiguration');
    const cluster = byKind('ClusterConfiguration');
    if (!init) throw new BootFailure('kubeadm init: the config has no InitConfiguration');
    if (!cluster) throw new BootFailure('kubeadm init: the config has no ClusterConfiguration');
    const reg = asObject(init['nodeRegistration']) ?? {};
    const endpoint = str(cluster['controlPlaneEndpoint']);
    if (!endpoint) throw new BootFailure('kubeadm init: ClusterConfiguration has no controlPlaneEndpoint; other control planes could not join');
    const tokens = (Array.isArray(init['bootstrapTokens']) ? init['bootstrapTokens'] : []).flatMap((t) => {
      const o = asObject(t);
      const token = str(o?.['token']);
      const list = (v: unknown): string[] | undefined => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : undefined);
      // cmd/kubeadm/app/apis/bootstraptoken/v1 defaults: usages signing+authentication, group default-node-token.
      const usages = list(o?.['usages']) ?? ['signing', 'authentication'];
      const groups = list(o?.['groups']) ?? ['system:bootstrappers:kubeadm:default-node-token'];
      return token ? [{ token, ttlMs: str(o?.['ttl']) ? parseDuration(str(o?.['ttl']) ?? '') : 24 * 3600_000, usages, groups }] : [];
    });
    const local = asObject(init['localAPIEndpoint']);
    const advertiseAddress = str(local?.['advertiseAddress']);
    const serviceSubnet = str(asObject(cluster['networking'])?.['serviceSubnet']);
    const podSubnet = str(asObject(cluster['networking'])?.['podSubnet']);
    return {
      nodeName: str(reg['name']) ?? '',
      ...(str(reg['criSocket']) ? { criSocket: str(reg['criSocket']) } : {}),
      taints: taints(reg['taints']),
      kubeletArgs: extraArgs(reg['kubeletExtraArgs']),
      init: {
        controlPlaneEndpoint: endpoint,
        clusterName: str(cluster['clusterName']) ?? 'kubernetes',
        kubernetesVersion: str(cluster['kubernetesVersion']) ?? '',
        tokens,
        ...(advertiseAddress ? { advertiseAddress } : {}),
        ...(serviceSubnet ? { serviceSubnet } : {}),
        ...(podSubnet ? { podSubnet } : {}),
      },
    };
  }
  const join = byKind('JoinConfiguration');
  if (!join) throw new BootFailure('kubeadm join: the config has no JoinConfiguration');
  const reg = asObject(join['nodeRegistration']) ?? {};
  const discovery = asObject(asObject(join['discovery'])?.['bootstrapToken']);
  if (!discovery) throw new BootFailure('kubeadm join: JoinConfiguration has no discovery.bootstrapToken');
  const hashes = Array.isArray(discovery['caCertHashes']) ? discovery['caCertHashes'].filter((h): h is string => typeof h === 'string') : [];
  const controlPlane = join['controlPlane'] !== undefined && join['controlPlane'] !== null;
  if (mode === 'join-control-plane' && !controlPlane)
    throw new BootFailure('kubeadm join: the script joins as a control plane but the JoinConfiguration has no controlPlane section');
  return {
    nodeName: str(reg['name']) ?? '',
    ...(str(reg['criSocket']) ? { criSocket: str(reg['criSocket']) } : {}),
    taints: taints(reg['taints']),
    kubeletArgs: extraArgs(reg['kubeletExtraArgs']),
    join: {
      apiServerEndpoint: str(discovery['apiServerEndpoint']) ?? '',
      token: str(discovery['token']) ?? '',
      caCertHashes: hashes,
      controlPlane,
    },
  };
}

/** Parses a machine's user-data as its first boot would. Throws BootFailure with what the node would log. */
export function readBootConfig(raw: string | Uint8Array): NodeBootConfig {
  // cloud-init's own reading (the netns mode carries out the same parse): files in order, decoded, and runcmd.
  let cloudConfig: CloudConfig;
  try {
    cloudConfig = parseCloudConfig(raw);
  } catch (error) {
    if (error instanceof CloudConfigInvalid) throw new BootFailure(error.message);
    throw error;
  }
  const files = new Map<string, string>();
  for (const f of cloudConfig.files) files.set(f.path, f.append ? `${files.get(f.path) ?? ''}${f.content.toString('utf8')}` : f.content.toString('utf8'));
  const hostname = cloudConfig.hostname ?? '';
  const runcmd = cloudConfig.runcmd;
  const first = runcmd[0];
  const command = Array.isArray(first) ? first[0] : first?.split(/\s+/)[0];
  if (!command) throw new BootFailure('cloud-init: runcmd is empty; no bootstrap ran');
  const script = files.get(command);
  if (script === undefined) throw new BootFailure(`cloud-init: runcmd runs ${command}, which user-data does not write`);
  // cloud-init writes runcmd into a shell script whose list entries are exec'ed: a file without an execute bit fails
  // there, as `sh` words it (even for root, execve needs one x bit).
  const written = cloudConfig.files.filter((f) => f.path === command).at(-1);
  if (Array.isArray(first) && written && (Number.parseInt(written.permissions, 8) & 0o111) === 0)
    throw new BootFailure(`cloud-init: runcmd: ${command}: Permission denied`);
  const mode = /^readonly MODE='([a-z-]+)'/m.exec(script)?.[1];
  if (mode !== 'init' && mode !== 'join' && mode !== 'join-control-plane' && mode !== 'loadbalancer') {
    throw new BootFailure(`bootstrap: ${command} declares no known MODE`);
  }
  const arch = /^# kubeplane bootstrap of node \S+ \([a-z-]+, \S+ ([a-z0-9]+)\)/m.exec(script)?.[1];
  const pkg = /^readonly K8S_PACKAGE_VERSION='(\d+\.\d+\.\d+)/m.exec(script)?.[1];
  const out: NodeBootConfig = { hostname, mode, files, ...(arch ? { arch } : {}), ...(pkg ? { kubeletVersion: `v${pkg}` } : {}) };
  if (mode === 'loadbalancer') return out;
  const configPath = /kubeadm (?:init|join) --config ([^\s;]+)/.exec(script)?.[1];
  if (!configPath) throw new BootFailure('bootstrap: the script runs no kubeadm with a --config');
  const config = files.get(configPath);
  if (config === undefined) throw new BootFailure(`kubeadm: open ${configPath}: no such file or directory`);
  out.kubeadm = { configText: config, ...parseKubeadm(config, mode, out.kubeletVersion ?? '') };
  return out;
}
