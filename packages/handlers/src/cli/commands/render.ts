// `kubeplane render <manifest> --out <dir>`: writes what every machine of every self-managed cluster would
// run (user-data, kubeadm config, WireGuard config, LB config), with the freshly generated secrets beside them.
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  buildDesiredState,
  formatIssue,
  generateClusterKeys,
  generateWireguardKeyPair,
  renderCluster,
  systemRandomSource,
  validateManifestFile,
  type BootstrapArch,
  type BootstrapCluster,
  type BootstrapNode,
  type BootstrapOs,
  type ClusterKeys,
  type ClusterSpec,
  type RenderedCluster,
  type WireguardKeyPair,
} from '@kubeplane/sdk';
import { println, UsageError, type CliIo } from '../io.js';

export const renderUsage = 'kubeplane render <manifest> --out <dir> [--api-host <ip>]';

export interface BootstrapAdapterOptions {
  /** The API address when the endpoint is a reserved IP (known only once the IP is reserved). */
  apiHost?: string;
}

function osOf(image: string | undefined): BootstrapOs {
  return image?.includes('22.04') ? 'ubuntu-22.04' : 'ubuntu-24.04';
}

// Arm server types: Hetzner CAX, and AWS families with a `g` after the generation (t4g, m7g, c6gn, r8gd).
function archOf(providerType: string | undefined, serverType: string | undefined): BootstrapArch {
  const type = serverType ?? '';
  if (providerType === 'hetzner' && type.startsWith('cax')) return 'arm64';
  if (providerType === 'aws' && /^[a-z]+\d+g[a-z]*\./.test(type)) return 'arm64';
  return 'amd64';
}

/**
 * The bootstrap input of one cluster of the desired state. Public endpoints are unknown before machines exist,
 * so nodes rely on WireGuard roaming until the engine publishes them; AWS nodes are marked behind NAT.
 * (Interim: the model's own adapter replaces this once it lands.)
 */
export function bootstrapClusterFromSpec(spec: ClusterSpec, options: BootstrapAdapterOptions = {}): BootstrapCluster {
  const endpoint = spec.apiEndpoint;
  if (endpoint.kind === 'managed') throw new UsageError(`cluster ${spec.name} has a managed control plane; there is nothing to render`);
  if (endpoint.kind === 'reserved-ip' && !options.apiHost) {
    throw new UsageError(`cluster ${spec.name} serves its API on a reserved IP that does not exist yet; pass --api-host <ip>`);
  }
  const pools = [...spec.pools, ...spec.loadBalancers.flatMap((lb) => lb.pools)];
  const ipsOf = (poolNames: string[]): string[] =>
    pools.filter((p) => poolNames.includes(p.name)).flatMap((p) => p.nodes.map((n) => n.overlayIp));
  const nodes: BootstrapNode[] = [];
  const seen = new Set<string>();
  for (const pool of pools) {
    for (const node of pool.nodes) {
      if (seen.has(node.name)) continue;
      seen.add(node.name);
      const providerType = pool.provider?.type ?? 'static';
      nodes.push({
        name: node.name,
        role: pool.role,
        pool: pool.name,
        overlayIp: node.overlayIp,
        ...(node.staticEndpoint ? { publicEndpoint: `${node.staticEndpoint}:51820` } : {}),
        behindNat: providerType === 'aws',
        labels: pool.labels,
        taints: pool.taints.map((t) => ({ key: t.key, effect: t.effect, ...(t.value === undefined ? {} : { value: t.value }) })),
        os: osOf(pool.image),
        arch: archOf(providerType, pool.serverType),
        provider: providerType,
      });
    }
  }
  return {
    name: spec.name,
    clusterId: spec.id,
    kubernetesVersion: { major: spec.version.major, minor: spec.version.minor, patch: spec.version.patch },
    apiEndpoint:
      endpoint.kind === 'load-balancer'
        ? { host: endpoint.host, port: endpoint.port, kind: 'load-balancer-dns' }
        : { host: options.apiHost ?? '', port: endpoint.port, kind: 'reserved-ip' },
    network: spec.network,
    podCidr: spec.podCidr,
    serviceCidr: spec.serviceCidr,
    nodes,
    loadBalancers: spec.loadBalancers.map((lb) => ({
      name: lb.name,
      pools: lb.pools.map((p) => p.name),
      roles: lb.roles.map((r) => ({
        name: r.name,
        protocol: r.protocol,
        port: r.port,
        targetPort: r.targetPort,
        targets: ipsOf(r.targetPools),
        proxyProtocol: r.proxyProtocol,
        stickySessions: r.stickySessions,
      })),
    })),
    secretsAtRest: spec.encryption.secretsAtRest,
  };
}

async function write(path: string, content: string | Uint8Array, mode: number): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, content, { mode });
  await chmod(path, mode);
}

/** Writes one rendered cluster under `<out>/<cluster>/`; returns the number of files written. */
export async function writeRenderedCluster(
  out: string,
  cluster: BootstrapCluster,
  rendered: RenderedCluster,
  keys: ClusterKeys,
  wireguardKeys: Record<string, WireguardKeyPair>,
): Promise<number> {
  const base = join(out, cluster.name);
  let count = 0;
  const put = async (path: string, content: string | Uint8Array, mode: number): Promise<void> => {
    await write(join(base, path), content, mode);
    count += 1;
  };
  for (const node of rendered.nodes) {
    // User-data carries the node's secrets, so it is as private as the secrets directory.
    await put(`${node.name}/user-data`, node.userData.bytes.reveal(), 0o600);
    await put(`${node.name}/cloud-config.yaml`, node.cloudConfig.reveal(), 0o600);
    for (const f of node.files) await put(`${node.name}/files${f.path}`, f.content.reveal(), f.secret ? 0o600 : 0o644);
  }
  const pub = rendered.pki.public;
  const secret = rendered.pki.secret;
  await put('mesh.yaml', rendered.meshManifest, 0o644);
  await put('pki/ca.crt', pub.clusterCaCertificate, 0o644);
  await put('pki/front-proxy-ca.crt', pub.frontProxyCaCertificate, 0o644);
  await put('pki/etcd-ca.crt', pub.etcdCaCertificate, 0o644);
  await put('pki/sa.pub', pub.serviceAccountPublicKey, 0o644);
  await put('pki/discovery-hash', `${pub.discoveryHash}\n`, 0o644);
  await put('secrets/ca.key', secret.clusterCaKey.reveal(), 0o600);
  await put('secrets/front-proxy-ca.key', secret.frontProxyCaKey.reveal(), 0o600);
  await put('secrets/etcd-ca.key', secret.etcdCaKey.reveal(), 0o600);
  await put('secrets/sa.key', secret.serviceAccountKey.reveal(), 0o600);
  await put('secrets/admin.kubeconfig', secret.adminKubeconfig.reveal(), 0o600);
  await put('secrets/bootstrap-token', `${secret.bootstrapToken.reveal()}\n`, 0o600);
  if (secret.encryptionConfiguration) await put('secrets/encryption-config.yaml', secret.encryptionConfiguration.reveal(), 0o600);
  for (const [name, pair] of Object.entries(keys.apiServer)) await put(`secrets/apiserver-${name}.key`, pair.privateKeyPem.reveal(), 0o600);
  for (const [name, pair] of Object.entries(keys.meshReader)) await put(`secrets/mesh-reader-${name}.key`, pair.privateKeyPem.reveal(), 0o600);
  for (const [name, pair] of Object.entries(wireguardKeys)) await put(`secrets/wireguard-${name}.key`, `${pair.privateKey.reveal()}\n`, 0o600);
  await mkdir(join(base, 'secrets'), { recursive: true });
  await chmod(join(base, 'secrets'), 0o700);
  return count;
}

export async function render(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { out: { type: 'string' }, 'api-host': { type: 'string' } },
  });
  if (positionals.length !== 1) throw new UsageError('render needs exactly one manifest file');
  if (!values.out) throw new UsageError('render needs --out <dir>');
  const file = positionals[0] as string;
  const shown = relative(io.cwd, resolve(io.cwd, file)) || file;
  const result = await validateManifestFile(resolve(io.cwd, file), { file: shown });
  for (const issue of result.issues) println(io.stdout, formatIssue(issue));
  if (!result.ok) return 1;
  const out = resolve(io.cwd, values.out);
  const random = systemRandomSource();
  const options: BootstrapAdapterOptions = values['api-host'] ? { apiHost: values['api-host'] } : {};
  for (const manifest of result.manifests) {
    for (const spec of buildDesiredState(manifest).clusters) {
      if (spec.controlPlane === 'managed') {
        println(io.stdout, `${spec.name}: managed control plane; its nodes are bootstrapped by the provider, skipped`);
        continue;
      }
      const cluster = bootstrapClusterFromSpec(spec, options);
      const keys = await generateClusterKeys(cluster);
      const wireguardKeys = Object.fromEntries(cluster.nodes.map((n) => [n.name, generateWireguardKeyPair(random)]));
      const rendered = await renderCluster({ cluster, keys, wireguardKeys, random, now: new Date() });
      const files = await writeRenderedCluster(out, cluster, rendered, keys, wireguardKeys);
      println(io.stdout, `${spec.name}: ${rendered.nodes.length} nodes, ${files} files in ${relative(io.cwd, join(out, spec.name)) || '.'}`);
      for (const node of rendered.nodes) {
        const u = node.userData;
        println(
          io.stdout,
          `  ${node.name.padEnd(28)} ${node.mode.padEnd(18)} user-data ${u.size} B${u.compressed ? ` (gzip of ${u.uncompressedSize} B)` : ''} of ${u.limit} B`,
        );
      }
    }
  }
  return 0;
}
