// Whether a pod fits a node, as cluster-autoscaler's scheduling simulation asks it (it runs the kube-scheduler's
// filters: NodeResourcesFit, NodeAffinity's nodeSelector, TaintToleration): resource requests against allocatable less
// what the node's pods request, the pod's nodeSelector against the node's labels, and NoSchedule/NoExecute taints
// against the pod's tolerations (PreferNoSchedule never blocks). Sources: kubernetes/kubernetes
// pkg/scheduler/framework/plugins/{noderesources/fit.go,nodeaffinity,tainttoleration}.
import { obj, type Json, type KubeObject } from '../kubernetes/store.js';

export type Resources = Record<string, number>;

/** A resource.Quantity as a number: cpu in cores ("500m" = 0.5), memory in bytes ("1Gi"), counts as they are. */
export function parseQuantity(text: string): number {
  const m = /^([+-]?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$/.exec(text.trim());
  if (!m) return Number.NaN;
  const n = Number(m[1]);
  const scale: Record<string, number> = { m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18, Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
  return n * (m[2] ? (scale[m[2]] ?? 1) : 1);
}

/** `{cpu: "2", memory: "1Gi"}` (or protobuf Quantities `{string: "2"}`) as numbers. */
export function resourcesOf(list: unknown): Resources {
  const out: Resources = {};
  for (const [k, v] of Object.entries(obj(list) ?? {})) {
    const text = typeof v === 'string' ? v : typeof v === 'number' ? String(v) : typeof obj(v)?.['string'] === 'string' ? String(obj(v)?.['string']) : '';
    const n = parseQuantity(text);
    if (Number.isFinite(n)) out[k] = n;
  }
  return out;
}

/**
 * What a pod asks of a node: the sum of its containers' requests, or the largest init container's where that is more
 * (kubernetes.io/docs/concepts/workloads/pods/init-containers/#resource-sharing-within-containers), and one pod.
 */
export function podRequests(pod: KubeObject): Resources {
  const spec = obj(pod['spec']) ?? {};
  const sum: Resources = {};
  for (const c of (spec['containers'] as Json[] | undefined) ?? []) {
    for (const [k, v] of Object.entries(resourcesOf(obj(c['resources'])?.['requests']))) sum[k] = (sum[k] ?? 0) + v;
  }
  for (const c of (spec['initContainers'] as Json[] | undefined) ?? []) {
    for (const [k, v] of Object.entries(resourcesOf(obj(c['resources'])?.['requests']))) sum[k] = Math.max(sum[k] ?? 0, v);
  }
  sum['pods'] = 1;
  return sum;
}

export interface NodeShape {
  labels: Record<string, string>;
  taints: Array<{ key: string; value?: string; effect: string }>;
  allocatable: Resources;
}

interface Toleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
}

/** core/v1 Toleration.ToleratesTaint: empty key with Exists tolerates everything; an empty effect matches all effects. */
function tolerates(tolerations: Toleration[], taint: { key: string; value?: string; effect: string }): boolean {
  return tolerations.some((t) => {
    if (t.effect && t.effect !== taint.effect) return false;
    if (!t.key) return t.operator === 'Exists';
    if (t.key !== taint.key) return false;
    return t.operator === 'Exists' || (t.value ?? '') === (taint.value ?? '');
  });
}

/** Whether `pod` may run on a node of this shape at all (selector and taints), whatever its load. */
export function podAllowedOn(pod: KubeObject, node: NodeShape): boolean {
  const spec = obj(pod['spec']) ?? {};
  const selector = (obj(spec['nodeSelector']) ?? {}) as Record<string, string>;
  if (!Object.entries(selector).every(([k, v]) => node.labels[k] === v)) return false;
  const tolerations = (spec['tolerations'] as Toleration[] | undefined) ?? [];
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
