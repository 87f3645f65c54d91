// One emulated cluster's API server and the controllers the engine's calls depend on: the REST verbs over the
// object store, Deployments -> pods, a scheduler honouring taints and cordons, evictions honouring
// PodDisruptionBudgets, and the node lifecycle (Ready, unreachable, taint-based eviction, pod GC on delete).
import { createHash } from 'node:crypto';
import { matchesLabelSelector } from '../label-selector.js';
import { KUBE_TIMINGS } from './timings.js';
import {
  ApiError,
  clone,
  conflict,
  invalid,
  iso,
  notFound,
  obj,
  ObjectStore,
  RESOURCES,
  resourceVersion,
  type ObjectStoreState,
  validName,
  validPathSegmentName,
  type Json,
  type KubeObject,
  type Resource,
} from './store.js';

/** What a cluster's controllers schedule for later; data, so a pending schedule can be saved (sandbox snapshots). */
export type ClusterEvent =
  /** Taint-based eviction from a node that stayed unreachable. */
  | { kind: 'evict-unreachable'; node: string; uid: string }
  /** A bound pod's containers have started. */
  | { kind: 'pod-start'; namespace?: string; name: string; uid: string };

export type Schedule = (atMs: number, event: ClusterEvent) => void;

/** A cluster API's state beyond its identity, as plain data. */
export interface ClusterApiState {
  store: ObjectStoreState;
  podSeq: number;
}

export interface TaintLike {
  key: string;
  value?: string;
  effect: string;
}

interface Toleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
  tolerationSeconds?: number;
}

export const NOT_READY_TAINT = 'node.kubernetes.io/not-ready';
export const UNREACHABLE_TAINT = 'node.kubernetes.io/unreachable';
const SYSTEM_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

function labelsOf(o: KubeObject): Record<string, string> {
  return o.metadata.labels ?? {};
}

function matchLabels(selector: unknown, labels: Record<string, string>): boolean {
  const s = obj(selector);
  const match = obj(s?.['matchLabels']) ?? {};
  return Object.entries(match).every(([k, v]) => labels[k] === v);
}

function tolerates(tolerations: Toleration[], taint: TaintLike): boolean {
  return tolerations.some((t) => {
    if (t.effect && t.effect !== taint.effect) return false;
    if (t.operator === 'Exists') return t.key === undefined || t.key === '' || t.key === taint.key;
    return t.key === taint.key && (t.value ?? '') === (taint.value ?? '');
  });
}

function podReady(pod: KubeObject): boolean {
  const conditions = (obj(pod['status'])?.['conditions'] as Json[] | undefined) ?? [];
  return conditions.some((c) => c['type'] === 'Ready' && c['status'] === 'True');
}

function podNode(pod: KubeObject): string | undefined {
  const n = obj(pod['spec'])?.['nodeName'];
  return typeof n === 'string' && n !== '' ? n : undefined;
}

function ownerKind(pod: KubeObject): string | undefined {
  const refs = (pod.metadata['ownerReferences'] as Json[] | undefined) ?? [];
  return refs[0]?.['kind'] as string | undefined;
}

function nodeTaints(node: KubeObject): TaintLike[] {
  return ((obj(node['spec'])?.['taints'] as TaintLike[] | undefined) ?? []).slice();
}

function nodeReady(node: KubeObject): boolean {
  const conditions = (obj(node['status'])?.['conditions'] as Json[] | undefined) ?? [];
  return conditions.some((c) => c['type'] === 'Ready' && c['status'] === 'True');
}

/** RFC 7386 JSON merge patch. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  const p = obj(patch);
  if (!p) return clone(patch);
  const out: Json = { ...(obj(target) ?? {}) };
  for (const [k, v] of Object.entries(p)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

/** Lists whose items a strategic merge patch merges by a key (the patchMergeKey in the Kubernetes types). */
const MERGE_KEYS: Record<string, string> = { containers: 'name', initContainers: 'name', volumes: 'name', env: 'name', volumeMounts: 'mountPath', ports: 'containerPort', imagePullSecrets: 'name' };

/** A strategic merge patch, for the lists the engine patches; other lists are replaced as in a merge patch. */
export function strategicMergePatch(target: unknown, patch: unknown): unknown {
  const p = obj(patch);
  if (!p) return clone(patch);
  const out: Json = { ...(obj(target) ?? {}) };
  for (const [k, v] of Object.entries(p)) {
    if (v === null) {
      delete out[k];
      continue;
    }
    const mergeKey = MERGE_KEYS[k];
    if (mergeKey && Array.isArray(v) && Array.isArray(out[k])) {
      const merged = (out[k] as unknown[]).map((item) => clone(item));
      for (const patchItem of v) {
        const pi = obj(patchItem);
        const idx = pi ? merged.findIndex((m) => obj(m)?.[mergeKey] === pi[mergeKey]) : -1;
        if (pi && pi['$patch'] === 'delete') {
          if (idx >= 0) merged.splice(idx, 1);
        } else if (idx >= 0) merged[idx] = strategicMergePatch(merged[idx], patchItem);
        else merged.push(clone(patchItem));
      }
      out[k] = merged;
    } else out[k] = strategicMergePatch(out[k], v);
  }
  return out;
}

function templateHash(template: unknown): string {
  // Kubernetes uses FNV-32a of the template, rendered in a "safe" alphabet; any stable short hash does here.
  const hex = createHash('sha256').update(JSON.stringify(template ?? {})).digest('hex');
  const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
  let n = BigInt(`0x${hex.slice(0, 15)}`);
  let out = '';
  for (let i = 0; i < 10; i++) {
    out += alphabet[Number(n % 27n)];
    n /= 27n;
  }
  return out;
}

export interface ClusterIdentity {
  name: string;
  /** `host:port` */
  endpoint: string;
  kubernetesVersion: string;
  caPem: string;
  /** A managed control plane's serving certificate and key (kubeadm clusters keep theirs in user-data). A key: never logged. */
  serving?: { certPem: string; keyPem: string };
}

export interface RegisterNode {
  name: string;
  labels: Record<string, string>;
  taints: TaintLike[];
  internalIp?: string;
  providerId?: string;
  kubeletVersion: string;
  arch: string;
  controlPlane: boolean;
}

export class ClusterApi {
  readonly store: ObjectStore;
  readonly identity: ClusterIdentity;
  readonly #schedule: Schedule;
  #podSeq = 0;

  constructor(identity: ClusterIdentity, schedule: Schedule, nowMs: number) {
    this.identity = identity;
    this.#schedule = schedule;
    this.store = new ObjectStore(createHash('sha256').update(identity.endpoint).digest('hex').slice(0, 8));
    for (const ns of SYSTEM_NAMESPACES) this.store.create('namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns }, status: { phase: 'Active' } }, nowMs);
  }

  // ---- REST verbs -------------------------------------------------------------------------------------------

  #requireNamespace(resource: Resource, namespace: string | undefined): void {
    if (!RESOURCES[resource].namespaced) return;
    if (!namespace || !this.store.get('namespaces', undefined, namespace)) throw notFound('namespaces', namespace ?? '');
  }

  get(resource: Resource, namespace: string | undefined, name: string): KubeObject {
    this.#requireNamespace(resource, namespace);
    const found = this.store.get(resource, RESOURCES[resource].namespaced ? namespace : undefined, name);
    if (!found) throw notFound(resource, name);
    return found;
  }

  list(resource: Resource, namespace: string | undefined, labelSelector?: string, fieldSelector?: string): KubeObject[] {
    let items = this.store.sortedList(resource, namespace);
    if (labelSelector) items = items.filter((o) => matchesLabelSelector(labelsOf(o), labelSelector));
    if (fieldSelector) {
      const clauses = fieldSelector.split(',').map((c) => c.trim()).filter((c) => c.length > 0);
      items = items.filter((o) =>
        clauses.every((clause) => {
          const ne = clause.includes('!=');
          const [field, value] = ne ? clause.split('!=') : clause.split(/==?/);
          const actual = fieldValue(o, field ?? '');
          if (actual === null) throw new ApiError(400, 'BadRequest', `"${field ?? ''}" is not a known field selector: only "metadata.name", "metadata.namespace", "spec.nodeName", "status.phase"`);
          return ne ? actual !== value : actual === value;
        }),
      );
    }
    return items;
  }

  create(resource: Resource, namespace: string | undefined, body: Json, nowMs: number): KubeObject {
    const metadata = obj(body['metadata']) ?? {};
    const name = typeof metadata['name'] === 'string' ? metadata['name'] : '';
    if (RESOURCES[resource].namespaced) {
      if (metadata['namespace'] !== undefined && metadata['namespace'] !== namespace) {
        throw new ApiError(400, 'BadRequest', 'the namespace of the provided object does not match the namespace sent on the request');
      }
    }
    if (resource === 'roles' || resource === 'rolebindings') {
      if (!validPathSegmentName(name)) throw invalid(resource, name, 'metadata.name', `Invalid value: "${name}": may not be '.' or '..' and may not contain '/' or '%'`);
    } else if (!validName(name)) throw invalid(resource, name, 'metadata.name', `Invalid value: "${name}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.'`);
    this.#requireNamespace(resource, namespace);
    const prepared = this.#prepare(resource, { ...body, metadata: { ...metadata, name, ...(RESOURCES[resource].namespaced ? { namespace } : {}) } } as KubeObject, null);
    delete prepared.metadata['resourceVersion'];
    const created = this.store.create(resource, prepared, nowMs);
    this.reconcile(nowMs);
    return created;
  }

  replace(resource: Resource, namespace: string | undefined, name: string, body: Json, nowMs: number): KubeObject {
    const current = this.get(resource, namespace, name);
    const metadata = obj(body['metadata']) ?? {};
    if (metadata['name'] !== name) throw new ApiError(400, 'BadRequest', `the name of the object (${String(metadata['name'])}) does not match the name on the URL (${name})`);
    const rv = metadata['resourceVersion'];
    if (rv !== undefined && rv !== current.metadata.resourceVersion) throw conflict(resource, name);
    const next = this.#prepare(resource, { ...body, metadata: { ...metadata, ...(RESOURCES[resource].namespaced ? { namespace } : {}) } } as KubeObject, current);
    const stored = this.store.replace(resource, next, { bumpGeneration: JSON.stringify(current['spec']) !== JSON.stringify(next['spec']) });
    this.reconcile(nowMs);
    return stored;
  }

  patch(resource: Resource, namespace: string | undefined, name: string, patch: unknown, contentType: string, nowMs: number): KubeObject {
    const current = this.get(resource, namespace, name);
    let merged: unknown;
    if (contentType.startsWith('application/merge-patch+json')) merged = mergePatch(current, patch);
    else if (contentType.startsWith('application/strategic-merge-patch+json')) merged = strategicMergePatch(current, patch);
    else throw new ApiError(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: application/merge-patch+json, application/strategic-merge-patch+json`);
    const next = obj(merged) as KubeObject;
    next.metadata = { ...(obj(next.metadata) as KubeObject['metadata']), name, ...(RESOURCES[resource].namespaced ? { namespace } : {}) };
    const rv = obj(obj(patch)?.['metadata'])?.['resourceVersion'];
    if (rv !== undefined && rv !== current.metadata.resourceVersion) throw conflict(resource, name);
    const prepared = this.#prepare(resource, next, current);
    const stored = this.store.replace(resource, prepared, { bumpGeneration: JSON.stringify(current['spec']) !== JSON.stringify(prepared['spec']) });
    this.reconcile(nowMs);
    return stored;
  }

  delete(resource: Resource, namespace: string | undefined, name: string, nowMs: number): KubeObject {
    const current = this.get(resource, namespace, name);
    this.store.delete(resource, RESOURCES[resource].namespaced ? namespace : undefined, name);
    if (resource === 'nodes') {
      // The pod garbage collector removes pods bound to a node that no longer exists.
      for (const pod of this.store.list('pods')) if (podNode(pod) === name) this.store.delete('pods', pod.metadata.namespace, pod.metadata.name);
    }
    if (resource === 'namespaces') {
      for (const r of Object.keys(RESOURCES) as Resource[]) {
        if (!RESOURCES[r].namespaced) continue;
        for (const o of this.store.list(r, name)) this.store.delete(r, name, o.metadata.name);
      }
    }
    this.reconcile(nowMs);
    return current;
  }

  /** Validation and defaulting per resource, as the API server's registry strategies do. */
  #prepare(resource: Resource, next: KubeObject, current: KubeObject | null): KubeObject {
    const name = next.metadata.name;
    const labels = next.metadata.labels;
    if (labels !== undefined && (!obj(labels) || Object.values(labels).some((v) => typeof v !== 'string'))) {
      throw invalid(resource, name, 'metadata.labels', 'label values must be strings');
    }
    switch (resource) {
      case 'secrets': {
        const data: Record<string, string> = {};
        const raw = obj(next['data']) ?? {};
        for (const [k, v] of Object.entries(raw)) {
          if (typeof v !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(v) || v.length % 4 !== 0) {
            // The decoder's message names the key, never the value.
            throw new ApiError(400, 'BadRequest', `Secret in version "v1" cannot be handled as a Secret: illegal base64 data in data[${JSON.stringify(k)}]`);
          }
          data[k] = v;
        }
        for (const [k, v] of Object.entries(obj(next['stringData']) ?? {})) data[k] = Buffer.from(String(v), 'utf8').toString('base64');
        const type = typeof next['type'] === 'string' && next['type'] !== '' ? next['type'] : 'Opaque';
        const currentType = current ? (current['type'] as string | undefined) : undefined;
        if (currentType !== undefined && currentType !== type) throw invalid('secrets', name, 'type', `Invalid value: "${type}": field is immutable`);
        const out: KubeObject = { ...next, apiVersion: 'v1', kind: 'Secret', type, data };
        delete out['stringData'];
        return out;
      }
      case 'configmaps': {
        const data = obj(next['data']) ?? {};
        if (Object.values(data).some((v) => typeof v !== 'string')) throw invalid('configmaps', name, 'data', 'values must be strings');
        return { ...next, apiVersion: 'v1', kind: 'ConfigMap', data };
      }
      case 'nodes': {
        const spec = obj(next['spec']) ?? {};
        const taints = spec['taints'];
        if (taints !== undefined && taints !== null) {
          if (!Array.isArray(taints)) throw invalid('nodes', name, 'spec.taints', 'must be a list');
          for (const [i, t] of taints.entries()) {
            const to = obj(t);
            if (!to || typeof to['key'] !== 'string' || !['NoSchedule', 'PreferNoSchedule', 'NoExecute'].includes(String(to['effect']))) {
              throw invalid('nodes', name, `spec.taints[${i}].effect`, 'Unsupported value: supported values: "NoExecute", "NoSchedule", "PreferNoSchedule"');
            }
          }
        }
        // The kubelet owns the status; a patch from a client cannot change it through the main resource.
        return { ...next, apiVersion: 'v1', kind: 'Node', status: current ? current['status'] : next['status'] };
      }
      case 'deployments': {
        const spec = obj(next['spec']);
        const template = obj(spec?.['template']);
        const podLabels = (obj(obj(template?.['metadata'])?.['labels']) ?? {}) as Record<string, string>;
        if (!spec || !template) throw invalid('deployments', name, 'spec.template', 'Required value');
        if (!matchLabels(spec['selector'], podLabels) || Object.keys(obj(obj(spec['selector'])?.['matchLabels']) ?? {}).length === 0) {
          throw invalid('deployments', name, 'spec.template.metadata.labels', 'Invalid value: `selector` does not match template `labels`');
        }
        const containers = obj(template['spec'])?.['containers'];
        if (!Array.isArray(containers) || containers.length === 0) throw invalid('deployments', name, 'spec.template.spec.containers', 'Required value');
        const replicas = spec['replicas'] === undefined ? 1 : spec['replicas'];
        return { ...next, apiVersion: 'apps/v1', kind: 'Deployment', spec: { ...spec, replicas }, status: current ? current['status'] : {} };
      }
      case 'poddisruptionbudgets':
        return { ...next, apiVersion: 'policy/v1', kind: 'PodDisruptionBudget' };
      case 'namespaces':
        return { ...next, apiVersion: 'v1', kind: 'Namespace', status: { phase: 'Active' } };
      case 'pods':
        return { ...next, apiVersion: 'v1', kind: 'Pod', status: current ? current['status'] : { phase: 'Pending' } };
      case 'roles':
      case 'rolebindings':
      case 'ciliumclusterwidenetworkpolicies':
        return { ...next, apiVersion: `${RESOURCES[resource].group}/${resourceVersion(resource)}`, kind: RESOURCES[resource].kind };
    }
  }

  // ---- evictions and PodDisruptionBudgets -------------------------------------------------------------------

  #budgetsFor(pod: KubeObject): KubeObject[] {
    return this.store.list('poddisruptionbudgets', pod.metadata.namespace).filter((pdb) => matchLabels(obj(pdb['spec'])?.['selector'], labelsOf(pod)));
  }

  /** currentHealthy, desiredHealthy and disruptionsAllowed of a budget, as the disruption controller computes them. */
  budgetStatus(pdb: KubeObject): { currentHealthy: number; desiredHealthy: number; expectedPods: number; disruptionsAllowed: number } {
    const spec = obj(pdb['spec']) ?? {};
    const pods = this.store.list('pods', pdb.metadata.namespace).filter((p) => matchLabels(spec['selector'], labelsOf(p)));
    const expectedPods = pods.length;
    const currentHealthy = pods.filter(podReady).length;
    const resolve = (v: unknown): number => {
      if (typeof v === 'number') return v;
      if (typeof v === 'string' && v.endsWith('%')) return Math.ceil((Number(v.slice(0, -1)) / 100) * expectedPods);
      return Number(v ?? 0);
    };
    let desiredHealthy = 0;
    if (spec['minAvailable'] !== undefined) desiredHealthy = resolve(spec['minAvailable']);
    else if (spec['maxUnavailable'] !== undefined) desiredHealthy = Math.max(0, expectedPods - resolve(spec['maxUnavailable']));
    return { currentHealthy, desiredHealthy, expectedPods, disruptionsAllowed: Math.max(0, currentHealthy - desiredHealthy) };
  }

  evict(namespace: string, name: string, nowMs: number): void {
    const pod = this.get('pods', namespace, name);
    const budgets = this.#budgetsFor(pod);
    if (budgets.length > 1) {
      throw new ApiError(500, 'InternalError', 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.');
    }
    const budget = budgets[0];
    const phase = obj(pod['status'])?.['phase'];
    // Pods that are not running (or already failed or succeeded) never count against a budget.
    if (budget && phase === 'Running') {
      const status = this.budgetStatus(budget);
      const allowed = podReady(pod) ? status.disruptionsAllowed > 0 : status.currentHealthy >= status.desiredHealthy;
      if (!allowed) {
        throw new ApiError(429, 'TooManyRequests', "Cannot evict pod as it would violate the pod's disruption budget.", {
          causes: [{ reason: 'DisruptionBudget', message: `The disruption budget ${budget.metadata.name} needs ${status.desiredHealthy} healthy pods and has ${status.currentHealthy} currently` }],
        });
      }
    }
    // Graceful termination is not modelled: an evicted pod is gone at once and its controller replaces it.
    this.store.delete('pods', namespace, name);
    this.reconcile(nowMs);
  }

  // ---- the node lifecycle, driven by the simulated kubelets --------------------------------------------------

  registerNode(input: RegisterNode, nowMs: number): KubeObject {
    const existing = this.store.get('nodes', undefined, input.name);
    const labels: Record<string, string> = {
      'beta.kubernetes.io/arch': input.arch,
      'beta.kubernetes.io/os': 'linux',
      'kubernetes.io/arch': input.arch,
      'kubernetes.io/hostname': input.name,
      'kubernetes.io/os': 'linux',
      ...input.labels,
    };
    if (input.controlPlane) {
      // kubeadm's mark-control-plane phase.
      labels['node-role.kubernetes.io/control-plane'] = '';
      labels['node.kubernetes.io/exclude-from-external-load-balancers'] = '';
    }
    const taints = [...input.taints.filter((t) => t.key !== NOT_READY_TAINT), { key: NOT_READY_TAINT, effect: 'NoSchedule' }];
    const node: KubeObject = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name: input.name,
        labels,
        annotations: {
          'kubeadm.alpha.kubernetes.io/cri-socket': 'unix:///run/containerd/containerd.sock',
          'node.alpha.kubernetes.io/ttl': '0',
          'volumes.kubernetes.io/controller-managed-attach-detach': 'true',
        },
      },
      spec: { taints, ...(input.providerId ? { providerID: input.providerId } : {}) },
      status: {
        conditions: [
          {
            type: 'Ready',
            status: 'False',
            reason: 'KubeletNotReady',
            message: 'container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized',
            lastHeartbeatTime: iso(nowMs),
            lastTransitionTime: iso(nowMs),
          },
        ],
        addresses: [...(input.internalIp ? [{ type: 'InternalIP', address: input.internalIp }] : []), { type: 'Hostname', address: input.name }],
        nodeInfo: { kubeletVersion: input.kubeletVersion, architecture: input.arch, operatingSystem: 'linux', containerRuntimeVersion: 'containerd://1.7.24' },
      },
    };
    const stored = existing ? this.store.replace('nodes', { ...node, metadata: { ...node.metadata, resourceVersion: existing.metadata.resourceVersion } }) : this.store.create('nodes', node, nowMs);
    // Cilium's agent (a DaemonSet pod) starts on every node; it is what makes the node Ready.
    this.#createPod(
      {
        name: `cilium-${templateHash(input.name).slice(0, 5)}`,
        namespace: 'kube-system',
        labels: { 'k8s-app': 'cilium' },
        owner: { kind: 'DaemonSet', name: 'cilium' },
        node: input.name,
        tolerations: [{ operator: 'Exists' }],
        container: { name: 'cilium-agent', image: 'quay.io/cilium/cilium' },
      },
      nowMs,
    );
    if (input.controlPlane) {
      for (const component of ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler']) {
        this.#createPod(
          {
            name: `${component}-${input.name}`,
            namespace: 'kube-system',
            labels: { component, tier: 'control-plane' },
            owner: { kind: 'Node', name: input.name },
            node: input.name,
            tolerations: [{ operator: 'Exists', effect: 'NoExecute' }],
            container: { name: component, image: `registry.k8s.io/${component}` },
            mirror: true,
          },
          nowMs,
        );
      }
    }
    this.reconcile(nowMs);
    return stored;
  }

  #setNodeCondition(name: string, status: 'True' | 'False' | 'Unknown', reason: string, message: string, atMs: number, taints: (t: TaintLike[]) => TaintLike[]): void {
    const node = this.store.get('nodes', undefined, name);
    if (!node) return;
    const s = obj(node['status']) ?? {};
    const conditions = ((s['conditions'] as Json[] | undefined) ?? []).filter((c) => c['type'] !== 'Ready');
    const previous = ((s['conditions'] as Json[] | undefined) ?? []).find((c) => c['type'] === 'Ready');
    const changed = previous?.['status'] !== status;
    conditions.push({
      type: 'Ready',
      status,
      reason,
      message,
      lastHeartbeatTime: iso(atMs),
      lastTransitionTime: changed ? iso(atMs) : (previous?.['lastTransitionTime'] ?? iso(atMs)),
    });
    const spec = obj(node['spec']) ?? {};
    this.store.replace('nodes', { ...node, spec: { ...spec, taints: taints(nodeTaints(node)) }, status: { ...s, conditions } });
  }

  /** The kubelet restarted at another version (an in-place upgrade): what the Node reports from then on. */
  setKubeletVersion(name: string, version: string): void {
    const node = this.store.get('nodes', undefined, name);
    if (!node) return;
    const s = obj(node['status']) ?? {};
    this.store.replace('nodes', { ...node, status: { ...s, nodeInfo: { ...(obj(s['nodeInfo']) ?? {}), kubeletVersion: version } } });
  }

  /** The CNI is up on the node: Ready, and its DaemonSet pods with it. */
  setNodeReady(name: string, atMs: number): void {
    this.#setNodeCondition(name, 'True', 'KubeletReady', 'kubelet is posting ready status', atMs, (t) => t.filter((x) => x.key !== NOT_READY_TAINT && x.key !== UNREACHABLE_TAINT));
    for (const pod of this.store.list('pods')) {
      if (podNode(pod) !== name) continue;
      const kind = ownerKind(pod);
      if (kind === 'DaemonSet' || kind === 'Node') this.#setPodRunning(pod, atMs);
      else if (!podReady(pod)) this.#startPod(pod, atMs);
    }
    this.reconcile(atMs);
  }

  /** The kubelet stopped posting status (its machine is gone): the node lifecycle controller's view. */
  markNodeUnreachable(name: string, atMs: number): void {
    const node = this.store.get('nodes', undefined, name);
    if (!node) return;
    this.#setNodeCondition(name, 'Unknown', 'NodeStatusUnknown', 'Kubelet stopped posting node status.', atMs, (t) => [
      ...t.filter((x) => x.key !== NOT_READY_TAINT && x.key !== UNREACHABLE_TAINT),
      { key: UNREACHABLE_TAINT, effect: 'NoSchedule' },
      { key: UNREACHABLE_TAINT, effect: 'NoExecute' },
    ]);
    for (const pod of this.store.list('pods')) if (podNode(pod) === name) this.#setPodReady(pod, false, atMs);
    this.#schedule(atMs + KUBE_TIMINGS.unreachableEvictionMs, { kind: 'evict-unreachable', node: name, uid: String(node.metadata['uid']) });
  }

  /** Runs what a controller scheduled (the event queue calls this when its time has come). */
  runEvent(event: ClusterEvent, at: number): void {
    switch (event.kind) {
      case 'evict-unreachable':
        return this.#evictUnreachable(event.node, event.uid, at);
      case 'pod-start':
        return this.#podStarted(event.namespace, event.name, event.uid, at);
    }
  }

  #evictUnreachable(name: string, uid: string, at: number): void {
    const still = this.store.get('nodes', undefined, name);
    if (!still || still.metadata['uid'] !== uid || nodeReady(still)) return;
    // Taint-based eviction: pods without a toleration for the unreachable NoExecute taint are deleted.
    for (const pod of this.store.list('pods')) {
      if (podNode(pod) !== name) continue;
      const tolerations = (obj(pod['spec'])?.['tolerations'] as Toleration[] | undefined) ?? [];
      const forever = tolerations.some((t) => tolerates([t], { key: UNREACHABLE_TAINT, effect: 'NoExecute' }) && t.tolerationSeconds === undefined);
      if (!forever) this.store.delete('pods', pod.metadata.namespace, pod.metadata.name);
    }
    this.reconcile(at);
  }

  state(): ClusterApiState {
    return { store: this.store.state(), podSeq: this.#podSeq };
  }

  restore(state: ClusterApiState): void {
    this.store.restore(state.store);
    this.#podSeq = state.podSeq;
  }

  // ---- pods, Deployments and the scheduler ------------------------------------------------------------------

  #createPod(
    p: { name: string; namespace: string; labels: Record<string, string>; owner: { kind: string; name: string }; node?: string; tolerations: Toleration[]; container: Json; mirror?: boolean },
    nowMs: number,
  ): KubeObject {
    const existing = this.store.get('pods', p.namespace, p.name);
    if (existing) this.store.delete('pods', p.namespace, p.name);
    return this.store.create(
      'pods',
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {
          name: p.name,
          namespace: p.namespace,
          labels: p.labels,
          ownerReferences: [{ apiVersion: p.owner.kind === 'Node' ? 'v1' : 'apps/v1', kind: p.owner.kind, name: p.owner.name, controller: true }],
          ...(p.mirror ? { annotations: { 'kubernetes.io/config.mirror': templateHash(p.name) } } : {}),
        },
        spec: { ...(p.node ? { nodeName: p.node } : {}), containers: [p.container], tolerations: p.tolerations },
        status: { phase: 'Pending', conditions: [{ type: 'Ready', status: 'False' }] },
      },
      nowMs,
    );
  }

  #setPodReady(pod: KubeObject, ready: boolean, atMs: number): void {
    const status = obj(pod['status']) ?? {};
    const conditions = ((status['conditions'] as Json[] | undefined) ?? []).filter((c) => c['type'] !== 'Ready');
    conditions.push({ type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: iso(atMs) });
    this.store.replace('pods', { ...pod, status: { ...status, conditions } });
  }

  #setPodRunning(pod: KubeObject, atMs: number): void {
    const status = obj(pod['status']) ?? {};
    this.store.replace('pods', {
      ...pod,
      status: { ...status, phase: 'Running', startTime: status['startTime'] ?? iso(atMs), conditions: [{ type: 'PodScheduled', status: 'True' }, { type: 'Ready', status: 'True', lastTransitionTime: iso(atMs) }] },
    });
  }

  /** A bound pod starts once its node is Ready: Running and Ready after the pod start time. */
  #startPod(pod: KubeObject, atMs: number): void {
    const namespace = pod.metadata.namespace;
    this.#schedule(atMs + KUBE_TIMINGS.podStartMs, { kind: 'pod-start', ...(namespace !== undefined ? { namespace } : {}), name: pod.metadata.name, uid: String(pod.metadata['uid']) });
  }

  #podStarted(namespace: string | undefined, name: string, uid: string, at: number): void {
    const current = this.store.get('pods', namespace, name);
    if (!current || current.metadata['uid'] !== uid) return;
    const node = podNode(current);
    const n = node ? this.store.get('nodes', undefined, node) : undefined;
    if (!n || !nodeReady(n)) return;
    this.#setPodRunning(current, at);
    this.reconcile(at);
  }

  /** The Deployment controller (as ReplicaSets would), the scheduler and Deployment status. */
  reconcile(nowMs: number): void {
    for (const deployment of this.store.list('deployments')) this.#reconcileDeployment(deployment, nowMs);
    this.#schedulePending(nowMs);
    for (const deployment of this.store.list('deployments')) this.#deploymentStatus(deployment);
  }

  #ownedPods(deployment: KubeObject): KubeObject[] {
    return this.store.list('pods', deployment.metadata.namespace).filter((p) => {
      const refs = (p.metadata['ownerReferences'] as Json[] | undefined) ?? [];
      return refs.some((r) => r['kind'] === 'ReplicaSet' && typeof r['name'] === 'string' && r['name'].length === deployment.metadata.name.length + 11 && r['name'].startsWith(`${deployment.metadata.name}-`));
    });
  }

  #reconcileDeployment(deployment: KubeObject, nowMs: number): void {
    const spec = obj(deployment['spec']) ?? {};
    const template = obj(spec['template']) ?? {};
    const hash = templateHash(template);
    const replicas = Number(spec['replicas'] ?? 1);
    const ns = deployment.metadata.namespace ?? 'default';
    const owned = this.#ownedPods(deployment);
    // A changed template replaces the pods (the rollout's end state; surge and pacing are not modelled).
    for (const pod of owned) if (labelsOf(pod)['pod-template-hash'] !== hash) this.store.delete('pods', ns, pod.metadata.name);
    const current = this.#ownedPods(deployment);
    for (const extra of current.slice(replicas)) this.store.delete('pods', ns, extra.metadata.name);
    const podSpec = obj(template['spec']) ?? {};
    const containers = (podSpec['containers'] as Json[] | undefined) ?? [];
    for (let i = current.length; i < replicas; i++) {
      this.#podSeq += 1;
      const suffix = templateHash(`${deployment.metadata.name}/${this.#podSeq}`).slice(0, 5);
      const labels = { ...((obj(obj(template['metadata'])?.['labels']) ?? {}) as Record<string, string>), 'pod-template-hash': hash };
      const created = this.#createPod(
        {
          name: `${deployment.metadata.name}-${hash}-${suffix}`,
          namespace: ns,
          labels,
          owner: { kind: 'ReplicaSet', name: `${deployment.metadata.name}-${hash}` },
          tolerations: (podSpec['tolerations'] as Toleration[] | undefined) ?? [],
          container: containers[0] ?? { name: 'main' },
        },
        nowMs,
      );
      // Keep the whole pod template spec (all containers), as the ReplicaSet copies it.
      this.store.replace('pods', { ...created, spec: { ...clone(podSpec), ...(obj(created['spec']) ?? {}), containers: clone(containers) } });
    }
  }

  #deploymentStatus(deployment: KubeObject): void {
    const pods = this.#ownedPods(deployment);
    const ready = pods.filter(podReady).length;
    const status = {
      observedGeneration: deployment.metadata['generation'],
      replicas: pods.length,
      updatedReplicas: pods.length,
      readyReplicas: ready,
      availableReplicas: ready,
      ...(pods.length - ready > 0 ? { unavailableReplicas: pods.length - ready } : {}),
    };
    if (JSON.stringify(deployment['status']) === JSON.stringify(status)) return;
    this.store.replace('deployments', { ...deployment, status });
  }

  /** Binds pending pods: Ready, schedulable nodes whose NoSchedule/NoExecute taints the pod tolerates; spread first. */
  #schedulePending(nowMs: number): void {
    const pods = this.store.list('pods');
    const pendingPods = pods.filter((p) => !podNode(p));
    if (pendingPods.length === 0) return;
    const nodes = this.store.list('nodes').filter((n) => nodeReady(n) && obj(n['spec'])?.['unschedulable'] !== true);
    if (nodes.length === 0) return;
    const ownerOf = (p: KubeObject): string => JSON.stringify(p.metadata['ownerReferences'] ?? []);
    const load = new Map<string, { total: number; byOwner: Map<string, number> }>();
    const loadOf = (node: string) => {
      let l = load.get(node);
      if (!l) {
        l = { total: 0, byOwner: new Map() };
        load.set(node, l);
      }
      return l;
    };
    for (const p of pods) {
      const node = podNode(p);
      if (!node) continue;
      const l = loadOf(node);
      l.total += 1;
      l.byOwner.set(ownerOf(p), (l.byOwner.get(ownerOf(p)) ?? 0) + 1);
    }
    for (const pod of pendingPods) {
      const tolerations = (obj(pod['spec'])?.['tolerations'] as Toleration[] | undefined) ?? [];
      const owner = ownerOf(pod);
      let best: { n: KubeObject; same: number; total: number } | undefined;
      for (const n of nodes) {
        if (!nodeTaints(n).every((t) => t.effect === 'PreferNoSchedule' || tolerates(tolerations, t))) continue;
        const l = loadOf(n.metadata.name);
        const same = l.byOwner.get(owner) ?? 0;
        if (!best || same < best.same || (same === best.same && (l.total < best.total || (l.total === best.total && n.metadata.name < best.n.metadata.name)))) {
          best = { n, same, total: l.total };
        }
      }
      if (!best) continue;
      const target = best.n.metadata.name;
      const bound = this.store.replace('pods', { ...pod, spec: { ...(obj(pod['spec']) ?? {}), nodeName: target } });
      const l = loadOf(target);
      l.total += 1;
      l.byOwner.set(owner, (l.byOwner.get(owner) ?? 0) + 1);
      this.#startPod(bound, nowMs);
    }
  }

  // ---- what kubeadm init and the cilium install create --------------------------------------------------------

  /** kube-public/cluster-info, the bootstrap token Secret, the mesh ConfigMap, and the add-on Deployments. */
  bootstrap(input: { tokens: Array<{ token: string; expiresAtMs: number }>; meshConfigMaps: KubeObject[] }, nowMs: number): void {
    const kubeconfig = [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '- cluster:',
      `    certificate-authority-data: ${Buffer.from(this.identity.caPem).toString('base64')}`,
      `    server: https://${this.identity.endpoint}`,
      '  name: ""',
      'contexts: null',
      'current-context: ""',
      'preferences: {}',
      'users: null',
      '',
    ].join('\n');
    this.create('configmaps', 'kube-public', { metadata: { name: 'cluster-info' }, data: { kubeconfig } }, nowMs);
    for (const { token, expiresAtMs } of input.tokens) {
      const [id, secret] = token.split('.');
      if (!id || !secret) continue;
      const b = (s: string): string => Buffer.from(s, 'utf8').toString('base64');
      this.create(
        'secrets',
        'kube-system',
        {
          metadata: { name: `bootstrap-token-${id}` },
          type: 'bootstrap.kubernetes.io/token',
          data: {
            description: b('kubeplane node bootstrap token'),
            'token-id': b(id),
            'token-secret': b(secret),
            expiration: b(iso(expiresAtMs)),
            'usage-bootstrap-authentication': b('true'),
            'usage-bootstrap-signing': b('true'),
            'auth-extra-groups': b('system:bootstrappers:kubeadm:default-node-token'),
          },
        },
        nowMs,
      );
    }
    for (const cm of input.meshConfigMaps) {
      const ns = cm.metadata.namespace ?? 'kube-system';
      if (this.store.get('configmaps', ns, cm.metadata.name)) continue;
      this.create('configmaps', ns, cm, nowMs);
    }
    const criticalTolerations = [
      { key: 'CriticalAddonsOnly', operator: 'Exists' },
      { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' },
    ];
    this.create(
      'deployments',
      'kube-system',
      {
        metadata: { name: 'coredns', labels: { 'k8s-app': 'kube-dns' } },
        spec: {
          replicas: 2,
          selector: { matchLabels: { 'k8s-app': 'kube-dns' } },
          template: {
            metadata: { labels: { 'k8s-app': 'kube-dns' } },
            spec: { containers: [{ name: 'coredns', image: 'registry.k8s.io/coredns/coredns:v1.11.3', args: ['-conf', '/etc/coredns/Corefile'] }], tolerations: criticalTolerations },
          },
        },
      },
      nowMs,
    );
    this.create('poddisruptionbudgets', 'kube-system', { metadata: { name: 'coredns' }, spec: { minAvailable: 1, selector: { matchLabels: { 'k8s-app': 'kube-dns' } } } }, nowMs);
    this.create(
      'deployments',
      'kube-system',
      {
        metadata: { name: 'cilium-operator', labels: { 'io.cilium/app': 'operator' } },
        spec: {
          replicas: 1,
          selector: { matchLabels: { 'io.cilium/app': 'operator' } },
          template: { metadata: { labels: { 'io.cilium/app': 'operator' } }, spec: { containers: [{ name: 'cilium-operator', image: 'quay.io/cilium/operator-generic' }], tolerations: [{ operator: 'Exists' }] } },
        },
      },
      nowMs,
    );
  }

  /**
   * What a Crusoe CMK control plane holds when it first answers (seeds/cmk-addons.txt, crusoe-notes.md §3): the same
   * kube-system add-ons as a kubeadm cluster (no bootstrap tokens: CMK joins its own nodes), the `crusoe-system`
   * namespace with the managed `cmk-<cluster>` add-on credentials Secret, and, with the `cluster_autoscaler` add-on,
   * the autoscaler Deployment without any `--nodes=` limits (CMK sets none).
   */
  bootstrapCmk(input: { addons: readonly string[] }, nowMs: number): void {
    this.bootstrap({ tokens: [], meshConfigMaps: [] }, nowMs);
    const ns = 'crusoe-system';
    this.create('namespaces', undefined, { metadata: { name: ns } }, nowMs);
    // CMK's own API token; the sandbox's stand-in values are not credentials anywhere.
    this.create('secrets', ns, { metadata: { name: `cmk-${this.identity.name}` }, type: 'Opaque', stringData: { CRUSOE_ACCESS_KEY: 'cmk-managed-token', CRUSOE_SECRET_KEY: 'cmk-managed-token' } }, nowMs);
    if (!input.addons.includes('cluster_autoscaler')) return;
    const labels = { 'app.kubernetes.io/name': 'cluster-autoscaler' };
    this.create(
      'deployments',
      ns,
      {
        metadata: { name: 'cluster-autoscaler', labels },
        spec: {
          replicas: 1,
          selector: { matchLabels: labels },
          template: {
            metadata: { labels },
            spec: {
              containers: [{ name: 'cluster-autoscaler', image: 'ghcr.io/crusoecloud/cluster-autoscaler-crusoecloud', args: ['--cloud-provider=crusoecloud', '--expander=least-waste'] }],
              tolerations: [{ key: 'CriticalAddonsOnly', operator: 'Exists' }],
            },
          },
        },
      },
      nowMs,
    );
  }

  /** A bootstrap token as the API server's bootstrap authenticator checks it: null when valid, else why not. */
  checkBootstrapToken(token: string, nowMs: number): string | null {
    const match = /^([a-z0-9]{6})\.([a-z0-9]{16})$/.exec(token);
    if (!match) return `the bootstrap token does not match the format [a-z0-9]{6}.[a-z0-9]{16}`;
    const [, id, secret] = match;
    const stored = this.store.get('secrets', 'kube-system', `bootstrap-token-${id ?? ''}`);
    const data = (obj(stored?.['data']) ?? {}) as Record<string, string>;
    const field = (k: string): string | undefined => (data[k] === undefined ? undefined : Buffer.from(data[k], 'base64').toString('utf8'));
    // kubeadm's discovery finds no JWS signature for a token the bootstrap signer does not know (unknown, expired,
    // wrong type, not for signing); the message is kubeadm's.
    const noJws = `could not find a JWS signature in the cluster-info ConfigMap for token ID "${id ?? ''}"`;
    if (!stored || stored['type'] !== 'bootstrap.kubernetes.io/token') return noJws;
    if (field('token-secret') !== secret || field('usage-bootstrap-signing') !== 'true' || field('usage-bootstrap-authentication') !== 'true') return noJws;
    const expiration = field('expiration');
    if (expiration !== undefined && Date.parse(expiration) <= nowMs) return `${noJws} (the token expired at ${expiration})`;
    return null;
  }
}

function fieldValue(o: KubeObject, field: string): string | null {
  switch (field) {
    case 'metadata.name':
      return o.metadata.name;
    case 'metadata.namespace':
      return o.metadata.namespace ?? '';
    case 'spec.nodeName':
      return String(obj(o['spec'])?.['nodeName'] ?? '');
    case 'status.phase':
      return String(obj(o['status'])?.['phase'] ?? '');
    default:
      return null;
  }
}
