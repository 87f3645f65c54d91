// CustomResourceDefinitions (apiextensions.k8s.io/v1) and the resources they define, as kube-apiserver's
// apiextensions-apiserver serves them: a CRD named `<plural>.<group>` is accepted, its conditions NamesAccepted and
// Established turn True (pkg/controller/status/naming_controller.go: reason NoConflicts, "no conflicts found";
// pkg/controller/establish/establishing_controller.go: reason InitialNamesAccepted, "the initial names have been
// accepted"), and from then its group/versions/plural are served with the CRD's scope; a custom object is checked
// against its version's openAPIV3Schema (types, required fields, enums, through ajv); deleting the CRD deletes its
// objects (the finalizer `customresourcecleanup.apiextensions.k8s.io` does that before the CRD goes).
// Not modelled: conversion webhooks (all served versions share one stored form), subresources (status, scale),
// additionalPrinterColumns (Tables show Name and Age), names conflicting with another CRD.
import { Ajv, type ValidateFunction } from 'ajv';
import type { ServedResource } from './discovery.js';
import type { PrinterColumn } from './table.js';
import { ApiError, iso, obj, registerCustomResource, type Json, type KubeObject, type ObjectStore, type Resource, type ResourceSpec } from './store.js';

export const CRDS: Resource = 'customresourcedefinitions';

function invalidCrd(name: string, causes: Array<{ field: string; message: string }>): ApiError {
  const text = causes.map((c) => `${c.field}: ${c.message}`).join(', ');
  return new ApiError(422, 'Invalid', `CustomResourceDefinition.apiextensions.k8s.io "${name}" is invalid: ${causes.length > 1 ? `[${text}]` : text}`, {
    name,
    group: 'apiextensions.k8s.io',
    kind: 'CustomResourceDefinition',
    causes: causes.map((c) => ({ reason: 'FieldValueInvalid', message: c.message, field: c.field })),
  });
}

interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  schema?: Json;
}

function versionsOf(crd: KubeObject): CrdVersion[] {
  return ((obj(crd['spec'])?.['versions'] as Json[] | undefined) ?? []).map((v) => ({
    name: String(v['name'] ?? ''),
    served: v['served'] === true,
    storage: v['storage'] === true,
    ...(obj(obj(v['schema'])?.['openAPIV3Schema']) ? { schema: obj(obj(v['schema'])?.['openAPIV3Schema']) as Json } : {}),
  }));
}

/** Whether the CRD of custom resource `resource` (`<plural>.<group>`) declares the status subresource on a version. */
export function crdDeclaresStatus(store: ObjectStore, resource: Resource): boolean {
  const crd = store.get(CRDS, undefined, resource);
  const versions = (obj(crd?.['spec'])?.['versions'] as Json[] | undefined) ?? [];
  return versions.some((v) => obj(obj(v['subresources'])?.['status']) !== undefined);
}

/** The resource spec a CRD defines. */
export function crdSpec(crd: KubeObject): ResourceSpec {
  const spec = obj(crd['spec']) ?? {};
  const names = obj(spec['names']) ?? {};
  const versions = versionsOf(crd)
    .filter((v) => v.served)
    .map((v) => v.name);
  const kind = String(names['kind'] ?? '');
  return {
    kind,
    group: String(spec['group'] ?? ''),
    version: versions[0] ?? 'v1',
    namespaced: spec['scope'] !== 'Cluster',
    custom: {
      versions,
      singular: typeof names['singular'] === 'string' && names['singular'] !== '' ? names['singular'] : kind.toLowerCase(),
      shortNames: Array.isArray(names['shortNames']) ? names['shortNames'].map(String) : [],
      categories: Array.isArray(names['categories']) ? names['categories'].map(String) : [],
      listKind: typeof names['listKind'] === 'string' && names['listKind'] !== '' ? names['listKind'] : `${kind}List`,
    },
  };
}

/**
 * Validation and defaulting of a CRD on create and update (apiextensions validation.ValidateCustomResourceDefinition,
 * the checks a chart's CRDs meet), and its status as the naming and establishing controllers leave it.
 */
export function prepareCrd(next: KubeObject, current: KubeObject | null, nowMs: number): KubeObject {
  const name = next.metadata.name;
  const spec = obj(next['spec']) ?? {};
  const names = obj(spec['names']) ?? {};
  const group = spec['group'];
  const plural = names['plural'];
  const causes: Array<{ field: string; message: string }> = [];
  if (typeof group !== 'string' || !group.includes('.'))
    causes.push({ field: 'spec.group', message: `Invalid value: "${String(group ?? '')}": should be a domain with at least one dot` });
  if (typeof plural !== 'string' || plural === '') causes.push({ field: 'spec.names.plural', message: 'Required value' });
  if (typeof names['kind'] !== 'string' || names['kind'] === '') causes.push({ field: 'spec.names.kind', message: 'Required value' });
  if (spec['scope'] !== 'Namespaced' && spec['scope'] !== 'Cluster')
    causes.push({ field: 'spec.scope', message: `Unsupported value: "${String(spec['scope'] ?? '')}": supported values: "Cluster", "Namespaced"` });
  if (typeof plural === 'string' && typeof group === 'string' && name !== `${plural}.${group}`) {
    causes.push({ field: 'metadata.name', message: `Invalid value: "${name}": must be spec.names.plural+"."+spec.group` });
  }
  const versions = versionsOf(next);
  if (versions.length === 0) causes.push({ field: 'spec.versions', message: 'Invalid value: null: must have exactly one version marked as storage version' });
  else if (versions.filter((v) => v.storage).length !== 1)
    causes.push({ field: 'spec.versions', message: `Invalid value: ${JSON.stringify(versions)}: must have exactly one version marked as storage version` });
  versions.forEach((v, i) => {
    if (!v.schema) causes.push({ field: `spec.versions[${i}].schema.openAPIV3Schema`, message: 'Required value: schemas are required' });
  });
  if (current) {
    const before = obj(current['spec']) ?? {};
    if (before['scope'] !== spec['scope']) causes.push({ field: 'spec.scope', message: 'Invalid value: field is immutable' });
  }
  if (causes.length > 0) throw invalidCrd(name, causes);
  const at = iso(nowMs);
  const previous = (obj(current?.['status'])?.['conditions'] as Json[] | undefined) ?? [];
  const since = (type: string): string => String(previous.find((c) => c['type'] === type)?.['lastTransitionTime'] ?? at);
  const storage = versions.find((v) => v.storage)?.name ?? '';
  const stored = (obj(current?.['status'])?.['storedVersions'] as string[] | undefined) ?? [];
  return {
    ...next,
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { ...next.metadata, finalizers: ['customresourcecleanup.apiextensions.k8s.io'] },
    status: {
      conditions: [
        { type: 'NamesAccepted', status: 'True', lastTransitionTime: since('NamesAccepted'), reason: 'NoConflicts', message: 'no conflicts found' },
        {
          type: 'Established',
          status: 'True',
          lastTransitionTime: since('Established'),
          reason: 'InitialNamesAccepted',
          message: 'the initial names have been accepted',
        },
      ],
      acceptedNames: {
        ...names,
        ...(names['singular'] === undefined ? { singular: String(names['kind'] ?? '').toLowerCase() } : {}),
        ...(names['listKind'] === undefined ? { listKind: `${String(names['kind'] ?? '')}List` } : {}),
      },
      storedVersions: stored.includes(storage) ? stored : [...stored, storage],
    },
  };
}

/** Makes the CRDs a store holds known to the shared spec registry (after a create, or a restored snapshot). */
export function registerCrds(store: ObjectStore): void {
  for (const crd of store.list(CRDS)) registerCustomResource(crd.metadata.name, crdSpec(crd));
}

/** The custom resources a cluster serves now, for discovery and routing. */
export function servedCustomResources(store: ObjectStore): ServedResource[] {
  return store.sortedList(CRDS).map((crd) => ({ plural: String(obj(obj(crd['spec'])?.['names'])?.['plural'] ?? ''), spec: crdSpec(crd) }));
}

/** The custom resource served at `/apis/<group>/<version>/<plural>` in this cluster, or undefined (a 404). */
export function customResourceAt(store: ObjectStore, group: string, version: string, plural: string): Resource | undefined {
  const name = `${plural}.${group}`;
  const crd = store.get(CRDS, undefined, name);
  if (!crd) return undefined;
  const spec = crdSpec(crd);
  if (!spec.custom?.versions.includes(version)) return undefined;
  registerCustomResource(name, spec);
  return name;
}

// The integer formats of structural schemas are range checks (k8s.io/kube-openapi pkg/validation/strfmt and the
// apiextensions validation); other formats the API server does not check are accepted without a warning on stderr.
const int = (bits: 32 | 64) => ({ type: 'number' as const, validate: (n: number) => Number.isInteger(n) && Math.abs(n) <= 2 ** (bits - 1) });
const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false, verbose: true, logger: false, formats: { int32: int(32), int64: int(64) } });

/** A JSON value's type as the API server's schema errors name it. */
function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}
const compiled = new Map<string, ValidateFunction>();

/** The schema as JSON Schema for ajv: Kubernetes' `nullable` and x-kubernetes-* extensions dropped or translated. */
function jsonSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(jsonSchema);
  const o = obj(schema);
  if (!o) return schema;
  const out: Json = {};
  for (const [k, v] of Object.entries(o)) {
    if (k.startsWith('x-kubernetes-') || k === 'nullable') continue;
    out[k] =
      k === 'properties' || k === 'patternProperties' ? Object.fromEntries(Object.entries(obj(v) ?? {}).map(([p, s]) => [p, jsonSchema(s)])) : jsonSchema(v);
  }
  // metadata is the API server's, whatever the schema says about it.
  if (obj(out['properties'])?.['metadata']) out['properties'] = { ...(obj(out['properties']) ?? {}), metadata: { type: 'object' } };
  if (o['nullable'] === true && typeof out['type'] === 'string') out['type'] = [out['type'], 'null'];
  return out;
}

/**
 * Checks a custom object against its CRD's schema for the version it is written in; the message names the fields
 * as the API server does (`spec.chart: Required value`, `spec.version: Invalid value: "integer": spec.version in body must be of type string: "integer"`).
 */
export function validateCustomObject(store: ObjectStore, resource: Resource, o: KubeObject): void {
  const crd = store.get(CRDS, undefined, resource);
  if (!crd) return;
  const apiVersion = String(o['apiVersion'] ?? '');
  const version = versionsOf(crd).find((v) => apiVersion.endsWith(`/${v.name}`)) ?? versionsOf(crd).find((v) => v.storage);
  if (!version?.schema) return;
  const key = `${String(crd.metadata['uid'])}/${String(crd.metadata['generation'])}/${version.name}`;
  let validate = compiled.get(key);
  if (!validate) {
    validate = ajv.compile(jsonSchema(version.schema) as object);
    compiled.set(key, validate);
  }
  const data: unknown = o;
  if (validate(data)) return;
  const causes = (validate.errors ?? []).map((e) => {
    const path = e.instancePath
      .split('/')
      .filter((s) => s !== '')
      .join('.');
    if (e.keyword === 'required') {
      const missing = String((e.params as { missingProperty?: string }).missingProperty ?? '');
      return { reason: 'FieldValueRequired', field: path ? `${path}.${missing}` : missing, message: 'Required value' };
    }
    if (e.keyword === 'type')
      return {
        reason: 'FieldValueTypeInvalid',
        field: path,
        message:
          `Invalid value: "${jsonType(e.data)}": ${path} in body must be of type ` + `${String((e.params as { type?: unknown }).type)}: "${jsonType(e.data)}"`,
      };
    if (e.keyword === 'enum')
      return {
        reason: 'FieldValueNotSupported',
        field: path,
        message:
          `Unsupported value: ${JSON.stringify(e.data)}: supported values: ` +
          `${((e.params as { allowedValues?: unknown[] }).allowedValues ?? []).map((x) => JSON.stringify(x)).join(', ')}`,
      };
    return { reason: 'FieldValueInvalid', field: path, message: `Invalid value: ${JSON.stringify(e.data)}: ${e.message ?? 'invalid'}` };
  });
  const spec = crdSpec(crd);
  const text = causes.map((c) => `${c.field}: ${c.message}`);
  throw new ApiError(
    422,
    'Invalid',
    `${spec.kind}.${spec.group} "${o.metadata.name}" is invalid: ${text.length > 1 ? `[${text.join(', ')}]` : (text[0] ?? '')}`,
    {
      name: o.metadata.name,
      group: spec.group,
      kind: spec.kind,
      causes,
    },
  );
}

/** A custom resource's Table columns, from its CRD's first served version (for toTable); {} for a built-in resource. */
export function printerColumns(store: ObjectStore, resource: Resource): { customColumns?: PrinterColumn[] } {
  const crd = store.get(CRDS, undefined, resource);
  if (!crd) return {};
  const version = ((obj(crd['spec'])?.['versions'] as Json[] | undefined) ?? []).find((v) => v['served'] === true);
  const columns = ((version?.['additionalPrinterColumns'] as Json[] | undefined) ?? []).map((c) => ({
    name: String(c['name'] ?? ''),
    type: String(c['type'] ?? 'string'),
    jsonPath: String(c['jsonPath'] ?? ''),
    ...(typeof c['description'] === 'string' ? { description: c['description'] } : {}),
    ...(typeof c['priority'] === 'number' ? { priority: c['priority'] } : {}),
  }));
  return { customColumns: columns };
}
