// A simulated cluster-autoscaler for the sandbox: every scan interval of virtual time it reads the cluster's pods and
// nodes, and talks to a cloud provider over the externalgrpc protocol (kubeplane's real adapter, over loopback gRPC)
// as the real one does. It follows cluster-autoscaler's documented behaviour (kubernetes/autoscaler
// cluster-autoscaler/FAQ.md): scale up when pods are unschedulable (PodScheduled=False, reason Unschedulable) and fit
// a node group's template; pick the group by the least-waste expander (cluster-autoscaler/expander/waste); scale down
// nodes whose requests stay below 50% of allocatable for 10 minutes and whose pods fit elsewhere, never below min and
// not within 10 minutes of a scale-up; back a group off after a failed scale-up (instances with errorInfo), 5 minutes
// doubling up to 30. It is a simulation of those rules, not of CA's code.
import type { Clock, ClockParticipant } from '@kubeplane/sdk';
import { obj, type Json, type KubeObject } from '../kubernetes/store.js';
import { add, fitsIn, nodeShape, podAllowedOn, podRequests, resourcesOf, subtract, type NodeShape, type Resources } from './fit.js';

/** The externalgrpc calls this simulation makes (the shape of kubeplane's CloudProviderClient). */
export interface AutoscalerCloudProvider {
  /** externalgrpc Refresh: called at the start of every scan. */
  refresh(): Promise<void>;
  /** externalgrpc NodeGroups: the groups the autoscaler may resize, with their bounds. */
  nodeGroups(): Promise<Array<{ id: string; minSize: number; maxSize: number }>>;
  /** externalgrpc NodeGroupForNode: the group a Node belongs to (an empty id: none). */
  nodeGroupForNode(node: { providerID?: string; name?: string }): Promise<{ id: string }>;
  /** externalgrpc NodeGroupTargetSize: the group's wanted size. */
  targetSize(id: string): Promise<number>;
  /** externalgrpc NodeGroupIncreaseSize: raises the group's target by `delta`. */
  increaseSize(id: string, delta: number): Promise<void>;
  /** externalgrpc NodeGroupDeleteNodes: removes these Nodes' machines and lowers the target. */
  deleteNodes(id: string, nodes: Array<{ providerID?: string; name?: string }>): Promise<void>;
  /** externalgrpc NodeGroupNodes: the group's instances, with their state and any creation error. */
  nodeGroupNodes(
    id: string,
  ): Promise<
    Array<{ id: string; status: { instanceState: string; errorInfo: { errorCode: string; errorMessage: string; instanceErrorClass: number } | null } }>
  >;
  /** externalgrpc NodeGroupTemplateNodeInfo: the labels, taints and allocatable of a node the group would add. */
  templateNodeInfo(id: string): Promise<{
    metadata: { labels: Record<string, string> };
    spec: { taints: Array<{ key: string; value?: string; effect: string }> };
    status: { allocatable: Record<string, { string: string }> };
  }>;
}

/** Where the simulation reads the cluster: the sandbox API server's store. */
export interface AutoscalerClusterView {
  /** Every Pod of the cluster, as the API server stores it. */
  pods(): KubeObject[];
  /** Every Node of the cluster, as the API server stores it. */
  nodes(): KubeObject[];
}

/**
 * cluster-autoscaler's defaults (FAQ.md, "What are the parameters to CA?"): --scan-interval 10s,
 * --scale-down-utilization-threshold 0.5, --scale-down-unneeded-time 10m, --scale-down-delay-after-add 10m,
 * --initial-node-group-backoff-duration 5m, --max-node-group-backoff-duration 30m, --max-empty-bulk-delete 10.
 */
export const CA_DEFAULTS = {
  scanIntervalMs: 10_000,
  utilizationThreshold: 0.5,
  unneededMs: 10 * 60_000,
  delayAfterAddMs: 10 * 60_000,
  initialBackoffMs: 5 * 60_000,
  maxBackoffMs: 30 * 60_000,
  maxEmptyBulkDelete: 10,
} as const;

/** What the simulated autoscaler decided or met, at a virtual time in ms (`at`, and `until` for a backoff). */
export type AutoscalerEvent =
  | { type: 'scale-up'; at: number; group: string; delta: number; pods: number }
  | { type: 'scale-up-failed'; at: number; group: string; message: string }
  | { type: 'backoff'; at: number; group: string; until: number; reason: string }
  | { type: 'scale-down'; at: number; group: string; nodes: string[] }
  | { type: 'error'; at: number; call: string; message: string };

/** The clock, the cloud provider to call, the cluster to read, and any of CA_DEFAULTS to change. */
export interface SimulatedAutoscalerOptions {
  clock: Clock;
  provider: AutoscalerCloudProvider;
  cluster: AutoscalerClusterView;
  settings?: Partial<typeof CA_DEFAULTS>;
}

interface GroupState {
  id: string;
  min: number;
  max: number;
  target: number;
  instances: Awaited<ReturnType<AutoscalerCloudProvider['nodeGroupNodes']>>;
}

const isPending = (p: KubeObject) => {
  const spec = obj(p['spec']) ?? {};
  if (typeof spec['nodeName'] === 'string' && spec['nodeName'] !== '') return false;
  if (p.metadata['deletionTimestamp']) return false;
  const conditions = (obj(p['status'])?.['conditions'] as Json[] | undefined) ?? [];
  return conditions.some((c) => c['type'] === 'PodScheduled' && c['status'] === 'False' && c['reason'] === 'Unschedulable');
};

const terminated = (p: KubeObject) => ['Succeeded', 'Failed'].includes(String(obj(p['status'])?.['phase'] ?? ''));
const daemonSetPod = (p: KubeObject) => ((p.metadata['ownerReferences'] as Json[] | undefined) ?? []).some((o) => o['kind'] === 'DaemonSet');
const nodeReady = (n: KubeObject) =>
  ((obj(n['status'])?.['conditions'] as Json[] | undefined) ?? []).some((c) => c['type'] === 'Ready' && c['status'] === 'True');

/**
 * A simulation of cluster-autoscaler's documented rules (scale up for unschedulable pods by least waste, scale down
 * underused nodes after 10 minutes, back off failed groups), scanning every `scanIntervalMs` of virtual time and calling
 * kubeplane's externalgrpc adapter. A clock participant of the engine's runner; `stop()` ends it.
 */
export class SimulatedClusterAutoscaler implements ClockParticipant {
  readonly events: AutoscalerEvent[] = [];
  /** externalgrpc calls made, by method: what a test counts to prove a refused group is not asked again in a loop. */
  readonly calls: Record<string, number> = {};
  readonly #o: SimulatedAutoscalerOptions;
  readonly #s: typeof CA_DEFAULTS;
  #nextScanAt: number;
  #running: Promise<void> | null = null;
  #stopped = false;
  readonly #backoff = new Map<string, { until: number; failures: number }>();
  readonly #unneededSince = new Map<string, number>();
  readonly #templates = new Map<string, NodeShape>();
  #lastScaleUpAt = Number.NEGATIVE_INFINITY;

  constructor(options: SimulatedAutoscalerOptions) {
    this.#o = options;
    this.#s = { ...CA_DEFAULTS, ...(options.settings ?? {}) };
    this.#nextScanAt = options.clock.now();
  }

  /** Stops scanning: `nextWakeAt()` is null from now on; a scan under way finishes. */
  stop(): void {
    this.#stopped = true;
  }

  nextWakeAt(): number | null {
    return this.#stopped ? null : this.#nextScanAt;
  }

  /** Runs the scans that are due at the clock's now (one per scan interval). */
  async settle(): Promise<void> {
    if (this.#running) return this.#running;
    if (this.#stopped || this.#o.clock.now() < this.#nextScanAt) return;
    this.#running = this.scan().finally(() => {
      this.#running = null;
    });
    await this.#running;
  }

  async #call<T>(name: string, fn: () => Promise<T>): Promise<T> {
    this.calls[name] = (this.calls[name] ?? 0) + 1;
    return fn();
  }

  /** One loop of the autoscaler (CA's RunOnce): refresh, read groups, back off failures, scale up, scale down. */
  async scan(): Promise<void> {
    const now = this.#o.clock.now();
    this.#nextScanAt = now + this.#s.scanIntervalMs;
    const p = this.#o.provider;
    try {
      await this.#call('Refresh', () => p.refresh());
      const groups: GroupState[] = [];
      for (const g of await this.#call('NodeGroups', () => p.nodeGroups())) {
        groups.push({
          id: g.id,
          min: g.minSize,
          max: g.maxSize,
          target: await this.#call('NodeGroupTargetSize', () => p.targetSize(g.id)),
          instances: await this.#call('NodeGroupNodes', () => p.nodeGroupNodes(g.id)),
        });
      }
      this.#registerFailures(groups, now);
      const scaledUp = await this.#scaleUp(groups, now);
      if (!scaledUp) await this.#scaleDown(groups, now);
    } catch (e) {
      this.events.push({ type: 'error', at: now, call: 'scan', message: (e as Error).message });
    }
  }

  /** Instances with errorInfo: a failed scale-up; the group is backed off (once per failure, not every scan). */
  #registerFailures(groups: GroupState[], now: number): void {
    for (const g of groups) {
      const failed = g.instances.find((i) => i.status.errorInfo?.errorCode);
      const current = this.#backoff.get(g.id);
      if (!failed || (current && now < current.until)) continue;
      const failures = (current?.failures ?? 0) + 1;
      const until = now + Math.min(this.#s.maxBackoffMs, this.#s.initialBackoffMs * 2 ** (failures - 1));
      this.#backoff.set(g.id, { until, failures });
      this.events.push({
        type: 'backoff',
        at: now,
        group: g.id,
        until,
        reason: `${failed.status.errorInfo?.errorCode}: ${failed.status.errorInfo?.errorMessage}`,
      });
    }
  }

  async #template(id: string): Promise<NodeShape> {
    const cached = this.#templates.get(id);
    if (cached) return cached;
    const t = await this.#call('NodeGroupTemplateNodeInfo', () => this.#o.provider.templateNodeInfo(id));
    const shape: NodeShape = { labels: { ...t.metadata.labels }, taints: t.spec.taints.map((x) => ({ ...x })), allocatable: resourcesOf(t.status.allocatable) };
    this.#templates.set(id, shape);
    return shape;
  }

  /**
   * Pending pods are placed first on nodes that are coming (a group's target above its registered nodes), then the
   * rest are bin-packed on new template nodes of each group that can take them; the least-waste option is asked for.
   */
  async #scaleUp(groups: GroupState[], now: number): Promise<boolean> {
    const pending = this.#o.cluster.pods().filter(isPending);
    if (pending.length === 0) return false;
    const nodesByGroup = await this.#nodesByGroup();
    let left = pending;
    // Upcoming nodes: each group's target less its Ready nodes (CA counts a registered node that is not Ready yet
    // as upcoming: pods wait for it rather than trigger another scale-up).
    for (const g of groups) {
      const upcoming = g.target - (nodesByGroup.get(g.id) ?? []).filter(nodeReady).length;
      if (upcoming <= 0) continue;
      const template = await this.#template(g.id);
      left = packOnto(left, template, upcoming).rest;
    }
    if (left.length === 0) return false;
    const options: Array<{ group: GroupState; delta: number; waste: number; pods: number }> = [];
    for (const g of groups) {
      const backoff = this.#backoff.get(g.id);
      if (backoff && now < backoff.until) continue;
      if (g.target >= g.max) continue;
      const template = await this.#template(g.id);
      const packed = packOnto(left, template, g.max - g.target);
      if (packed.nodes === 0) continue;
      options.push({ group: g, delta: packed.nodes, waste: waste(template, packed.placed, packed.nodes), pods: packed.placed.length });
    }
    // Least waste (expander/waste): the option leaving the smallest fraction of cpu and memory unused; then more pods, then name.
    options.sort((a, b) => a.waste - b.waste || b.pods - a.pods || a.group.id.localeCompare(b.group.id));
    const best = options[0];
    if (!best) return false;
    try {
      await this.#call('NodeGroupIncreaseSize', () => this.#o.provider.increaseSize(best.group.id, best.delta));
      this.#lastScaleUpAt = now;
      this.events.push({ type: 'scale-up', at: now, group: best.group.id, delta: best.delta, pods: best.pods });
      return true;
    } catch (e) {
      // A refusal (the provider's backoff, a quota): CA registers a failed scale-up and backs the group off.
      const current = this.#backoff.get(best.group.id);
      const failures = (current?.failures ?? 0) + 1;
      const until = now + Math.min(this.#s.maxBackoffMs, this.#s.initialBackoffMs * 2 ** (failures - 1));
      this.#backoff.set(best.group.id, { until, failures });
      this.events.push({ type: 'scale-up-failed', at: now, group: best.group.id, message: (e as Error).message });
      return false;
    }
  }

  async #nodesByGroup(): Promise<Map<string, KubeObject[]>> {
    const out = new Map<string, KubeObject[]>();
    for (const n of this.#o.cluster.nodes()) {
      const providerID = String(obj(n['spec'])?.['providerID'] ?? '');
      const { id } = await this.#call('NodeGroupForNode', () => this.#o.provider.nodeGroupForNode({ providerID, name: n.metadata.name }));
      if (!id) continue;
      out.set(id, [...(out.get(id) ?? []), n]);
    }
    return out;
  }

  /** Nodes below the utilization threshold whose pods fit elsewhere, unneeded long enough, are deleted (never below min). */
  async #scaleDown(groups: GroupState[], now: number): Promise<void> {
    if (now - this.#lastScaleUpAt < this.#s.delayAfterAddMs) return;
    const nodes = this.#o.cluster.nodes();
    const pods = this.#o.cluster.pods().filter((p) => !terminated(p));
    const onNode = (name: string) => pods.filter((p) => obj(p['spec'])?.['nodeName'] === name);
    const free = new Map(nodes.map((n) => [n.metadata.name, onNode(n.metadata.name).reduce((f, p) => subtract(f, podRequests(p)), nodeShape(n).allocatable)]));
    const byGroup = await this.#nodesByGroup();
    const candidates: Array<{ group: GroupState; node: KubeObject; empty: boolean }> = [];
    const seen = new Set<string>();
    for (const g of groups) {
      for (const n of byGroup.get(g.id) ?? []) {
        const name = n.metadata.name;
        seen.add(name);
        if (!nodeReady(n) || obj(n['spec'])?.['unschedulable'] === true) continue;
        const shape = nodeShape(n);
        const moving = onNode(name).filter((p) => !daemonSetPod(p));
        const used = onNode(name).reduce<Resources>((u, p) => add(u, podRequests(p)), {});
        const utilization = Math.max((used['cpu'] ?? 0) / (shape.allocatable['cpu'] || 1), (used['memory'] ?? 0) / (shape.allocatable['memory'] || 1));
        // Its pods must fit on the other nodes (first fit, as the scheduler simulation would place them).
        const others = nodes.filter((o) => o.metadata.name !== name && nodeReady(o) && obj(o['spec'])?.['unschedulable'] !== true);
        const room = new Map(others.map((o) => [o.metadata.name, { ...(free.get(o.metadata.name) ?? {}) }]));
        const placeable = moving.every((p) => {
          const target = others.find((o) => podAllowedOn(p, nodeShape(o)) && fitsIn(podRequests(p), room.get(o.metadata.name) ?? {}));
          if (!target) return false;
          room.set(target.metadata.name, subtract(room.get(target.metadata.name) ?? {}, podRequests(p)));
          return true;
        });
        if (utilization >= this.#s.utilizationThreshold || !placeable) {
          this.#unneededSince.delete(name);
          continue;
        }
        const since = this.#unneededSince.get(name) ?? now;
        this.#unneededSince.set(name, since);
        if (now - since >= this.#s.unneededMs) candidates.push({ group: g, node: n, empty: moving.length === 0 });
      }
    }
    for (const name of [...this.#unneededSince.keys()]) if (!seen.has(name)) this.#unneededSince.delete(name);
    // Empty nodes go in bulk (up to --max-empty-bulk-delete), a node with pods one at a time; never below a group's min.
    const empty = candidates.filter((c) => c.empty);
    const chosen = empty.length > 0 ? empty.slice(0, this.#s.maxEmptyBulkDelete) : candidates.slice(0, 1);
    const perGroup = new Map<string, KubeObject[]>();
    for (const c of chosen) {
      const already = perGroup.get(c.group.id) ?? [];
      if (c.group.target - already.length - 1 < c.group.min) continue;
      perGroup.set(c.group.id, [...already, c.node]);
    }
    for (const [id, list] of perGroup) {
      try {
        await this.#call('NodeGroupDeleteNodes', () =>
          this.#o.provider.deleteNodes(
            id,
            list.map((n) => ({ providerID: String(obj(n['spec'])?.['providerID'] ?? ''), name: n.metadata.name })),
          ),
        );
        for (const n of list) this.#unneededSince.delete(n.metadata.name);
        this.events.push({ type: 'scale-down', at: now, group: id, nodes: list.map((n) => n.metadata.name) });
      } catch (e) {
        this.events.push({ type: 'error', at: now, call: 'NodeGroupDeleteNodes', message: (e as Error).message });
      }
    }
  }
}

/** First-fit bin packing of the pods that may run on `template` onto at most `limit` new nodes of it. */
function packOnto(pods: KubeObject[], template: NodeShape, limit: number): { nodes: number; placed: KubeObject[]; rest: KubeObject[] } {
  const bins: Resources[] = [];
  const placed: KubeObject[] = [];
  const rest: KubeObject[] = [];
  for (const p of pods) {
    const req = podRequests(p);
    if (!podAllowedOn(p, template) || !fitsIn(req, template.allocatable)) {
      rest.push(p);
      continue;
    }
    let at = bins.findIndex((free) => fitsIn(req, free));
    if (at === -1 && bins.length < limit) {
      bins.push({ ...template.allocatable });
      at = bins.length - 1;
    }
    if (at === -1) {
      rest.push(p);
      continue;
    }
    bins[at] = subtract(bins[at] ?? {}, req);
    placed.push(p);
  }
  return { nodes: bins.length, placed, rest };
}

/** expander/waste's score: unused cpu fraction + unused memory fraction of the new nodes. */
function waste(template: NodeShape, pods: KubeObject[], nodes: number): number {
  const total = (k: string) => (template.allocatable[k] ?? 0) * nodes;
  const asked = (k: string) => pods.reduce((s, p) => s + (podRequests(p)[k] ?? 0), 0);
  const frac = (k: string) => (total(k) > 0 ? (total(k) - asked(k)) / total(k) : 0);
  return frac('cpu') + frac('memory');
}
