// The `/status` subresource (GET, PUT, PATCH of deployments/status, pods/status, nodes/status, …): a write there
// changes the object's status and nothing else, as the registries' status strategies do (PrepareForUpdate copies the
// old spec over the new one; the main resource, conversely, keeps the old status). Which resources have it: those
// whose `…/{name}/status` path Kubernetes' own OpenAPI document for the cluster's minor lists, and custom resources
// whose CRD declares it.
// https://kubernetes.io/docs/reference/using-api/api-concepts/#subresources
import type { ClusterApi } from './cluster.js';
import { mergePatch, strategicMergePatch } from './patch-strategic.js';
import { jsonPatch } from './patch-json.js';
import { serverSideApply } from './apply.js';
import { crdDeclaresStatus } from './customresources.js';
import { vendoredSwagger } from './openapi-spec.js';
import { ApiError, conflict, isBuiltin, obj, resourceVersion, specOf, type Json, type KubeObject, type ObjectStore, type Resource } from './store.js';

export function hasStatusSubresource(resource: Resource, kubernetesVersion: string, store?: ObjectStore): boolean {
  if (!isBuiltin(resource)) {
    // A custom resource has one when its CRD's version declares `subresources: {status: {}}`.
    return store !== undefined && crdDeclaresStatus(store, resource);
  }
  const { group, namespaced } = specOf(resource);
  const prefix = group ? `/apis/${group}/${resourceVersion(resource)}` : `/api/${resourceVersion(resource)}`;
  const path = `${prefix}${namespaced ? '/namespaces/{namespace}' : ''}/${resource}/{name}/status`;
  return Object.hasOwn(vendoredSwagger(kubernetesVersion).paths, path);
}

/**
 * PUT (`patchType` undefined: `body` is the whole object) or PATCH of the status. Only `status` is taken from the
 * result; a stale resourceVersion is a 409 as on the main resource. Server-side apply to the status owns status
 * fields as on the main resource (apply.ts): a field another applier of the status owns is a 409 unless forced, and
 * one the applier no longer applies goes; its managedFields entry says `subresource: status`.
 */
export function writeStatus(
  api: ClusterApi,
  resource: Resource,
  namespace: string | undefined,
  name: string,
  body: unknown,
  patchType: string | undefined,
  nowMs: number,
  apply: { manager?: string; force?: boolean } = {},
): KubeObject {
  const current = api.get(resource, namespace, name);
  let next: Json | undefined;
  const type = patchType?.split(';')[0]?.trim();
  if (type === 'application/apply-patch+yaml') return applyStatus(api, resource, current, body, nowMs, apply);
  if (type === undefined) {
    const meta = obj(obj(body)?.['metadata']) ?? {};
    if (meta['name'] !== name)
      throw new ApiError(400, 'BadRequest', `the name of the object (${String(meta['name'])}) does not match the name on the URL (${name})`);
    next = obj(body);
  } else if (type === 'application/merge-patch+json') next = obj(mergePatch(current, body));
  else if (type === 'application/strategic-merge-patch+json') next = obj(strategicMergePatch(current, body));
  else if (type === 'application/json-patch+json') next = obj(jsonPatch(current, body));
  else {
    throw new ApiError(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, ` +
        `application/merge-patch+json, application/apply-patch+yaml, application/strategic-merge-patch+json`,
    );
  }
  if (!next) throw new ApiError(400, 'BadRequest', 'the request body must be a JSON object');
  const rv =
    type === 'application/json-patch+json' || type === undefined
      ? obj(next['metadata'])?.['resourceVersion']
      : obj(obj(body)?.['metadata'])?.['resourceVersion'];
  if (rv !== undefined && rv !== current.metadata.resourceVersion) throw conflict(resource, name);
  const { status: _old, ...rest } = current;
  const stored = api.store.replace(resource, { ...rest, ...(next['status'] !== undefined ? { status: next['status'] } : {}) } as KubeObject);
  // The answer is what was stored; the controllers act on it after (a Deployment's status is soon theirs again).
  api.reconcile(nowMs);
  return stored;
}

/** Server-side apply to the status subresource (the apply configuration's `status`; anything else in it is ignored). */
function applyStatus(
  api: ClusterApi,
  resource: Resource,
  current: KubeObject,
  body: unknown,
  nowMs: number,
  write: { manager?: string; force?: boolean },
): KubeObject {
  if (!write.manager)
    throw new ApiError(422, 'Invalid', 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch', {
      kind: 'PatchOptions',
      group: 'meta.k8s.io',
      causes: [{ reason: 'FieldValueRequired', message: 'Required value: is required for apply patch', field: 'fieldManager' }],
    });
  const applied = obj(body);
  if (!applied || !obj(applied['metadata']))
    throw new ApiError(400, 'BadRequest', 'error decoding YAML: the apply configuration is not an object with metadata');
  const apiVersion = specOf(resource).group ? `${specOf(resource).group}/${resourceVersion(resource)}` : resourceVersion(resource);
  const merged = serverSideApply(current, { ...applied, metadata: { ...current.metadata } } as KubeObject, {
    manager: write.manager,
    force: write.force === true,
    apiVersion,
    nowMs,
    subresource: 'status',
  });
  const stored = api.store.replace(resource, {
    ...current,
    metadata: { ...current.metadata, managedFields: merged.metadata['managedFields'] },
    status: merged['status'],
  } as KubeObject);
  api.reconcile(nowMs);
  return stored;
}
