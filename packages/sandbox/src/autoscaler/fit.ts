// Whether a pod fits a node, as cluster-autoscaler's scheduling simulation asks it: it runs kube-scheduler's filters
// (NodeResourcesFit, NodeAffinity, TaintToleration), here the sandbox scheduler's own (kubernetes/scheduling.ts, which
// cites them) on a template node: requests against allocatable less what the node's pods request, node selectors and
// required affinity against the node's labels, NoSchedule/NoExecute taints against the pod's tolerations.
import { nodeMatches, podRequests, resourceAmount, tolerates, type Toleration } from '../kubernetes/scheduling.js';
import { obj, type KubeObject } from '../kubernetes/store.js';

/**
 * Resource amounts by name as the scheduler compares them: cpu in millicores, anything else in base units (bytes,
 * counts).
 */
export type Resources = Record<string, number>;
/** What a pod asks of a node, as the sandbox's scheduler counts it (cpu in millicores). */
export { podRequests };

/** `{cpu: "2", memory: "1Gi"}` (or protobuf Quantities `{string: "2"}`) as the scheduler counts them. */
export function resourcesOf(list: unknown): Resources {
  const out: Resources = {};
  for (const [k, v] of Object.entries(obj(list) ?? {})) {
    const text = typeof v === 'string' ? v : typeof v === 'number' ? String(v) : typeof obj(v)?.['string'] === 'string' ? String(obj(v)?.['string']) : '';
    if (text) out[k] = resourceAmount(k, text);
  }
  return out;
}

/** What decides whether a pod fits on a node: its labels, its taints and what it can allocate. */
export interface NodeShape {
  labels: Record<string, string>;
  taints: Array<{ key: string; value?: string; effect: string }>;
  allocatable: Resources;
}

/** Whether `pod` may run on a node of this shape at all (selector and taints), whatever its load. */
export function podAllowedOn(pod: KubeObject, node: NodeShape): boolean {
  if (!nodeMatches(pod, { metadata: { name: 'template', labels: node.labels } })) return false;
  const tolerations = (obj(pod['spec'])?.['tolerations'] as Toleration[] | undefined) ?? [];
  return node.taints.every((t) => t.effect === 'PreferNoSchedule' || tolerates(tolerations, t));
}

/** Whether `requests` fit in `free` (every requested resource the node has enough of; one it lacks fits only at 0). */
export function fitsIn(requests: Resources, free: Resources): boolean {
  return Object.entries(requests).every(([k, v]) => v <= 0 || (free[k] ?? 0) >= v - 1e-9);
}

export function add(a: Resources, b: Resources): Resources {
  const out: Resources = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = (out[k] ?? 0) + v;
  return out;
}

export function subtract(a: Resources, b: Resources): Resources {
  const out: Resources = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = (out[k] ?? 0) - v;
  return out;
}

/** A Node object's shape as the simulation needs it. */
export function nodeShape(node: KubeObject): NodeShape {
  const spec = obj(node['spec']) ?? {};
  return {
    labels: { ...(node.metadata.labels ?? {}) },
    taints: ((spec['taints'] as NodeShape['taints'] | undefined) ?? []).map((t) => ({ ...t })),
    allocatable: resourcesOf(obj(node['status'])?.['allocatable']),
  };
}
