// One cluster's object store, as the API server keeps it in etcd: objects by resource, namespace and name, with a
// cluster-wide resourceVersion, uids and creation timestamps; and the meta/v1 Status errors the API answers with.
import { createHash } from 'node:crypto';

export type Json = Record<string, unknown>;

/** `value` as a JSON object, or undefined when it is anything else (null, an array, a scalar). */
export function obj(value: unknown): Json | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : undefined;
}

export interface KubeObject extends Json {
  metadata: Json & { name: string; namespace?: string; resourceVersion?: string; labels?: Record<string, string> };
}

/** How a resource is served: its kind, group, version and scope (built in, or from an established CRD). */
export interface ResourceSpec {
  kind: string;
  group: string;
  /** The served version; v1 when absent. */
  version?: string;
  namespaced: boolean;
  /** Custom resources: the CRD's served versions, its singular name, short names and categories. */
  custom?: { versions: string[]; singular: string; shortNames: string[]; categories: string[]; listKind: string };
}

/** Resources served, with the kind and group their Status errors name. */
const BUILTIN = {
  namespaces: { kind: 'Namespace', group: '', namespaced: false },
  nodes: { kind: 'Node', group: '', namespaced: false },
  configmaps: { kind: 'ConfigMap', group: '', namespaced: true },
  secrets: { kind: 'Secret', group: '', namespaced: true },
  pods: { kind: 'Pod', group: '', namespaced: true },
  serviceaccounts: { kind: 'ServiceAccount', group: '', namespaced: true },
  persistentvolumeclaims: { kind: 'PersistentVolumeClaim', group: '', namespaced: true },
  persistentvolumes: { kind: 'PersistentVolume', group: '', namespaced: false },
  deployments: { kind: 'Deployment', group: 'apps', namespaced: true },
  daemonsets: { kind: 'DaemonSet', group: 'apps', namespaced: true },
  replicasets: { kind: 'ReplicaSet', group: 'apps', namespaced: true },
  controllerrevisions: { kind: 'ControllerRevision', group: 'apps', namespaced: true },
  jobs: { kind: 'Job', group: 'batch', namespaced: true },
  poddisruptionbudgets: { kind: 'PodDisruptionBudget', group: 'policy', namespaced: true },
  // Stored as written, not enforced: the first control plane applies the mesh reader's Role and RoleBinding and the
  // metadata-blocking Cilium policy, and a real API server would accept them. The helm-controller's
  // ServiceAccount and ClusterRoleBinding (issue 14) are stored the same way.
  roles: { kind: 'Role', group: 'rbac.authorization.k8s.io', namespaced: true },
  rolebindings: { kind: 'RoleBinding', group: 'rbac.authorization.k8s.io', namespaced: true },
  clusterroles: { kind: 'ClusterRole', group: 'rbac.authorization.k8s.io', namespaced: false },
  clusterrolebindings: { kind: 'ClusterRoleBinding', group: 'rbac.authorization.k8s.io', namespaced: false },
  storageclasses: { kind: 'StorageClass', group: 'storage.k8s.io', namespaced: false },
  csidrivers: { kind: 'CSIDriver', group: 'storage.k8s.io', namespaced: false },
  customresourcedefinitions: { kind: 'CustomResourceDefinition', group: 'apiextensions.k8s.io', namespaced: false },
  ciliumclusterwidenetworkpolicies: { kind: 'CiliumClusterwideNetworkPolicy', group: 'cilium.io', version: 'v2', namespaced: false },
  services: { kind: 'Service', group: '', namespaced: true },
  endpoints: { kind: 'Endpoints', group: '', namespaced: true },
  endpointslices: { kind: 'EndpointSlice', group: 'discovery.k8s.io', namespaced: true },
  events: { kind: 'Event', group: '', namespaced: true },
  leases: { kind: 'Lease', group: 'coordination.k8s.io', namespaced: true },
  // Create-only and never stored: the API server answers the review in its response
  // (https://kubernetes.io/docs/reference/access-authn-authz/authorization/#checking-api-access).
  selfsubjectaccessreviews: { kind: 'SelfSubjectAccessReview', group: 'authorization.k8s.io', namespaced: false },
  // `kubectl auth whoami`: the caller's user as the API server authenticated it (authentication.k8s.io/v1, GA in 1.28).
  selfsubjectreviews: { kind: 'SelfSubjectReview', group: 'authentication.k8s.io', namespaced: false },
} as const satisfies Record<string, ResourceSpec>;

/** The built-in resources (plural names), served by every cluster. */
export const RESOURCES: Readonly<Record<BuiltinResource, ResourceSpec>> = BUILTIN;
export type BuiltinResource = keyof typeof BUILTIN;
/**
 * A resource: a built-in plural (`pods`), or a custom resource's `<plural>.<group>` (`helmcharts.helm.cattle.io`),
 * the name its CRD has.
 */
export type Resource = string;

export function isBuiltin(resource: Resource): resource is BuiltinResource {
  return Object.hasOwn(BUILTIN, resource);
}

/**
 * Custom resources' specs by `<plural>.<group>`, from the CRDs clusters established (customresources.ts registers
 * them). Shared by the process's clusters: two clusters defining the same CRD name differently would see the last
 * definition's kind and scope (the sandbox's charts define each CRD one way).
 */
const CUSTOM = new Map<string, ResourceSpec>();

export function registerCustomResource(name: string, spec: ResourceSpec): void {
  CUSTOM.set(name, spec);
}

/** How `resource` is served; a custom resource nobody registered throws (a caller's bug, not a client's). */
export function specOf(resource: Resource): ResourceSpec {
  const found = isBuiltin(resource) ? BUILTIN[resource] : CUSTOM.get(resource);
  if (!found) throw new Error(`the resource ${resource} is neither built in nor defined by a CRD`);
  return found;
}

/** The API version a resource is served at (v1 unless its group serves another, as cilium.io serves v2). */
export function resourceVersion(resource: Resource): string {
  return specOf(resource).version ?? 'v1';
}

/** An API error, rendered as a meta/v1 Status. */
export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details: Json = {},
  ) {
    super(message);
  }

  status(): Json {
    return {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      // An error the API server does not classify (a 500 from the field manager) carries neither reason nor details.
      ...(this.reason !== '' ? { reason: this.reason, details: this.details } : {}),
      code: this.code,
    };
  }
}

function qualified(resource: Resource): string {
  const group = groupOf(resource);
  return group ? `${pluralOf(resource)}.${group}` : resource;
}

/** A resource's group, also for a custom resource no cluster defines (its name is `<plural>.<group>`). */
function groupOf(resource: Resource): string {
  if (isBuiltin(resource)) return BUILTIN[resource].group;
  return CUSTOM.get(resource)?.group ?? resource.slice(resource.indexOf('.') + 1);
}

function pluralOf(resource: Resource): string {
  return isBuiltin(resource) ? resource : resource.slice(0, resource.indexOf('.'));
}

export function notFound(resource: Resource, name: string): ApiError {
  return new ApiError(404, 'NotFound', `${qualified(resource)} "${name}" not found`, {
    name,
    kind: pluralOf(resource),
    ...(groupOf(resource) ? { group: groupOf(resource) } : {}),
  });
}

export function alreadyExists(resource: Resource, name: string): ApiError {
  return new ApiError(409, 'AlreadyExists', `${qualified(resource)} "${name}" already exists`, {
    name,
    kind: pluralOf(resource),
    ...(groupOf(resource) ? { group: groupOf(resource) } : {}),
  });
}

export function conflict(resource: Resource, name: string): ApiError {
  return new ApiError(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${qualified(resource)} "${name}": the object ` +
      `has been modified; please apply your changes to the latest version and try again`,
    {
      name,
      kind: pluralOf(resource),
    },
  );
}

export function invalid(resource: Resource, name: string, field: string, message: string): ApiError {
  return invalidFields(resource, name, [{ reason: 'FieldValueInvalid', message, field }]);
}

/**
 * 422 Invalid with one cause per field, worded as apimachinery's errors.NewInvalid: the group-qualified kind
 * (`Deployment.apps`, `Pod`), and several field errors as one bracketed list.
 */
export function invalidFields(resource: Resource, name: string, causes: Array<{ reason: string; message: string; field: string }>): ApiError {
  const { kind, group } = specOf(resource);
  const qualifiedKind = group ? `${kind}.${group}` : kind;
  const each = causes.map((c) => `${c.field}: ${c.message}`);
  const list = each.length === 1 ? (each[0] ?? '') : `[${each.join(', ')}]`;
  return new ApiError(422, 'Invalid', `${qualifiedKind} "${name}" is invalid: ${list}`, {
    name,
    ...(group ? { group } : {}),
    kind,
    causes,
  });
}

const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export function validName(name: string): boolean {
  return name.length > 0 && name.length <= 253 && DNS1123_SUBDOMAIN.test(name);
}

/**
 * RBAC objects are named by path segment, not DNS subdomain (`system:controller:...`, `kubeplane:mesh-reader`):
 * anything but `.`, `..` and names holding `/` or `%` (pkg/apis/rbac/validation ValidateRBACName →
 * apimachinery's path.IsValidPathSegmentName).
 */
export function validPathSegmentName(name: string): boolean {
  return name.length > 0 && name !== '.' && name !== '..' && !/[/%]/.test(name);
}

export function clone<T>(value: T): T {
  return structuredClone(value);
}

/** An object store's content as plain data (sandbox snapshots): objects per resource in insertion order. */
export interface ObjectStoreState {
  uidPrefix: string;
  revision: number;
  uid: number;
  objects: Array<[Resource, Array<[string, KubeObject]>]>;
}

/** One write to the store, as a watch reports it; `previous` is the object a MODIFIED replaced. */
export interface StoreChange {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  resource: Resource;
  object: KubeObject;
  previous?: KubeObject;
}

/**
 * Which kinds keep metadata.generation and which updates start a new one (generation.ts has the registries' rules;
 * it is given to the store, which cannot import it).
 */
export interface GenerationPolicy {
  /** Whether the registry of `resource` keeps metadata.generation. */
  tracks(resource: Resource): boolean;
  /** Whether an update from `current` to `next` starts a new generation (deletion aside). */
  changed(resource: Resource, current: KubeObject, next: KubeObject): boolean;
}

export class ObjectStore {
  /** Per resource, by `namespace/name`. */
  readonly #objects = new Map<Resource, Map<string, KubeObject>>();
  readonly #listeners = new Set<(change: StoreChange) => void>();
  #revision = 1;
  #uid = 0;
  readonly #uidPrefix: string;
  readonly #generation: GenerationPolicy | undefined;

  /** Without a `generation` policy, no object gets metadata.generation (a bare store, as some tests use). */
  constructor(uidPrefix: string, generation?: GenerationPolicy) {
    this.#uidPrefix = uidPrefix;
    this.#generation = generation;
  }

  /**
   * The generation an update stores: the current one whatever the request says (apiserver rest/update.go
   * BeforeUpdate), plus one for a new generation by the policy (an `update` only) or for a deletion that starts (a generation above 0
   * only: rest/delete.go BeforeDelete, generic/registry/store.go markAsDeleting).
   */
  #nextGeneration(resource: Resource, current: KubeObject, next: KubeObject, update: boolean): unknown {
    const stored = current.metadata['generation'];
    if (typeof stored !== 'number' || stored <= 0) return stored;
    const deleting = current.metadata['deletionTimestamp'] === undefined && next.metadata['deletionTimestamp'] !== undefined;
    const changed = update && this.#generation?.tracks(resource) === true && this.#generation.changed(resource, current, next);
    return stored + (deleting || changed ? 1 : 0);
  }

  #key(_resource: Resource, namespace: string | undefined, name: string): string {
    return `${namespace ?? ''}/${name}`;
  }

  #of(resource: Resource): Map<string, KubeObject> {
    let map = this.#objects.get(resource);
    if (!map) {
      map = new Map();
      this.#objects.set(resource, map);
    }
    return map;
  }

  /** A deep copy of the store. */
  state(): ObjectStoreState {
    return clone({
      uidPrefix: this.#uidPrefix,
      revision: this.#revision,
      uid: this.#uid,
      objects: [...this.#objects.entries()].map(([r, m]) => [r, [...m.entries()]]),
    });
  }

  /** Replaces the content with a copy of `state` (of a store with the same uid prefix). */
  restore(state: ObjectStoreState): void {
    if (state.uidPrefix !== this.#uidPrefix) throw new Error(`cannot restore the object store ${state.uidPrefix} into ${this.#uidPrefix}`);
    const s = clone(state);
    this.#revision = s.revision;
    this.#uid = s.uid;
    this.#objects.clear();
    for (const [resource, entries] of s.objects) this.#objects.set(resource, new Map(entries));
  }

  /** Calls `listener` after every write (watch streams keep their change log with it); returns the unsubscribe. */
  onChange(listener: (change: StoreChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #emit(change: StoreChange): void {
    for (const listener of this.#listeners) listener(change);
  }

  get revision(): string {
    return String(this.#revision);
  }

  get(resource: Resource, namespace: string | undefined, name: string): KubeObject | undefined {
    return this.#objects.get(resource)?.get(this.#key(resource, namespace, name));
  }

  /** The resources that hold objects (the garbage collector's scan). */
  resources(): Resource[] {
    return [...this.#objects.entries()].filter(([, m]) => m.size > 0).map(([r]) => r);
  }

  /** Objects of a resource, in one namespace or all, in creation order (deterministic, and cheap for controllers). */
  list(resource: Resource, namespace?: string): KubeObject[] {
    const out: KubeObject[] = [];
    // Reads never add an empty entry: a store's state is the same whatever was only looked at.
    for (const obj of this.#objects.get(resource)?.values() ?? []) {
      if (namespace !== undefined && obj.metadata.namespace !== namespace) continue;
      out.push(obj);
    }
    return out;
  }

  /** The same, sorted by namespace and name, as the API server lists them. */
  sortedList(resource: Resource, namespace?: string): KubeObject[] {
    return this.list(resource, namespace)
      .map((o) => ({ o, key: `${o.metadata.namespace ?? ''}/${o.metadata.name}` }))
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
      .map((x) => x.o);
  }

  /** Stores a new object; fills uid, resourceVersion, creationTimestamp and, for kinds that keep one, generation. */
  create(resource: Resource, obj: KubeObject, nowMs: number): KubeObject {
    const ns = specOf(resource).namespaced ? obj.metadata.namespace : undefined;
    const key = this.#key(resource, ns, obj.metadata.name);
    if (this.#of(resource).has(key)) throw alreadyExists(resource, obj.metadata.name);
    this.#revision += 1;
    this.#uid += 1;
    const stored: KubeObject = {
      ...obj,
      metadata: {
        ...obj.metadata,
        ...(ns !== undefined ? { namespace: ns } : {}),
        uid: uuidFrom(this.#uidPrefix, this.#uid),
        resourceVersion: String(this.#revision),
        creationTimestamp: iso(nowMs),
        ...(this.#generation?.tracks(resource) ? { generation: 1 } : {}),
      },
    };
    this.#of(resource).set(key, stored);
    this.#emit({ type: 'ADDED', resource, object: stored });
    return stored;
  }

  /**
   * Replaces an object (after the caller checked the resourceVersion); keeps uid and creationTimestamp, and the
   * generation, which a deletion that starts bumps. `update`: a write through the resource's main endpoint, whose
   * registry strategy also bumps the generation on the changes it names; without it, a write as through a
   * subresource (status, binding) or a step of the create, which leaves the generation as it is.
   */
  replace(resource: Resource, obj: KubeObject, options: { update?: boolean } = {}): KubeObject {
    const ns = specOf(resource).namespaced ? obj.metadata.namespace : undefined;
    const key = this.#key(resource, ns, obj.metadata.name);
    const current = this.#of(resource).get(key);
    if (!current) throw notFound(resource, obj.metadata.name);
    this.#revision += 1;
    const generation = this.#nextGeneration(resource, current, obj, options.update === true);
    const metadata: KubeObject['metadata'] = {
      ...obj.metadata,
      ...(ns !== undefined ? { namespace: ns } : {}),
      uid: current.metadata['uid'],
      creationTimestamp: current.metadata['creationTimestamp'],
      resourceVersion: String(this.#revision),
      generation,
    };
    if (generation === undefined) delete metadata['generation'];
    const stored: KubeObject = { ...obj, metadata };
    this.#of(resource).set(key, stored);
    this.#emit({ type: 'MODIFIED', resource, object: stored, previous: current });
    return stored;
  }

  delete(resource: Resource, namespace: string | undefined, name: string): KubeObject | undefined {
    const key = this.#key(resource, namespace, name);
    const current = this.#of(resource).get(key);
    if (current) {
      this.#of(resource).delete(key);
      this.#revision += 1;
      // A DELETED event carries the object at the revision of its deletion (as etcd's delete event does).
      this.#emit({ type: 'DELETED', resource, object: { ...current, metadata: { ...current.metadata, resourceVersion: String(this.#revision) } } });
    }
    return current;
  }
}

/**
 * A uid as the API server makes them: an RFC 4122 version 4 UUID (apimachinery's uuid.NewUUID uses google/uuid's
 * NewRandom). Here the random bits come from a hash of the store's prefix and a counter, so a seeded world repeats.
 */
export function uuidFrom(prefix: string, n: number): string {
  const b = createHash('sha256').update(`${prefix}/${n}`).digest().subarray(0, 16);
  b[6] = ((b[6] ?? 0) & 0x0f) | 0x40; // version 4 (RFC 4122 §4.4)
  b[8] = ((b[8] ?? 0) & 0x3f) | 0x80; // the RFC 4122 variant
  const hex = b.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export function iso(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
