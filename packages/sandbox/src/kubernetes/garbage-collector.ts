// The garbage collector (kubernetes/pkg/controller/garbagecollector; https://kubernetes.io/docs/concepts/architecture/
// garbage-collection/): an object all of whose owners are gone is deleted; one that keeps a live owner loses the
// references to the gone ones. Deletion propagates by the policy of the DELETE: Background (the owner goes at once,
// its dependents after it), Foreground (the owner stays, marked for deletion with the `foregroundDeletion` finalizer,
// until every dependent that blocks it with blockOwnerDeletion is gone) and Orphan (the dependents lose their
// references to the owner and stay). Owners are found by uid, as the collector's graph does.
import { ownerReferencesOf } from './owners.js';
import { ApiError, type Json, type KubeObject, type ObjectStore, type Resource } from './store.js';

export type Propagation = 'Background' | 'Foreground' | 'Orphan';
export const FOREGROUND_FINALIZER = 'foregroundDeletion';

/** What the collector needs of the cluster: its store, and deletion as a DELETE with a propagation policy does it. */
export interface GarbageHost {
  readonly store: ObjectStore;
  deleteWith(resource: Resource, namespace: string | undefined, name: string, propagation: Propagation, nowMs: number): void;
  /** Removes an object whose last finalizer went. */
  removeNow(resource: Resource, namespace: string | undefined, name: string, nowMs: number): void;
}

interface Entry {
  resource: Resource;
  object: KubeObject;
}

function finalizersOf(o: KubeObject): string[] {
  return ((o.metadata['finalizers'] as unknown[] | undefined) ?? []).map(String);
}

/** Every object by uid (Events own nothing and are owned by nothing: left out of the scan). */
function index(store: ObjectStore): Map<string, Entry> {
  const out = new Map<string, Entry>();
  for (const resource of store.resources()) {
    if (resource === 'events') continue;
    for (const object of store.list(resource)) out.set(String(object.metadata['uid']), { resource, object });
  }
  return out;
}

function current(store: ObjectStore, e: Entry): KubeObject | undefined {
  const found = store.get(e.resource, e.object.metadata.namespace, e.object.metadata.name);
  return found && found.metadata['uid'] === e.object.metadata['uid'] ? found : undefined;
}

function waitingForDependents(o: KubeObject): boolean {
  return o.metadata['deletionTimestamp'] !== undefined && finalizersOf(o).includes(FOREGROUND_FINALIZER);
}

/** Strips the references to `uids` from `o`. */
function withoutOwners(o: KubeObject, uids: Set<string>): KubeObject {
  const refs = ownerReferencesOf(o).filter((r) => !uids.has(String(r['uid'])));
  const metadata: Json = { ...o.metadata };
  if (refs.length > 0) metadata['ownerReferences'] = refs;
  else delete metadata['ownerReferences'];
  return { ...o, metadata: metadata as KubeObject['metadata'] };
}

/** Orphan propagation: every dependent of `owner` loses its reference to it. */
export function orphanDependents(store: ObjectStore, owner: KubeObject): void {
  const uid = String(owner.metadata['uid']);
  for (const { resource, object } of index(store).values()) {
    if (ownerReferencesOf(object).some((r) => r['uid'] === uid)) store.replace(resource, withoutOwners(object, new Set([uid])));
  }
}

/** One collection: repeated until nothing changes, so a chain (Deployment → ReplicaSet → Pod) goes in one call. */
export function collectGarbage(host: GarbageHost, nowMs: number): void {
  const { store } = host;
  for (let pass = 0; pass < 16; pass++) {
    let changed = false;
    const all = index(store);
    const live = (uid: unknown): KubeObject | undefined => {
      const e = all.get(String(uid));
      return e ? current(store, e) : undefined;
    };
    for (const entry of all.values()) {
      const o = current(store, entry);
      if (!o) continue;
      const refs = ownerReferencesOf(o);
      if (refs.length === 0) continue;
      const dangling = refs.filter((r) => !live(r['uid']));
      const waiting = refs.filter((r) => {
        const owner = live(r['uid']);
        return owner !== undefined && waitingForDependents(owner);
      });
      const solid = refs.length - dangling.length - waiting.length;
      if (solid > 0) {
        // attemptToDeleteItem: a dependent with a live owner keeps it and drops the others.
        if (dangling.length + waiting.length > 0) {
          store.replace(entry.resource, withoutOwners(o, new Set([...dangling, ...waiting].map((r) => String(r['uid'])))));
          changed = true;
        }
        continue;
      }
      if (o.metadata['deletionTimestamp'] !== undefined) continue;
      // Every owner is gone or waiting for its dependents: the dependent goes, in the foreground when it blocks one.
      const blocks = waiting.some((r) => r['blockOwnerDeletion'] === true);
      host.deleteWith(entry.resource, o.metadata.namespace, o.metadata.name, blocks ? 'Foreground' : 'Background', nowMs);
      changed = true;
    }
    // An owner waiting in the foreground goes once no dependent blocking it is left (no scan when none waits).
    if (![...all.values()].some((e) => waitingForDependents(e.object))) {
      if (!changed) return;
      continue;
    }
    const blocked = new Set<string>();
    for (const entry of index(store).values())
      for (const r of ownerReferencesOf(entry.object)) if (r['blockOwnerDeletion'] === true) blocked.add(String(r['uid']));
    for (const entry of all.values()) {
      const o = current(store, entry);
      if (!o || !waitingForDependents(o) || blocked.has(String(o.metadata['uid']))) continue;
      const finalizers = finalizersOf(o).filter((f) => f !== FOREGROUND_FINALIZER);
      const metadata: Json = { ...o.metadata };
      if (finalizers.length > 0) metadata['finalizers'] = finalizers;
      else delete metadata['finalizers'];
      store.replace(entry.resource, { ...o, metadata: metadata as KubeObject['metadata'] });
      if (finalizers.length === 0) host.removeNow(entry.resource, o.metadata.namespace, o.metadata.name, nowMs);
      changed = true;
    }
    if (!changed) return;
  }
}

/** The propagation a DELETE asked for: propagationPolicy, else the deprecated orphanDependents, else the default. */
export function propagationOf(body: Json | undefined, query: URLSearchParams, resourceDefault: Propagation): Propagation {
  const asked = query.get('propagationPolicy') ?? (typeof body?.['propagationPolicy'] === 'string' ? body['propagationPolicy'] : undefined);
  if (asked !== undefined && asked !== null) {
    if (asked === 'Background' || asked === 'Foreground' || asked === 'Orphan') return asked;
    // apimachinery validation.ValidateDeleteOptions.
    throw new ApiError(
      422,
      'Invalid',
      `DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "${asked}": ` +
        'supported values: "Foreground", "Background", "Orphan", "nil"',
      {
        kind: 'DeleteOptions',
        group: 'meta.k8s.io',
        causes: [
          {
            reason: 'FieldValueNotSupported',
            message: `Unsupported value: "${asked}": supported values: "Foreground", "Background", "Orphan", "nil"`,
            field: 'propagationPolicy',
          },
        ],
      },
    );
  }
  const orphan = query.get('orphanDependents') ?? (typeof body?.['orphanDependents'] === 'boolean' ? String(body['orphanDependents']) : undefined);
  if (orphan === 'true') return 'Orphan';
  if (orphan === 'false') return 'Background';
  return resourceDefault;
}
