// Server-side field validation: the `fieldValidation` query parameter (Strict, Warn, Ignore; Warn when absent) and
// the unknown fields it reports, found by walking a request body along the kind's published schema.
// https://kubernetes.io/docs/reference/using-api/api-concepts/#field-validation; the message forms are apimachinery's
// strict decoding errors (runtime.NewStrictDecodingError) and the handlers' "cannot be handled as" wrapping.
import { kindSchema, SHARED, type Schema } from './openapi-schemas.js';
import { ApiError, obj, resourceVersion, specOf, type Json, type Resource } from './store.js';

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

export function fieldValidationOf(value: string | null): FieldValidation {
  if (value === null || value === '' || value === 'Warn') return 'Warn';
  if (value === 'Strict' || value === 'Ignore') return value;
  throw new ApiError(400, 'BadRequest', `fieldValidation parameter unsupported: ${value}`);
}

function resolve(schema: Schema): Schema {
  let s = schema;
  for (let depth = 0; depth < 8; depth++) {
    const target = s.$ref ?? s.allOf?.[0]?.$ref;
    if (!target) return s;
    const found = SHARED[target.replace('#/components/schemas/', '')];
    if (!found) return {};
    s = found;
  }
  return s;
}

function walk(value: unknown, schema: Schema, path: string, out: string[], patch: boolean): void {
  const s = resolve(schema);
  if (s['x-kubernetes-preserve-unknown-fields']) return;
  if (Array.isArray(value)) {
    if (s.items) for (const [i, v] of value.entries()) walk(v, s.items as Schema, `${path}[${i}]`, out, patch);
    return;
  }
  const o = obj(value);
  if (!o) return;
  if (s.properties) {
    for (const [key, v] of Object.entries(o)) {
      // A strategic merge patch's directives ($patch, $setElementOrder/…, $retainKeys) are not fields.
      if (patch && key.startsWith('$')) continue;
      const field = path ? `${path}.${key}` : key;
      const child = s.properties[key];
      if (!child) out.push(field);
      else if (v !== null) walk(v, child, field, out, patch);
    }
  } else if (typeof s.additionalProperties === 'object') {
    for (const [key, v] of Object.entries(o)) walk(v, s.additionalProperties, path ? `${path}.${key}` : key, out, patch);
  }
}

/** The unknown fields of `body` for `resource`, as dotted paths with list indexes (`spec.template.spec.containers[0].foo`). */
export function unknownFields(resource: Resource, body: Json, patch = false): string[] {
  const out: string[] = [];
  walk(body, kindSchema(resource), '', out, patch);
  return out;
}

/**
 * Applies the directive to a create, update or patch body: Strict refuses unknown fields with 400, Warn returns
 * them as the warnings the server sends (`Warning: 299 - "unknown field …"` headers), Ignore lets them pass.
 */
export function validateFields(resource: Resource, body: Json, directive: FieldValidation, patch = false): string[] {
  if (directive === 'Ignore') return [];
  const unknown = unknownFields(resource, body, patch).map((f) => `unknown field "${f}"`);
  if (unknown.length === 0) return [];
  if (directive === 'Warn') return unknown;
  const strict = `strict decoding error: ${unknown.join(', ')}`;
  const { kind } = specOf(resource);
  throw new ApiError(400, 'BadRequest', patch ? strict : `${kind} in version "${resourceVersion(resource)}" cannot be handled as a ${kind}: ${strict}`);
}

/** The Warning header values for `warnings` (RFC 7234 warn-code 299, the text quoted as Go's strconv.Quote does). */
export function warningHeaders(warnings: string[]): string[] {
  return warnings.map((w) => `299 - ${JSON.stringify(w)}`);
}
