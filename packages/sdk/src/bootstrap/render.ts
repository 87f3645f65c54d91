// Renders every node of a cluster (or one node added later) from explicit inputs: the cluster, its keys, a random
// source and the clock. Same inputs, same bytes. Private material stays Redacted; `pki.secret` is for the SecretStore.
import { withoutShellComments } from './shell-comments.js';
import { Redacted } from '../redacted.js';
import { BOOTSTRAP_SCRIPT_PATH, renderBootstrapScript, STAGING_DIR, type NodeMode } from './bootstrap-script.js';
import type { BootstrapCluster, BootstrapLoadBalancer, BootstrapNode, BootstrapVersions, BootstrapNodeRole } from './input.js';
import {
  CERT_RENEW_SCRIPT_PATH,
  CERT_RENEW_SERVICE,
  CERT_RENEW_TIMER,
  renderCertRenewScript,
  renderCertRenewService,
  renderCertRenewTimer,
} from './cert-renewal.js';
import { renderKubeadmConfig, splitNodeLabels } from './kubeadm.js';
import { METADATA_POLICY_PATH, renderMetadataPolicy } from './metadata-policy.js';
import { proxyFiles } from './installation-proxy.js';
import { renderNginxConfig } from './lb-nginx.js';
import { MESH_SIGNING_PUBLIC_KEY_PATH } from './mesh-bundle.js';
import {
  apiServerUrl,
  issueApiServerCertificate,
  issueClusterPki,
  issueMeshReaderCertificate,
  renderKubeconfig,
  type ClusterKeys,
  type ClusterPki,
} from './pki.js';
import type { RandomSource } from './random.js';
import { COMPRESS_FILES_OVER, packUserData, renderCloudConfig, type NodeFile, type PackedUserData } from './user-data.js';
import { assertValidBootstrapCluster } from './validate.js';
import { resolveVersions } from './versions.js';
import type { WireguardKeyPair } from './wireguard-keys.js';
import {
  MESH_READER_KUBECONFIG_PATH,
  MESH_SYNC_SCRIPT_PATH,
  meshPeers,
  renderMeshManifest,
  renderMeshSyncScript,
  renderMeshSyncService,
  renderMeshSyncTimer,
  renderWireguardConfig,
  WIREGUARD_INTERFACE,
  type MeshPeer,
} from './wireguard-mesh.js';

/** What rendering the nodes of a cluster depends on: the cluster, its secrets, the versions, randomness and time. */
export interface RenderContext {
  cluster: BootstrapCluster;
  keys: ClusterKeys;
  /** Every node's WireGuard key pair, by node name (a node gets only its own private key). */
  wireguardKeys: Record<string, WireguardKeyPair>;
  random: RandomSource;
  now: Date;
  versions?: Partial<BootstrapVersions>;
  /** The control-plane node that runs `kubeadm init`; the first control-plane node by default. */
  initNode?: string;
}

/** What rendering one node's user-data depends on: the cluster's context and the node. */
export interface RenderNodeInput extends RenderContext {
  /** The cluster's PKI, issued when the cluster was first rendered (from the SecretStore). */
  pki: ClusterPki;
  node: string;
  /** A fresh token for nodes joining after the first token expired (see renderBootstrapTokenSecret). */
  bootstrapToken?: Redacted<string>;
}

/** One node's rendered user-data and the secrets it carries. */
export interface RenderedNode {
  name: string;
  role: BootstrapNodeRole;
  mode: NodeMode;
  provider: string;
  files: NodeFile[];
  /** The #cloud-config text the user-data carries, before any gzip of the whole (what `cloud-init schema` checks). */
  cloudConfig: Redacted<string>;
  userData: PackedUserData;
  /** Labels a kubelet may not set on itself; the engine patches them after the node joins. */
  deferredLabels: Record<string, string>;
  wireguardPublicKey: string;
}

/** Every node of a cluster rendered, with the secrets generated for the cluster. */
export interface RenderedCluster {
  pki: ClusterPki;
  meshPeers: MeshPeer[];
  /** The (empty) mesh ConfigMap and its RBAC, which the first control plane applies; the engine publishes the signed bundle into it. */
  meshManifest: string;
  nodes: RenderedNode[];
}

function file(path: string, permissions: NodeFile['permissions'], content: string | Redacted<string>): NodeFile {
  const secret = typeof content !== 'string';
  return { path, permissions, secret, content: typeof content === 'string' ? Redacted.of(content) : content };
}

function initNodeName(ctx: RenderContext): string {
  const name = ctx.initNode ?? ctx.cluster.nodes.find((n) => n.role === 'control')?.name;
  if (!name) throw new Error(`cluster ${ctx.cluster.name} has no control-plane node`);
  return name;
}

/** How a node boots: the first control plane inits, the others join, load-balancer nodes run nginx. */
export function nodeMode(ctx: RenderContext, node: BootstrapNode): NodeMode {
  switch (node.role) {
    case 'control':
      return node.name === initNodeName(ctx) ? 'init' : 'join-control-plane';
    case 'compute':
      return 'join';
    case 'loadbalancer':
      return 'loadbalancer';
  }
}

function loadBalancerOf(cluster: BootstrapCluster, node: BootstrapNode): BootstrapLoadBalancer {
  const lb = cluster.loadBalancers.find((l) => l.pools.includes(node.pool));
  if (!lb) throw new Error(`load-balancer node ${node.name} belongs to no load balancer (pool ${node.pool})`);
  return lb;
}

function hostFiles(node: BootstrapNode): NodeFile[] {
  const modules = node.role === 'loadbalancer' ? ['wireguard'] : ['overlay', 'br_netfilter', 'wireguard'];
  const sysctls =
    node.role === 'loadbalancer'
      ? ['net.core.somaxconn = 4096', 'net.ipv4.ip_local_port_range = 1024 65000']
      : ['net.ipv4.ip_forward = 1', 'net.bridge.bridge-nf-call-iptables = 1', 'net.bridge.bridge-nf-call-ip6tables = 1'];
  return [
    file('/etc/modules-load.d/kubeplane.conf', '0644', `${modules.join('\n')}\n`),
    file('/etc/sysctl.d/90-kubeplane.conf', '0644', `${sysctls.join('\n')}\n`),
  ];
}

async function nodeFiles(input: RenderNodeInput, node: BootstrapNode, peers: MeshPeer[]): Promise<NodeFile[]> {
  const { cluster, pki, keys } = input;
  const mode = nodeMode(input, node);
  const versions = resolveVersions(input.versions);
  const wg = input.wireguardKeys[node.name];
  if (!wg) throw new Error(`no WireGuard key pair for node ${node.name}`);
  const options = { random: input.random, now: input.now };
  const files: NodeFile[] = [
    // The proxy first: cloud-init writes every file before it runs the bootstrap script, whose first step downloads.
    ...proxyFiles(cluster, node).map((f) => file(f.path, '0644', f.content)),
    ...hostFiles(node),
    file(`/etc/wireguard/${WIREGUARD_INTERFACE}.conf`, '0600', renderWireguardConfig(cluster, node, wg.privateKey, peers)),
    // 10 KB of shell on every node: gzipped, it leaves a Hetzner control plane's plain-text user-data room.
    file(MESH_SYNC_SCRIPT_PATH, '0755', withoutShellComments(renderMeshSyncScript())),
    file(
      '/etc/systemd/system/kubeplane-mesh-sync.service',
      '0644',
      renderMeshSyncService(node, node.role === 'loadbalancer' ? loadBalancerOf(cluster, node).name : undefined),
    ),
    file('/etc/systemd/system/kubeplane-mesh-sync.timer', '0644', renderMeshSyncTimer()),
    file(MESH_SIGNING_PUBLIC_KEY_PATH, '0644', keys.meshSigning.publicKeyPem),
  ];
  if (mode === 'loadbalancer') {
    const key = keys.meshReader[node.name];
    if (!key) throw new Error(`no mesh-reader key for load-balancer node ${node.name}`);
    const cert = await issueMeshReaderCertificate(pki, node, key, options);
    files.push(
      file(`${STAGING_DIR}/nginx.conf`, '0644', renderNginxConfig(cluster, loadBalancerOf(cluster, node))),
      file(
        MESH_READER_KUBECONFIG_PATH,
        '0600',
        renderKubeconfig({
          clusterName: cluster.name,
          server: apiServerUrl(cluster),
          caCertificatePem: pki.public.clusterCaCertificate,
          user: `kubeplane:mesh-reader:${node.name}`,
          clientCertificatePem: cert.certificatePem,
          clientKeyPem: key.privateKeyPem,
        }),
      ),
    );
  } else {
    files.push(
      file(
        `${STAGING_DIR}/kubeadm.yaml`,
        '0600',
        renderKubeadmConfig({
          cluster,
          node,
          mode,
          bootstrapToken: input.bootstrapToken ?? pki.secret.bootstrapToken,
          discoveryHash: pki.public.discoveryHash,
        }),
      ),
    );
    if (node.role === 'control') {
      const key = keys.apiServer[node.name];
      if (!key) throw new Error(`no API server key for control-plane node ${node.name}`);
      const serving = await issueApiServerCertificate(cluster, pki, node, key, options);
      const pkiDir = `${STAGING_DIR}/pki`;
      files.push(
        file(`${pkiDir}/ca.crt`, '0644', pki.public.clusterCaCertificate),
        file(`${pkiDir}/ca.key`, '0600', pki.secret.clusterCaKey),
        file(`${pkiDir}/sa.key`, '0600', pki.secret.serviceAccountKey),
        file(`${pkiDir}/sa.pub`, '0644', pki.public.serviceAccountPublicKey),
        file(`${pkiDir}/front-proxy-ca.crt`, '0644', pki.public.frontProxyCaCertificate),
        file(`${pkiDir}/front-proxy-ca.key`, '0600', pki.secret.frontProxyCaKey),
        file(`${pkiDir}/etcd/ca.crt`, '0644', pki.public.etcdCaCertificate),
        file(`${pkiDir}/etcd/ca.key`, '0600', pki.secret.etcdCaKey),
        file(`${pkiDir}/apiserver.crt`, '0644', serving.certificatePem),
        file(`${pkiDir}/apiserver.key`, '0600', key.privateKeyPem),
      );
      if (pki.secret.encryptionConfiguration) {
        files.push(file(`${STAGING_DIR}/encryption-config.yaml`, '0600', pki.secret.encryptionConfiguration));
      }
      files.push(
        file(CERT_RENEW_SCRIPT_PATH, '0755', withoutShellComments(renderCertRenewScript())),
        file(`/etc/systemd/system/${CERT_RENEW_SERVICE}`, '0644', renderCertRenewService()),
        file(`/etc/systemd/system/${CERT_RENEW_TIMER}`, '0644', renderCertRenewTimer()),
      );
      if (mode === 'init') {
        files.push(file(`${STAGING_DIR}/mesh.yaml`, '0644', renderMeshManifest()), file(METADATA_POLICY_PATH, '0644', renderMetadataPolicy()));
      }
    }
  }
  files.push(file(BOOTSTRAP_SCRIPT_PATH, '0700', withoutShellComments(renderBootstrapScript({ cluster, node, mode, versions }))));
  return files;
}

function publicKeys(ctx: RenderContext): Record<string, string> {
  return Object.fromEntries(Object.entries(ctx.wireguardKeys).map(([name, pair]) => [name, pair.publicKey]));
}

/** Renders one node against an existing PKI: how the engine renders a node added after the cluster exists. */
export async function renderNode(input: RenderNodeInput): Promise<RenderedNode> {
  assertValidBootstrapCluster(input.cluster);
  const node = input.cluster.nodes.find((n) => n.name === input.node);
  if (!node) throw new Error(`node ${input.node} is not in cluster ${input.cluster.name}`);
  const peers = meshPeers(input.cluster, publicKeys(input));
  const files = await nodeFiles(input, node, peers);
  const mode = nodeMode(input, node);
  const configInput = {
    hostname: node.name,
    comment: `kubeplane node ${node.name} (${mode}) of cluster ${input.cluster.name} [${input.cluster.clusterId}]`,
    files,
  };
  const userData = packUserData(renderCloudConfig(configInput), node.provider, node.name, () =>
    renderCloudConfig({ ...configInput, compressFilesOver: COMPRESS_FILES_OVER }),
  );
  const wg = input.wireguardKeys[node.name];
  return {
    name: node.name,
    role: node.role,
    mode,
    provider: node.provider,
    files,
    cloudConfig: userData.text,
    userData,
    deferredLabels: node.role === 'loadbalancer' ? {} : splitNodeLabels(node).deferred,
    wireguardPublicKey: wg?.publicKey ?? '',
  };
}

/** Issues the cluster PKI and renders every node, in the order of `cluster.nodes`. */
export async function renderCluster(ctx: RenderContext): Promise<RenderedCluster> {
  assertValidBootstrapCluster(ctx.cluster);
  const pki = await issueClusterPki(ctx.cluster, ctx.keys, { random: ctx.random, now: ctx.now });
  const nodes: RenderedNode[] = [];
  for (const node of ctx.cluster.nodes) nodes.push(await renderNode({ ...ctx, pki, node: node.name }));
  const peers = meshPeers(ctx.cluster, publicKeys(ctx));
  return { pki, meshPeers: peers, meshManifest: renderMeshManifest(), nodes };
}
