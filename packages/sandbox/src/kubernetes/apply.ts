// Field management: server-side apply (`application/apply-patch+yaml`) and the managedFields every write records,
// as https://kubernetes.io/docs/reference/using-api/server-side-apply/ describes them. Each manager owns a set of
// fields (leaves of the object; items of lists with a merge key, by key); an apply that changes a field another
// manager owns is a 409 unless forced, and a field an applier stops applying is removed unless someone else owns it.
import { strategicMergePatch, listMergeKey } from './patch-strategic.js';
import { ApiError, clone, iso, obj, type Json, type KubeObject } from './store.js';

/** One step of a field path: a map key, a list item by its merge key, or a value of a merged list of scalars. */
type PathElement = { f: string } | { k: Json } | { v: unknown };
type FieldPath = PathElement[];

export interface ManagedFieldsEntry extends Json {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  time: string;
  fieldsType: 'FieldsV1';
  fieldsV1: Json;
}

/** Metadata fields a manager can own; the rest are the server's (name, uid, resourceVersion, ...). */
const OWNABLE_METADATA = new Set(['labels', 'annotations', 'finalizers', 'ownerReferences']);

function keyOf(path: FieldPath): string {
  return JSON.stringify(path);
}

/**
 * The leaves of `value` a manager would own, by their key: of the main resource (status left out: the main resource
 * ignores it), or of the status subresource (only the status).
 */
export function fieldSet(value: KubeObject, scope: 'main' | 'status' = 'main'): Map<string, FieldPath> {
  const out = new Map<string, FieldPath>();
  if (scope === 'status') {
    walk(value['status'], [{ f: 'status' }], 'status', undefined, out);
    if (value['status'] === undefined) out.clear();
    return out;
  }
  for (const [k, v] of Object.entries(value)) {
    if (k === 'apiVersion' || k === 'kind' || k === 'status') continue;
    if (k === 'metadata') {
      for (const [mk, mv] of Object.entries(obj(v) ?? {})) if (OWNABLE_METADATA.has(mk)) walk(mv, [{ f: 'metadata' }, { f: mk }], mk, 'metadata', out);
      continue;
    }
    walk(v, [{ f: k }], k, undefined, out);
  }
  return out;
}

function walk(value: unknown, path: FieldPath, field: string, parent: string | undefined, out: Map<string, FieldPath>): void {
  if (Array.isArray(value)) {
    const mergeKey = listMergeKey(field, parent);
    if (mergeKey === 'primitive') {
      for (const item of value) out.set(keyOf([...path, { v: item }]), [...path, { v: item }]);
      return;
    }
    if (mergeKey) {
      for (const item of value) {
        const o = obj(item);
        if (!o) continue;
        const itemPath: FieldPath = [...path, { k: { [mergeKey]: o[mergeKey] } }];
        out.set(keyOf(itemPath), itemPath);
        for (const [k, v] of Object.entries(o)) walk(v, [...itemPath, { f: k }], k, field, out);
      }
      return;
    }
    // A list without a merge key is atomic: owned whole.
    out.set(keyOf(path), path);
    return;
  }
  const o = obj(value);
  if (o && Object.keys(o).length > 0) {
    for (const [k, v] of Object.entries(o)) walk(v, [...path, { f: k }], k, field, out);
    return;
  }
  out.set(keyOf(path), path);
}

/** The value at `path`, or undefined. */
function valueAt(root: unknown, path: FieldPath): unknown {
  let cur: unknown = root;
  for (const el of path) {
    if ('f' in el) cur = obj(cur)?.[el.f];
    else if ('k' in el) {
      const [[mk, mv] = ['', undefined]] = Object.entries(el.k);
      cur = Array.isArray(cur) ? cur.find((x) => obj(x)?.[mk] === mv) : undefined;
    } else cur = Array.isArray(cur) && cur.includes(el.v) ? el.v : undefined;
    if (cur === undefined) return undefined;
  }
  return cur;
}

function removeAt(root: Json, path: FieldPath): void {
  const parentPath = path.slice(0, -1);
  const last = path[path.length - 1];
  const container = valueAt(root, parentPath);
  if (!last) return;
  if ('f' in last) {
    const o = obj(container);
    if (o) delete o[last.f];
  } else if (Array.isArray(container)) {
    const idx = 'k' in last ? container.findIndex((x) => Object.entries(last.k).every(([k, v]) => obj(x)?.[k] === v)) : container.indexOf(last.v);
    if (idx >= 0) container.splice(idx, 1);
  }
}

function equal(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** `.spec.containers[name="app"].image`, as structured-merge-diff prints a path in conflicts. */
function printPath(path: FieldPath): string {
  return path
    .map((el) => {
      if ('f' in el) return `.${el.f}`;
      if ('k' in el)
        return `[${Object.entries(el.k)
          .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
          .join(',')}]`;
      return `[=${JSON.stringify(el.v)}]`;
    })
    .join('');
}

/** fieldsV1 as the API server serialises a set: `f:<field>`, `k:<merge key as JSON>`, `v:<value>`; `.` marks an item. */
function toFieldsV1(paths: Iterable<FieldPath>): Json {
  const root: Json = {};
  for (const path of paths) {
    let cur = root;
    for (const el of path) {
      const key = 'f' in el ? `f:${el.f}` : 'k' in el ? `k:${JSON.stringify(el.k)}` : `v:${JSON.stringify(el.v)}`;
      cur[key] = obj(cur[key]) ?? {};
      cur = cur[key] as Json;
    }
    if (path.length > 0 && 'k' in (path[path.length - 1] as PathElement)) cur['.'] = {};
  }
  return root;
}

function fromFieldsV1(tree: unknown, prefix: FieldPath = [], out = new Map<string, FieldPath>()): Map<string, FieldPath> {
  const o = obj(tree) ?? {};
  const children = Object.keys(o).filter((k) => k !== '.');
  if (prefix.length > 0 && (children.length === 0 || Object.hasOwn(o, '.'))) out.set(keyOf(prefix), prefix);
  for (const k of children) {
    const body = k.slice(2);
    let el: PathElement;
    try {
      el = k.startsWith('f:') ? { f: body } : k.startsWith('k:') ? { k: JSON.parse(body) as Json } : { v: JSON.parse(body) as unknown };
    } catch {
      continue;
    }
    fromFieldsV1(o[k], [...prefix, el], out);
  }
  return out;
}

function entries(o: KubeObject): ManagedFieldsEntry[] {
  const raw = o.metadata['managedFields'];
  return Array.isArray(raw) ? (raw.filter((e) => obj(e) && typeof obj(e)?.['manager'] === 'string') as ManagedFieldsEntry[]) : [];
}

function printManager(e: ManagedFieldsEntry): string {
  // An Update manager is named with its version and time, an Apply manager by name (managedfields/internal/conflict.go).
  return e.operation === 'Update' ? `"${e.manager}" using ${e.apiVersion} at ${e.time}` : `"${e.manager}"`;
}

export interface ApplyOptions {
  manager: string;
  force: boolean;
  apiVersion: string;
  nowMs: number;
  /** An apply to the status subresource: it owns status fields only, in entries marked `subresource: status`. */
  subresource?: 'status';
}

/** Whether a managedFields entry belongs to the main resource or the status subresource that `options` writes. */
function sameScope(e: ManagedFieldsEntry, options: ApplyOptions): boolean {
  return (e['subresource'] ?? undefined) === options.subresource;
}

/**
 * The object after `applied` (the applier's whole intent) is applied over `current` (null: it is created), with its
 * managedFields. Throws the API server's 409 when another manager owns a field the apply would change.
 */
export function serverSideApply(current: KubeObject | null, applied: KubeObject, options: ApplyOptions): KubeObject {
  const scope = options.subresource === 'status' ? 'status' : 'main';
  const mine = fieldSet(applied, scope);
  const all = current ? entries(current) : [];
  // The other subresource's entries are kept as they are: its fields are not this apply's to take or to drop.
  const elsewhere = all.filter((e) => !sameScope(e, options));
  const ours = all.filter((e) => sameScope(e, options));
  const others = ours.filter((e) => !(e.manager === options.manager && e.operation === 'Apply'));
  const previous = ours.find((e) => e.manager === options.manager && e.operation === 'Apply');
  const conflicts: Array<{ entry: ManagedFieldsEntry; path: FieldPath }> = [];
  const otherSets = others.map((entry) => ({ entry, set: fromFieldsV1(entry.fieldsV1) }));
  for (const { entry, set } of otherSets) {
    for (const [key, path] of mine) {
      if (!set.has(key)) continue;
      const last = path[path.length - 1];
      if (last && 'k' in last) continue;
      if (!equal(valueAt(current, path), valueAt(applied, path))) conflicts.push({ entry, path });
    }
  }
  if (conflicts.length > 0 && !options.force) {
    const causes = conflicts.map((c) => ({ reason: 'FieldManagerConflict', message: `conflict with ${printManager(c.entry)}`, field: printPath(c.path) }));
    let message: string;
    if (conflicts.length === 1)
      message =
        `Apply failed with 1 conflict: conflict with ${printManager(conflicts[0]?.entry as ManagedFieldsEntry)}: ` + printPath(conflicts[0]?.path ?? []);
    else {
      const byManager = new Map<string, string[]>();
      for (const c of conflicts) byManager.set(printManager(c.entry), [...(byManager.get(printManager(c.entry)) ?? []), printPath(c.path)]);
      const lines = [...byManager.keys()].sort().flatMap((m) => [`conflicts with ${m}:`, ...(byManager.get(m) ?? []).map((p) => `- ${p}`)]);
      message = `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
    }
    throw new ApiError(409, 'Conflict', message, { causes });
  }
  // Forcing takes the conflicting fields away from their managers.
  for (const c of conflicts) otherSets.find((s) => s.entry === c.entry)?.set.delete(keyOf(c.path));
  const base = clone(current ?? ({ metadata: { name: applied.metadata.name } } as KubeObject)) as KubeObject;
  if (previous) {
    for (const [key, path] of fromFieldsV1(previous.fieldsV1)) {
      if (mine.has(key) || otherSets.some((s) => s.set.has(key))) continue;
      removeAt(base, path);
    }
  }
  const { metadata: appliedMeta, ...appliedRest } = applied;
  const ownableMeta = Object.fromEntries(Object.entries(appliedMeta).filter(([k]) => OWNABLE_METADATA.has(k)));
  const merged = (
    scope === 'status'
      ? strategicMergePatch(base, applied['status'] === undefined ? {} : { status: applied['status'] })
      : strategicMergePatch(base, { ...appliedRest, metadata: ownableMeta })
  ) as KubeObject;
  const time = iso(options.nowMs);
  const managedFields: ManagedFieldsEntry[] = [...elsewhere];
  for (const { entry, set } of otherSets) if (set.size > 0) managedFields.push({ ...entry, fieldsV1: toFieldsV1(set.values()) });
  managedFields.push({
    manager: options.manager,
    operation: 'Apply',
    apiVersion: options.apiVersion,
    time,
    fieldsType: 'FieldsV1',
    fieldsV1: toFieldsV1(mine.values()),
    ...(options.subresource ? { subresource: options.subresource } : {}),
  });
  merged.metadata = { ...merged.metadata, managedFields };
  return merged;
}

/**
 * Records a non-apply write (create, update, patch) by `manager`: it now owns every field it set or changed, and
 * the others lose those fields (server-side-apply docs: "Conflicts" — updates always succeed and take ownership).
 */
export function recordUpdate(current: KubeObject | null, next: KubeObject, manager: string, apiVersion: string, nowMs: number): void {
  const incoming = next.metadata['managedFields'];
  // A client resets the field ownership by sending `managedFields: [{}]`; any other value sent is taken as is
  // (https://kubernetes.io/docs/reference/using-api/server-side-apply/#clearing-managedfields).
  if (Array.isArray(incoming) && incoming.length === 1 && Object.keys(obj(incoming[0]) ?? {}).length === 0) {
    next.metadata['managedFields'] = [];
    return;
  }
  const existing = Array.isArray(incoming) && incoming.length > 0 ? entries(next) : current ? entries(current) : [];
  const before = current ? fieldSet(current) : new Map<string, FieldPath>();
  const after = fieldSet(next);
  const changed = new Map<string, FieldPath>();
  for (const [key, path] of after) if (!before.has(key) || !equal(valueAt(current, path), valueAt(next, path))) changed.set(key, path);
  if (changed.size === 0 && current) {
    next.metadata['managedFields'] = existing;
    return;
  }
  const out: ManagedFieldsEntry[] = [];
  let own: Map<string, FieldPath> = new Map();
  for (const e of existing) {
    // A subresource's entries (the status's) are not the main resource's write to change.
    if (e['subresource'] !== undefined) {
      out.push(e);
      continue;
    }
    const set = fromFieldsV1(e.fieldsV1);
    // Fields no longer in the object are owned by nobody.
    for (const key of [...set.keys()]) if (!after.has(key)) set.delete(key);
    if (e.manager === manager && e.operation === 'Update') {
      own = set;
      continue;
    }
    for (const key of changed.keys()) set.delete(key);
    if (set.size > 0) out.push({ ...e, fieldsV1: toFieldsV1(set.values()) });
  }
  for (const [key, path] of changed) own.set(key, path);
  out.push({ manager, operation: 'Update', apiVersion, time: iso(nowMs), fieldsType: 'FieldsV1', fieldsV1: toFieldsV1(own.values()) });
  next.metadata['managedFields'] = out;
}

/** The manager a request without `fieldManager` is recorded as: its User-Agent up to the first `/` (as the API server does). */
export function managerFromUserAgent(userAgent: string | null): string {
  const prefix = (userAgent ?? '').split('/')[0] ?? '';
  return prefix.length > 0 ? prefix.slice(0, 128) : 'unknown';
}
