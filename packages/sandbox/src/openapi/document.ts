// An API description (OpenAPI 3.0 or Swagger 2.0) reduced to what conformance needs: the operation a method and a
// concrete URL path name, and where in the document the schemas of its request body and of each response sit.

export type ApiDocument = Record<string, unknown>;

export interface Operation {
  /** `GET /servers/{id}`, as the document spells the path. */
  readonly name: string;
  readonly responses: Record<string, unknown>;
  /** Swagger 2.0's parameters (the body is one of them); OpenAPI 3 has `requestBody` instead. */
  readonly parameters: unknown[];
  readonly requestBody: unknown;
  /** JSON pointer of the operation object, e.g. `#/paths/~1servers~1{id}/get`. */
  readonly pointer: string;
}

export interface ResponseSchema {
  /** The status key that matched: `200`, `4xx` (any case) or `default`. */
  readonly key: string;
  /** JSON pointer of the schema; undefined when the response declares no body. */
  readonly pointer: string | undefined;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

export function isSwagger2(doc: ApiDocument): boolean {
  return doc['swagger'] === '2.0';
}

/** The base path requests carry before the document's paths: OpenAPI 3's `servers[].url` paths, Swagger's `basePath`. */
export function basePaths(doc: ApiDocument): string[] {
  if (isSwagger2(doc)) return [String(doc['basePath'] ?? '').replace(/\/$/, '')];
  const servers = (doc['servers'] as Array<{ url: string }> | undefined) ?? [];
  return servers.map((s) => new URL(s.url).pathname.replace(/\/$/, ''));
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Follows a local `$ref` (`#/a/b`) to the object it names; returns the object and its pointer. */
export function resolveRef(doc: ApiDocument, node: unknown, pointer: string): { node: unknown; pointer: string } {
  let current = node;
  let at = pointer;
  for (let hops = 0; hops < 16 && current !== null && typeof current === 'object' && typeof (current as { $ref?: unknown }).$ref === 'string'; hops++) {
    at = (current as { $ref: string }).$ref;
    current = at
      .slice(2)
      .split('/')
      .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<unknown>((o, key) => (o as Record<string, unknown> | undefined)?.[key], doc);
  }
  return { node: current, pointer: at };
}

/**
 * The operation for `method` and `path` (the URL's path, base path included). Templated segments match any one
 * segment; where several paths match, the one with more literal segments wins (`/servers/actions` over `/servers/{id}`).
 */
export function findOperation(doc: ApiDocument, method: string, path: string): Operation | undefined {
  const base = basePaths(doc).find((b) => path === b || path.startsWith(`${b}/`));
  if (base === undefined) return undefined;
  const segments = path.slice(base.length).split('/').filter(Boolean).map(decodeURIComponent);
  const paths = (doc['paths'] ?? {}) as Record<string, Record<string, unknown>>;
  let best: { template: string; literals: number } | undefined;
  for (const template of Object.keys(paths)) {
    const parts = template.split('/').filter(Boolean);
    if (parts.length !== segments.length) continue;
    let literals = 0;
    const matches = parts.every((part, i) => {
      if (/^\{[^}]+\}$/.test(part)) return true;
      literals += 1;
      return part === segments[i];
    });
    if (matches && METHODS.includes(method.toLowerCase()) && paths[template]?.[method.toLowerCase()] && (!best || literals > best.literals))
      best = { template, literals };
  }
  if (!best) return undefined;
  const op = paths[best.template]![method.toLowerCase()] as { responses?: Record<string, unknown>; parameters?: unknown[]; requestBody?: unknown };
  return {
    name: `${method.toUpperCase()} ${best.template}`,
    responses: op.responses ?? {},
    parameters: op.parameters ?? [],
    requestBody: op.requestBody,
    pointer: `#/paths/${escapePointer(best.template)}/${method.toLowerCase()}`,
  };
}

/**
 * The declared response for `status`: the exact code, then its range (`4XX`; the Hetzner document writes `4xx`),
 * then `default` (OpenAPI 3.0.3 "Responses Object"; Swagger 2.0 "Responses Object" has codes and `default`).
 */
export function responseSchema(doc: ApiDocument, op: Operation, status: number): ResponseSchema | undefined {
  const keys = Object.keys(op.responses);
  const key = keys.find((k) => k === String(status)) ?? keys.find((k) => k.toLowerCase() === `${String(status)[0]}xx`) ?? keys.find((k) => k === 'default');
  if (key === undefined) return undefined;
  const { node: response, pointer } = resolveRef(doc, op.responses[key], `${op.pointer}/responses/${escapePointer(key)}`);
  const r = (response ?? {}) as { schema?: unknown; content?: Record<string, { schema?: unknown }> };
  if (isSwagger2(doc)) return { key, pointer: r.schema === undefined ? undefined : `${pointer}/schema` };
  const media = r.content?.['application/json'];
  return { key, pointer: media?.schema === undefined ? undefined : `${pointer}/content/application~1json/schema` };
}

/**
 * Where the schema of the operation's JSON request body sits, with whether a body is required; undefined when the
 * operation takes none. OpenAPI 3.0.3: `requestBody.content['application/json'].schema`; Swagger 2.0: the parameter
 * `in: body`'s `schema`.
 */
export function requestSchema(doc: ApiDocument, op: Operation): { pointer: string; required: boolean } | undefined {
  if (isSwagger2(doc)) {
    for (const [i, p] of op.parameters.entries()) {
      const { node, pointer } = resolveRef(doc, p, `${op.pointer}/parameters/${i}`);
      const param = (node ?? {}) as { in?: string; schema?: unknown; required?: boolean };
      if (param.in === 'body' && param.schema !== undefined) return { pointer: `${pointer}/schema`, required: param.required === true };
    }
    return undefined;
  }
  if (op.requestBody === undefined) return undefined;
  const { node, pointer } = resolveRef(doc, op.requestBody, `${op.pointer}/requestBody`);
  const body = (node ?? {}) as { content?: Record<string, { schema?: unknown }>; required?: boolean };
  if (body.content?.['application/json']?.schema === undefined) return undefined;
  return { pointer: `${pointer}/content/application~1json/schema`, required: body.required === true };
}

/**
 * Rate limiting (429) and server errors (5xx) come from the API's front door, whatever the operation, so a document
 * that lists them on some operations only (Crusoe's lists 429 on a few) still describes them for all: the response
 * the document gives that status elsewhere (the first, in path order), undefined when it gives it nowhere.
 */
export function gatewayResponse(doc: ApiDocument, status: number): { operation: Operation; response: ResponseSchema } | undefined {
  if (status !== 429 && (status < 500 || status > 599)) return undefined;
  const paths = (doc['paths'] ?? {}) as Record<string, Record<string, unknown>>;
  for (const [template, item] of Object.entries(paths)) {
    for (const method of METHODS) {
      const responses = (item[method] as { responses?: Record<string, unknown> } | undefined)?.responses;
      if (!responses || !Object.hasOwn(responses, String(status))) continue;
      const operation: Operation = {
        name: `${method.toUpperCase()} ${template}`,
        responses,
        parameters: [],
        requestBody: undefined,
        pointer: `#/paths/${escapePointer(template)}/${method}`,
      };
      const response = responseSchema(doc, operation, status);
      if (response) return { operation, response };
    }
  }
  return undefined;
}
