// The scheduler's filters and the volume binder, as kube-scheduler's default plugins decide (issue 14):
// - NodeUnschedulable (pkg/scheduler/framework/plugins/nodeunschedulable): a cordoned node takes only pods tolerating
//   node.kubernetes.io/unschedulable:NoSchedule; "node(s) were unschedulable".
// - TaintToleration (plugins/tainttoleration): every NoSchedule/NoExecute taint must be tolerated (PreferNoSchedule
//   never blocks); "node(s) had untolerated taint {key: value}".
// - NodeAffinity (plugins/nodeaffinity): spec.nodeSelector and requiredDuringSchedulingIgnoredDuringExecution
//   (terms ORed, expressions ANDed, In/NotIn/Exists/DoesNotExist/Gt/Lt, matchFields on metadata.name);
//   "node(s) didn't match Pod's node affinity/selector".
// - NodeResourcesFit (plugins/noderesources/fit.go): the pod's requests (sum of containers, at least each init
//   container's, plus overhead; limits stand in for missing requests as the API server defaults them) against
//   allocatable minus the requests of the node's non-terminated pods, for cpu, memory, pods and every extended
//   resource (nvidia.com/gpu); "Insufficient cpu", "Too many pods".
// - VolumeBinding (plugins/volumebinding/binder.go): a bound claim's volume node affinity must match the node ("node(s)
//   had volume node affinity conflict"); an unbound WaitForFirstConsumer claim needs the node in its class's
//   allowedTopologies, with the provisioner's node plugin registered there ("node(s) didn't find available
//   persistent volumes to bind"); a missing claim makes the pod unschedulable everywhere.
// The first failing filter per node gives its reason, as the framework stops there; the message is
// "0/<n> nodes are available: <count> <reason>, …" with the reasons sorted, then the preemption note.
import { driverOnNode, DRIVER_TOPOLOGY_KEYS, matchExpression } from './helm-controller.js';
import { milliValue, parseQuantity, QuantityError } from './quantity.js';
import { iso, obj, type Json, type KubeObject, type ObjectStore } from './store.js';

export interface TaintLike {
  key: string;
  value?: string;
  effect: string;
}

export interface Toleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
  tolerationSeconds?: number;
}

export function tolerates(tolerations: Toleration[], taint: TaintLike): boolean {
  return tolerations.some((t) => {
    if (t.effect && t.effect !== taint.effect) return false;
    if (t.operator === 'Exists') return t.key === undefined || t.key === '' || t.key === taint.key;
    return t.key === taint.key && (t.value ?? '') === (taint.value ?? '');
  });
}

function list(v: unknown): Json[] {
  return Array.isArray(v) ? v.map((x) => obj(x)).filter((x): x is Json => x !== undefined) : [];
}

/** A resource quantity as the scheduler compares it: cpu in millicores, anything else in base units; 0 when malformed. */
export function resourceAmount(resource: string, q: unknown): number {
  try {
    // cpu in millicores; everything else in base units (memory bytes, counts).
    return resource === 'cpu' ? milliValue(q as string) : parseQuantity(q as string);
  } catch (error) {
    if (error instanceof QuantityError) return 0;
    throw error;
  }
}

/** What a pod asks for (NodeResourcesFit's computePodResourceRequest), with `pods: 1`. */
export function podRequests(pod: KubeObject): Record<string, number> {
  const spec = obj(pod['spec']) ?? {};
  const of = (c: Json): Record<string, number> => {
    const resources = obj(c['resources']) ?? {};
    const requests = { ...((obj(resources['limits']) ?? {}) as Record<string, unknown>), ...((obj(resources['requests']) ?? {}) as Record<string, unknown>) };
    return Object.fromEntries(Object.entries(requests).map(([k, v]) => [k, resourceAmount(k, v)]));
  };
  const total: Record<string, number> = {};
  for (const c of list(spec['containers'])) for (const [k, v] of Object.entries(of(c))) total[k] = (total[k] ?? 0) + v;
  for (const c of list(spec['initContainers'])) for (const [k, v] of Object.entries(of(c))) total[k] = Math.max(total[k] ?? 0, v);
  for (const [k, v] of Object.entries((obj(spec['overhead']) ?? {}) as Record<string, unknown>)) total[k] = (total[k] ?? 0) + resourceAmount(k, v);
  total['pods'] = 1;
  return total;
}

export function nodeAllocatable(node: KubeObject): Record<string, number> {
  const a = (obj(obj(node['status'])?.['allocatable']) ?? {}) as Record<string, unknown>;
  return Object.fromEntries(Object.entries(a).map(([k, v]) => [k, resourceAmount(k, v)]));
}

export function terminated(pod: KubeObject): boolean {
  const phase = obj(pod['status'])?.['phase'];
  return phase === 'Succeeded' || phase === 'Failed';
}

function nodeTaints(node: KubeObject): TaintLike[] {
  return (obj(node['spec'])?.['taints'] as TaintLike[] | undefined) ?? [];
}

/** NodeAffinity's required part (and spec.nodeSelector) against a node. */
export function nodeMatches(pod: KubeObject, node: KubeObject): boolean {
  const spec = obj(pod['spec']) ?? {};
  const labels = node.metadata.labels ?? {};
  const selector = (obj(spec['nodeSelector']) ?? {}) as Record<string, string>;
  if (!Object.entries(selector).every(([k, v]) => labels[k] === v)) return false;
  const required = obj(obj(obj(spec['affinity'])?.['nodeAffinity'])?.['requiredDuringSchedulingIgnoredDuringExecution']);
  if (!required) return true;
  return termsMatch(list(required['nodeSelectorTerms']), node);
}

/** NodeSelectorTerms: ORed; an empty term matches nothing (v1helper.MatchNodeSelectorTerms). */
export function termsMatch(terms: Json[], node: KubeObject): boolean {
  const labels = node.metadata.labels ?? {};
  return terms.some((t) => {
    const exprs = list(t['matchExpressions']);
    const fields = list(t['matchFields']);
    if (exprs.length === 0 && fields.length === 0) return false;
    return (
      exprs.every((e) => matchExpression(e, labels)) &&
      fields.every((f) => f['key'] === 'metadata.name' && matchExpression({ ...f, key: 'name' }, { name: node.metadata.name }))
    );
  });
}

/** A claim a pod uses, as the binder sees it. */
interface Claim {
  pvc: KubeObject;
  pv?: KubeObject;
  storageClass?: KubeObject;
}

export type VolumeCheck = { error: string } | { claims: Claim[] };

/** The pod's PersistentVolumeClaims (a missing one is an error that keeps it Pending everywhere). */
export function podClaims(store: ObjectStore, pod: KubeObject): VolumeCheck {
  const claims: Claim[] = [];
  for (const v of list(obj(pod['spec'])?.['volumes'])) {
    const name = obj(v['persistentVolumeClaim'])?.['claimName'];
    if (typeof name !== 'string') continue;
    const pvc = store.get('persistentvolumeclaims', pod.metadata.namespace, name);
    if (!pvc) return { error: `persistentvolumeclaim "${name}" not found` };
    const volumeName = obj(pvc['spec'])?.['volumeName'];
    const pv = typeof volumeName === 'string' && volumeName !== '' ? store.get('persistentvolumes', undefined, volumeName) : undefined;
    const className = obj(pvc['spec'])?.['storageClassName'];
    const storageClass = typeof className === 'string' && className !== '' ? store.get('storageclasses', undefined, className) : undefined;
    claims.push({ pvc, ...(pv ? { pv } : {}), ...(storageClass ? { storageClass } : {}) });
  }
  return { claims };
}

/** A class's allowedTopologies against a node (v1helper.MatchTopologySelectorTerms: none means anywhere). */
function topologyAllows(storageClass: KubeObject, node: KubeObject): boolean {
  const terms = list(storageClass['allowedTopologies']);
  if (terms.length === 0) return true;
  const labels = node.metadata.labels ?? {};
  return terms.some((t) =>
    list(t['matchLabelExpressions']).every((e) => Array.isArray(e['values']) && e['values'].map(String).includes(labels[String(e['key'])] ?? '\u0000')),
  );
}

/** Whether an unbound claim can be provisioned for a pod on `node` (WaitForFirstConsumer). */
function provisionableOn(claim: Claim, node: KubeObject): boolean {
  const sc = claim.storageClass;
  if (sc?.['volumeBindingMode'] !== 'WaitForFirstConsumer') return false;
  return topologyAllows(sc, node) && driverOnNode(node, String(sc['provisioner'] ?? ''));
}

export type FilterResult = { ok: true } | { ok: false; reasons: string[]; unresolvable: boolean };

/** Runs the filters in the default profile's order; `used` is what the node's pods already request. */
export function filterNode(pod: KubeObject, node: KubeObject, used: Record<string, number>, claims: Claim[]): FilterResult {
  const tolerations = (obj(pod['spec'])?.['tolerations'] as Toleration[] | undefined) ?? [];
  if (obj(node['spec'])?.['unschedulable'] === true && !tolerates(tolerations, { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' })) {
    return { ok: false, reasons: ['node(s) were unschedulable'], unresolvable: true };
  }
  const untolerated = nodeTaints(node).find((t) => (t.effect === 'NoSchedule' || t.effect === 'NoExecute') && !tolerates(tolerations, t));
  if (untolerated) return { ok: false, reasons: [`node(s) had untolerated taint {${untolerated.key}: ${untolerated.value ?? ''}}`], unresolvable: true };
  if (!nodeMatches(pod, node)) return { ok: false, reasons: ["node(s) didn't match Pod's node affinity/selector"], unresolvable: true };
  const requests = podRequests(pod);
  const allocatable = nodeAllocatable(node);
  const insufficient: string[] = [];
  for (const [resource, want] of Object.entries(requests)) {
    if (want <= 0) continue;
    const free = (allocatable[resource] ?? 0) - (used[resource] ?? 0);
    if (want > free) insufficient.push(resource === 'pods' ? 'Too many pods' : `Insufficient ${resource}`);
  }
  if (insufficient.length > 0) return { ok: false, reasons: insufficient, unresolvable: false };
  for (const claim of claims) {
    if (claim.pv) {
      const terms = list(obj(obj(obj(claim.pv['spec'])?.['nodeAffinity'])?.['required'])?.['nodeSelectorTerms']);
      if (terms.length > 0 && !termsMatch(terms, node)) return { ok: false, reasons: ['node(s) had volume node affinity conflict'], unresolvable: true };
    } else if (!provisionableOn(claim, node)) {
      return { ok: false, reasons: ["node(s) didn't find available persistent volumes to bind"], unresolvable: true };
    }
  }
  return { ok: true };
}

/** kube-scheduler's FitError message (framework/types.go), with the preemption note of 1.28+. */
export function unschedulableMessage(total: number, failures: FilterResult[], volumeError?: string): string {
  if (volumeError !== undefined)
    return `0/${total} nodes are available: ${volumeError}. preemption: 0/${total} nodes are available: ${total} Preemption is not helpful for scheduling.`;
  const counts = new Map<string, number>();
  let helpful = 0;
  for (const f of failures) {
    if (f.ok) continue;
    for (const r of f.reasons) counts.set(r, (counts.get(r) ?? 0) + 1);
    if (!f.unresolvable) helpful += 1;
  }
  const reasons = [...counts.entries()].map(([r, n]) => `${n} ${r}`).sort();
  const preemption =
    helpful > 0
      ? `${helpful} No preemption victims found for incoming pod${total - helpful > 0 ? `, ${total - helpful} Preemption is not helpful for scheduling` : ''}`
      : `${total} Preemption is not helpful for scheduling`;
  return `0/${total} nodes are available: ${reasons.join(', ')}. preemption: 0/${total} nodes are available: ${preemption}.`;
}

/**
 * The PV controller and the CSI external-provisioner: the claims a pod bound to `node` uses get volumes, created with
 * the driver's topology on that node as their node affinity, and bound (PVC Bound, PV Bound with its claimRef).
 */
export function bindPodVolumes(store: ObjectStore, pod: KubeObject, node: KubeObject, nowMs: number): void {
  const check = podClaims(store, pod);
  if ('error' in check) return;
  for (const claim of check.claims) if (!claim.pv && claim.storageClass) provision(store, claim.pvc, claim.storageClass, node, nowMs);
}

/** Immediate-mode claims are provisioned at once, on a node where the driver runs if it reports a topology. */
export function bindImmediateClaims(store: ObjectStore, nowMs: number): void {
  for (const pvc of store.list('persistentvolumeclaims')) {
    if (obj(pvc['status'])?.['phase'] !== 'Pending' || obj(pvc['spec'])?.['volumeName']) continue;
    const className = obj(pvc['spec'])?.['storageClassName'];
    const sc = typeof className === 'string' ? store.get('storageclasses', undefined, className) : undefined;
    if (!sc || sc['volumeBindingMode'] === 'WaitForFirstConsumer') continue;
    const driver = String(sc['provisioner'] ?? '');
    if (!store.get('csidrivers', undefined, driver)) continue;
    const keys = DRIVER_TOPOLOGY_KEYS[driver] ?? [];
    const node = store.sortedList('nodes').find((n) => driverOnNode(n, driver) && topologyAllows(sc, n));
    if (keys.length > 0 && !node) continue;
    provision(store, pvc, sc, keys.length > 0 ? node : undefined, nowMs);
  }
}

function provision(store: ObjectStore, pvc: KubeObject, sc: KubeObject, node: KubeObject | undefined, nowMs: number): void {
  const driver = String(sc['provisioner'] ?? '');
  const spec = obj(pvc['spec']) ?? {};
  const storage = String(obj(obj(spec['resources'])?.['requests'])?.['storage'] ?? '1Gi');
  const name = `pvc-${String(pvc.metadata['uid'])}`;
  const keys = DRIVER_TOPOLOGY_KEYS[driver] ?? [];
  const labels = node?.metadata.labels ?? {};
  const expressions = keys.filter((k) => labels[k] !== undefined).map((k) => ({ key: k, operator: 'In', values: [labels[k]] }));
  if (!store.get('persistentvolumes', undefined, name)) {
    store.create(
      'persistentvolumes',
      {
        apiVersion: 'v1',
        kind: 'PersistentVolume',
        metadata: {
          name,
          annotations: {
            'pv.kubernetes.io/provisioned-by': driver,
            'volume.kubernetes.io/provisioner-deletion-secret-name': '',
            'volume.kubernetes.io/provisioner-deletion-secret-namespace': '',
          },
        },
        spec: {
          accessModes: spec['accessModes'] ?? ['ReadWriteOnce'],
          capacity: { storage },
          claimRef: {
            apiVersion: 'v1',
            kind: 'PersistentVolumeClaim',
            namespace: pvc.metadata.namespace,
            name: pvc.metadata.name,
            uid: pvc.metadata['uid'],
            resourceVersion: pvc.metadata.resourceVersion,
          },
          csi: {
            driver,
            volumeHandle: String(pvc.metadata['uid']),
            fsType: 'ext4',
            volumeAttributes: { 'storage.kubernetes.io/csiProvisionerIdentity': `${driver}-sandbox` },
          },
          persistentVolumeReclaimPolicy: sc['reclaimPolicy'] ?? 'Delete',
          storageClassName: sc.metadata.name,
          volumeMode: spec['volumeMode'] ?? 'Filesystem',
          ...(expressions.length > 0 ? { nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: expressions }] } } } : {}),
        },
        status: { phase: 'Bound', lastPhaseTransitionTime: iso(nowMs) },
      },
      nowMs,
    );
  }
  const annotations = {
    ...((obj(pvc.metadata['annotations']) ?? {}) as Record<string, string>),
    'pv.kubernetes.io/bind-completed': 'yes',
    'pv.kubernetes.io/bound-by-controller': 'yes',
    'volume.beta.kubernetes.io/storage-provisioner': driver,
    'volume.kubernetes.io/storage-provisioner': driver,
    ...(node && sc['volumeBindingMode'] === 'WaitForFirstConsumer' ? { 'volume.kubernetes.io/selected-node': node.metadata.name } : {}),
  };
  store.replace('persistentvolumeclaims', {
    ...pvc,
    // Not modelled: the pvc-protection and pv-protection finalizers (nothing here would take them off).
    metadata: { ...pvc.metadata, annotations },
    spec: { ...spec, volumeName: name },
    status: { phase: 'Bound', accessModes: spec['accessModes'] ?? ['ReadWriteOnce'], capacity: { storage } },
  });
}
