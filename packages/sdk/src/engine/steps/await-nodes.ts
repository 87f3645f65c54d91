// await-nodes (kubernetes phase): wait until every node has joined and is Ready (nodes bootstrap themselves), and
// replace a worker that has stayed NotReady while its machine runs.
import type { KubeNode, KubernetesApi } from '../ports/kubernetes.js';
import { deleteMachine, desiredOf, nodesOf } from './common.js';
import { api, poolMembers } from './kubernetes-api.js';
import { isManaged } from './managed.js';
import { next, wait, type StepContext, type StepDefinition, type StepResult } from './types.js';

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
