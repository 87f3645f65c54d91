// Server-side field validation: the `fieldValidation` query parameter (Strict, Warn, Ignore; Warn when absent) and
// the unknown fields it reports, found by walking a request body along the kind's schema in Kubernetes' own OpenAPI
// document for the cluster's minor (openapi-spec.ts), else the sandbox's (openapi-schemas.ts); and the values the
// API server's JSON decoder cannot take whatever the directive (a string where the Go field is an int32).
// https://kubernetes.io/docs/reference/using-api/api-concepts/#field-validation; the message forms are apimachinery's
// strict decoding errors (runtime.NewStrictDecodingError), encoding/json's UnmarshalTypeError and the handlers'
// "cannot be handled as" wrapping.
import { kindSchema, SHARED, type Schema } from './openapi-schemas.js';
import { definitionOf, vendoredSwagger, type SwaggerDocument } from './openapi-spec.js';
import { ApiError, invalidFields, obj, resourceVersion, specOf, type Json, type Resource } from './store.js';

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

export function fieldValidationOf(value: string | null): FieldValidation {
  if (value === null || value === '' || value === 'Warn') return 'Warn';
  if (value === 'Strict' || value === 'Ignore') return value;
  throw new ApiError(400, 'BadRequest', `fieldValidation parameter unsupported: ${value}`);
}

/** Where a schema's `$ref`s are looked up: Kubernetes' definitions, then the sandbox's shared ones. */
interface Definitions {
  doc?: SwaggerDocument;
}

function lookup(defs: Definitions, ref: string): Schema | undefined {
  const name = ref.replace('#/components/schemas/', '').replace('#/definitions/', '');
  return (defs.doc?.definitions[name] as Schema | undefined) ?? SHARED[name];
}

/** The schema with its references followed, and the definition name it came from (for Go type names). */
function resolve(defs: Definitions, schema: Schema): { schema: Schema; name?: string } {
  let s = schema;
  let name: string | undefined;
  for (let depth = 0; depth < 8; depth++) {
    const target = s.$ref ?? s.allOf?.[0]?.$ref;
    if (!target) return { schema: s, ...(name ? { name } : {}) };
    name = target.replace('#/components/schemas/', '').replace('#/definitions/', '');
    const found = lookup(defs, target);
    if (!found) return { schema: {} };
    s = found;
  }
  return { schema: s };
}

/** What the decoder found: unknown fields (dotted paths) and the first value of the wrong JSON type. */
interface Findings {
  unknown: string[];
  /** Values outside their field's enum (Kubernetes' enum types, OpenAPIEnums), with the values it takes. */
  unsupported: Array<{ field: string; value: string; supported: string[] }>;
  typeError?: string;
  /** Paths as structured-merge-diff writes them (`.spec.containers[name="web"].imagee`), for apply's errors. */
  smd?: boolean;
}

/** A list item's step in a path: `[0]`, or by its map keys as structured-merge-diff names it (`[name="web"]`). */
function itemStep(s: Schema, i: number, item: unknown, smd: boolean): string {
  const keys = s['x-kubernetes-list-map-keys'];
  const o = obj(item);
  if (!smd || !keys || !o || !keys.every((k) => o[k] !== undefined)) return `[${i}]`;
  return `[${keys.map((k) => `${k}=${JSON.stringify(o[k])}`).join(',')}]`;
}

/** The Go type a schema decodes into, as encoding/json names it in an UnmarshalTypeError. */
function goType(defs: Definitions, schema: Schema): string {
  const { schema: s, name } = resolve(defs, schema);
  if (name) {
    const parts = name.split('.');
    return `${parts.at(-2) ?? ''}.${parts.at(-1) ?? ''}`.replace(/^\./, '');
  }
  if (s.type === 'integer') return s.format === 'int64' ? 'int64' : 'int32';
  if (s.type === 'number') return 'float64';
  if (s.type === 'boolean') return 'bool';
  if (s.type === 'string') return s.format === 'byte' ? '[]uint8' : 'string';
  if (s.type === 'array') return `[]${s.items ? goType(defs, s.items) : 'interface {}'}`;
  if (typeof s.additionalProperties === 'object') return `map[string]${goType(defs, s.additionalProperties)}`;
  return 'map[string]interface {}';
}

/** The JSON type of a value as encoding/json names it ("string", "number", "bool", "object", "array"). */
function jsonType(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'boolean') return 'bool';
  return typeof value === 'object' ? 'object' : typeof value;
}

/** Whether a JSON value decodes into the schema's type (int-or-string and quantities take numbers and strings). */
function fits(s: Schema, value: unknown): boolean {
  if (s.format === 'int-or-string' || s['x-kubernetes-int-or-string' as keyof Schema]) return typeof value === 'number' || typeof value === 'string';
  switch (s.type) {
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'number':
      return typeof value === 'number';
    case 'boolean':
      return typeof value === 'boolean';
    case 'string':
      return typeof value === 'string';
    case 'array':
      return Array.isArray(value);
    case 'object':
      return obj(value) !== undefined;
    default:
      return true;
  }
}

function walk(defs: Definitions, value: unknown, schema: Schema, path: string, structName: string, out: Findings, patch: boolean): void {
  const { schema: s, name } = resolve(defs, schema);
  if (s['x-kubernetes-preserve-unknown-fields']) return;
  // An empty string is an unset optional enum (defaulted, or meaning all, as a toleration's effect); status is the
  // controllers' and its enums are not checked here.
  const enumValues = (s as { enum?: unknown[] }).enum;
  if (Array.isArray(enumValues) && typeof value === 'string' && value !== '' && !enumValues.includes(value) && !path.startsWith('status')) {
    out.unsupported.push({ field: path, value, supported: enumValues.filter((v): v is string => typeof v === 'string' && v !== '').sort() });
  }
  // A quantity is a string in the document and takes a number too (resource.Quantity's UnmarshalJSON).
  const quantity = name === 'io.k8s.apimachinery.pkg.api.resource.Quantity';
  if (value !== null && !quantity && !fits(s, value) && out.typeError === undefined) {
    const field = path.replace(/\[\d+\]/g, '');
    out.typeError = `json: cannot unmarshal ${jsonType(value)} into Go struct field ${structName}.${field} of type ${goType(defs, schema)}`;
    return;
  }
  if (Array.isArray(value)) {
    if (s.items) for (const [i, v] of value.entries()) walk(defs, v, s.items, `${path}${itemStep(s, i, v, out.smd === true)}`, structName, out, patch);
    return;
  }
  const o = obj(value);
  if (!o) return;
  const struct = name ? (name.split('.').at(-1) ?? structName) : structName;
  if (s.properties) {
    for (const [key, v] of Object.entries(o)) {
      // A strategic merge patch's directives ($patch, $setElementOrder/…, $retainKeys) are not fields.
      if (patch && key.startsWith('$')) continue;
      const field = path ? `${path}.${key}` : key;
      const child = s.properties[key];
      if (!child) out.unknown.push(field);
      else if (v !== null) walk(defs, v, child, field, struct, out, patch);
    }
  } else if (typeof s.additionalProperties === 'object') {
    for (const [key, v] of Object.entries(o)) if (v !== null) walk(defs, v, s.additionalProperties, path ? `${path}.${key}` : key, struct, out, patch);
  }
}

/** The schema `resource`'s bodies are checked against: Kubernetes' own for the version, else the sandbox's. */
function rootSchema(resource: Resource, kubernetesVersion: string | undefined): { defs: Definitions; schema: Schema; struct: string } {
  const { group, kind } = specOf(resource);
  if (kubernetesVersion !== undefined) {
    const doc = vendoredSwagger(kubernetesVersion);
    const name = definitionOf(doc, group, resourceVersion(resource), kind);
    if (name) return { defs: { doc }, schema: { $ref: `#/definitions/${name}` }, struct: kind };
  }
  return { defs: {}, schema: kindSchema(resource), struct: kind };
}

function findings(resource: Resource, body: Json, patch: boolean, kubernetesVersion?: string, smd = false): Findings {
  const { defs, schema, struct } = rootSchema(resource, kubernetesVersion);
  const out: Findings = { unknown: [], unsupported: [], ...(smd ? { smd } : {}) };
  walk(defs, body, schema, '', struct, out, patch);
  return out;
}

/** The unknown fields of `body` for `resource`, as dotted paths with list indexes (`spec.template.spec.containers[0].foo`). */
export function unknownFields(resource: Resource, body: Json, patch = false, kubernetesVersion?: string): string[] {
  return findings(resource, body, patch, kubernetesVersion).unknown;
}

/**
 * Applies the directive to a create, update or patch body: Strict refuses unknown fields with 400, Warn returns
 * them as the warnings the server sends (`Warning: 299 - "unknown field …"` headers), Ignore lets them pass. A value
 * the decoder cannot take is a 400 whatever the directive. A dry run (`dryRun=All`) goes through the same.
 */
export function validateFields(resource: Resource, body: Json, directive: FieldValidation, patch = false, kubernetesVersion?: string): string[] {
  const found = findings(resource, body, patch, kubernetesVersion);
  const { kind } = specOf(resource);
  const handled = (why: string): string => (patch ? why : `${kind} in version "${resourceVersion(resource)}" cannot be handled as a ${kind}: ${why}`);
  if (found.typeError !== undefined) throw new ApiError(400, 'BadRequest', handled(found.typeError));
  if (directive === 'Ignore') return [];
  const unknown = found.unknown.map((f) => `unknown field "${f}"`);
  if (unknown.length === 0) return [];
  if (directive === 'Warn') return unknown;
  throw new ApiError(400, 'BadRequest', handled(`strict decoding error: ${unknown.join(', ')}`));
}

/**
 * A server-side apply's body checked as the field manager checks it, before any field validation directive: a field
 * the schema does not declare fails the conversion to a typed object, a 500 without a reason (apiserver
 * handlers/patch.go applyPatcher; kubernetes/kubernetes#122480 shows the answer). Wrongly typed values are refused as
 * for any write.
 */
export function validateApply(resource: Resource, body: Json, kubernetesVersion: string): void {
  const found = findings(resource, body, true, kubernetesVersion, true);
  if (found.typeError !== undefined) validateFields(resource, body, 'Ignore', true, kubernetesVersion);
  const first = found.unknown[0];
  if (first === undefined) return;
  const { group, kind, namespaced } = specOf(resource);
  const meta = obj(body['metadata']) ?? {};
  const name = `${namespaced ? String(meta['namespace'] ?? '') : ''}/${String(meta['name'] ?? '')}`;
  throw new ApiError(
    500,
    '',
    `failed to create typed patch object (${name}; ${group}/${resourceVersion(resource)}, Kind=${kind}): .${first}: field not declared in schema`,
  );
}

/**
 * The validation a registry strategy does on the decoded object, for the fields whose values are an enum in the
 * schema: 422 Invalid, `Unsupported value: "x": supported values: "A", "B"` (field.NotSupported) per field. A dry run
 * is refused the same. `name` is the object's (the URL's for an update or patch).
 */
export function validateEnums(resource: Resource, body: Json, name: string, kubernetesVersion: string, patch = false): void {
  const found = findings(resource, body, patch, kubernetesVersion);
  if (found.unsupported.length === 0) return;
  throw invalidFields(
    resource,
    name,
    found.unsupported.map((u) => ({
      reason: 'FieldValueNotSupported',
      message: `Unsupported value: ${JSON.stringify(u.value)}: supported values: ${u.supported.map((v) => JSON.stringify(v)).join(', ')}`,
      field: u.field,
    })),
  );
}

/** The Warning header values for `warnings` (RFC 7234 warn-code 299, the text quoted as Go's strconv.Quote does). */
export function warningHeaders(warnings: string[]): string[] {
  return warnings.map((w) => `299 - ${JSON.stringify(w)}`);
}
