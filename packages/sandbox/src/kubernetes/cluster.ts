// One emulated cluster's API server and the controllers whose effects clients read: the REST verbs over the object
// store, the Deployment, ReplicaSet and DaemonSet controllers (deployments.ts, daemonsets.ts), the garbage collector
// (garbage-collector.ts), a scheduler honouring taints and cordons, evictions honouring PodDisruptionBudgets and the
// disruption controller's status, pod addresses from each node's podCIDR (pod-network.ts), and the node lifecycle
// (Ready, unreachable, taint-based eviction, pod GC on delete).
import { createHash } from 'node:crypto';
import { labelSelector as parseLabelSelector, LabelSelectorSyntaxError } from '../label-selector.js';
import { recordUpdate, serverSideApply } from './apply.js';
import { matchesFieldSelector, parseFieldSelector } from './field-selectors.js';
import { nodeResources, UNKNOWN_MACHINE, type MachineSize } from './node-resources.js';
import { validateNodeUpdate } from './node-validation.js';
import { jsonPatch } from './patch-json.js';
import { mergePatch, strategicMergePatch } from './patch-strategic.js';
import { CILIUM_DAEMONSET, defaultDaemonSetSpec, reconcileDaemonSets } from './daemonsets.js';
import { defaultPodSpec, withDefaultedTemplate } from './pod-defaults.js';
import { defaultDeploymentSpec, deploymentStatuses, reconcileDeployments, reconcileReplicaSets, scaled } from './deployments.js';
import { generationPolicy } from './generation.js';
import { collectGarbage, FOREGROUND_FINALIZER, orphanDependents, type GarbageHost, type Propagation } from './garbage-collector.js';
import { matchesSelector, ownerReferenceErrors, type RecordEvent } from './owners.js';
import { allocateNodeCidr, allocatePodIp } from './pod-network.js';
import { helmJobDone, recordServiceRelease, reconcileHelmCharts, type HelmHost } from './helm-controller.js';
import { reconcileEndpoints } from './endpoints.js';
import { completedPod, controllingJob, helmControllerJob, prepareJob, reconcileJobs, withGeneratedSelector, type JobHost } from './jobs.js';
import { CRDS, crdSpec, prepareCrd, registerCrds, validateCustomObject } from './customresources.js';
import { defaultStorageClass, preparePv, preparePvc, prepareStorageClass } from './storage.js';
import {
  bindImmediateClaims,
  bindPodVolumes,
  filterNode,
  podClaims,
  podRequests,
  terminated,
  tolerates,
  unschedulableMessage,
  type FilterResult,
  type TaintLike,
  type Toleration,
} from './scheduling.js';
import { DEFAULT_SERVICE_SUBNET, prepareService, serviceIp } from './services.js';
import { KUBE_TIMINGS } from './timings.js';
import { authenticateBootstrapToken, type BootstrapTokenSecret } from './token-discovery.js';
import type { ServiceRelease } from './vm-source.js';
import {
  ApiError,
  conflict,
  invalid,
  iso,
  notFound,
  obj,
  ObjectStore,
  registerCustomResource,
  isBuiltin,
  RESOURCES,
  resourceVersion,
  specOf,
  type ObjectStoreState,
  uuidFrom,
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
  | { kind: 'pod-start'; namespace?: string; name: string; uid: string }
  /** A helm-controller Job's helm command finished (helm-controller.ts). */
  | { kind: 'helm-job'; namespace: string; name: string; uid: string }
  /** A Job's container exits (jobs.ts: the sandbox's kubelets run a Job's command for jobContainerMs). */
  | { kind: 'job-container-exit'; namespace?: string; name: string; uid: string }
  /**
   * A controller's own deadline passes and it looks again: a Deployment's progress deadline (progress.go requeues it
   * so), a Job's active deadline or its TTL after finishing. `uid` names the look (an object's uid, or a Job's key).
   */
  | { kind: 'progress-deadline'; uid: string };

export type Schedule = (atMs: number, event: ClusterEvent) => void;

/** A cluster API's state beyond its identity, as plain data. */
export interface ClusterApiState {
  store: ObjectStoreState;
  /** A counter of pods made by the old in-cluster Deployment code; kept so that older snapshots load. */
  podSeq: number;
  /** NVIDIA GPUs of each node's machine (absent in snapshots from before GPUs were simulated). */
  gpus?: Record<string, number>;
  /** The progress-deadline looks scheduled, by Deployment uid (absent in snapshots from before they were). */
  deadlines?: Record<string, number>;
}

export type { TaintLike } from './scheduling.js';

export const NOT_READY_TAINT = 'node.kubernetes.io/not-ready';
export const UNREACHABLE_TAINT = 'node.kubernetes.io/unreachable';
const SYSTEM_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

function labelsOf(o: KubeObject): Record<string, string> {
  return o.metadata.labels ?? {};
}

/** A policy/v1 budget's selector: an empty one selects every pod of its namespace, a missing one none. */
function budgetSelects(pdb: KubeObject, pod: KubeObject): boolean {
  return matchesSelector(obj(obj(pdb['spec'])?.['selector']), labelsOf(pod));
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

export { mergePatch, strategicMergePatch } from './patch-strategic.js';

/** 422 Invalid for a malformed owner reference, as the API server's ObjectMeta validation answers. */
function validateOwnerReferences(resource: Resource, o: KubeObject): void {
  const errors = ownerReferenceErrors(o);
  if (errors.length === 0) return;
  const kind = specOf(resource).kind;
  throw new ApiError(422, 'Invalid', `${kind} "${o.metadata.name}" is invalid: ${errors.map((e) => `${e.field}: ${e.message}`).join(', ')}`, {
    name: o.metadata.name,
    kind,
    causes: errors.map((e) => ({ reason: 'FieldValueInvalid', message: e.message, field: e.field })),
  });
}

/** A workload's spec and pod template, whose labels its selector must match (apps/v1 validation). */
function podTemplateOf(resource: Resource, o: KubeObject): { spec: Json; template: Json } {
  const name = o.metadata.name;
  const spec = obj(o['spec']);
  const template = obj(spec?.['template']);
  if (!spec || !template) throw invalid(resource, name, 'spec.template', 'Required value');
  const podLabels = (obj(obj(template['metadata'])?.['labels']) ?? {}) as Record<string, string>;
  const selector = obj(spec['selector']);
  const empty =
    Object.keys(obj(selector?.['matchLabels']) ?? {}).length === 0 && ((selector?.['matchExpressions'] as unknown[] | undefined) ?? []).length === 0;
  if (!matchesSelector(selector, podLabels) || empty) {
    throw invalid(resource, name, 'spec.template.metadata.labels', 'Invalid value: `selector` does not match template `labels`');
  }
  return { spec, template };
}

function apiVersionOf(resource: Resource): string {
  return specOf(resource).group ? `${specOf(resource).group}/${resourceVersion(resource)}` : 'v1';
}

/** The API versions an object of `resource` may be written in: its served version, or any a CRD serves. */
function writableVersions(resource: Resource): string[] {
  const spec = specOf(resource);
  return (spec.custom?.versions ?? [resourceVersion(resource)]).map((v) => (spec.group ? `${spec.group}/${v}` : v));
}

/** RBAC kinds are named by path segment (ValidateRBACName), the rest by DNS subdomain. */
const PATH_SEGMENT_NAMED = new Set(['roles', 'rolebindings', 'clusterroles', 'clusterrolebindings']);

/** A MicroTime (Lease renewTime, Event eventTime): RFC 3339 with microseconds. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/Z$/, '000Z');
}

function templateHash(template: unknown): string {
  // Kubernetes uses FNV-32a of the template, rendered in a "safe" alphabet; any stable short hash does here.
  const hex = createHash('sha256')
    .update(JSON.stringify(template ?? {}))
    .digest('hex');
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
  /** The Service subnet (kubeadm's networking.serviceSubnet); DEFAULT_SERVICE_SUBNET when absent. */
  serviceSubnet?: string;
  /** The pod subnet (kubeadm's networking.podSubnet), cut into each node's podCIDR; no pod addresses when absent. */
  podSubnet?: string;
  /** The size of each node's podCIDR (the controller manager's --node-cidr-mask-size); 24 when absent. */
  nodeCidrMaskSize?: number;
}

/** Who writes, for managedFields: the request's fieldManager (or its User-Agent's), and `force` for an apply. */
export interface WriteOptions {
  manager?: string;
  force?: boolean;
}

export const NODE_LEASE_NAMESPACE = 'kube-node-lease';
/** The kubelet's node lease: 40 s, renewed every quarter of it (KubeletConfiguration nodeLeaseDurationSeconds). */
export const NODE_LEASE_SECONDS = 40;
/** Events live an hour (kube-apiserver --event-ttl). */
const EVENT_TTL_MS = 3600_000;

export interface RegisterNode {
  name: string;
  labels: Record<string, string>;
  taints: TaintLike[];
  internalIp?: string;
  providerId?: string;
  kubeletVersion: string;
  arch: string;
  controlPlane: boolean;
  /** The machine's size from its cloud's catalog, for capacity and allocatable. */
  machine?: MachineSize;
}

export class ClusterApi implements HelmHost, GarbageHost {
  readonly store: ObjectStore;
  readonly identity: ClusterIdentity;
  readonly #schedule: Schedule;
  #podSeq = 0;
  /** The progress deadline each rolling-out Deployment (by uid) has a look scheduled for. */
  readonly #deadlines = new Map<string, number>();
  /** The GPUs of each node's machine, from its cloud's catalog: what the GPU operator's device plugin would find. */
  #gpus: Record<string, number> = {};

  constructor(identity: ClusterIdentity, schedule: Schedule, nowMs: number) {
    this.identity = identity;
    this.#schedule = schedule;
    this.store = new ObjectStore(createHash('sha256').update(identity.endpoint).digest('hex').slice(0, 8), generationPolicy(this));
    for (const ns of SYSTEM_NAMESPACES)
      this.store.create('namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns }, status: { phase: 'Active' } }, nowMs);
  }

  // ---- REST verbs -------------------------------------------------------------------------------------------

  #requireNamespace(resource: Resource, namespace: string | undefined): void {
    if (!specOf(resource).namespaced) return;
    if (!namespace || !this.store.get('namespaces', undefined, namespace)) throw notFound('namespaces', namespace ?? '');
  }

  get(resource: Resource, namespace: string | undefined, name: string): KubeObject {
    this.#requireNamespace(resource, namespace);
    const found = this.store.get(resource, specOf(resource).namespaced ? namespace : undefined, name);
    if (!found) throw notFound(resource, name);
    return found;
  }

  list(resource: Resource, namespace: string | undefined, labelSelector?: string, fieldSelector?: string): KubeObject[] {
    let items = this.store.sortedList(resource, namespace);
    if (labelSelector) {
      const matches = kubernetesLabelSelector(labelSelector);
      items = items.filter((o) => matches(labelsOf(o)));
    }
    if (fieldSelector) {
      const clauses = parseFieldSelector(resource, fieldSelector);
      items = items.filter((o) => matchesFieldSelector(o, clauses));
    }
    return items;
  }

  create(resource: Resource, namespace: string | undefined, body: Json, nowMs: number, write: WriteOptions = {}): KubeObject {
    const metadata = obj(body['metadata']) ?? {};
    const name = typeof metadata['name'] === 'string' ? metadata['name'] : '';
    if (specOf(resource).namespaced) {
      if (metadata['namespace'] !== undefined && metadata['namespace'] !== namespace) {
        throw new ApiError(400, 'BadRequest', 'the namespace of the provided object does not match the namespace sent on the request');
      }
    }
    if (PATH_SEGMENT_NAMED.has(resource)) {
      if (!validPathSegmentName(name))
        throw invalid(resource, name, 'metadata.name', `Invalid value: "${name}": may not be '.' or '..' and may not contain '/' or '%'`);
    } else if (!validName(name))
      throw invalid(
        resource,
        name,
        'metadata.name',
        `Invalid value: "${name}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.'`,
      );
    this.#requireNamespace(resource, namespace);
    const prepared = this.#prepare(
      resource,
      { ...body, metadata: { ...metadata, name, ...(specOf(resource).namespaced ? { namespace } : {}) } } as KubeObject,
      null,
      nowMs,
    );
    delete prepared.metadata['resourceVersion'];
    if (write.manager !== undefined) recordUpdate(null, prepared, write.manager, apiVersionOf(resource), nowMs);
    const stored = this.store.create(resource, prepared, nowMs);
    // A Job's selector is made from its uid, which the object has only now (the registry's PrepareForCreate).
    const created = resource === 'jobs' ? this.store.replace('jobs', withGeneratedSelector(stored)) : stored;
    // A pod created with spec.nodeName skips the scheduler: its node's kubelet starts it.
    if (resource === 'pods' && podNode(created)) this.#startPod(created, nowMs);
    this.reconcile(nowMs);
    return created;
  }

  replace(resource: Resource, namespace: string | undefined, name: string, body: Json, nowMs: number, write: WriteOptions = {}): KubeObject {
    const current = this.get(resource, namespace, name);
    const metadata = obj(body['metadata']) ?? {};
    if (metadata['name'] !== name)
      throw new ApiError(400, 'BadRequest', `the name of the object (${String(metadata['name'])}) does not match the name on the URL (${name})`);
    const rv = metadata['resourceVersion'];
    if (rv !== undefined && rv !== current.metadata.resourceVersion) throw conflict(resource, name);
    const next = this.#prepare(
      resource,
      { ...body, metadata: { ...metadata, ...(specOf(resource).namespaced ? { namespace } : {}) } } as KubeObject,
      current,
      nowMs,
    );
    if (write.manager !== undefined) recordUpdate(current, next, write.manager, apiVersionOf(resource), nowMs);
    const stored = this.#store(resource, current, next, nowMs);
    this.reconcile(nowMs);
    return stored;
  }

  /**
   * PATCH in the four types the API server accepts (apimachinery's types.PatchType): JSON patch, merge patch,
   * strategic merge patch, and server-side apply, which creates the object when it is missing.
   */
  patch(
    resource: Resource,
    namespace: string | undefined,
    name: string,
    patch: unknown,
    contentType: string,
    nowMs: number,
    write: WriteOptions = {},
  ): KubeObject {
    const type = contentType.split(';')[0]?.trim() ?? '';
    if (type === 'application/apply-patch+yaml') return this.#apply(resource, namespace, name, patch, nowMs, write);
    const current = this.get(resource, namespace, name);
    let merged: unknown;
    if (type === 'application/merge-patch+json') merged = mergePatch(current, patch);
    else if (type === 'application/strategic-merge-patch+json') merged = strategicMergePatch(current, patch);
    else if (type === 'application/json-patch+json') merged = jsonPatch(current, patch);
    else {
      throw new ApiError(
        415,
        'UnsupportedMediaType',
        `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, ` +
          `application/merge-patch+json, application/apply-patch+yaml, application/strategic-merge-patch+json`,
      );
    }
    const next = obj(merged) as KubeObject | undefined;
    if (!next || !obj(next.metadata))
      throw new ApiError(422, 'Invalid', 'the server rejected our request due to an error in our request', {
        causes: [{ message: 'the patched object has no metadata' }],
      });
    next.metadata = { ...(obj(next.metadata) as KubeObject['metadata']), name, ...(specOf(resource).namespaced ? { namespace } : {}) };
    const rv = type === 'application/json-patch+json' ? next.metadata.resourceVersion : obj(obj(patch)?.['metadata'])?.['resourceVersion'];
    if (rv !== undefined && rv !== current.metadata.resourceVersion) throw conflict(resource, name);
    const prepared = this.#prepare(resource, next, current, nowMs);
    if (write.manager !== undefined) recordUpdate(current, prepared, write.manager, apiVersionOf(resource), nowMs);
    const stored = this.#store(resource, current, prepared, nowMs);
    this.reconcile(nowMs);
    return stored;
  }

  /** Server-side apply (https://kubernetes.io/docs/reference/using-api/server-side-apply/). */
  #apply(resource: Resource, namespace: string | undefined, name: string, body: unknown, nowMs: number, write: WriteOptions): KubeObject {
    // handlers/patch.go: "fieldManager is required for apply requests" (kubectl sends `kubectl` by default).
    // validation.ValidatePatchOptions: an apply without a fieldManager is an invalid PatchOptions (kubectl always sends one).
    if (!write.manager) {
      throw new ApiError(422, 'Invalid', 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch', {
        kind: 'PatchOptions',
        group: 'meta.k8s.io',
        causes: [{ reason: 'FieldValueRequired', message: 'Required value: is required for apply patch', field: 'fieldManager' }],
      });
    }
    const applied = obj(body) as KubeObject | undefined;
    const meta = obj(applied?.['metadata']);
    if (!applied || !meta) throw new ApiError(400, 'BadRequest', 'error decoding YAML: the apply configuration is not an object with metadata');
    const kind = specOf(resource).kind;
    if (applied['kind'] !== kind || !writableVersions(resource).includes(String(applied['apiVersion']))) {
      throw new ApiError(
        400,
        'BadRequest',
        `the API version in the data (${String(applied['apiVersion'])}) does not match the expected API version (${apiVersionOf(resource)})`,
      );
    }
    if (meta['name'] !== undefined && meta['name'] !== name)
      throw new ApiError(400, 'BadRequest', `the name of the object (${String(meta['name'])}) does not match the name on the URL (${name})`);
    if (specOf(resource).namespaced) this.#requireNamespace(resource, namespace);
    const current = this.store.get(resource, specOf(resource).namespaced ? namespace : undefined, name) ?? null;
    const options = { manager: write.manager, force: write.force === true, apiVersion: apiVersionOf(resource), nowMs };
    const merged = serverSideApply(current, { ...applied, metadata: { ...meta, name } } as KubeObject, options);
    merged.metadata = { ...merged.metadata, name, ...(specOf(resource).namespaced ? { namespace } : {}) };
    if (!current) {
      const managedFields = merged.metadata['managedFields'];
      const created = this.create(resource, namespace, merged, nowMs);
      // What the controllers wrote meanwhile (a finalizer, a status) stays: the managedFields go onto the stored object.
      const now = this.store.get(resource, created.metadata.namespace, created.metadata.name) ?? created;
      const stored = this.store.replace(resource, { ...now, metadata: { ...now.metadata, managedFields } });
      return stored;
    }
    const prepared = this.#prepare(resource, merged, current, nowMs);
    prepared.metadata = { ...prepared.metadata, managedFields: merged.metadata['managedFields'] };
    const stored = this.#store(resource, current, prepared, nowMs);
    this.reconcile(nowMs);
    return stored;
  }

  /**
   * Stores an update; an object being deleted whose last finalizer the update removed is gone then (the API
   * server's graceful deletion: https://kubernetes.io/docs/concepts/overview/working-with-objects/finalizers/).
   */
  #store(resource: Resource, current: KubeObject, next: KubeObject, nowMs: number): KubeObject {
    const deleting = current.metadata['deletionTimestamp'];
    const prepared = deleting !== undefined ? { ...next, metadata: { ...next.metadata, deletionTimestamp: deleting, deletionGracePeriodSeconds: 0 } } : next;
    const stored = this.store.replace(resource, prepared, { update: true });
    if (deleting !== undefined && ((stored.metadata['finalizers'] as unknown[] | undefined) ?? []).length === 0) {
      this.#remove(resource, stored.metadata.namespace, stored.metadata.name, nowMs);
    }
    return stored;
  }

  /**
   * DELETE: an object with finalizers (other than a CRD's own cleanup, done here) gets its deletionTimestamp and
   * stays until they are removed; the answer is the object then. Otherwise it goes at once. Its dependents follow
   * `propagation` (garbage-collector.ts); without one, the resource's default: Background, but Orphan for batch/v1
   * Jobs (the job registry's DefaultGarbageCollectionPolicy keeps their pods, for compatibility).
   */
  delete(resource: Resource, namespace: string | undefined, name: string, nowMs: number, propagation?: Propagation): KubeObject {
    const current = this.get(resource, namespace, name);
    const marked = this.deleteWith(resource, namespace, name, propagation ?? (resource === 'jobs' ? 'Orphan' : 'Background'), nowMs);
    this.reconcile(nowMs);
    return marked ?? current;
  }

  /** The deletion itself, without the controllers' pass (the garbage collector calls it for dependents). */
  deleteWith(resource: Resource, namespace: string | undefined, name: string, propagation: Propagation, nowMs: number): KubeObject | undefined {
    const current = this.store.get(resource, specOf(resource).namespaced ? namespace : undefined, name);
    if (!current) return undefined;
    if (propagation === 'Orphan') orphanDependents(this.store, current);
    const own = ((current.metadata['finalizers'] as string[] | undefined) ?? []).filter(
      (f) => !(resource === CRDS && f === 'customresourcecleanup.apiextensions.k8s.io'),
    );
    const finalizers = propagation === 'Foreground' && !own.includes(FOREGROUND_FINALIZER) ? [...own, FOREGROUND_FINALIZER] : own;
    if (finalizers.length > 0) {
      if (current.metadata['deletionTimestamp'] !== undefined && finalizers.length === own.length) return current;
      return this.store.replace(resource, {
        ...current,
        metadata: {
          ...current.metadata,
          finalizers: [...((current.metadata['finalizers'] as string[] | undefined) ?? []), ...finalizers.filter((f) => !own.includes(f))],
          deletionTimestamp: current.metadata['deletionTimestamp'] ?? iso(nowMs),
          deletionGracePeriodSeconds: 0,
        },
      });
    }
    this.removeNow(resource, namespace, name, nowMs);
    return current;
  }

  #remove(resource: Resource, namespace: string | undefined, name: string, nowMs: number): KubeObject {
    const current = this.removeNow(resource, namespace, name, nowMs);
    this.reconcile(nowMs);
    return current;
  }

  /** Removes the object and does what its going does at once (volumes released, a node's pods and lease gone). */
  removeNow(resource: Resource, namespace: string | undefined, name: string, nowMs: number): KubeObject {
    const current = this.get(resource, namespace, name);
    this.store.delete(resource, specOf(resource).namespaced ? namespace : undefined, name);
    if (resource === 'persistentvolumeclaims') {
      // The PV controller reclaims a released dynamically provisioned volume by its reclaim policy (Delete: it goes).
      const volume = obj(current['spec'])?.['volumeName'];
      const pv = typeof volume === 'string' ? this.store.get('persistentvolumes', undefined, volume) : undefined;
      if (pv && obj(pv['spec'])?.['persistentVolumeReclaimPolicy'] === 'Delete') this.store.delete('persistentvolumes', undefined, pv.metadata.name);
      else if (pv) this.store.replace('persistentvolumes', { ...pv, status: { ...(obj(pv['status']) ?? {}), phase: 'Released' } });
    }
    if (resource === 'nodes') {
      delete this.#gpus[name];
      // The pod garbage collector removes pods bound to a node that no longer exists.
      for (const pod of this.store.list('pods')) if (podNode(pod) === name) this.store.delete('pods', pod.metadata.namespace, pod.metadata.name);
      // The garbage collector deletes the node's Lease (owned by the Node), and the API server's endpoint goes.
      this.store.delete('leases', NODE_LEASE_NAMESPACE, name);
      this.#reconcileApiEndpoints(nowMs);
    }
    if (resource === 'namespaces') {
      for (const r of [...Object.keys(RESOURCES), ...this.store.list(CRDS).map((c) => c.metadata.name)]) {
        if (!specOf(r).namespaced) continue;
        for (const o of this.store.list(r, name)) this.store.delete(r, name, o.metadata.name);
      }
    }
    // The CRD's cleanup finalizer deletes its objects before the CRD goes (not modelled: the Terminating condition).
    if (resource === CRDS) for (const o of this.store.list(name)) this.store.delete(name, o.metadata.namespace, o.metadata.name);
    return current;
  }

  /** Validation and defaulting per resource, as the API server's registry strategies do. */
  #prepare(resource: Resource, next: KubeObject, current: KubeObject | null, nowMs: number): KubeObject {
    const name = next.metadata.name;
    const labels = next.metadata.labels;
    if (labels !== undefined && (!obj(labels) || Object.values(labels).some((v) => typeof v !== 'string'))) {
      throw invalid(resource, name, 'metadata.labels', 'label values must be strings');
    }
    validateOwnerReferences(resource, next);
    if (!isBuiltin(resource)) {
      // A custom object keeps the version it was written in; its CRD's schema checks it.
      const prepared: KubeObject = {
        ...next,
        apiVersion:
          typeof next['apiVersion'] === 'string' && writableVersions(resource).includes(next['apiVersion']) ? next['apiVersion'] : apiVersionOf(resource),
        kind: specOf(resource).kind,
      };
      validateCustomObject(this.store, resource, prepared);
      return prepared;
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
        validateNodeUpdate(current, next);
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
        const { spec, template } = podTemplateOf(resource, next);
        const containers = obj(template['spec'])?.['containers'];
        if (!Array.isArray(containers) || containers.length === 0) throw invalid('deployments', name, 'spec.template.spec.containers', 'Required value');
        return {
          ...next,
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          spec: defaultDeploymentSpec(withDefaultedTemplate(spec)),
          status: current ? current['status'] : {},
        };
      }
      case 'replicasets': {
        const { spec } = podTemplateOf(resource, next);
        return {
          ...next,
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          spec: { ...withDefaultedTemplate(spec), replicas: spec['replicas'] ?? 1 },
          // ReplicaSetStatus.replicas is not omitempty: a new ReplicaSet answers with 0.
          status: current ? current['status'] : { replicas: 0 },
        };
      }
      case 'daemonsets': {
        const { spec } = podTemplateOf(resource, next);
        // DaemonSetStatus's four scheduling counts are not omitempty: a new DaemonSet answers with zeros (the official
        // Python client refuses a status without them).
        const zero = { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 };
        return {
          ...next,
          apiVersion: 'apps/v1',
          kind: 'DaemonSet',
          spec: defaultDaemonSetSpec(withDefaultedTemplate(spec)),
          status: current ? current['status'] : zero,
        };
      }
      case 'poddisruptionbudgets':
        // PodDisruptionBudgetStatus's four counts are not omitempty: a new budget answers with zeros until the disruption
        // controller counts (the official Python client refuses a status without them).
        return {
          ...next,
          apiVersion: 'policy/v1',
          kind: 'PodDisruptionBudget',
          status: current ? current['status'] : { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 },
        };
      case 'namespaces':
        return { ...next, apiVersion: 'v1', kind: 'Namespace', status: { phase: 'Active' } };
      case 'pods':
        return {
          ...next,
          apiVersion: 'v1',
          kind: 'Pod',
          spec: defaultPodSpec(obj(next['spec']) ?? {}),
          status: current ? current['status'] : { phase: 'Pending' },
        };
      case 'services': {
        const used = new Set(
          this.store
            .list('services')
            .filter((o) => o.metadata.name !== name || o.metadata.namespace !== next.metadata.namespace)
            .map((o) => String(obj(o['spec'])?.['clusterIP'] ?? '')),
        );
        return prepareService(next, current, this.#serviceSubnet(), used);
      }
      case 'events':
        // An Event without timestamps gets none filled in: the recorder (client-go's EventRecorder) sets them.
        return { ...next, apiVersion: 'v1', kind: 'Event', involvedObject: obj(next['involvedObject']) ?? {} };
      case 'selfsubjectaccessreviews':
      case 'selfsubjectreviews':
        // Never stored: the emulator answers the review in the response to the POST.
        throw new ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
      case 'customresourcedefinitions': {
        const crd = prepareCrd(next, current, nowMs);
        registerCustomResource(crd.metadata.name, crdSpec(crd));
        return crd;
      }
      case 'jobs':
        return prepareJob({ ...next, spec: withDefaultedTemplate(obj(next['spec']) ?? {}) }, current);
      case 'persistentvolumeclaims':
        return preparePvc(next, current, defaultStorageClass(this.store));
      case 'persistentvolumes':
        return preparePv(next, current);
      case 'storageclasses':
        return prepareStorageClass(next, current);
      case 'endpoints':
      case 'endpointslices':
      case 'leases':
      case 'roles':
      case 'rolebindings':
      case 'clusterroles':
      case 'clusterrolebindings':
      case 'serviceaccounts':
      case 'csidrivers':
      case 'controllerrevisions':
      case 'ciliumclusterwidenetworkpolicies':
        return {
          ...next,
          apiVersion: apiVersionOf(resource),
          kind: specOf(resource).kind,
          ...(current && current['status'] !== undefined ? { status: current['status'] } : {}),
        };
    }
  }

  #serviceSubnet(): string {
    return this.identity.serviceSubnet ?? DEFAULT_SERVICE_SUBNET;
  }

  // ---- events, leases and the `kubernetes` Service -----------------------------------------------------------

  /**
   * Records a core/v1 Event as client-go's EventRecorder posts it: named `<object>.<hex unix nanos>`, in the
   * object's namespace (`default` for cluster-scoped ones), count 1. Events older than the API server's event TTL
   * are dropped as they would expire from etcd.
   */
  recordEvent(
    involved: KubeObject,
    e: { type: 'Normal' | 'Warning'; reason: string; message: string; component: string; host?: string; fieldPath?: string },
    atMs: number,
  ): void {
    for (const old of this.store.list('events')) {
      if (Date.parse(String(old['lastTimestamp'] ?? '')) + EVENT_TTL_MS < atMs) this.store.delete('events', old.metadata.namespace, old.metadata.name);
    }
    const namespace = involved.metadata.namespace ?? 'default';
    const nanos = BigInt(Math.round(atMs * 1000)) * 1000n;
    let name = `${involved.metadata.name}.${nanos.toString(16)}`;
    for (let i = 1; this.store.get('events', namespace, name); i++) name = `${involved.metadata.name}.${(nanos + BigInt(i)).toString(16)}`;
    this.store.create(
      'events',
      {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name, namespace },
        involvedObject: {
          kind: involved['kind'],
          ...(involved.metadata.namespace ? { namespace: involved.metadata.namespace } : {}),
          name: involved.metadata.name,
          uid: involved.metadata['uid'],
          apiVersion: involved['apiVersion'],
          ...(involved['kind'] === 'Node' ? {} : { resourceVersion: involved.metadata.resourceVersion }),
          ...(e.fieldPath ? { fieldPath: e.fieldPath } : {}),
        },
        reason: e.reason,
        message: e.message,
        source: { component: e.component, ...(e.host ? { host: e.host } : {}) },
        firstTimestamp: iso(atMs),
        lastTimestamp: iso(atMs),
        count: 1,
        type: e.type,
        eventTime: null,
        reportingComponent: e.component,
        reportingInstance: e.host ?? '',
      },
      atMs,
    );
  }

  /** The node's Lease in kube-node-lease, renewed at `atMs` (the kubelet's node lease controller). */
  renewNodeLease(node: KubeObject, atMs: number): void {
    const existing = this.store.get('leases', NODE_LEASE_NAMESPACE, node.metadata.name);
    const spec = { holderIdentity: node.metadata.name, leaseDurationSeconds: NODE_LEASE_SECONDS, renewTime: microTime(atMs) };
    if (existing) {
      this.store.replace('leases', { ...existing, spec: { ...(obj(existing['spec']) ?? {}), ...spec } });
      return;
    }
    this.store.create(
      'leases',
      {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: {
          name: node.metadata.name,
          namespace: NODE_LEASE_NAMESPACE,
          ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: node.metadata.name, uid: node.metadata['uid'] }],
        },
        spec,
      },
      atMs,
    );
  }

  /**
   * default/kubernetes's Endpoints list the API servers' advertised addresses (the endpoint reconciler of each
   * kube-apiserver keeps its own there): here the control-plane nodes' internal IPs, port 6443.
   */
  #reconcileApiEndpoints(atMs: number): void {
    if (!this.store.get('services', 'default', 'kubernetes')) return;
    const addresses = this.store
      .sortedList('nodes')
      .filter((n) => labelsOf(n)['node-role.kubernetes.io/control-plane'] !== undefined)
      .flatMap((n) =>
        ((obj(n['status'])?.['addresses'] as Json[] | undefined) ?? []).filter((a) => a['type'] === 'InternalIP').map((a) => ({ ip: a['address'] })),
      );
    const subsets = addresses.length > 0 ? [{ addresses, ports: [{ name: 'https', port: 6443, protocol: 'TCP' }] }] : [];
    const existing = this.store.get('endpoints', 'default', 'kubernetes');
    const body: KubeObject = {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: 'kubernetes', namespace: 'default', labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' } },
      subsets,
    };
    if (!existing) this.store.create('endpoints', body, atMs);
    else if (JSON.stringify(existing['subsets']) !== JSON.stringify(subsets)) this.store.replace('endpoints', { ...existing, subsets });
  }

  /**
   * The Services a kubeadm cluster starts with: default/kubernetes (the API server's virtual IP, the first address
   * of the service subnet) and kube-system/kube-dns (the tenth, as kubeadm's CoreDNS add-on gets it), labelled as
   * kubeadm labels it so that `kubectl cluster-info` lists it.
   */
  #defaultServices(nowMs: number): void {
    const subnet = this.#serviceSubnet();
    if (!this.store.get('services', 'default', 'kubernetes')) {
      this.create(
        'services',
        'default',
        {
          metadata: { name: 'kubernetes', labels: { component: 'apiserver', provider: 'kubernetes' } },
          spec: { clusterIP: serviceIp(subnet, 1), ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: 6443 }] },
        },
        nowMs,
      );
    }
    if (!this.store.get('services', 'kube-system', 'kube-dns')) {
      this.create(
        'services',
        'kube-system',
        {
          metadata: { name: 'kube-dns', labels: { 'k8s-app': 'kube-dns', 'kubernetes.io/cluster-service': 'true', 'kubernetes.io/name': 'CoreDNS' } },
          spec: {
            clusterIP: serviceIp(subnet, 10),
            selector: { 'k8s-app': 'kube-dns' },
            ports: [
              { name: 'dns', port: 53, protocol: 'UDP', targetPort: 53 },
              { name: 'dns-tcp', port: 53, protocol: 'TCP', targetPort: 53 },
              { name: 'metrics', port: 9153, protocol: 'TCP', targetPort: 9153 },
            ],
          },
        },
        nowMs,
      );
    }
    this.#reconcileApiEndpoints(nowMs);
  }

  // ---- evictions and PodDisruptionBudgets -------------------------------------------------------------------

  #budgetsFor(pod: KubeObject): KubeObject[] {
    return this.store.list('poddisruptionbudgets', pod.metadata.namespace).filter((pdb) => budgetSelects(pdb, pod));
  }

  /**
   * currentHealthy, desiredHealthy, expectedPods and disruptionsAllowed of a budget, as the disruption controller
   * computes them (pkg/controller/disruption/disruption.go getExpectedPodCount, countHealthyPods): an integer
   * minAvailable counts the selected pods; a percentage or maxUnavailable counts the replicas their controllers
   * want (a ReplicaSet's spec.replicas, a DaemonSet's desiredNumberScheduled), percentages rounded up.
   */
  budgetStatus(pdb: KubeObject): { currentHealthy: number; desiredHealthy: number; expectedPods: number; disruptionsAllowed: number } {
    const spec = obj(pdb['spec']) ?? {};
    const pods = this.store.list('pods', pdb.metadata.namespace).filter((p) => budgetSelects(pdb, p) && !terminated(p));
    const currentHealthy = pods.filter((p) => podReady(p) && p.metadata['deletionTimestamp'] === undefined).length;
    let expectedPods = pods.length;
    if (spec['maxUnavailable'] !== undefined || (typeof spec['minAvailable'] === 'string' && spec['minAvailable'].endsWith('%'))) {
      const scales = new Map<string, number>();
      for (const p of pods) {
        const ref = ((p.metadata['ownerReferences'] as Json[] | undefined) ?? []).find((r) => r['controller'] === true);
        if (!ref) continue;
        const owner =
          ref['kind'] === 'ReplicaSet'
            ? this.store.get('replicasets', p.metadata.namespace, String(ref['name']))
            : ref['kind'] === 'DaemonSet'
              ? this.store.get('daemonsets', p.metadata.namespace, String(ref['name']))
              : undefined;
        if (!owner || owner.metadata['uid'] !== ref['uid']) continue;
        const want =
          ref['kind'] === 'ReplicaSet' ? Number(obj(owner['spec'])?.['replicas'] ?? 1) : Number(obj(owner['status'])?.['desiredNumberScheduled'] ?? 0);
        scales.set(String(ref['uid']), want);
      }
      if (scales.size > 0) expectedPods = [...scales.values()].reduce((a, b) => a + b, 0);
    }
    let desiredHealthy = 0;
    if (spec['maxUnavailable'] !== undefined) desiredHealthy = Math.max(0, expectedPods - scaled(spec['maxUnavailable'], expectedPods, true));
    else if (spec['minAvailable'] !== undefined) desiredHealthy = scaled(spec['minAvailable'], expectedPods, true);
    return { currentHealthy, desiredHealthy, expectedPods, disruptionsAllowed: Math.max(0, currentHealthy - desiredHealthy) };
  }

  /** The disruption controller's status of every budget, with its DisruptionAllowed condition (policy/v1). */
  #budgetStatuses(nowMs: number): void {
    for (const pdb of this.store.list('poddisruptionbudgets')) {
      const counts = this.budgetStatus(pdb);
      const before = obj(pdb['status']) ?? {};
      const allowed = counts.disruptionsAllowed > 0;
      const previous = ((before['conditions'] as Json[] | undefined) ?? []).find((c) => c['type'] === 'DisruptionAllowed');
      const status = allowed ? 'True' : 'False';
      const generation = pdb.metadata['generation'];
      const conditionOut = {
        type: 'DisruptionAllowed',
        status,
        observedGeneration: generation,
        lastTransitionTime: previous?.['status'] === status ? previous['lastTransitionTime'] : iso(nowMs),
        reason: allowed ? 'SufficientPods' : 'InsufficientPods',
        message: '',
      };
      const next = {
        ...(before['disruptedPods'] !== undefined ? { disruptedPods: before['disruptedPods'] } : {}),
        disruptionsAllowed: counts.disruptionsAllowed,
        currentHealthy: counts.currentHealthy,
        desiredHealthy: counts.desiredHealthy,
        expectedPods: counts.expectedPods,
        conditions: [conditionOut],
        observedGeneration: generation,
      };
      if (JSON.stringify(next) !== JSON.stringify(before)) this.store.replace('poddisruptionbudgets', { ...pdb, status: next });
    }
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
      // An unhealthy pod may go while the budget is met (IfHealthyBudget, the default), or always (AlwaysAllow).
      const alwaysAllow = obj(budget['spec'])?.['unhealthyPodEvictionPolicy'] === 'AlwaysAllow';
      const allowed = podReady(pod) ? status.disruptionsAllowed > 0 : alwaysAllow || status.currentHealthy >= status.desiredHealthy;
      if (!allowed) {
        throw new ApiError(429, 'TooManyRequests', "Cannot evict pod as it would violate the pod's disruption budget.", {
          causes: [
            {
              reason: 'DisruptionBudget',
              message: `The disruption budget ${budget.metadata.name} needs ${status.desiredHealthy} healthy pods and has ${status.currentHealthy} currently`,
            },
          ],
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
    if ((input.machine?.gpus ?? 0) > 0) this.#gpus[input.name] = input.machine?.gpus ?? 0;
    else delete this.#gpus[input.name];
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
          // A kubelet that registers a name whose Node exists keeps that Node's annotations and reconciles only its own
          // (tryRegisterWithAPIServer and reconcileCMADAnnotationWithExistingNode, pkg/kubelet/kubelet_node_status.go).
          ...(existing?.metadata.annotations ?? {}),
          'kubeadm.alpha.kubernetes.io/cri-socket': 'unix:///run/containerd/containerd.sock',
          'node.alpha.kubernetes.io/ttl': '0',
          'volumes.kubernetes.io/controller-managed-attach-detach': 'true',
        },
      },
      spec: { ...this.#podCidrOf(existing), taints, ...(input.providerId ? { providerID: input.providerId } : {}) },
      status: {
        conditions: [
          // The kubelet's pressure conditions (pkg/kubelet/nodestatus/setters.go), all healthy on a fresh machine.
          ...(
            [
              ['MemoryPressure', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'],
              ['DiskPressure', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'],
              ['PIDPressure', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'],
            ] as const
          ).map(([type, reason, message]) => ({ type, status: 'False', reason, message, lastHeartbeatTime: iso(nowMs), lastTransitionTime: iso(nowMs) })),
          {
            type: 'Ready',
            status: 'False',
            reason: 'KubeletNotReady',
            message:
              'container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady ' +
              'message:Network plugin returns error: cni plugin not initialized',
            lastHeartbeatTime: iso(nowMs),
            lastTransitionTime: iso(nowMs),
          },
        ],
        addresses: [...(input.internalIp ? [{ type: 'InternalIP', address: input.internalIp }] : []), { type: 'Hostname', address: input.name }],
        ...nodeResources(input.machine ?? UNKNOWN_MACHINE),
        daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
        nodeInfo: {
          // /etc/machine-id is 32 hex digits; the boot id changes with every boot.
          machineID: createHash('sha256').update(`machine/${input.name}`).digest('hex').slice(0, 32),
          systemUUID: uuidFrom(`system/${input.name}`, 0),
          bootID: uuidFrom(`boot/${input.name}`, nowMs),
          kernelVersion: '6.8.0-51-generic',
          osImage: 'Ubuntu 24.04.1 LTS',
          kubeProxyVersion: input.kubeletVersion,
          kubeletVersion: input.kubeletVersion,
          architecture: input.arch,
          operatingSystem: 'linux',
          containerRuntimeVersion: 'containerd://1.7.24',
        },
      },
    };
    const stored = existing
      ? this.store.replace('nodes', { ...node, metadata: { ...node.metadata, resourceVersion: existing.metadata.resourceVersion } })
      : this.store.create('nodes', node, nowMs);
    this.renewNodeLease(stored, nowMs);
    // What the kubelet and the node lifecycle controller report for a node that registers (kubelet.go, nodestatus).
    const kubelet = { type: 'Normal' as const, component: 'kubelet', host: input.name };
    this.recordEvent(stored, { ...kubelet, reason: 'Starting', message: 'Starting kubelet.' }, nowMs);
    for (const [reason, what] of [
      ['NodeHasSufficientMemory', 'NodeHasSufficientMemory'],
      ['NodeHasNoDiskPressure', 'NodeHasNoDiskPressure'],
      ['NodeHasSufficientPID', 'NodeHasSufficientPID'],
    ] as const) {
      this.recordEvent(stored, { ...kubelet, reason, message: `Node ${input.name} status is now: ${what}` }, nowMs);
    }
    this.recordEvent(stored, { ...kubelet, reason: 'NodeAllocatableEnforced', message: 'Updated Node Allocatable limit across pods' }, nowMs);
    this.recordEvent(
      stored,
      {
        type: 'Normal',
        component: 'node-controller',
        reason: 'RegisteredNode',
        message: `Node ${input.name} event: Registered Node ${input.name} in Controller`,
      },
      nowMs,
    );
    if (input.controlPlane) this.#reconcileApiEndpoints(nowMs);
    // Cilium's agent, the kube-system/cilium DaemonSet's pod (bootstrap), comes with the controllers' pass below.
    if (input.controlPlane) {
      for (const component of ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler']) {
        this.#createPod(
          {
            name: `${component}-${input.name}`,
            namespace: 'kube-system',
            labels: { component, tier: 'control-plane' },
            owner: stored,
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

  #setNodeCondition(
    name: string,
    status: 'True' | 'False' | 'Unknown',
    reason: string,
    message: string,
    atMs: number,
    taints: (t: TaintLike[]) => TaintLike[],
  ): void {
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
    const before = this.store.get('nodes', undefined, name);
    if (before && !nodeReady(before))
      this.recordEvent(
        before,
        { type: 'Normal', component: 'kubelet', host: name, reason: 'NodeReady', message: `Node ${name} status is now: NodeReady` },
        atMs,
      );
    this.#setNodeCondition(name, 'True', 'KubeletReady', 'kubelet is posting ready status', atMs, (t) =>
      t.filter((x) => x.key !== NOT_READY_TAINT && x.key !== UNREACHABLE_TAINT),
    );
    for (const pod of this.store.list('pods')) {
      if (podNode(pod) !== name) continue;
      const kind = ownerKind(pod);
      if (kind === 'DaemonSet' || kind === 'Node') this.#setPodRunning(pod, atMs);
      else if (!podReady(pod) && !terminated(pod)) this.#startPod(pod, atMs);
    }
    this.reconcile(atMs);
  }

  /** The kubelet stopped posting status (its machine is gone): the node lifecycle controller's view. */
  markNodeUnreachable(name: string, atMs: number): void {
    const node = this.store.get('nodes', undefined, name);
    if (!node) return;
    // The node lifecycle controller's RecordNodeStatusChange (pkg/controller/nodelifecycle).
    this.recordEvent(node, { type: 'Normal', component: 'node-controller', reason: 'NodeNotReady', message: `Node ${name} status is now: NodeNotReady` }, atMs);
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
      case 'helm-job':
        helmJobDone(this, event.namespace, event.name, event.uid, at);
        return this.reconcile(at);
      case 'job-container-exit': {
        const pod = this.store.get('pods', event.namespace, event.name);
        if (!pod || pod.metadata['uid'] !== event.uid || obj(pod['status'])?.['phase'] !== 'Running') return;
        this.store.replace('pods', completedPod(pod, at));
        return this.reconcile(at);
      }
      case 'progress-deadline':
        return this.reconcile(at);
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
    return {
      store: this.store.state(),
      podSeq: this.#podSeq,
      ...(Object.keys(this.#gpus).length > 0 ? { gpus: { ...this.#gpus } } : {}),
      ...(this.#deadlines.size > 0 ? { deadlines: Object.fromEntries(this.#deadlines) } : {}),
    };
  }

  scheduleJobDone(atMs: number, job: KubeObject): void {
    this.#schedule(atMs, { kind: 'helm-job', namespace: job.metadata.namespace ?? 'default', name: job.metadata.name, uid: String(job.metadata['uid']) });
  }

  machineGpus(node: string): number {
    return this.#gpus[node] ?? 0;
  }

  restore(state: ClusterApiState): void {
    this.store.restore(state.store);
    registerCrds(this.store);
    this.#gpus = { ...(state.gpus ?? {}) };
    this.#podSeq = state.podSeq;
    this.#deadlines.clear();
    for (const [uid, at] of Object.entries(state.deadlines ?? {})) this.#deadlines.set(uid, at);
  }

  // ---- pods, Deployments and the scheduler ------------------------------------------------------------------

  /** A node's podCIDR: the one it had, else the next free range of the pod subnet (pod-network.ts). */
  #podCidrOf(existing: KubeObject | undefined): Json {
    const had = obj(existing?.['spec'])?.['podCIDR'];
    if (typeof had === 'string') return { podCIDR: had, podCIDRs: [had] };
    if (!this.identity.podSubnet) return {};
    const taken = new Set(this.store.list('nodes').map((n) => String(obj(n['spec'])?.['podCIDR'] ?? '')));
    const cidr = allocateNodeCidr(this.identity.podSubnet, taken, this.identity.nodeCidrMaskSize);
    return cidr ? { podCIDR: cidr, podCIDRs: [cidr] } : {};
  }

  /** A mirror pod: the kubelet's static pod as the API server shows it, owned by its Node, on the host's network. */
  #createPod(
    p: {
      name: string;
      namespace: string;
      labels: Record<string, string>;
      owner: KubeObject;
      node?: string;
      tolerations: Toleration[];
      container: Json;
      mirror?: boolean;
    },
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
          ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: p.owner.metadata.name, uid: p.owner.metadata['uid'], controller: true }],
          ...(p.mirror ? { annotations: { 'kubernetes.io/config.mirror': templateHash(p.name) } } : {}),
        },
        spec: { ...(p.node ? { nodeName: p.node } : {}), containers: [p.container], tolerations: p.tolerations, hostNetwork: true },
        status: { phase: 'Pending', conditions: [{ type: 'Ready', status: 'False' }] },
      },
      nowMs,
    );
  }

  #setPodReady(pod: KubeObject, ready: boolean, atMs: number): void {
    const status = obj(pod['status']) ?? {};
    const conditions = ((status['conditions'] as Json[] | undefined) ?? []).filter((c) => c['type'] !== 'Ready');
    conditions.push({ type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: iso(atMs) });
    const containerStatuses = ((status['containerStatuses'] as Json[] | undefined) ?? []).map((c) => ({ ...c, ready }));
    this.store.replace('pods', { ...pod, status: { ...status, conditions, ...(containerStatuses.length > 0 ? { containerStatuses } : {}) } });
  }

  /**
   * What the kubelet reports for a pod whose containers run (core/v1 PodStatus): each container's status, running
   * since `atMs` and ready, which `kubectl get pods` counts for READY (printers.go printPod), and the node's address
   * as hostIP, and its pod address: the node's for a pod on the host's network, else one of the node's podCIDR
   * (pod-network.ts).
   */
  #runningStatus(pod: KubeObject, atMs: number): Json {
    const spec = obj(pod['spec']) ?? {};
    const host = podNode(pod);
    const node = host ? this.store.get('nodes', undefined, host) : undefined;
    const hostIp = ((obj(node?.['status'])?.['addresses'] as Json[] | undefined) ?? []).find((a) => a['type'] === 'InternalIP')?.['address'];
    const containerStatuses = ((spec['containers'] as Json[] | undefined) ?? []).map((c) => ({
      name: String(c['name'] ?? ''),
      image: String(c['image'] ?? ''),
      imageID: '',
      containerID: `containerd://${createHash('sha256')
        .update(`${String(pod.metadata['uid'])}/${String(c['name'] ?? '')}`)
        .digest('hex')}`,
      ready: true,
      started: true,
      restartCount: 0,
      state: { running: { startedAt: iso(atMs) } },
    }));
    const podIp = spec['hostNetwork'] === true ? hostIp : this.#podIpOn(host, obj(node?.['spec'])?.['podCIDR']);
    return {
      containerStatuses,
      ...(typeof hostIp === 'string' ? { hostIP: hostIp, hostIPs: [{ ip: hostIp }] } : {}),
      ...(typeof podIp === 'string' ? { podIP: podIp, podIPs: [{ ip: podIp }] } : {}),
    };
  }

  /** A free address of the node's podCIDR (the pods on it keep theirs). */
  #podIpOn(node: string | undefined, cidr: unknown): string | undefined {
    if (node === undefined || typeof cidr !== 'string') return undefined;
    const taken = new Set(
      this.store
        .list('pods')
        .filter((p) => podNode(p) === node && obj(p['spec'])?.['hostNetwork'] !== true)
        .map((p) => String(obj(p['status'])?.['podIP'] ?? '')),
    );
    return allocatePodIp(cidr, taken);
  }

  #setPodRunning(pod: KubeObject, atMs: number): void {
    const status = obj(pod['status']) ?? {};
    if (status['phase'] !== 'Running') {
      // The kubelet's container events (kuberuntime_container.go startContainer), on the container's field path.
      const host = podNode(pod);
      for (const c of (obj(pod['spec'])?.['containers'] as Json[] | undefined) ?? []) {
        const name = String(c['name'] ?? '');
        const on = { type: 'Normal' as const, component: 'kubelet', ...(host ? { host } : {}), fieldPath: `spec.containers{${name}}` };
        this.recordEvent(pod, { ...on, reason: 'Created', message: `Created container: ${name}` }, atMs);
        this.recordEvent(pod, { ...on, reason: 'Started', message: `Started container ${name}` }, atMs);
      }
    }
    this.store.replace('pods', {
      ...pod,
      status: {
        ...status,
        phase: 'Running',
        startTime: status['startTime'] ?? iso(atMs),
        conditions: [
          { type: 'PodScheduled', status: 'True' },
          { type: 'Ready', status: 'True', lastTransitionTime: iso(atMs) },
        ],
        ...(status['phase'] === 'Running' && Array.isArray(status['containerStatuses'])
          ? { containerStatuses: (status['containerStatuses'] as Json[]).map((c) => ({ ...c, ready: true })) }
          : this.#runningStatus(pod, atMs)),
      },
    });
  }

  /** A bound pod starts once its node is Ready: Running and Ready after the pod start time. */
  #startPod(pod: KubeObject, atMs: number): void {
    const namespace = pod.metadata.namespace;
    this.#schedule(atMs + KUBE_TIMINGS.podStartMs, {
      kind: 'pod-start',
      ...(namespace !== undefined ? { namespace } : {}),
      name: pod.metadata.name,
      uid: String(pod.metadata['uid']),
    });
  }

  #podStarted(namespace: string | undefined, name: string, uid: string, at: number): void {
    const current = this.store.get('pods', namespace, name);
    if (!current || current.metadata['uid'] !== uid || terminated(current)) return;
    const node = podNode(current);
    const n = node ? this.store.get('nodes', undefined, node) : undefined;
    if (!n || !nodeReady(n)) return;
    this.#setPodRunning(current, at);
    const job = controllingJob(this.store, current);
    if (job && !helmControllerJob(job))
      this.#schedule(at + KUBE_TIMINGS.jobContainerMs, { kind: 'job-container-exit', ...(namespace !== undefined ? { namespace } : {}), name, uid });
    this.reconcile(at);
  }

  /**
   * The controllers' pass after every change: the garbage collector, the Deployment, ReplicaSet, helm and DaemonSet
   * controllers, the scheduler, then the statuses read from what they did (Deployments, PodDisruptionBudgets).
   */
  reconcile(nowMs: number): void {
    collectGarbage(this, nowMs);
    const record: RecordEvent = (involved, component, reason, message) => this.recordEvent(involved, { type: 'Normal', component, reason, message }, nowMs);
    reconcileDeployments(this.store, nowMs, record);
    reconcileReplicaSets(this.store, nowMs, record);
    reconcileHelmCharts(this, nowMs);
    reconcileJobs(this.#jobHost(), nowMs);
    reconcileDaemonSets(this.store, nowMs, (pod) => this.#startPod(pod, nowMs), record);
    this.#schedulePending(nowMs);
    reconcileReplicaSets(this.store, nowMs, record);
    deploymentStatuses(this.store, nowMs);
    reconcileEndpoints(this.store, nowMs);
    this.#budgetStatuses(nowMs);
    this.#scheduleProgressDeadlines();
  }

  /** What the Job controller reaches of the cluster (jobs.ts). */
  #jobHost(): JobHost {
    return {
      store: this.store,
      minor: Number(/^v?\d+\.(\d+)/.exec(this.identity.kubernetesVersion)?.[1] ?? 0),
      wakeAt: (atMs, key) => {
        if (this.#deadlines.get(key) === atMs) return;
        this.#deadlines.set(key, atMs);
        this.#schedule(atMs, { kind: 'progress-deadline', uid: key });
      },
      deleteJob: (job, nowMs) => {
        this.deleteWith('jobs', job.metadata.namespace, job.metadata.name, 'Background', nowMs);
        collectGarbage(this, nowMs);
      },
    };
  }

  /** A look at each Deployment still progressing when its deadline passes, so that ProgressDeadlineExceeded is reported. */
  #scheduleProgressDeadlines(): void {
    for (const d of this.store.list('deployments')) {
      const progressing = ((obj(d['status'])?.['conditions'] as Json[] | undefined) ?? []).find((c) => c['type'] === 'Progressing');
      if (progressing?.['status'] !== 'True' || progressing['reason'] === 'NewReplicaSetAvailable') continue;
      const seconds = obj(d['spec'])?.['progressDeadlineSeconds'];
      const at = Date.parse(String(progressing['lastUpdateTime'] ?? '')) + (typeof seconds === 'number' ? seconds : 600) * 1000 + 1000;
      const uid = String(d.metadata['uid']);
      if (!Number.isFinite(at) || this.#deadlines.get(uid) === at) continue;
      this.#deadlines.set(uid, at);
      this.#schedule(at, { kind: 'progress-deadline', uid });
    }
  }

  /**
   * Binds pending pods (scheduling.ts has the filters and their sources): among Ready nodes that pass every filter,
   * the one with the fewest pods of the same owner, then the fewest pods (the spreading the default scores give);
   * a pod that fits nowhere gets PodScheduled=False/Unschedulable and a FailedScheduling event (once per message),
   * and is tried again on every change (a node joining, a pod going).
   */
  #schedulePending(nowMs: number): void {
    bindImmediateClaims(this.store, nowMs);
    const pods = this.store.list('pods');
    const pendingPods = pods.filter((p) => !podNode(p) && !terminated(p) && p.metadata['deletionTimestamp'] === undefined);
    if (pendingPods.length === 0) return;
    const allNodes = this.store.list('nodes');
    const ownerOf = (p: KubeObject): string => JSON.stringify(p.metadata['ownerReferences'] ?? []);
    const load = new Map<string, { total: number; byOwner: Map<string, number>; used: Record<string, number> }>();
    const loadOf = (node: string) => {
      let l = load.get(node);
      if (!l) {
        l = { total: 0, byOwner: new Map(), used: {} };
        load.set(node, l);
      }
      return l;
    };
    const count = (node: string, p: KubeObject): void => {
      const l = loadOf(node);
      l.total += 1;
      l.byOwner.set(ownerOf(p), (l.byOwner.get(ownerOf(p)) ?? 0) + 1);
      for (const [k, v] of Object.entries(podRequests(p))) l.used[k] = (l.used[k] ?? 0) + v;
    };
    for (const p of pods) {
      const node = podNode(p);
      if (node && !terminated(p)) count(node, p);
    }
    for (const pod of pendingPods) {
      const owner = ownerOf(pod);
      const claims = podClaims(this.store, pod);
      let best: { n: KubeObject; same: number; total: number } | undefined;
      const failures: FilterResult[] = [];
      if (!('error' in claims)) {
        for (const n of allNodes) {
          if (!nodeReady(n)) {
            failures.push({ ok: false, reasons: [`node(s) had untolerated taint {${NOT_READY_TAINT}: }`], unresolvable: true });
            continue;
          }
          const l = loadOf(n.metadata.name);
          const fit = filterNode(pod, n, l.used, claims.claims);
          if (!fit.ok) {
            failures.push(fit);
            continue;
          }
          const same = l.byOwner.get(owner) ?? 0;
          if (
            !best ||
            same < best.same ||
            (same === best.same && (l.total < best.total || (l.total === best.total && n.metadata.name < best.n.metadata.name)))
          ) {
            best = { n, same, total: l.total };
          }
        }
      }
      if (!best) {
        if (allNodes.length > 0) this.#unschedulable(pod, unschedulableMessage(allNodes.length, failures, 'error' in claims ? claims.error : undefined), nowMs);
        continue;
      }
      const target = best.n.metadata.name;
      bindPodVolumes(this.store, pod, best.n, nowMs);
      const current = this.store.get('pods', pod.metadata.namespace, pod.metadata.name) ?? pod;
      const status = obj(current['status']) ?? {};
      const conditions = ((status['conditions'] as Json[] | undefined) ?? []).filter((c) => c['type'] !== 'PodScheduled');
      const bound = this.store.replace('pods', {
        ...current,
        spec: { ...(obj(current['spec']) ?? {}), nodeName: target },
        status: { ...status, conditions: [{ type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: iso(nowMs) }, ...conditions] },
      });
      this.recordEvent(
        bound,
        {
          type: 'Normal',
          component: 'default-scheduler',
          reason: 'Scheduled',
          message: `Successfully assigned ${bound.metadata.namespace ?? ''}/${bound.metadata.name} to ${target}`,
        },
        nowMs,
      );
      count(target, bound);
      this.#startPod(bound, nowMs);
    }
  }

  /** PodScheduled=False with the scheduler's message, and its FailedScheduling event when the message is new. */
  #unschedulable(pod: KubeObject, message: string, nowMs: number): void {
    const status = obj(pod['status']) ?? {};
    const conditions = (status['conditions'] as Json[] | undefined) ?? [];
    const previous = conditions.find((c) => c['type'] === 'PodScheduled');
    if (previous?.['status'] === 'False' && previous['message'] === message) return;
    const scheduled = {
      type: 'PodScheduled',
      status: 'False',
      lastProbeTime: null,
      lastTransitionTime: previous?.['status'] === 'False' ? previous['lastTransitionTime'] : iso(nowMs),
      reason: 'Unschedulable',
      message,
    };
    const updated = this.store.replace('pods', {
      ...pod,
      status: { ...status, phase: 'Pending', conditions: [scheduled, ...conditions.filter((c) => c['type'] !== 'PodScheduled')] },
    });
    this.recordEvent(updated, { type: 'Warning', component: 'default-scheduler', reason: 'FailedScheduling', message }, nowMs);
  }

  // ---- what kubeadm init and the cilium install create --------------------------------------------------------

  /**
   * kube-public/cluster-info, the bootstrap token Secret, the ConfigMaps init uploads (kubeadm-config, kubelet-config)
   * and the mesh's, and the add-on Deployments.
   */
  bootstrap(
    input: { tokens: Array<{ token: string; expiresAtMs: number; usages?: string[]; groups?: string[] }>; configMaps: KubeObject[] },
    nowMs: number,
  ): void {
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
    this.#defaultServices(nowMs);
    for (const { token, expiresAtMs, usages = ['signing', 'authentication'], groups = ['system:bootstrappers:kubeadm:default-node-token'] } of input.tokens) {
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
            // kubeadm's encoding of BootstrapToken (bootstraptoken/v1 BootstrapTokenToSecret): one field per usage.
            ...Object.fromEntries(usages.map((u) => [`usage-bootstrap-${u}`, b('true')])),
            ...(groups.length > 0 ? { 'auth-extra-groups': b(groups.join(',')) } : {}),
          },
        },
        nowMs,
      );
    }
    for (const cm of input.configMaps) {
      const ns = cm.metadata.namespace ?? 'kube-system';
      if (this.store.get('configmaps', ns, cm.metadata.name)) continue;
      this.create('configmaps', ns, cm, nowMs);
    }
    // kubeadm's CoreDNS addon is a Deployment, its Service, ConfigMap and RBAC, and no PodDisruptionBudget
    // (cmd/kubeadm/app/phases/addons/dns/manifests.go; kubernetes/kubeadm#1672 asked for one and was closed). So a drain
    // evicts both replicas even where they have nowhere else to go (every worker tainted): DNS waits, the drain does not.
    if (!this.store.get('daemonsets', 'kube-system', 'cilium')) this.create('daemonsets', 'kube-system', structuredClone(CILIUM_DAEMONSET), nowMs);
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
            spec: {
              containers: [{ name: 'coredns', image: 'registry.k8s.io/coredns/coredns:v1.11.3', args: ['-conf', '/etc/coredns/Corefile'] }],
              tolerations: criticalTolerations,
            },
          },
        },
      },
      nowMs,
    );
    this.create(
      'deployments',
      'kube-system',
      {
        metadata: { name: 'cilium-operator', labels: { 'io.cilium/app': 'operator' } },
        spec: {
          replicas: 1,
          selector: { matchLabels: { 'io.cilium/app': 'operator' } },
          template: {
            metadata: { labels: { 'io.cilium/app': 'operator' } },
            // The cilium chart's operator runs on the host's network.
            spec: {
              containers: [{ name: 'cilium-operator', image: 'quay.io/cilium/operator-generic' }],
              hostNetwork: true,
              tolerations: [{ operator: 'Exists' }],
            },
          },
        },
      },
      nowMs,
    );
  }

  /**
   * What a Crusoe CMK control plane holds when it first answers (seeds/cmk-addons.txt, crusoe-notes.md §3): the same
   * kube-system add-ons as a kubeadm cluster (no bootstrap tokens: CMK joins its own nodes), the `crusoe-system`
   * namespace with the managed `cmk-<cluster>` add-on credentials Secret, and, with the `cluster_autoscaler` add-on,
   * the autoscaler Deployment without any `--nodes=` limits (CMK sets none), and the Helm release of each add-on CMK
   * installs (seeds/cmk-addons.txt: installed at creation as Helm releases, never auto-upgraded).
   */
  bootstrapCmk(input: { addons: readonly string[]; releases: readonly ServiceRelease[] }, nowMs: number): void {
    this.bootstrap({ tokens: [], configMaps: [] }, nowMs);
    const ns = 'crusoe-system';
    this.create('namespaces', undefined, { metadata: { name: ns } }, nowMs);
    // CMK's own API token; the sandbox's stand-in values are not credentials anywhere.
    this.create(
      'secrets',
      ns,
      {
        metadata: { name: `cmk-${this.identity.name}` },
        type: 'Opaque',
        stringData: { CRUSOE_ACCESS_KEY: 'cmk-managed-token', CRUSOE_SECRET_KEY: 'cmk-managed-token' },
      },
      nowMs,
    );
    for (const r of input.releases) {
      if (!this.store.get('namespaces', undefined, r.namespace)) this.create('namespaces', undefined, { metadata: { name: r.namespace } }, nowMs);
      recordServiceRelease(this.store, { ...r, values: structuredClone(r.values) as Json }, nowMs);
    }
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
              containers: [
                {
                  name: 'cluster-autoscaler',
                  image: 'ghcr.io/crusoecloud/cluster-autoscaler-crusoecloud',
                  args: ['--cloud-provider=crusoecloud', '--expander=least-waste'],
                },
              ],
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
    if (stored?.['type'] !== 'bootstrap.kubernetes.io/token' || field('usage-bootstrap-signing') !== 'true') return noJws;
    const expiration = field('expiration');
    if (expiration !== undefined && Date.parse(expiration) <= nowMs) return `${noJws} (the token expired at ${expiration})`;
    // The bootstrap signer signed cluster-info with the token's real secret: another secret cannot verify it.
    if (field('token-secret') !== secret) return "failed to verify JWS signature of received cluster info object, can't trust this API Server";
    return null;
  }

  /** Whether the bootstrap authenticator takes `token` (plugin/pkg/auth/authenticator/token/bootstrap). */
  bootstrapTokenAuthenticates(token: string, nowMs: number): boolean {
    const secrets = this.store.list('secrets', 'kube-system') as BootstrapTokenSecret[];
    return authenticateBootstrapToken(token, secrets, nowMs) !== undefined;
  }
}

/** A label selector as the API server parses it: a malformed one is 400 BadRequest (labels.Parse's error), not an empty list. */
export function kubernetesLabelSelector(selector: string): (labels: Record<string, string>) => boolean {
  try {
    return parseLabelSelector(selector);
  } catch (error) {
    if (error instanceof LabelSelectorSyntaxError) throw new ApiError(400, 'BadRequest', `unable to parse requirement: ${error.message}`);
    throw error;
  }
}
