// A managed control plane (Crusoe CMK) through the same phases as a self-managed one: the provider runs the control
// plane and creates the pools' machines; kubeplane asks for the cluster and its pools, waits for them, chooses and
// drains the nodes a scale-down removes, and configures the service's settings through the cluster's API.
import { KubeplaneError } from '../../errors.js';
import { isPending } from '../../provider/outcome.js';
import type { ManagedKubernetesApi, ManagedNodeInfo, ManagedNodePoolRequest } from '../../provider/types.js';
import type { ClusterSpec, PoolSpec } from '../../model/types.js';
import type { ManagedLedger, NodeResource } from '../records.js';
import type { KubernetesApi } from '../ports/kubernetes.js';
import { CMK_ADDONS } from '../../providers-data/crusoe.js';
import { desiredOf, waitFor } from './common.js';
import { next, wait, type StepContext, type StepResult } from './types.js';

export const isManaged = (spec: ClusterSpec) => spec.controlPlane === 'managed';

/** The provider and region that run a managed cluster: every pool's (validation keeps them to one provider type). */
export function managedTarget(spec: ClusterSpec): { provider: string; region: string } {
  const targets = new Set(spec.pools.map((p) => (p.provider ? `${p.provider.name}/${p.provider.region}` : '')));
  const [first] = spec.pools;
  if (!first?.provider || targets.size !== 1) {
    throw new KubeplaneError(
      'invalid',
      `cluster ${spec.name}: a managed control plane runs in one provider region; its pools use ${[...targets].join(', ') || 'none'}`,
      { resource: spec.sourcePath },
    );
  }
  return { provider: first.provider.name, region: first.provider.region };
}

export async function managedApi(ctx: StepContext): Promise<{ api: ManagedKubernetesApi; providerName: string; region: string }> {
  const spec = desiredOf(ctx.record);
  const { provider: name, region } = managedTarget(spec);
  const provider = await ctx.provider(name, region);
  if (!provider.managedKubernetes)
    throw new KubeplaneError('invalid', `provider ${name} does not run managed control planes`, { provider: name, resource: spec.sourcePath });
  return { api: provider.managedKubernetes, providerName: name, region };
}

function requireLedger(ctx: StepContext): ManagedLedger {
  const m = ctx.record.ledger.managed;
  if (!m) throw new KubeplaneError('invalid', `cluster ${ctx.record.name}: the managed control plane is not recorded; the control-plane step did not run`);
  return m;
}

/** Before anything is created: the version and every pool's node image must be on the provider's current list. */
export async function checkManagedVersions(ctx: StepContext): Promise<StepResult | null> {
  const spec = desiredOf(ctx.record);
  const { api, region } = await managedApi(ctx);
  const versions = await api.versions(region);
  if (isPending(versions)) return waitFor(versions, "the provider's version list", ctx);
  const problems: string[] = [];
  // Only what this apply introduces: a running cluster on a version the provider has since deprecated stays usable.
  const built = ctx.record.current;
  const newVersion = built?.version.raw !== spec.version.raw;
  const newImage = (pool: PoolSpec) => built?.pools.find((p) => p.name === pool.name)?.image !== pool.image;
  if (newVersion && !versions.value.cluster.includes(spec.version.raw))
    problems.push(`${spec.sourcePath}.version: ${spec.version.raw} is not offered; choose one of ${versions.value.cluster.join(', ')}`);
  for (const pool of spec.pools) {
    if (pool.image && newImage(pool) && !versions.value.nodePool.includes(pool.image))
      problems.push(`${pool.sourcePath}.image: node image ${pool.image} is not offered; choose one of ${versions.value.nodePool.join(', ')}`);
  }
  if (problems.length > 0) return { kind: 'failed', error: new KubeplaneError('invalid', problems.join('; '), { resource: spec.sourcePath }) };
  return null;
}

/** The provider's add-on ids among the manifest's add-ons (those installed at creation), sorted. */
export function providerAddonIds(spec: ClusterSpec): string[] {
  const ids = new Set<string>(CMK_ADDONS.map((a) => a.id));
  return spec.addons
    .map((a) => a.name)
    .filter((n) => ids.has(n))
    .sort();
}

/** The count a pool asks for: fixed pools their count; autoscaled pools what the autoscaler holds, within the manifest's limits. */
function wantedCount(pool: PoolSpec, live: number | undefined): number {
  if (!pool.autoscaler) return pool.count;
  return Math.min(pool.autoscaler.max, Math.max(pool.autoscaler.min, live ?? pool.count));
}

async function poolRequest(ctx: StepContext, pool: PoolSpec, count: number, removeNodes?: string[]): Promise<ManagedNodePoolRequest> {
  const spec = desiredOf(ctx.record);
  const m = requireLedger(ctx);
  const ssh = await ctx.secrets.ssh();
  return {
    clusterId: spec.id,
    clusterName: m.name,
    name: pool.name,
    serverType: pool.serverType ?? '',
    count,
    labels: { ...pool.labels, 'kubeplane.dev/nodepool': pool.name, 'kubeplane.dev/cluster-id': spec.id },
    taints: pool.taints.map((t) => ({ key: t.key, ...(t.value !== undefined ? { value: t.value } : {}), effect: t.effect })),
    ...(pool.image ? { kubernetesVersion: pool.image } : {}),
    ...(ssh ? { sshPublicKey: ssh.publicKey } : {}),
    ...(removeNodes ? { removeNodes } : {}),
  };
}

const liveNodes = (nodes: ManagedNodeInfo[]) => nodes.filter((n) => n.state !== 'deleting' && n.state !== 'deleted');

/** create-nodes for a managed cluster: every pool created or grown (scale-downs wait for remove-nodes, which drains first). */
export async function ensureManagedPools(ctx: StepContext): Promise<StepResult> {
  const spec = desiredOf(ctx.record);
  const m = requireLedger(ctx);
  const { api, providerName, region } = await managedApi(ctx);
  const ref = { clusterId: spec.id, name: m.name, region };
  let pendingResult: StepResult | null = null;
  for (const pool of spec.pools) {
    const listed = await api.listNodePoolNodes(ref, pool.name);
    if (isPending(listed)) return waitFor(listed, `machines of pool ${pool.name}`, ctx);
    const live = liveNodes(listed.value).length;
    const known = m.pools[pool.name];
    // During a rotation the surge machine is not part of what the pool wants.
    const want = known?.rotating ? wantedCount(pool, known.count) : wantedCount(pool, known || live > 0 ? live : undefined);
    // A new node image goes to the pool once; its machines are rotated onto it by remove-nodes. Sent too when the
    // ledger does not know the pool yet (it may have been created at another image before a change or a crash).
    const updateVersion = Boolean(pool.image && known?.image !== pool.image);
    // Never below what a rotation under way holds (its surge machine).
    const outcome = await api.ensureNodePool({
      ...(await poolRequest(ctx, pool, Math.max(want, live, known?.rotating ? (known.surge ?? 0) : 0))),
      ...(updateVersion ? { updateVersion } : {}),
    });
    if (isPending(outcome)) {
      pendingResult ??= waitFor(outcome, `node pool ${pool.name}`, ctx);
      continue;
    }
    if (!known) ctx.emit({ type: 'resource-created', kind: 'node-pool', name: pool.name, provider: providerName });
    m.pools[pool.name] = { ...known, id: outcome.value.id, count: want, ...(pool.image ? { image: pool.image } : {}) };
  }
  return pendingResult ?? next(`${spec.pools.length} node pool${spec.pools.length === 1 ? '' : 's'} requested`);
}

/** Brings the ledger's machines of one pool to what the provider lists (CMK replaces and removes machines itself). */
function recordPoolNodes(ctx: StepContext, poolName: string, nodes: ManagedNodeInfo[]): void {
  const m = requireLedger(ctx);
  const ledger = ctx.record.ledger;
  const listed = new Set(nodes.map((n) => n.name));
  for (const [name, n] of Object.entries(ledger.nodes)) if (n.pool === poolName && !listed.has(name)) delete ledger.nodes[name];
  for (const n of liveNodes(nodes)) {
    const known = ledger.nodes[n.name];
    const node: NodeResource = {
      pool: poolName,
      role: 'compute',
      provider: m.provider,
      region: m.region,
      id: n.id,
      providerId: n.providerId,
      ...(n.publicIPv4 ? { publicIPv4: n.publicIPv4 } : {}),
      ...(n.privateIPv4 ? { privateIPv4: n.privateIPv4 } : {}),
      state: n.state === 'running' ? 'running' : 'pending',
      createdAt: known?.createdAt ?? (n.createdAt ? Date.parse(n.createdAt) : ctx.now),
    };
    ledger.nodes[n.name] = node;
  }
}

/** await-machines for a managed cluster: each pool has the machines it asked for, running. */
export async function awaitManagedMachines(ctx: StepContext): Promise<StepResult> {
  const spec = desiredOf(ctx.record);
  const m = requireLedger(ctx);
  const { api, region } = await managedApi(ctx);
  const short: string[] = [];
  let total = 0;
  for (const pool of spec.pools) {
    const listed = await api.listNodePoolNodes({ clusterId: spec.id, name: m.name, region }, pool.name);
    if (isPending(listed)) return waitFor(listed, `machines of pool ${pool.name}`, ctx);
    recordPoolNodes(ctx, pool.name, listed.value);
    const want = m.pools[pool.name]?.count ?? pool.count;
    const running = listed.value.filter((n) => n.state === 'running').length;
    total += running;
    if (running < want) short.push(`${pool.name} ${running}/${want}`);
  }
  // Every pool listed: status reports the machines running as of this read, with its time.
  ctx.record.ledger.machinesReadAt = ctx.now;
  if (short.length > 0) return wait(15, `machines running: ${short.join(', ')}`);
  return next(`${total} machines running in ${spec.pools.length} node pool${spec.pools.length === 1 ? '' : 's'}`);
}

/** The ledger's machines of a pool that are not being removed: the pool's Kubernetes nodes. */
export function managedPoolMembers(ctx: StepContext, pool: string): string[] {
  return Object.entries(ctx.record.ledger.nodes)
    .filter(([, n]) => n.pool === pool && n.state !== 'deleting')
    .map(([name]) => name)
    .sort();
}

/**
 * remove-nodes for a managed cluster, one piece of work per run: a pool the manifest dropped is drained node by node
 * and deleted; a pool above its count has the newest nodes chosen (the choice is kept until done), drained, and
 * handed to the provider, which lowers the count and deletes exactly those machines.
 */
export async function removeManagedNodes(ctx: StepContext, kubernetes: () => Promise<KubernetesApi>): Promise<StepResult | null> {
  const drain = async (node: string): Promise<StepResult | null> => {
    const drained = await (await kubernetes()).drainNode(node);
    return isPending(drained) ? waitFor(drained, `draining ${node}`, ctx) : null;
  };
  // Once the machines are gone: their Node objects too, rather than wait for the cloud controller to notice.
  const forget = async (nodes: string[]) => {
    for (const node of nodes) await (await kubernetes()).deleteNode(node);
  };
  // ... and the ledger's record of them, with an event for each.
  const gone = async (nodes: string[]) => {
    await forget(nodes);
    for (const node of nodes) {
      delete ctx.record.ledger.nodes[node];
      ctx.emit({ type: 'resource-deleted', kind: 'machine', name: node, provider: ctx.record.ledger.managed?.provider ?? '' });
    }
  };
  const spec = desiredOf(ctx.record);
  const m = ctx.record.ledger.managed;
  if (!m) return null;
  const { api, region, providerName } = await managedApi(ctx);
  const ref = { clusterId: spec.id, name: m.name, region };
  const ledger = ctx.record.ledger;
  for (const [poolName, entry] of Object.entries(m.pools).sort(([a], [b]) => a.localeCompare(b))) {
    const pool = spec.pools.find((p) => p.name === poolName);
    if (!pool) {
      for (const node of managedPoolMembers(ctx, poolName)) {
        const drained = await drain(node);
        if (drained) return drained;
      }
      const deleted = await api.deleteNodePool({ clusterId: spec.id, name: poolName, region });
      if (isPending(deleted)) return waitFor(deleted, `deleting node pool ${poolName}`, ctx);
      await gone(
        Object.entries(ledger.nodes)
          .filter(([, n]) => n.pool === poolName)
          .map(([name]) => name),
      );
      delete m.pools[poolName];
      ctx.emit({ type: 'resource-deleted', kind: 'node-pool', name: poolName, provider: providerName });
      return next(`removed node pool ${poolName}`, 'remove-nodes');
    }
    const listed = await api.listNodePoolNodes(ref, poolName);
    if (isPending(listed)) return waitFor(listed, `machines of pool ${poolName}`, ctx);
    const live = liveNodes(listed.value);
    // A rotation under way finishes first; then a scale-down; then a rotation starts if machines are outdated.
    if (entry.rotating) return rotate(ctx, { pool, entry, listed: listed.value, api, kubernetes, drain, gone });
    const want = wantedCount(pool, live.length);
    if (live.length <= want && !entry.removing && live.some((n) => n.upToDate === false)) {
      return rotate(ctx, { pool, entry, listed: listed.value, api, kubernetes, drain, gone });
    }
    if (live.length <= want && !entry.removing) {
      // Nodes of the pool whose machines are gone or going (a scale-down whose record write was lost, a machine the
      // provider replaced): forgotten, as a cloud controller would, so the cluster does not count them.
      const machines = new Set(live.map((n) => n.name));
      const stale = (await (await kubernetes()).listNodes())
        .filter((n) => n.labels['kubeplane.dev/nodepool'] === poolName && !machines.has(n.name))
        .map((n) => n.name);
      await forget(stale);
      continue;
    }
    // Outdated machines first (no rotation needed for them), then the newest, which carry the least work; kept in
    // the ledger so every retry names the same ones.
    entry.removing ??= [...live]
      .sort(
        (a, b) =>
          Number(a.upToDate !== false) - Number(b.upToDate !== false) || (b.createdAt ?? '').localeCompare(a.createdAt ?? '') || b.name.localeCompare(a.name),
      )
      .slice(0, live.length - want)
      .map((n) => n.id);
    const victims = listed.value.filter((n) => entry.removing?.includes(n.id));
    for (const v of victims) {
      if (v.state === 'deleting' || v.state === 'deleted') continue;
      const drained = await drain(v.name);
      if (drained) return drained;
    }
    for (const v of victims) if (ledger.nodes[v.name]) ledger.nodes[v.name] = { ...(ledger.nodes[v.name] as NodeResource), state: 'deleting' };
    const outcome = await api.ensureNodePool(await poolRequest(ctx, pool, want, entry.removing));
    if (isPending(outcome)) return waitFor(outcome, `scaling node pool ${poolName} to ${want}`, ctx);
    await gone(victims.map((v) => v.name));
    const { removing: _done, ...kept } = entry;
    m.pools[poolName] = { ...kept, count: want };
    return next(`node pool ${poolName} scaled to ${want}`, 'remove-nodes');
  }
  return null;
}

/** The addons phase's managed part: the service's own settings (credentials Secret, autoscaler limits, remediation). */
export async function configureManaged(
  ctx: StepContext,
  kubernetes: Parameters<NonNullable<ManagedKubernetesApi['configureCluster']>>[1],
): Promise<StepResult | string[]> {
  const spec = desiredOf(ctx.record);
  const m = requireLedger(ctx);
  const { api, region } = await managedApi(ctx);
  if (!api.configureCluster) return [];
  const outcome = await api.configureCluster(
    {
      clusterId: spec.id,
      name: m.name,
      region,
      // A fixed pool is pinned at its count, so the service's autoscaler does not resize it (its default is 1–254).
      autoscaler: spec.pools.map((p) => ({ pool: p.name, min: p.autoscaler?.min ?? p.count, max: p.autoscaler?.max ?? p.count })),
      addons: spec.addons.map((a) => ({ name: a.name, ...(a.config ? { config: a.config } : {}) })),
    },
    kubernetes,
  );
  if (isPending(outcome)) return waitFor(outcome, `settings of ${m.name}`, ctx);
  return outcome.value.changed;
}

/**
 * One step of rotating a pool onto its new node image, one machine at a time with a surge of one: the pool grows by
 * one (the new machine gets the new image), and once every machine of the pool is a Ready node, the oldest outdated
 * one is drained and removed with the count lowered again. The machine being replaced is kept in the ledger.
 */
async function rotate(
  ctx: StepContext,
  r: {
    pool: PoolSpec;
    entry: ManagedLedger['pools'][string];
    listed: ManagedNodeInfo[];
    api: ManagedKubernetesApi;
    kubernetes: () => Promise<KubernetesApi>;
    drain: (node: string) => Promise<StepResult | null>;
    gone: (nodes: string[]) => Promise<void>;
  },
): Promise<StepResult> {
  const { pool, entry, api } = r;
  const live = liveNodes(r.listed);
  recordPoolNodes(ctx, pool.name, r.listed);
  const old = entry.rotating ? r.listed.find((n) => n.id === entry.rotating) : undefined;
  if (!entry.rotating || !old || old.state === 'deleting' || old.state === 'deleted') {
    // Its removal was under way when the last run ended: finish it.
    if (old) await r.gone([old.name]);
    const stale = live.filter((n) => n.upToDate === false).sort((a, b) => (a.createdAt ?? '').localeCompare(b.createdAt ?? '') || a.name.localeCompare(b.name));
    const next_ = stale[0];
    if (!next_) {
      delete entry.rotating;
      delete entry.surge;
      return next(`node pool ${pool.name} runs node image ${pool.image ?? 'the latest'} on every machine`, 'remove-nodes');
    }
    entry.rotating = next_.id;
    entry.surge = live.length + 1;
    return next(
      `rotating node pool ${pool.name} onto ${pool.image ?? 'its new configuration'}: replacing ${next_.name} (${stale.length} to go)`,
      'remove-nodes',
    );
  }
  // Surge: a machine on the new configuration first (one more than when the round began), so capacity never drops.
  // Counted from the machines there were, not from the pool's target, which an apply may have changed meanwhile.
  const target = entry.surge ?? live.length + 1;
  if (live.length < target) {
    const grown = await api.ensureNodePool(await poolRequest(ctx, pool, target));
    if (isPending(grown)) return waitFor(grown, `adding a machine to ${pool.name} before ${old.name} goes`, ctx);
    return wait(15, `rotating ${pool.name}: a machine on the new configuration is coming before ${old.name} is drained`);
  }
  const surge = live
    .filter((n) => n.id !== old.id && n.upToDate !== false)
    .sort((a, b) => (b.createdAt ?? '').localeCompare(a.createdAt ?? '') || b.name.localeCompare(a.name))[0];
  if (!surge) return wait(15, `rotating ${pool.name}: waiting for a machine on the new configuration before ${old.name} is drained`);
  // It must be a Ready node; other machines' health is not this rotation's business (a NotReady machine may be the
  // very reason for it).
  const nodes = new Map((await (await r.kubernetes()).listNodes()).map((n) => [n.name, n]));
  if (surge.state !== 'running' || !nodes.get(surge.name)?.ready) {
    return wait(15, `rotating ${pool.name}: waiting for ${surge.name} to be a Ready node before ${old.name} is drained`);
  }
  const drained = await r.drain(old.name);
  if (drained) return drained;
  const ledgerNode = ctx.record.ledger.nodes[old.name];
  if (ledgerNode) ledgerNode.state = 'deleting';
  // One machine fewer than now (the pool may have grown meanwhile), exactly the old one.
  const shrunk = await api.ensureNodePool(await poolRequest(ctx, pool, live.length - 1, [old.id]));
  if (isPending(shrunk)) return waitFor(shrunk, `removing ${old.name} from ${pool.name}`, ctx);
  await r.gone([old.name]);
  delete entry.rotating;
  delete entry.surge;
  return next(`replaced ${old.name} in node pool ${pool.name}`, 'remove-nodes');
}
