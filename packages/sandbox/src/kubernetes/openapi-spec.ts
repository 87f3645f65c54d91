// Kubernetes' own OpenAPI v2 document for a served minor (openapi-spec/README.md says where each file comes from and
// what of it is kept), and the v3 per-group-version documents built from it the way kube-openapi's v3 builder lays
// them out: `#/components/schemas/` references, a `$ref` with sibling keys wrapped in `allOf`, body parameters as
// requestBody, one media type entry per consumed or produced type.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import type { Json } from './store.js';

/** The minors vendored (openapi-spec/swagger-v1.NN.json.gz); others are served the closest one. */
export const VENDORED_MINORS = { from: 28, to: 36 } as const;

export interface SwaggerDocument extends Json {
  paths: Record<string, Json>;
  definitions: Record<string, Json>;
  parameters: Record<string, Json>;
}

/** The minor of a `v1.34.2` / `1.33.4-cmk.15` version, or undefined. */
export function minorOf(kubernetesVersion: string): number | undefined {
  const m = /^v?1\.(\d+)/.exec(kubernetesVersion);
  return m ? Number(m[1]) : undefined;
}

/** The vendored minor a cluster of `kubernetesVersion` is served: its own, else the closest vendored one. */
export function specMinor(kubernetesVersion: string): number {
  const minor = minorOf(kubernetesVersion) ?? VENDORED_MINORS.to;
  return Math.min(VENDORED_MINORS.to, Math.max(VENDORED_MINORS.from, minor));
}

function specPath(minor: number): string {
  const file = `swagger-v1.${minor}.json.gz`;
  const here = fileURLToPath(new URL(`./openapi-spec/${file}`, import.meta.url));
  if (existsSync(here)) return here;
  // Built: dist/kubernetes/ runs, and the package ships src/kubernetes/openapi-spec/ (tsc copies no data files).
  return fileURLToPath(new URL(`../../src/kubernetes/openapi-spec/${file}`, import.meta.url));
}

const loaded = new Map<number, SwaggerDocument>();

/** The vendored v2 document for `kubernetesVersion`'s minor (read once per process; callers must not change it). */
export function vendoredSwagger(kubernetesVersion: string): SwaggerDocument {
  const minor = specMinor(kubernetesVersion);
  let doc = loaded.get(minor);
  if (!doc) {
    const { 'x-kubeplane-source': _source, ...rest } = JSON.parse(gunzipSync(readFileSync(specPath(minor))).toString('utf8')) as Json;
    doc = rest as SwaggerDocument;
    loaded.set(minor, doc);
  }
  return doc;
}

/** The definition of `group`/`version`/`kind` in `doc`, by its x-kubernetes-group-version-kind. */
export function definitionOf(doc: SwaggerDocument, group: string, version: string, kind: string): string | undefined {
  for (const [name, def] of Object.entries(doc.definitions)) {
    const gvks = def['x-kubernetes-group-version-kind'];
    if (Array.isArray(gvks) && gvks.some((g: Json) => g['group'] === group && g['version'] === version && g['kind'] === kind)) return name;
  }
  return undefined;
}

/** The v3 index key a v2 path belongs to: `api/v1`, `apis/apps/v1`, `apis/apps`, `apis`, `api`, `version`. */
export function v3KeyOf(path: string): string {
  const parts = path.split('/').filter((p) => p !== '');
  if (parts[0] === 'api') return parts.length >= 2 ? `api/${parts[1]}` : 'api';
  if (parts[0] === 'apis') return parts.slice(0, Math.min(parts.length, 3)).join('/');
  return parts[0] ?? '';
}

/** A v2 schema in the v3 form: references to components, a reference with siblings as `allOf`. */
export function schemaToV3(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(schemaToV3);
  if (value === null || typeof value !== 'object') return value;
  const o = value as Json;
  const out: Json = {};
  for (const [k, v] of Object.entries(o)) {
    if (k === '$ref' && typeof v === 'string') continue;
    out[k] = k === 'properties' || k === 'definitions' ? Object.fromEntries(Object.entries(v as Json).map(([p, s]) => [p, schemaToV3(s)])) : schemaToV3(v);
  }
  const ref = o['$ref'];
  if (typeof ref !== 'string') return out;
  const target = ref.replace('#/definitions/', '#/components/schemas/');
  return Object.keys(out).length === 0 ? { $ref: target } : { allOf: [{ $ref: target }], ...out };
}

function resolveParam(doc: SwaggerDocument, p: Json): Json {
  const ref = p['$ref'];
  return typeof ref === 'string' ? (doc.parameters[ref.replace('#/parameters/', '')] ?? {}) : p;
}

function paramToV3(p: Json): Json {
  const { type, uniqueItems, items, format, name, in: where, description, required } = p;
  const schema: Json = { ...(type !== undefined ? { type } : {}), ...(format !== undefined ? { format } : {}), ...(items !== undefined ? { items } : {}) };
  if (uniqueItems !== undefined) schema['uniqueItems'] = uniqueItems;
  return { name, in: where, ...(description !== undefined ? { description } : {}), ...(required ? { required } : {}), schema };
}

function operationToV3(doc: SwaggerDocument, op: Json): Json {
  const { consumes, produces, schemes: _schemes, parameters, responses, ...rest } = op;
  const params = ((parameters as Json[] | undefined) ?? []).map((p) => resolveParam(doc, p));
  const body = params.find((p) => p['in'] === 'body');
  const out: Json = { ...rest };
  const others = params.filter((p) => p['in'] !== 'body').map(paramToV3);
  if (others.length > 0) out['parameters'] = others;
  if (body) {
    const types = (consumes as string[] | undefined) ?? ['application/json'];
    out['requestBody'] = {
      content: Object.fromEntries(types.map((t) => [t, { schema: schemaToV3(body['schema']) }])),
      ...(body['required'] ? { required: true } : {}),
    };
  }
  const produced = (produces as string[] | undefined) ?? ['application/json'];
  out['responses'] = Object.fromEntries(
    Object.entries((responses as Record<string, Json> | undefined) ?? {}).map(([code, r]) => [
      code,
      {
        description: r['description'] ?? '',
        ...(r['schema'] !== undefined ? { content: Object.fromEntries(produced.map((t) => [t, { schema: schemaToV3(r['schema']) }])) } : {}),
      },
    ]),
  );
  return out;
}

/** The definitions `value` reaches through `#/definitions/` references, transitively. */
export function reachedDefinitions(doc: SwaggerDocument, value: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(value)) {
    for (const v of value) reachedDefinitions(doc, v, out);
    return out;
  }
  if (value === null || typeof value !== 'object') return out;
  for (const [k, v] of Object.entries(value as Json)) {
    if (k === '$ref' && typeof v === 'string') {
      if (v.startsWith('#/parameters/')) reachedDefinitions(doc, doc.parameters[v.slice('#/parameters/'.length)], out);
      else if (v.startsWith('#/definitions/')) {
        const name = v.slice('#/definitions/'.length);
        if (!out.has(name)) {
          out.add(name);
          reachedDefinitions(doc, doc.definitions[name], out);
        }
      }
    } else reachedDefinitions(doc, v, out);
  }
  return out;
}

/**
 * Types whose v3 schema is a oneOf, where v2 can only say string: their Go types declare OpenAPIV3OneOfTypes
 * (apimachinery intstr.IntOrString: integer or string; resource.Quantity: string or number). kubectl explain then
 * names them by their definition (`<IntOrString>`) rather than `<string>`.
 */
const V3_ONE_OF: Record<string, string[]> = {
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString': ['integer', 'string'],
  'io.k8s.apimachinery.pkg.api.resource.Quantity': ['string', 'number'],
};

function definitionToV3(name: string, def: Json | undefined): unknown {
  const converted = schemaToV3(def) as Json;
  const oneOf = V3_ONE_OF[name];
  if (!oneOf) return converted;
  const { type: _type, ...rest } = converted;
  return { ...rest, oneOf: oneOf.map((type) => ({ type })) };
}

/** The v3 index keys the vendored document has paths for. */
export function v3Keys(doc: SwaggerDocument): string[] {
  return [...new Set(Object.keys(doc.paths).map(v3KeyOf))].sort();
}

/** The v3 document of one index key (`apis/apps/v1`), from the v2 paths under it; undefined when it has none. */
export function v3Document(doc: SwaggerDocument, key: string, info: Json): Json | undefined {
  const entries = Object.entries(doc.paths).filter(([p]) => v3KeyOf(p) === key);
  if (entries.length === 0) return undefined;
  const paths: Json = {};
  for (const [p, item] of entries) {
    const converted: Json = {};
    for (const [verb, op] of Object.entries(item)) {
      if (verb === 'parameters') converted[verb] = (op as Json[]).map((x) => paramToV3(resolveParam(doc, x)));
      else converted[verb] = operationToV3(doc, op as Json);
    }
    paths[p] = converted;
  }
  const reached = reachedDefinitions(
    doc,
    entries.map(([, item]) => item),
  );
  const schemas = Object.fromEntries([...reached].sort().map((name) => [name, definitionToV3(name, doc.definitions[name])]));
  return {
    openapi: '3.0.0',
    info,
    paths,
    components: {
      schemas,
      securitySchemes: { BearerToken: { type: 'apiKey', description: 'Bearer Token authentication', name: 'authorization', in: 'header' } },
    },
  };
}
