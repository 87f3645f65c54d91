// Merge patch (RFC 7386) and strategic merge patch, as the API server applies `application/merge-patch+json` and
// `application/strategic-merge-patch+json` bodies. The strategic form merges lists whose Go field carries
// `patchStrategy:"merge"` by their `patchMergeKey` (k8s.io/api/core/v1/types.go) and honours the directives of
// https://github.com/kubernetes/community/blob/master/contributors/devel/sig-api-machinery/strategic-merge-patch.md
// (`$patch: replace|delete|merge`, `$retainKeys`, `$deleteFromPrimitiveList/<list>`, `$setElementOrder/<list>`).
import { ApiError, clone, obj, type Json } from './store.js';

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

/**
 * The merge key of list `key` under `parent` (the name of the field holding the map the list is in), or
 * `primitive` for merged lists of scalars; undefined for lists that are replaced whole (no patchStrategy, e.g.
 * `tolerations`, `taints`, `args`). From the patchStrategy/patchMergeKey tags of k8s.io/api core/v1 and meta/v1.
 */
export function listMergeKey(key: string, parent: string | undefined): string | undefined {
  switch (key) {
    case 'containers':
    case 'initContainers':
    case 'ephemeralContainers':
    case 'env':
    case 'volumes':
    case 'imagePullSecrets':
      return 'name';
    case 'volumeMounts':
      return 'mountPath';
    case 'volumeDevices':
      return 'devicePath';
    case 'ports':
      // Container.Ports merge by containerPort; ServiceSpec.Ports by port.
      return parent === 'containers' || parent === 'initContainers' || parent === 'ephemeralContainers' ? 'containerPort' : 'port';
    case 'conditions':
      // PodStatus, NodeStatus, NamespaceStatus... conditions merge by type.
      return 'type';
    case 'addresses':
      return parent === 'status' ? 'type' : undefined;
    case 'ownerReferences':
      return 'uid';
    case 'hostAliases':
      return 'ip';
    case 'finalizers':
      return 'primitive';
    default:
      return undefined;
  }
}

function badRequest(message: string): ApiError {
  return new ApiError(400, 'BadRequest', message);
}

/** A strategic merge patch of `patch` onto `target`; `parent` is the field that holds `target` (for merge keys). */
export function strategicMergePatch(target: unknown, patch: unknown, parent?: string): unknown {
  const p = obj(patch);
  if (!p) return clone(patch);
  const directive = p['$patch'];
  if (directive === 'replace') {
    const { $patch: _d, ...rest } = p;
    return clone(rest);
  }
  if (directive === 'delete') return undefined;
  if (directive !== undefined && directive !== 'merge') throw badRequest(`unknown patch type: ${String(directive)} in map: ${JSON.stringify(p)}`);
  let out: Json = { ...(obj(target) ?? {}) };
  const retain = p['$retainKeys'];
  if (retain !== undefined) {
    if (!Array.isArray(retain)) throw badRequest('invalid patch: $retainKeys must be a list of strings');
    // Only the listed keys survive from the original (the union of retained keys and the patch's keys).
    out = Object.fromEntries(Object.entries(out).filter(([k]) => retain.includes(k)));
  }
  for (const [k, v] of Object.entries(p)) {
    if (k === '$patch' || k === '$retainKeys' || k.startsWith('$setElementOrder/')) continue;
    if (k.startsWith('$deleteFromPrimitiveList/')) {
      const list = k.slice('$deleteFromPrimitiveList/'.length);
      if (!Array.isArray(v)) throw badRequest(`invalid patch: ${k} must be a list`);
      if (Array.isArray(out[list])) out[list] = (out[list] as unknown[]).filter((x) => !v.includes(x));
      continue;
    }
    if (v === null) {
      delete out[k];
      continue;
    }
    const mergeKey = listMergeKey(k, parent);
    if (mergeKey && Array.isArray(v)) {
      const merged = mergeList(Array.isArray(out[k]) ? (out[k] as unknown[]) : [], v, mergeKey, k);
      // An emptied list is dropped, as the Go types' omitempty drops it when the object is written back.
      if (merged === undefined || merged.length === 0) delete out[k];
      else out[k] = merged;
      continue;
    }
    const next = strategicMergePatch(out[k], v, k);
    if (next === undefined) delete out[k];
    else out[k] = next;
  }
  return out;
}

function mergeList(current: unknown[], patch: unknown[], mergeKey: string, field: string): unknown[] | undefined {
  if (mergeKey === 'primitive') {
    const out = current.slice();
    for (const x of patch) if (!out.includes(x)) out.push(x);
    return out;
  }
  // A `{$patch: replace}` item replaces the whole list with the patch's other items.
  if (patch.some((x) => obj(x)?.['$patch'] === 'replace')) return patch.filter((x) => obj(x)?.['$patch'] !== 'replace').map((x) => clone(x));
  const merged = current.map((item) => clone(item));
  for (const item of patch) {
    const pi = obj(item);
    if (!pi || !Object.hasOwn(pi, mergeKey)) throw badRequest(`map: ${JSON.stringify(item)} does not contain declared merge key: ${mergeKey}`);
    const idx = merged.findIndex((m) => obj(m)?.[mergeKey] === pi[mergeKey]);
    if (pi['$patch'] === 'delete') {
      if (idx >= 0) merged.splice(idx, 1);
    } else if (idx >= 0) merged[idx] = strategicMergePatch(merged[idx], item, field);
    else merged.push(strategicMergePatch(undefined, item, field));
  }
  return merged;
}
