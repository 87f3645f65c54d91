// Autoscaled pools driven from outside the manifest (a cluster autoscaler through its adapter): how a target or a
// chosen set of nodes to remove becomes the cluster's desired state, how a refused growth is backed off, and the
// node-group view an autoscaler reads (limits, target, nodes with their state, a template node, the last failure).
import { KubeplaneError } from '../errors.js';
import type { ClusterSpec, PoolProvider, PoolSpec } from '../model/types.js';
import type { ClusterRecord, GrowthFailure, NodeResource } from './records.js';

/**
 * Backoff after a growth the provider refused (quota, capacity, an unknown type): the engine never retries it on its
 * own (the pool's target falls back to what exists), and refuses growth of that pool until the backoff has passed.
 * The figures are cluster-autoscaler's own node-group backoff defaults, so the engine and a real autoscaler agree:
 * `--initial-node-group-backoff-duration=5m`, doubled per failure up to `--max-node-group-backoff-duration=30m`
 * (kubernetes/autoscaler cluster-autoscaler/FAQ.md, "What are the parameters to CA?"). A growth that succeeds clears it.
 */
export const GROWTH_BACKOFF_INITIAL_MS = 5 * 60_000;
/** The longest wait before a pool that failed to grow is grown again. */
export const GROWTH_BACKOFF_MAX_MS = 30 * 60_000;

/** The wait before growing a pool again after a number of failed attempts, doubling up to the maximum. */
export function growthBackoffMs(failures: number): number {
  return Math.min(GROWTH_BACKOFF_MAX_MS, GROWTH_BACKOFF_INITIAL_MS * 2 ** Math.max(0, failures - 1));
}

/** When growth of a pool is allowed again after its last failure (ms), or 0 when it is not backed off. */
export function growthAllowedAt(failure: GrowthFailure | undefined): number {
  return failure ? failure.at + growthBackoffMs(failure.failures) : 0;
}

/** The errors that end a pool's growth instead of the cluster's flow: the provider cannot give more machines now. */
export function isGrowthRefusal(kind: string): kind is GrowthFailure['kind'] {
  return kind === 'quota' || kind === 'capacity' || kind === 'invalid';
}

export interface ScaleRequest {
  pool: string;
  /** The new node count. */
  target: number;
  /** Exactly these nodes go (an autoscaler's choice); the target is then the pool's count less them. */
  removeNodes?: string[];
}

/**
 * The pool as the previous desired state should look for buildDesiredState to produce the scaled pool: its count set
 * to the target and, when nodes are named, those nodes left out (buildDesiredState keeps the remaining indices and
 * removes the highest only when the count falls below what is left). Checks the request against the pool's limits.
 */
export function scaledPrevious(spec: ClusterSpec, request: ScaleRequest, now: number, ledger: ClusterRecord['ledger']): ClusterSpec {
  const pool = autoscaledPool(spec, request.pool);
  const { min, max } = pool.autoscaler;
  const remove = new Set(request.removeNodes ?? []);
  for (const name of remove) {
    if (!pool.nodes.some((n) => n.name === name)) {
      throw new KubeplaneError(
        'invalid',
        `node ${name} is not in pool ${pool.name} of cluster ${spec.name} (its nodes: ${pool.nodes.map((n) => n.name).join(', ') || 'none'})`,
        { resource: name, code: 'NodeNotInPool' },
      );
    }
  }
  const target = remove.size > 0 ? pool.nodes.length - remove.size : request.target;
  if (!Number.isInteger(target) || target < min || target > max) {
    throw new KubeplaneError('invalid', `pool ${pool.name} of cluster ${spec.name} scales between ${min} and ${max} nodes; ${target} is outside these limits`, {
      resource: pool.name,
      code: 'TargetOutOfRange',
    });
  }
  const failure = ledger.growthFailures?.[pool.name];
  if (target > pool.count && failure && now < growthAllowedAt(failure)) {
    throw new KubeplaneError(
      failure.kind === 'invalid' ? 'invalid' : failure.kind,
      `pool ${pool.name} of cluster ${spec.name} cannot grow before ` +
        `${new Date(growthAllowedAt(failure)).toISOString()}: its last growth was refused (${failure.message})`,
      { resource: pool.name, code: 'GrowthBackedOff', retryAfterSeconds: Math.ceil((growthAllowedAt(failure) - now) / 1000) },
    );
  }
  const nodes = pool.nodes.filter((n) => !remove.has(n.name));
  return { ...spec, pools: spec.pools.map((p) => (p.name === pool.name ? { ...p, count: target, nodes } : p)) };
}

export function autoscaledPool(spec: ClusterSpec, name: string): PoolSpec & { autoscaler: { min: number; max: number } } {
  const pool = spec.pools.find((p) => p.name === name);
  if (!pool) {
    throw new KubeplaneError(
      'not-found',
      `cluster ${spec.name} has no pool ${name} (its autoscaled pools: ${
        spec.pools
          .filter((p) => p.autoscaler)
          .map((p) => p.name)
          .join(', ') || 'none'
      })`,
      { resource: name, code: 'NoSuchPool' },
    );
  }
  if (!pool.autoscaler || pool.kind !== 'dynamic') {
    throw new KubeplaneError(
      'invalid',
      `pool ${name} of cluster ${spec.name} is not autoscaled (it has a fixed count of ${pool.count}); give it autoscaler: {min, max} in the manifest`,
      { resource: name, code: 'NotAutoscaled' },
    );
  }
  return pool as PoolSpec & { autoscaler: { min: number; max: number } };
}

/** A node of an autoscaled node group. */
export interface NodeGroupNode {
  name: string;
  /** The provider's id for the machine (empty while its creation is not yet answered). */
  providerId: string;
  state: 'creating' | 'running' | 'deleting';
}

/** What a new node of an autoscaled node group would look like, for the autoscaler's scale-up decisions. */
export interface NodeGroupTemplate {
  cpu: number;
  memoryGiB: number;
  gpus: number;
  gpuType?: string;
  /** Pods a node takes: the kubelet's default --max-pods. */
  pods: number;
  labels: Record<string, string>;
  taints: Array<{ key: string; value?: string; effect: string }>;
}

/** An autoscaled pool as the cluster autoscaler sees it: its bounds, target size and nodes. */
export interface NodeGroup {
  /** The pool's name. */
  id: string;
  min: number;
  max: number;
  target: number;
  provider: { name: string; type: string; region: string; zone?: string };
  serverType: string;
  nodes: NodeGroupNode[];
  template: NodeGroupTemplate;
  /** The last growth the provider refused, with when growth is allowed again. */
  lastFailure?: GrowthFailure & { retryAfter: number };
}

/** The kubelet's default `--max-pods` (kubernetes.io/docs/reference/command-line-tools-reference/kubelet/). */
export const KUBELET_MAX_PODS = 110;

/** One autoscaled pool as an autoscaler sees it; `sizes` gives cpu/memory/GPUs of the pool's type from its provider's catalog. */
export function nodeGroupOf(
  record: ClusterRecord,
  pool: PoolSpec & { autoscaler: { min: number; max: number } },
  size: { vcpus: number; memoryGiB: number; gpus?: number } | undefined,
): NodeGroup {
  const ledger = record.ledger;
  const stateOf = (n: NodeResource | undefined): NodeGroupNode['state'] =>
    n?.state === 'deleting' ? 'deleting' : n?.state === 'running' ? 'running' : 'creating';
  const wanted = new Set(pool.nodes.map((n) => n.name));
  const nodes: NodeGroupNode[] = [
    ...pool.nodes.map((n) => ({ name: n.name, providerId: ledger.nodes[n.name]?.providerId ?? '', state: stateOf(ledger.nodes[n.name]) })),
    // Machines of the pool no longer wanted are on their way out until remove-nodes has deleted them.
    ...Object.entries(ledger.nodes)
      .filter(([name, n]) => n.pool === pool.name && !wanted.has(name))
      .map(([name, n]) => ({ name, providerId: n.providerId ?? '', state: 'deleting' as const })),
  ];
  const prov: PoolProvider | undefined = pool.provider;
  if (!prov) throw new KubeplaneError('invalid', `pool ${pool.name} has no provider; only dynamic pools are autoscaled`, { resource: pool.name });
  const m = pool.machineSpec ?? {};
  // The machine the provider gives (its catalog) is what a new node has; the manifest's machineSpec only where the
  // catalog does not answer (machineSpec describes what was asked for, not what the server type is).
  const gpus = size?.gpus ?? m.nvidiaGpuCount ?? 0;
  // The labels kubeplane puts on every node (issue 14), then the pool's own.
  const labels: Record<string, string> = {
    'kubernetes.io/os': 'linux',
    'topology.kubernetes.io/region': prov.region,
    ...(prov.zone ? { 'topology.kubernetes.io/zone': prov.zone } : {}),
    'node.kubernetes.io/instance-type': pool.serverType ?? '',
    'kubeplane.dev/provider': prov.type,
    'kubeplane.dev/pool': pool.name,
    ...(gpus > 0 ? { 'nvidia.com/gpu.present': 'true' } : {}),
    ...pool.labels,
  };
  const failure = ledger.growthFailures?.[pool.name];
  return {
    id: pool.name,
    min: pool.autoscaler.min,
    max: pool.autoscaler.max,
    target: pool.count,
    provider: { name: prov.name, type: prov.type, region: prov.region, ...(prov.zone ? { zone: prov.zone } : {}) },
    serverType: pool.serverType ?? '',
    nodes,
    template: {
      cpu: size?.vcpus ?? m.cpuCount ?? 0,
      memoryGiB: size?.memoryGiB ?? m.memory ?? 0,
      gpus,
      ...(m.nvidiaGpuType ? { gpuType: m.nvidiaGpuType } : {}),
      pods: KUBELET_MAX_PODS,
      labels,
      taints: pool.taints.map((t) => ({ key: t.key, ...(t.value !== undefined ? { value: t.value } : {}), effect: t.effect })),
    },
    ...(failure ? { lastFailure: { ...failure, retryAfter: growthAllowedAt(failure) } } : {}),
  };
}

/**
 * A growth the provider refused, carried out on the desired state: the pool keeps the machines that exist (or whose
 * creation is under way), its count falls back to them, and the failure is recorded for the autoscaler to see.
 * Returns the nodes given up.
 */
export function fallBackAfterRefusal(record: ClusterRecord, poolName: string, error: { kind: GrowthFailure['kind']; message: string }, now: number): string[] {
  const spec = record.desired;
  const pool = spec?.pools.find((p) => p.name === poolName);
  if (!spec || !pool) return [];
  const made = (name: string) => {
    const n = record.ledger.nodes[name];
    return n !== undefined && n.state !== 'requested';
  };
  const given = pool.nodes.filter((n) => !made(n.name)).map((n) => n.name);
  for (const name of given) if (record.ledger.nodes[name]?.state === 'requested') delete record.ledger.nodes[name];
  const wanted = pool.count;
  pool.nodes = pool.nodes.filter((n) => made(n.name));
  pool.count = pool.nodes.length;
  const before = record.ledger.growthFailures?.[poolName];
  record.ledger.growthFailures = {
    ...(record.ledger.growthFailures ?? {}),
    [poolName]: { kind: error.kind, message: error.message, at: now, wanted, failures: (before?.failures ?? 0) + 1 },
  };
  return given;
}

/** Whether this node's creation is an autoscaled pool growing on a built cluster (a refusal then ends the growth only). */
export function isAutoscaledGrowth(record: ClusterRecord, poolName: string, node: string): boolean {
  const built = record.current?.pools.find((p) => p.name === poolName);
  const pool = record.desired?.pools.find((p) => p.name === poolName);
  return Boolean(built && pool?.autoscaler && !built.nodes.some((n) => n.name === node));
}
