// node-metadata (kubernetes phase): the pools' labels and taints on their nodes, and node identity (providerID,
// topology labels: node-identity.ts).
import type { Taint } from '../../manifest/schema.js';
import { stableJson } from '../../stable-json.js';
import { desiredOf, poolsOf } from './common.js';
import { api, poolMembers } from './kubernetes-api.js';
import { isManaged } from './managed.js';
import { nodeIdentity } from './node-identity.js';
import { next, type StepDefinition } from './types.js';

const CONTROL_PLANE_TAINT: Taint = { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' };

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
