// `kubeplane render <manifest> --out <dir>`: writes what every machine of every self-managed cluster would
// run (user-data, kubeadm config, WireGuard config, LB config), with the freshly generated secrets beside them.
import { chmod, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { parseCommandArgs } from '../command-args.js';
import {
  buildDesiredState,
  displayProxyEndpoint,
  generateClusterKeys,
  generateWireguardKeyPair,
  fileSystemError,
  makeDirectory,
  renderCluster,
  systemRandomSource,
  bootstrapClusterFromSpec,
  type BootstrapAdapterOptions,
  type BootstrapCluster,
  type ClusterKeys,
  type PackedUserData,
  type RenderedCluster,
  type WireguardKeyPair,
} from '@kubeplane/sdk/internal';
import { formatIssue, validateManifestFile } from '@kubeplane/sdk';
import { println, UsageError, type CliIo } from '../io.js';

/** Folders under --out: one that cannot be made is named, and the way out given. */
const OUT_FOLDER = { what: 'the folder', instead: 'pass another --out' };

async function write(path: string, content: string | Uint8Array, mode: number): Promise<void> {
  await makeDirectory(dirname(path), OUT_FOLDER);
  try {
    await writeFile(path, content, { mode });
    await chmod(path, mode);
  } catch (e) {
    throw fileSystemError(e, path, 'write');
  }
}

/** How the user-data was packed, as `packUserData` decided from the provider's rule (USER_DATA_RULES). */
function packing(u: PackedUserData): string {
  if (u.encoding === 'gzip') return ` (gzip of ${u.uncompressedSize} B)`;
  if (u.encoding === 'gzip-files') return ` (text, files gzip+base64; ${u.uncompressedSize} B plain)`;
  return '';
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
  // Signs mesh bundles for these nodes (they carry its public half): whoever holds it can make them install packages.
  await put('secrets/mesh-signing.key', keys.meshSigning.privateKeyPem.reveal(), 0o600);
  for (const [name, pair] of Object.entries(wireguardKeys)) await put(`secrets/wireguard-${name}.key`, `${pair.privateKey.reveal()}\n`, 0o600);
  await makeDirectory(join(base, 'secrets'), OUT_FOLDER);
  await chmod(join(base, 'secrets'), 0o700);
  return count;
}

export async function render(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs({
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
      const proxy = cluster.installationProxy;
      println(
        io.stdout,
        proxy
          ? `  installation proxy ${displayProxyEndpoint(proxy.endpoint)} (apt, containerd, kubelet, /etc/environment); NO_PROXY=${proxy.noProxy.join(',')}`
          : '  installation proxy: none',
      );
      for (const node of rendered.nodes) {
        const u = node.userData;
        println(io.stdout, `  ${node.name.padEnd(28)} ${node.mode.padEnd(18)} user-data ${u.size} B${packing(u)} of ${u.limit} B (${node.provider})`);
      }
    }
  }
  return 0;
}
