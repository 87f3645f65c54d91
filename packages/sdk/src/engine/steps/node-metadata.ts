// node-metadata (kubernetes phase): the pools' labels, annotations and taints on their nodes, and node identity
// (providerID, topology labels: node-identity.ts). A kubelet registers labels and taints but cannot set annotations, so
// every node's annotations come from here, and a record on the Node says which keys kubeplane put there.
import type { Taint } from '../../manifest/schema.js';
import { stableJson } from '../../stable-json.js';
import { desiredOf, poolsOf } from './common.js';
import { api, poolMembers } from './kubernetes-api.js';
import { isManaged } from './managed.js';
import { nodeIdentity } from './node-identity.js';
import { next, type StepDefinition } from './types.js';

const CONTROL_PLANE_TAINT: Taint = { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' };

/**
 * The annotation keys kubeplane set on a Node, comma-separated (annotation keys hold no comma): the ones it may change
 * or remove when the pool's change. Kept on the Node itself, as kubectl keeps last-applied-configuration, so it holds
 * whatever happened to the state, and annotations others put on the Node are never touched.
 */
export const OWNED_ANNOTATIONS = 'kubeplane.dev/annotations';

/** The annotation patch that takes a Node's annotations from `live` to `wanted`: null removes; {} when nothing differs. */
export function annotationPatch(live: Record<string, string>, wanted: Record<string, string>): Record<string, string | null> {
  const patch: Record<string, string | null> = {};
  for (const [key, value] of Object.entries(wanted)) if (live[key] !== value) patch[key] = value;
  const owned = (live[OWNED_ANNOTATIONS] ?? '').split(',').filter((k) => k !== '');
  for (const key of owned) if (!(key in wanted) && key in live) patch[key] = null;
  const record = Object.keys(wanted).sort().join(',');
  if (record === '') {
    if (OWNED_ANNOTATIONS in live) patch[OWNED_ANNOTATIONS] = null;
  } else if (live[OWNED_ANNOTATIONS] !== record) patch[OWNED_ANNOTATIONS] = record;
  return patch;
}

export const nodeMetadata: StepDefinition = {
  phase: 'kubernetes',
  timeoutSeconds: 600,
  timeoutMessage: (r) => `labels, annotations and taints of ${r.name} could not be applied`,
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
        const annotations = annotationPatch(live.annotations, pool.annotations);
        const annotationsDiffer = Object.keys(annotations).length > 0;
        const labelsDiffer = Object.entries(labels).some(([k, v]) => (v === null ? k in live.labels : live.labels[k] !== v));
        // The API server takes a providerID once, from "" (ValidateNodeUpdate); a Node already naming another machine
        // was registered by a machine kubeplane no longer has, and is reported rather than patched in a loop.
        const providerId = identity?.providerId && !live.providerId ? identity.providerId : undefined;
        if (identity?.providerId && live.providerId && live.providerId !== identity.providerId) foreign.push(`${node.name} (${live.providerId})`);
        if (labelsDiffer || annotationsDiffer || providerId || stableJson(live.taints) !== stableJson(taints)) {
          await k8s.patchNode(node.name, { labels, taints, ...(annotationsDiffer ? { annotations } : {}), ...(providerId ? { providerId } : {}) });
          patched++;
        }
      }
    const done =
      (patched ? `patched labels, annotations, taints and identity of ${patched} nodes` : 'labels, annotations, taints and identity as declared') +
      (foreign.length
        ? `; the Nodes of ${foreign.join(', ')} name another machine than kubeplane made under that name: delete them so the machines register again`
        : '');
    return next(done);
  },
};
