// The signed mesh bundle the nodes' sync agents follow (WireGuard peers, load-balancer configurations, mesh-reader
// certificates, upgrade instructions): read from and published to its ConfigMap (the mesh and upgrade steps).
import { X509Certificate, createPublicKey } from 'node:crypto';
import { KubeplaneError } from '../../errors.js';
import { meshPeers, MESH_CONFIGMAP, MESH_NAMESPACE } from '../../bootstrap/wireguard-mesh.js';
import { serializeMeshBundle, signMeshBundle, verifyMeshBundle, type MeshBundle, type UpgradeInstruction } from '../../bootstrap/mesh-bundle.js';
import { issueMeshReaderCertificate, type ClusterKeys, type PemKeyPair } from '../../bootstrap/pki.js';
import { renderNginxConfig } from '../../bootstrap/lb-nginx.js';
import type { KubernetesApi } from '../ports/kubernetes.js';
import { bootstrapView } from './common.js';
import type { StepContext } from './types.js';

/** A mesh-reader certificate is issued afresh when it has less than this left (it is valid for 365 days). */
export const MESH_READER_RENEW_BEFORE_DAYS = 60;

/** The bundle the nodes follow now, if the ConfigMap holds one signed with the cluster's key (anything else is ignored, as the nodes ignore it). */
export async function currentMesh(k8s: KubernetesApi, keys: ClusterKeys): Promise<MeshBundle | undefined> {
  const check = verifyMeshBundle((await k8s.getConfigMap(MESH_NAMESPACE, MESH_CONFIGMAP)) ?? undefined, keys.meshSigning.publicKeyPem);
  return check.ok ? check.bundle : undefined;
}

export async function meshKeys(ctx: StepContext): Promise<ClusterKeys> {
  const keys = await ctx.secrets.keys();
  if (!keys?.meshSigning) throw new KubeplaneError('invalid', `cluster ${ctx.record.name} has no mesh signing key; the prepare step did not run`);
  return keys;
}

/** The certificate still serves if it is for `key`, from the cluster CA, and has the renewal margin left. */
function certificateServes(pem: string | undefined, key: PemKeyPair, caPem: string, now: number): pem is string {
  if (!pem) return false;
  try {
    const cert = new X509Certificate(pem);
    const der = (k: ReturnType<typeof createPublicKey>) => k.export({ type: 'spki', format: 'der' });
    return (
      der(cert.publicKey).equals(der(createPublicKey(key.publicKeyPem))) &&
      cert.verify(new X509Certificate(caPem).publicKey) &&
      Date.parse(cert.validTo) - now >= MESH_READER_RENEW_BEFORE_DAYS * 86_400_000
    );
  } catch {
    return false;
  }
}

/**
 * Signs and publishes everything the nodes' sync agents act on as one bundle: the peers, each load balancer's
 * nginx.conf with its targets' current addresses, the load-balancer nodes' mesh-reader certificates (issued afresh
 * when they have less than 60 days left) and the upgrade instruction (`keep`: the one published now). The serial goes
 * above the published one and the ledger's, so nodes never see it go back even if the ConfigMap was lost. Writes
 * nothing, and returns false, when only the serial would change.
 */
export async function publishMesh(ctx: StepContext, k8s: KubernetesApi, upgrade: UpgradeInstruction | undefined | 'keep'): Promise<boolean> {
  const keys = await meshKeys(ctx);
  const cluster = bootstrapView(ctx.record);
  const wg = await ctx.secrets.wireguard();
  const current = await currentMesh(k8s, keys);
  const pki = await ctx.secrets.pki();
  const certificates: Record<string, string> = {};
  for (const node of cluster.nodes.filter((n) => n.role === 'loadbalancer')) {
    const key = keys.meshReader[node.name];
    if (!key || !pki) continue;
    const held = current?.meshReaderCertificates[node.name];
    certificates[node.name] = certificateServes(held, key, pki.public.clusterCaCertificate, ctx.now)
      ? held
      : (await issueMeshReaderCertificate(pki, node, key, { random: ctx.random, now: new Date(ctx.now) })).certificatePem;
  }
  const instruction = upgrade === 'keep' ? current?.upgrade : upgrade;
  const bundle: MeshBundle = {
    serial: Math.max(current?.serial ?? 0, ctx.record.ledger.meshSerial ?? 0) + 1,
    peers: meshPeers(cluster, Object.fromEntries(Object.entries(wg).map(([n, pair]) => [n, pair.publicKey]))),
    ...(instruction ? { upgrade: instruction } : {}),
    loadBalancers: Object.fromEntries(cluster.loadBalancers.map((lb) => [lb.name, renderNginxConfig(cluster, lb)])),
    meshReaderCertificates: certificates,
  };
  const content = (b: MeshBundle) => serializeMeshBundle({ ...b, serial: 1 });
  if (current && content(current) === content(bundle)) return false;
  await k8s.applyConfigMap(MESH_NAMESPACE, MESH_CONFIGMAP, signMeshBundle(bundle, keys.meshSigning.privateKeyPem), {
    'app.kubernetes.io/managed-by': 'kubeplane',
  });
  ctx.record.ledger.meshSerial = bundle.serial;
  return true;
}
