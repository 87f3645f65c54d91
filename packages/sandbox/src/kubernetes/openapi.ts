// The OpenAPI documents a Kubernetes API server publishes: /openapi/v2 (one Swagger 2.0 document) and /openapi/v3 (an
// index of group-versions, each a document at a hash-versioned URL), from Kubernetes' own published document for the
// cluster's minor (openapi-spec.ts, openapi-spec/README.md). A served kind that document lacks (cilium.io's
// CiliumClusterwideNetworkPolicy, whose CRD the real cluster's Cilium installs) gets the sandbox's own schema
// (openapi-schemas.ts). kubectl reads these to validate manifests, to find patch strategies and for `explain`.
// Layout: https://kubernetes.io/docs/concepts/overview/kubernetes-api/#openapi-interface-definition and
// kube-openapi pkg/handler3 (index paths and serverRelativeURL with its hash).
import { createHash } from 'node:crypto';
import { definitionName, kindSchema, listSchema, META, SHARED, type Schema } from './openapi-schemas.js';
import { definitionOf, v3Document, v3Keys, vendoredSwagger, type SwaggerDocument } from './openapi-spec.js';
import { RESOURCES, resourceVersion, specOf, type Json, type Resource } from './store.js';

type Document = Json;

interface GroupVersion {
  group: string;
  version: string;
  /** `api/v1`, `apis/apps/v1`: the key in the v3 index. */
  path: string;
  resources: Resource[];
}

/** Whether Kubernetes' own document for the version describes `resource`'s kind. */
function vendored(doc: SwaggerDocument, resource: Resource): boolean {
  const { group, kind } = specOf(resource);
  return definitionOf(doc, group, resourceVersion(resource), kind) !== undefined;
}

/** The served group-versions of the kinds Kubernetes' document for `kubernetesVersion` lacks. */
function groupVersions(kubernetesVersion: string): GroupVersion[] {
  const doc = vendoredSwagger(kubernetesVersion);
  const byPath = new Map<string, GroupVersion>();
  for (const resource of Object.keys(RESOURCES) as Resource[]) {
    if (vendored(doc, resource)) continue;
    const group = specOf(resource).group;
    const version = resourceVersion(resource);
    const path = group ? `apis/${group}/${version}` : `api/${version}`;
    const gv = byPath.get(path) ?? { group, version, path, resources: [] };
    gv.resources.push(resource);
    byPath.set(path, gv);
  }
  return [...byPath.values()].sort((a, b) => a.path.localeCompare(b.path));
}

const param = (name: string, description: string, where: 'query' | 'path' = 'query'): Json => ({
  name,
  in: where,
  description,
  ...(where === 'path' ? { required: true } : {}),
  schema: { type: 'string', uniqueItems: true },
});

/** The query parameters the API server documents on writes; kubectl looks for fieldValidation on PATCH (see below). */
const WRITE_PARAMS = [
  param('dryRun', 'When present, indicates that modifications should not be persisted.'),
  param('fieldManager', 'fieldManager is a name associated with the actor or entity that is making these changes.'),
  param(
    'fieldValidation',
    'fieldValidation instructs the server on how to handle objects in the request containing unknown or duplicate fields: Ignore, Warn or Strict.',
  ),
];
const LIST_PARAMS = [
  'allowWatchBookmarks',
  'continue',
  'fieldSelector',
  'labelSelector',
  'limit',
  'resourceVersion',
  'resourceVersionMatch',
  'sendInitialEvents',
  'timeoutSeconds',
  'watch',
].map((p) => param(p, `The ${p} list option.`));

function schemaRef(name: string): Json {
  return { $ref: `#/components/schemas/${name}` };
}

/**
 * The patch types a PATCH takes: built-in kinds take strategic merge patches, custom resources (a group outside
 * *.k8s.io with a domain, as cilium.io) do not; kubectl reads this to choose the patch it sends.
 */
function patchTypes(resource: Resource): string[] {
  const group = specOf(resource).group;
  const custom = group.includes('.') && !group.endsWith('.k8s.io');
  return [
    'application/apply-patch+yaml',
    'application/json-patch+json',
    'application/merge-patch+json',
    ...(custom ? [] : ['application/strategic-merge-patch+json']),
  ];
}

function operation(resource: Resource, action: string, verb: string, responseSchema: string, params: Json[], body = false): Json {
  const { group, kind } = specOf(resource);
  const content = { 'application/json': { schema: schemaRef(responseSchema) } };
  const bodyTypes = action === 'patch' ? patchTypes(resource) : ['application/json'];
  return {
    description: `${verb} ${kind}`,
    operationId: `${action}${kind}`,
    tags: [group ? `${group.split('.')[0] ?? group}_${resourceVersion(resource)}` : `core_${resourceVersion(resource)}`],
    parameters: params,
    ...(body
      ? {
          requestBody: {
            content: Object.fromEntries(bodyTypes.map((t) => [t, { schema: schemaRef(action === 'patch' ? `${META}.Patch` : definitionName(resource)) }])),
            required: true,
          },
        }
      : {}),
    responses: { '200': { description: 'OK', content }, '401': { description: 'Unauthorized' } },
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': { group, version: resourceVersion(resource), kind },
  };
}

function paths(gv: GroupVersion): Json {
  const out: Json = {};
  for (const resource of gv.resources) {
    const def = definitionName(resource);
    const base = `/${gv.path}${specOf(resource).namespaced ? '/namespaces/{namespace}' : ''}/${resource}`;
    const nsParam = specOf(resource).namespaced ? [param('namespace', 'object name and auth scope, such as for teams and projects', 'path')] : [];
    out[base] = {
      get: operation(resource, 'list', 'list or watch objects of kind', `${def}List`, LIST_PARAMS),
      post: operation(resource, 'post', 'create a', def, WRITE_PARAMS, true),
      parameters: nsParam,
    };
    out[`${base}/{name}`] = {
      get: operation(resource, 'get', 'read the specified', def, []),
      put: operation(resource, 'put', 'replace the specified', def, WRITE_PARAMS, true),
      patch: operation(
        resource,
        'patch',
        'partially update the specified',
        def,
        [...WRITE_PARAMS, param('force', 'Force is going to "force" Apply requests.')],
        true,
      ),
      delete: operation(resource, 'delete', 'delete a', `${META}.Status`, [
        param('gracePeriodSeconds', 'The duration in seconds before the object should be deleted.'),
        param('propagationPolicy', 'Whether and how garbage collection will be performed.'),
      ]),
      parameters: [param('name', `name of the ${specOf(resource).kind}`, 'path'), ...nsParam],
    };
  }
  return out;
}

/** Every definition a group-version's document holds: the shared meta/v1 ones, its kinds and their lists. */
function schemas(resources: Resource[]): Record<string, Schema> {
  const out: Record<string, Schema> = { ...SHARED };
  for (const resource of resources) {
    out[definitionName(resource)] = kindSchema(resource);
    out[`${definitionName(resource)}List`] = listSchema(resource);
  }
  return out;
}

function info(kubernetesVersion: string): Json {
  return { title: 'Kubernetes', version: kubernetesVersion };
}

export function openApiV3Document(path: string, kubernetesVersion: string): Document | undefined {
  const fromSpec = v3Document(vendoredSwagger(kubernetesVersion), path, info(kubernetesVersion));
  if (fromSpec) return fromSpec;
  const gv = groupVersions(kubernetesVersion).find((g) => g.path === path);
  if (!gv) return undefined;
  return { openapi: '3.0.0', info: info(kubernetesVersion), paths: paths(gv), components: { schemas: schemas(gv.resources) } };
}

/** A document's hash, as the index gives it in serverRelativeURL (kube-openapi: the sha512 of the served bytes). */
function hashOf(body: string): string {
  return createHash('sha512').update(body).digest('hex').toUpperCase();
}

export function openApiV3Index(kubernetesVersion: string): Json {
  const entries: Json = {};
  const keys = [...v3Keys(vendoredSwagger(kubernetesVersion)), ...groupVersions(kubernetesVersion).map((gv) => gv.path)].sort();
  for (const key of keys) {
    const body = JSON.stringify(openApiV3Document(key, kubernetesVersion));
    entries[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${hashOf(body)}` };
  }
  return { paths: entries };
}

/** $refs in the v2 form (`#/definitions/…`), and v3-only keys left out. */
function toV2(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toV2);
  if (value === null || typeof value !== 'object') return value;
  const out: Json = {};
  for (const [k, v] of Object.entries(value as Json)) {
    out[k] = k === '$ref' && typeof v === 'string' ? v.replace('#/components/schemas/', '#/definitions/') : toV2(v);
  }
  return out;
}

export function openApiV2Document(kubernetesVersion: string): Document {
  const doc = vendoredSwagger(kubernetesVersion);
  const own = groupVersions(kubernetesVersion);
  const v2Paths: Json = { ...doc.paths };
  for (const gv of own) {
    for (const [p, item] of Object.entries(paths(gv))) {
      const ops: Json = {};
      for (const [verb, op] of Object.entries(item as Json)) {
        if (verb === 'parameters') {
          ops[verb] = (op as Json[]).map(({ schema: _s, ...rest }) => ({ ...rest, type: 'string' }));
          continue;
        }
        const { requestBody, responses: _r, parameters, ...rest } = op as Json;
        const bodySchema = requestBody ? toV2((Object.values((requestBody as Json)['content'] as Json)[0] as Json)['schema']) : undefined;
        const bodyParam = bodySchema ? [{ name: 'body', in: 'body', required: true, schema: bodySchema }] : [];
        ops[verb] = {
          ...rest,
          consumes: ['application/json'],
          produces: ['application/json'],
          schemes: ['https'],
          parameters: [...(parameters as Json[]).map(({ schema: _s, ...p }) => ({ ...p, type: 'string' })), ...bodyParam],
          responses: { '200': { description: 'OK' } },
        };
      }
      v2Paths[p] = ops;
    }
  }
  // The sandbox's own schemas only add: a definition Kubernetes' document has is served as it is.
  const ownDefinitions = toV2(schemas(own.flatMap((gv) => gv.resources))) as Json;
  return {
    ...doc,
    info: info(kubernetesVersion),
    paths: v2Paths,
    definitions: { ...ownDefinitions, ...doc.definitions },
  };
}

/** Documents already rendered, by Kubernetes version and path: the served kinds do not change while a process runs. */
const served = new Map<string, OpenApiAnswer>();

export interface OpenApiAnswer {
  status: number;
  body: string;
  contentType: string;
  headers?: Record<string, string>;
}

/**
 * Answers /openapi/v2 and /openapi/v3[/…] in JSON. A client that accepts only the protobuf forms
 * (`application/com.github.proto-openapi.spec.v2@v1.0+protobuf`) gets 406 Not Acceptable, as from a server that
 * cannot produce the type it asked for.
 */
export function openApi(pathname: string, accept: string | null, kubernetesVersion: string): OpenApiAnswer | undefined {
  if (pathname !== '/openapi/v2' && pathname !== '/openapi/v3' && !pathname.startsWith('/openapi/v3/')) return undefined;
  const types = (accept ?? '')
    .split(',')
    .map((t) => t.split(';')[0]?.trim() ?? '')
    .filter((t) => t !== '');
  if (types.length > 0 && !types.some((t) => t === 'application/json' || t === '*/*' || t === 'application/*')) {
    return { status: 406, contentType: 'text/plain; charset=utf-8', body: `only application/json is served for ${pathname}\n` };
  }
  const key = `${kubernetesVersion} ${pathname}`;
  const cached = served.get(key);
  if (cached) return cached;
  let doc: Json | undefined;
  if (pathname === '/openapi/v2') doc = openApiV2Document(kubernetesVersion);
  else if (pathname === '/openapi/v3') doc = openApiV3Index(kubernetesVersion);
  else doc = openApiV3Document(pathname.slice('/openapi/v3/'.length), kubernetesVersion);
  if (!doc) return { status: 404, contentType: 'text/plain; charset=utf-8', body: '404 page not found\n' };
  // A hash-addressed document never changes: kube-openapi lets clients cache it for good.
  const immutable = pathname.startsWith('/openapi/v3/');
  const answer: OpenApiAnswer = {
    status: 200,
    contentType: 'application/json',
    body: JSON.stringify(doc),
    ...(immutable ? { headers: { 'cache-control': 'public, immutable' } } : {}),
  };
  served.set(key, answer);
  return answer;
}
