// Kubernetes phase: wait until the API answers and every node has joined (nodes bootstrap themselves), patch labels,
// taints and node identity (providerID, topology labels: node-identity.ts), publish the WireGuard membership, and
// remove nodes that are no longer wanted — one at a time, cordoned and drained first, honouring PodDisruptionBudgets.
import { X509Certificate, createPublicKey } from 'node:crypto';
import { KubeplaneError } from '../../errors.js';
import { meshPeers, MESH_CONFIGMAP, MESH_NAMESPACE } from '../../bootstrap/wireguard-mesh.js';
import { serializeMeshBundle, signMeshBundle, verifyMeshBundle, type MeshBundle, type UpgradeInstruction } from '../../bootstrap/mesh-bundle.js';
import { issueMeshReaderCertificate, type ClusterKeys, type PemKeyPair } from '../../bootstrap/pki.js';
import { kubernetesPackageVersion, resolveVersions } from '../../bootstrap/versions.js';
import { renderNginxConfig } from '../../bootstrap/lb-nginx.js';
import type { Taint } from '../../manifest/schema.js';
import type { KubeNode, KubernetesApi } from '../ports/kubernetes.js';
import { stableJson } from '../../stable-json.js';
import type { NodeRole, PoolSpec } from '../../model/types.js';
import { refreshFirewalls } from './infrastructure.js';
import {
  bootstrapView,
  deleteMachine,
  desiredOf,
  FIREWALL_ROLES,
  firewallKey,
  firewallName,
  isProviderWideKey,
  networkName,
  nodesOf,
  poolsOf,
  regionKey,
  waitFor,
} from './common.js';
import { isManaged, managedPoolMembers, removeManagedNodes } from './managed.js';
import { nodeIdentity } from './node-identity.js';
import { isPending } from '../../provider/outcome.js';
import { next, wait, type StepContext, type StepDefinition, type StepResult } from './types.js';

const CONTROL_PLANE_TAINT: Taint = { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' };

export async function api(ctx: StepContext): Promise<KubernetesApi> {
  const kubeconfig = await ctx.secrets.adminKubeconfig();
  if (!kubeconfig) throw new KubeplaneError('invalid', `cluster ${ctx.record.name} has no admin credentials yet`);
  return ctx.kubernetes(kubeconfig);
}

/** The Kubernetes nodes each pool should have: kubeplane's own node names, or the machines a managed pool has now. */
function poolMembers(ctx: StepContext): Array<{ pool: PoolSpec; nodes: Array<{ name: string; role: NodeRole }> }> {
  const spec = desiredOf(ctx.record);
  if (isManaged(spec))
    return spec.pools.map((pool) => ({ pool, nodes: managedPoolMembers(ctx, pool.name).map((name) => ({ name, role: 'compute' as const })) }));
  return poolsOf(spec).map((pool) => ({ pool, nodes: pool.nodes.filter((n) => n.role !== 'loadbalancer') }));
}

export const awaitApi: StepDefinition = {
  phase: 'kubernetes',
  timeoutSeconds: 1800,
  timeoutMessage: (r) =>
    `the API server of ${r.name} did not answer within 30 minutes of its machines running; see docs/bootstrap.md, "A node that does not join"`,
  async run(ctx) {
    const ready = await (await api(ctx)).ready();
    if (isPending(ready)) return waitFor(ready, 'API server', ctx);
    return next('API server answers');
  },
};

export const awaitNodes: StepDefinition = {
  phase: 'kubernetes',
  timeoutSeconds: 1800,
  timeoutMessage: (r) => `nodes of ${r.name} did not all join within 30 minutes; see docs/bootstrap.md, "A node that does not join"`,
  async run(ctx) {
    const k8s = await api(ctx);
    const members = new Map((await k8s.listNodes()).map((n) => [n.name, n]));
    const wanted = poolMembers(ctx).flatMap(({ nodes }) => nodes.map((n) => n.name));
    const remediated = await remediate(ctx, k8s, members);
    if (remediated) return remediated;
    const missing = wanted.filter((n) => !members.get(n)?.ready);
    if (missing.length > 0) {
      return wait(
        15,
        `${wanted.length - missing.length}/${wanted.length} nodes Ready; waiting for ${missing.slice(0, 3).join(', ')}${missing.length > 3 ? ', ...' : ''}`,
      );
    }
    return next(`${wanted.length} nodes Ready`);
  },
};

/**
 * Node remediation (self-managed clusters; CMK has AutoClusters): a worker NotReady for `remediation.notReadyMinutes`
 * while its machine runs is taken out — its Node deleted, its machine deleted — and create-nodes makes it again under
 * the same name. Control planes are only reported: replacing one means etcd membership changes. One at a time.
 */
async function remediate(ctx: StepContext, k8s: KubernetesApi, members: Map<string, KubeNode>): Promise<StepResult | null> {
  const spec = desiredOf(ctx.record);
  const limitMs = (spec.remediation?.notReadyMinutes ?? 10) * 60_000;
  if (isManaged(spec) || limitMs === 0) return null;
  const ledger = ctx.record.ledger;
  // Only nodes a finished apply left Ready: a new machine that never gets Ready is a render or image problem, and
  // await-nodes reports it rather than replacing it over and over.
  const built = new Set(ctx.record.current ? nodesOf(ctx.record.current).map(({ node }) => node.name) : []);
  const replaced = (ledger.remediated ??= {});
  const workers = nodesOf(spec)
    .filter(({ node }) => node.role === 'compute' && built.has(node.name))
    .map(({ node }) => node.name);
  const stale = (name: string) => {
    const live = members.get(name);
    return (
      live !== undefined &&
      !live.ready &&
      live.readySince !== undefined &&
      ctx.now - live.readySince > limitMs &&
      ledger.nodes[name]?.state === 'running' &&
      (replaced[name] ?? 0) < MAX_REMEDIATIONS
    );
  };
  // A cause that takes many workers down at once (the CNI, the network) is not fixed by replacing machines.
  const down = workers.filter((n) => members.get(n) && !members.get(n)?.ready).length;
  const widespread = down > Math.max(1, Math.floor(workers.length * MAX_NOT_READY_SHARE));
  const name = workers.find((n) => ledger.nodes[n]?.state === 'deleting') ?? (widespread ? undefined : workers.find(stale));
  const machine = name ? ledger.nodes[name] : undefined;
  if (!name || !machine) return null;
  if (machine.state !== 'deleting') {
    // The intent first (written with this run), so a crash before the deletions still finishes them next time.
    machine.state = 'deleting';
    replaced[name] = (replaced[name] ?? 0) + 1;
    return next(`${name} has been NotReady for more than ${limitMs / 60_000} minutes while its machine runs: replacing it`, 'await-nodes');
  }
  const gone = await deleteMachine(ctx, k8s, name);
  if (gone) return gone;
  return next(`${name} was NotReady for more than ${limitMs / 60_000} minutes: its machine is replaced`, 'create-nodes');
}

/** Replacements of one node within one apply before await-nodes gives up and reports it. */
const MAX_REMEDIATIONS = 2;
/** Above this share of NotReady workers (and more than one), nothing is replaced: the cause is the cluster's, not the machines'. */
const MAX_NOT_READY_SHARE = 0.4;

export const nodeMetadata: StepDefinition = {
  phase: 'kubernetes',
  timeoutSeconds: 600,
  timeoutMessage: (r) => `labels and taints of ${r.name} could not be applied`,
  async run(ctx) {
    const spec = desiredOf(ctx.record);
    const k8s = await api(ctx);
    const members = new Map((await k8s.listNodes()).map((n) => [n.name, n]));
    const previous = new Map((ctx.record.current ? poolsOf(ctx.record.current) : []).map((pool) => [pool.name, pool]));
    const managed = isManaged(spec);
    let patched = 0;
    const foreign: string[] = [];
    for (const { pool, nodes } of poolMembers(ctx))
      for (const node of nodes) {
        const live = members.get(node.name);
        if (!live) continue;
        // A managed cluster's provider runs its own cloud controller manager, which sets the identity (CMK's does).
        const identity = managed ? undefined : nodeIdentity(node.name, pool, ctx.record.ledger.nodes[node.name]);
        const labels: Record<string, string | null> = {
          ...pool.labels,
          ...identity?.labels,
          'kubeplane.dev/nodepool': pool.name,
          'kubeplane.dev/cluster-id': spec.id,
        };
        for (const key of Object.keys(previous.get(pool.name)?.labels ?? {})) if (!(key in labels)) labels[key] = null;
        const taints = [...(node.role === 'control' ? [CONTROL_PLANE_TAINT] : []), ...pool.taints];
        const labelsDiffer = Object.entries(labels).some(([k, v]) => (v === null ? k in live.labels : live.labels[k] !== v));
        // The API server takes a providerID once, from "" (ValidateNodeUpdate); a Node already naming another machine
        // was registered by a machine kubeplane no longer has, and is reported rather than patched in a loop.
        const providerId = identity?.providerId && !live.providerId ? identity.providerId : undefined;
        if (identity?.providerId && live.providerId && live.providerId !== identity.providerId) foreign.push(`${node.name} (${live.providerId})`);
        if (labelsDiffer || providerId || stableJson(live.taints) !== stableJson(taints)) {
          await k8s.patchNode(node.name, { labels, taints, ...(providerId ? { providerId } : {}) });
          patched++;
        }
      }
    const done =
      (patched ? `patched labels, taints and identity of ${patched} nodes` : 'labels, taints and identity as declared') +
      (foreign.length
        ? `; the Nodes of ${foreign.join(', ')} name another machine than kubeplane made under that name: delete them so the machines register again`
        : '');
    return next(done);
  },
};

export const mesh: StepDefinition = {
  phase: 'kubernetes',
  // A managed cluster's network is the provider's: no WireGuard membership to publish.
  appliesTo: (spec) => !isManaged(spec),
  timeoutSeconds: 600,
  timeoutMessage: (r) => `the WireGuard membership of ${r.name} could not be published`,
  async run(ctx) {
    const cluster = bootstrapView(ctx.record);
    // An upgrade under way keeps its instruction (the upgrade step owns it).
    const written = await publishMesh(ctx, await api(ctx), 'keep');
    if (!written) return next('WireGuard membership and load-balancer targets unchanged');
    return next(
      `published ${cluster.nodes.length} WireGuard ` +
        `peers${cluster.loadBalancers.length ? ` and ${cluster.loadBalancers.length} load-balancer configuration(s)` : ''}; nodes apply them within a minute`,
    );
  },
};

/** A mesh-reader certificate is issued afresh when it has less than this left (it is valid for 365 days). */
export const MESH_READER_RENEW_BEFORE_DAYS = 60;

/** The bundle the nodes follow now, if the ConfigMap holds one signed with the cluster's key (anything else is ignored, as the nodes ignore it). */
async function currentMesh(k8s: KubernetesApi, keys: ClusterKeys): Promise<MeshBundle | undefined> {
  const check = verifyMeshBundle((await k8s.getConfigMap(MESH_NAMESPACE, MESH_CONFIGMAP)) ?? undefined, keys.meshSigning.publicKeyPem);
  return check.ok ? check.bundle : undefined;
}

async function meshKeys(ctx: StepContext): Promise<ClusterKeys> {
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
async function publishMesh(ctx: StepContext, k8s: KubernetesApi, upgrade: UpgradeInstruction | undefined | 'keep'): Promise<boolean> {
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

/**
 * Kubernetes version upgrades in place, as kubeadm wants them: control planes first, one at a time (the first with
 * `kubeadm upgrade apply`), then workers, `upgrade.maxSurge` at a time. Each node is drained, named in the mesh
 * ConfigMap (its sync agent upgrades packages, runs kubeadm and restarts the kubelet), and uncordoned once its Node
 * reports the new version and is Ready. One batch per run; the instructions are removed when every node is done.
 */
export const upgrade: StepDefinition = {
  phase: 'kubernetes',
  // A managed cluster's versions are the provider's (the control-plane and node-pool steps ask it).
  appliesTo: (spec) => !isManaged(spec),
  // Per batch: each finished batch is progress (recorded in the ledger), which starts the deadline afresh.
  timeoutSeconds: 2 * 3600,
  timeoutMessage: (r) =>
    `a batch of the upgrade of ${r.name} did not finish within 2 hours; see the nodes' kubeplane-mesh-sync logs (journalctl -u kubeplane-mesh-sync)`,
  async run(ctx) {
    const spec = desiredOf(ctx.record);
    const target = `v${spec.version.major}.${spec.version.minor}.${spec.version.patch}`;
    const k8s = await api(ctx);
    const nodes = new Map((await k8s.listNodes()).map((n) => [n.name, n]));
    const published = (await currentMesh(k8s, await meshKeys(ctx)))?.upgrade;
    const members = poolMembers(ctx).flatMap(({ nodes: ns }) => ns);
    const control = members.filter((n) => n.role === 'control').map((n) => n.name);
    const workers = members.filter((n) => n.role !== 'control').map((n) => n.name);
    const behind = (name: string) => nodes.get(name)?.kubeletVersion !== target;
    const named = published?.nodes ?? [];
    const uncordon = async (names: string[]) => {
      for (const n of names) if (nodes.get(n)?.unschedulable) await k8s.patchNode(n, { unschedulable: false });
    };
    if (named.length > 0 && published?.version === target.slice(1)) {
      // A batch is under way: wait for it, then uncordon it.
      const waiting = named.filter((n) => nodes.has(n) && (behind(n) || !nodes.get(n)?.ready));
      if (waiting.length > 0) return wait(30, `upgrading ${waiting.join(', ')} to ${target}`);
      await uncordon(named);
      await publishMesh(ctx, k8s, undefined);
      ctx.record.ledger.upgradedBatches = (ctx.record.ledger.upgradedBatches ?? 0) + 1;
      return next(`upgraded ${named.join(', ')} to ${target}`, 'upgrade');
    }
    if (named.length > 0) {
      // Instructions for another version (the manifest changed mid-upgrade): withdrawn, their nodes back in service.
      await uncordon(named);
      await publishMesh(ctx, k8s, undefined);
    }
    // Kubernetes does not go back: a node already past the manifest's version (an upgrade to it was under way) stays.
    const ahead = members.map((n) => n.name).filter((n) => versionAbove(nodes.get(n)?.kubeletVersion, target));
    if (ahead.length > 0) {
      return {
        kind: 'failed',
        error: new KubeplaneError(
          'invalid',
          `${ahead.join(', ')} already run${ahead.length === 1 ? 's' : ''} ${nodes.get(ahead[0] ?? '')?.kubeletVersion ?? 'a newer version'}, ` +
            `newer than ${target}; Kubernetes cannot be downgraded: apply that version again to finish the upgrade`,
          { resource: spec.sourcePath },
        ),
      };
    }
    const pendingControl = control.filter(behind);
    // strategy on-delete: the control planes move (the API server must); workers keep their version until replaced.
    const workerBatch = spec.upgrade.strategy === 'on-delete' ? [] : workers.filter(behind).slice(0, Math.max(1, spec.upgrade.maxSurge));
    const batch = pendingControl.length > 0 ? pendingControl.slice(0, 1) : workerBatch;
    if (batch.length === 0) {
      if (named.length > 0) await publishMesh(ctx, k8s, undefined);
      const left = workers.filter(behind).length;
      return next(
        left > 0
          ? `the control planes run ${target}; ${left} workers keep their version until replaced (upgrade.strategy on-delete)`
          : members.length
            ? `every node runs ${target}`
            : 'no nodes to upgrade',
      );
    }
    for (const n of batch) {
      const drained = await k8s.drainNode(n);
      if (isPending(drained)) return waitFor(drained, `draining ${n} before its upgrade`, ctx);
    }
    // kubeadm upgrade apply once, on the first control plane to move; every other node follows it.
    const mode = pendingControl.length === control.length && pendingControl.length > 0 ? 'apply' : 'node';
    await publishMesh(ctx, k8s, {
      nodes: batch,
      version: target.slice(1),
      package: kubernetesPackageVersion(spec.version, resolveVersions(ctx.versions)),
      mode,
    });
    return wait(60, `upgrading ${batch.join(', ')} to ${target} (kubeadm upgrade ${mode}); the nodes' sync agents pick it up within a minute`);
  },
};

/** `v1.35.0` is above `v1.34.2` (major, minor, patch). */
function versionAbove(version: string | undefined, than: string): boolean {
  const parse = (v: string) => (/^v?(\d+)\.(\d+)\.(\d+)/.exec(v) ?? []).slice(1, 4).map(Number);
  if (!version) return false;
  const [a = 0, b = 0, c = 0] = parse(version);
  const [x = 0, y = 0, z = 0] = parse(than);
  return a !== x ? a > x : b !== y ? b > y : c > z;
}

export const removeNodes: StepDefinition = {
  phase: 'kubernetes',
  timeoutSeconds: 3600,
  timeoutMessage: (r) =>
    `nodes of ${r.name} could not be removed or replaced for an hour: a PodDisruptionBudget ` +
    `may forbid every eviction, or a replacement machine did not become a Ready node`,
  async run(ctx) {
    const spec = desiredOf(ctx.record);
    const ledger = ctx.record.ledger;
    if (isManaged(spec)) {
      // The provider deletes the machines; kubeplane chooses them, cordons and drains them first, then forgets their Nodes.
      const managed = await removeManagedNodes(ctx, () => api(ctx));
      if (managed) return managed;
    }
    // A managed cluster's machines are the provider's to remove (above); only kubeplane's own machines here.
    const wanted = new Set(isManaged(spec) ? Object.keys(ledger.nodes) : nodesOf(spec).map(({ node }) => node.name));
    const rank = { compute: 0, loadbalancer: 1, control: 2 } as const;
    const doomed = Object.entries(ledger.nodes)
      .filter(([name]) => !wanted.has(name))
      .sort(([a, x], [b, y]) => rank[x.role] - rank[y.role] || b.localeCompare(a));
    const first = doomed[0];
    if (first) {
      const [name, node] = first;
      const k8s = node.role !== 'loadbalancer' ? await api(ctx) : null;
      if (k8s && node.state !== 'deleting') {
        const drained = await k8s.drainNode(name);
        if (isPending(drained)) return waitFor(drained, `draining ${name}`, ctx);
      }
      node.state = 'deleting';
      const gone = await deleteMachine(ctx, k8s, name);
      if (gone) return gone;
      // Once more: the next node, or (none left) the regions no pool uses any more.
      return next(doomed.length > 1 ? `removed ${name}; ${doomed.length - 1} to go` : `removed ${name}`, 'remove-nodes');
    }
    // Regions no pool uses any more: their firewall, SSH key and network go too.
    const used = new Set(spec.networks.map((n) => regionKey(n.provider, n.region)));
    for (const key of Object.keys(ledger.networks)) {
      if (used.has(key)) continue;
      const [providerName = '', region = ''] = key.split('/');
      const provider = await ctx.provider(providerName, region);
      if (!provider.network) continue;
      const ref = { clusterId: spec.id, region };
      for (const [what, outcome] of [
        ...[undefined, ...FIREWALL_ROLES].map(
          (role) => ['firewall', () => provider.network!.deleteFirewall({ ...ref, name: firewallName(spec.id, region, role) })] as const,
        ),
        // A key of this region only; a provider-wide key stays while another region of the provider uses it (below).
        ...(ledger.sshKeys[key] ? [['ssh key', () => provider.network!.deleteSshKey({ ...ref, name: ledger.sshKeys[key]?.name ?? '' })] as const] : []),
        ['network', () => provider.network!.deleteNetwork({ ...ref, name: networkName(spec.id, region) })],
      ] as const) {
        const o = await outcome();
        if (isPending(o)) return waitFor(o, `removing the ${what} in ${region}`, ctx);
      }
      delete ledger.networks[key];
      for (const role of [undefined, ...FIREWALL_ROLES]) delete ledger.firewalls[firewallKey(key, role)];
      delete ledger.sshKeys[key];
      ctx.emit({ type: 'resource-deleted', kind: 'network', name: key, provider: providerName });
    }
    // Provider-wide keys go after their provider's last region: no machine of the cluster can be made with them any more.
    const usedProviders = new Set(spec.networks.map((n) => n.provider));
    for (const [key, sshKey] of Object.entries(ledger.sshKeys)) {
      if (!isProviderWideKey(key) || usedProviders.has(key)) continue;
      const last =
        ctx.record.ledger.regions
          .filter((r) => r.startsWith(`${key}/`))
          .at(-1)
          ?.slice(key.length + 1) ?? '';
      const provider = await ctx.provider(key, last);
      if (!provider.network) continue;
      const gone = await provider.network.deleteSshKey({ clusterId: spec.id, region: last, name: sshKey.name });
      if (isPending(gone)) return waitFor(gone, `removing the SSH key ${sshKey.name}`, ctx);
      delete ledger.sshKeys[key];
      ctx.emit({ type: 'resource-deleted', kind: 'ssh-key', name: sshKey.name, provider: key });
    }
    // Removed machines' addresses leave the API rules (they may be handed to someone else).
    if (!isManaged(spec)) {
      const firewalls = await refreshFirewalls(ctx);
      if (firewalls) return firewalls;
    }
    return next('no nodes to remove');
  },
};
