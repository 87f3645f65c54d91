// Google's REST surface for a gRPC service, derived from its published .proto (protos/, vendored from the
// googleapis definitions the Node clients ship): each method's `google.api.http` rule gives its HTTP method, path
// template and body (https://google.aip.dev/127, google/api/http.proto); request JSON is checked against the request
// message the way Google's front end does (an unknown name is refused, enums by name or number), and answers use
// the enum encoding the client asked for (`$alt=json;enum-encoding=int`, as the Node clients' REST mode sends).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { http, HttpResponse, type HttpHandler } from 'msw';
import protobuf from 'protobufjs';

export type Json = Record<string, unknown>;

/** google.rpc.Code names and the HTTP status Google maps each to (google/rpc/code.proto). */
const HTTP_STATUS = {
  INVALID_ARGUMENT: 400,
  FAILED_PRECONDITION: 400,
  OUT_OF_RANGE: 400,
  UNAUTHENTICATED: 401,
  PERMISSION_DENIED: 403,
  NOT_FOUND: 404,
  ALREADY_EXISTS: 409,
  ABORTED: 409,
  RESOURCE_EXHAUSTED: 429,
  CANCELLED: 499,
  INTERNAL: 500,
  UNIMPLEMENTED: 501,
  UNAVAILABLE: 503,
  DEADLINE_EXCEEDED: 504,
} as const;
export type GoogleRpcStatus = keyof typeof HTTP_STATUS;

/** An error a Google API answers with, in its JSON error format (https://cloud.google.com/apis/design/errors). */
export class GoogleApiError extends Error {
  constructor(
    readonly status: GoogleRpcStatus,
    message: string,
  ) {
    super(message);
    this.name = 'GoogleApiError';
  }

  get httpStatus(): number {
    return HTTP_STATUS[this.status];
  }

  /** The JSON body Google answers this error with: `{error: {code, message, status}}`. */
  body(): Json {
    return { error: { code: this.httpStatus, message: this.message, status: this.status } };
  }
}

export const invalidArgument = (message: string): GoogleApiError => new GoogleApiError('INVALID_ARGUMENT', message);
export const notFound = (message: string): GoogleApiError => new GoogleApiError('NOT_FOUND', message);
export const alreadyExists = (message: string): GoogleApiError => new GoogleApiError('ALREADY_EXISTS', message);
export const failedPrecondition = (message: string): GoogleApiError => new GoogleApiError('FAILED_PRECONDITION', message);

/** The protos ship in src/ (the package's files include it); from dist/ they are found there. */
function protoDir(): string {
  const here = fileURLToPath(new URL('./protos/', import.meta.url));
  if (existsSync(here)) return here;
  return fileURLToPath(new URL('../../src/gcp/protos/', import.meta.url));
}

let loaded: protobuf.Root | undefined;

/** The vendored Cloud Tasks v2, Firestore v1 and Secret Manager v1 definitions (google/protobuf/* are protobufjs' own). */
export function googleApis(): protobuf.Root {
  if (loaded) return loaded;
  const dir = protoDir();
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => (target.startsWith('google/protobuf/') && !target.endsWith('descriptor.proto') ? target : `${dir}${target}`);
  root.loadSync(['google/cloud/tasks/v2/cloudtasks.proto', 'google/firestore/v1/firestore.proto', 'google/cloud/secretmanager/v1/service.proto'], {
    keepCase: false,
  });
  root.resolveAll();
  loaded = root;
  return root;
}

interface HttpRule {
  verb: string;
  path: string;
  body?: string;
}

interface Route {
  method: protobuf.Method;
  verb: string;
  regex: RegExp;
  /** Path variables (camelCase field paths) in the regex's group order. */
  vars: string[];
  body?: string;
  hasCustomVerb: boolean;
}

function rulesOf(method: protobuf.Method): HttpRule[] {
  const out: HttpRule[] = [];
  const visit = (rule: Json): void => {
    for (const verb of ['get', 'post', 'patch', 'put', 'delete']) {
      const path = rule[verb];
      if (typeof path === 'string') out.push({ verb: verb.toUpperCase(), path, ...(typeof rule.body === 'string' ? { body: rule.body } : {}) });
    }
    const more = rule.additional_bindings;
    for (const r of Array.isArray(more) ? more : more ? [more] : []) visit(r as Json);
  };
  for (const option of method.parsedOptions ?? []) {
    const rule = (option as Json)['(google.api.http)'];
    if (rule && typeof rule === 'object') visit(rule as Json);
  }
  return out;
}

const camel = (s: string): string => s.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A path template (google/api/http.proto's grammar: `*` one segment, `**` the rest, `{var=...}`, `:verb`) as a regex. */
function compile(template: string): { regex: RegExp; vars: string[] } {
  const vars: string[] = [];
  const segment = (pattern: string): string =>
    pattern
      .split('/')
      .map((part) => (part === '**' ? '.+' : part === '*' ? '[^/]+' : escapeRegExp(part)))
      .join('/');
  let source = '';
  let rest = template;
  const verbMatch = /:([A-Za-z]+)$/.exec(template);
  const verb = verbMatch?.[1];
  if (verb !== undefined) rest = template.slice(0, template.length - verb.length - 1);
  const re = /\{([^}=]+)(?:=([^}]+))?\}/g;
  let last = 0;
  for (let m = re.exec(rest); m; m = re.exec(rest)) {
    source += segment(rest.slice(last, m.index));
    vars.push((m[1] as string).split('.').map(camel).join('.'));
    source += `(${segment(m[2] ?? '*')})`;
    last = m.index + m[0].length;
  }
  source += segment(rest.slice(last));
  if (verb !== undefined) source += `:${escapeRegExp(verb)}`;
  return { regex: new RegExp(`^${source}$`), vars };
}

const WELL_KNOWN_STRINGS = new Set(['.google.protobuf.Timestamp', '.google.protobuf.Duration', '.google.protobuf.FieldMask']);
const WELL_KNOWN_ANY = new Set(['.google.protobuf.Value', '.google.protobuf.Struct', '.google.protobuf.ListValue', '.google.protobuf.Any']);
const WRAPPERS = /^\.google\.protobuf\.(Double|Float|Int64|UInt64|Int32|UInt32|Bool|String|Bytes)Value$/;
const INT_TYPES = new Set(['int32', 'uint32', 'sint32', 'fixed32', 'sfixed32']);
const LONG_TYPES = new Set(['int64', 'uint64', 'sint64', 'fixed64', 'sfixed64']);

/** Google's wording for a JSON value that does not fit its field (what the front end answers for a bad payload). */
function invalidValue(at: string, typeName: string, value: unknown): GoogleApiError {
  return invalidArgument(`Invalid value at '${at}' (${typeName}), ${JSON.stringify(value)}`);
}

function where(path: string): string {
  return path === '' ? '' : ` at '${path}'`;
}

/**
 * Checks `value` against a message type and returns it normalised: camelCase names, enums by name, ints as numbers,
 * 64-bit ints as strings. `path` is the snake_case field path Google names in its errors.
 */
export function checkMessage(value: unknown, type: protobuf.Type, path: string): Json {
  const full = type.fullName;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalidArgument(`Invalid JSON payload received. Expected an object${where(path)}, got ${JSON.stringify(value)}.`);
  }
  const out: Json = {};
  for (const [key, raw] of Object.entries(value as Json)) {
    const field = type.fields[camel(key)];
    if (!field) throw invalidArgument(`Invalid JSON payload received. Unknown name "${key}"${where(path)}: Cannot find field.`);
    // google.protobuf.NullValue's JSON is null (Firestore's `nullValue`); elsewhere null means the field is unset.
    if (field.resolvedType?.fullName === '.google.protobuf.NullValue') {
      if (raw !== null && raw !== 0 && raw !== 'NULL_VALUE')
        throw invalidValue(path === '' ? snake(field.name) : `${path}.${snake(field.name)}`, 'type.googleapis.com/google.protobuf.NullValue', raw);
      out[field.name] = null;
      continue;
    }
    if (raw === null && field.resolvedType?.fullName !== '.google.protobuf.Value') continue;
    const at = path === '' ? snake(field.name) : `${path}.${snake(field.name)}`;
    if (field.map) {
      if (typeof raw !== 'object' || Array.isArray(raw)) throw invalidValue(at, full, raw);
      out[field.name] = Object.fromEntries(Object.entries(raw as Json).map(([k, v]) => [k, checkValue(v, field, `${at}[${k}]`)]));
    } else if (field.repeated) {
      if (!Array.isArray(raw)) throw invalidArgument(`Invalid JSON payload received. Expected a list for '${at}', got ${JSON.stringify(raw)}.`);
      out[field.name] = raw.map((v, i) => checkValue(v, field, `${at}[${i}]`));
    } else {
      out[field.name] = checkValue(raw, field, at);
    }
  }
  return out;
}

function snake(s: string): string {
  return s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

function checkValue(value: unknown, field: protobuf.Field, at: string): unknown {
  const resolved = field.resolvedType;
  if (resolved instanceof protobuf.Enum) {
    if (typeof value === 'number' || (typeof value === 'string' && /^-?\d+$/.test(value))) {
      const name = resolved.valuesById[Number(value)];
      if (name === undefined) throw invalidValue(at, `type.googleapis.com${resolved.fullName}`, value);
      return name;
    }
    if (typeof value === 'string' && value in resolved.values) return value;
    throw invalidValue(at, `type.googleapis.com${resolved.fullName}`, value);
  }
  if (resolved instanceof protobuf.Type) {
    const name = resolved.fullName;
    if (WELL_KNOWN_STRINGS.has(name)) {
      if (typeof value !== 'string') throw invalidValue(at, `type.googleapis.com${name}`, value);
      if (name === '.google.protobuf.Timestamp' && Number.isNaN(Date.parse(value))) throw invalidValue(at, `type.googleapis.com${name}`, value);
      if (name === '.google.protobuf.Duration' && !/^-?\d+(\.\d{1,9})?s$/.test(value)) throw invalidValue(at, `type.googleapis.com${name}`, value);
      return value;
    }
    if (WELL_KNOWN_ANY.has(name)) return value;
    if (WRAPPERS.test(name)) return value;
    return checkMessage(value, resolved, at);
  }
  const type = field.type;
  if (type === 'string') {
    if (typeof value !== 'string') throw invalidValue(at, 'TYPE_STRING', value);
    return value;
  }
  if (type === 'bool') {
    if (value === 'true' || value === 'false') return value === 'true';
    if (typeof value !== 'boolean') throw invalidValue(at, 'TYPE_BOOL', value);
    return value;
  }
  if (type === 'bytes') {
    if (typeof value !== 'string' || !/^[A-Za-z0-9+/_-]*={0,2}$/.test(value)) throw invalidValue(at, 'TYPE_BYTES', value);
    return value;
  }
  if (INT_TYPES.has(type)) {
    const n = typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value;
    if (typeof n !== 'number' || !Number.isInteger(n)) throw invalidValue(at, `TYPE_${type.toUpperCase()}`, value);
    return n;
  }
  if (LONG_TYPES.has(type)) {
    if ((typeof value === 'number' && Number.isInteger(value)) || (typeof value === 'string' && /^-?\d+$/.test(value))) return String(value);
    throw invalidValue(at, `TYPE_${type.toUpperCase()}`, value);
  }
  if (type === 'double' || type === 'float') {
    if (typeof value === 'number') return value;
    if (typeof value === 'string' && ['NaN', 'Infinity', '-Infinity'].includes(value)) return Number(value);
    if (typeof value === 'string' && value.trim() !== '' && !Number.isNaN(Number(value))) return Number(value);
    throw invalidValue(at, `TYPE_${type.toUpperCase()}`, value);
  }
  return value;
}

/** An answer in the encoding asked: enums as numbers when `enum-encoding=int`, otherwise as names. */
export function encodeMessage(value: Json, type: protobuf.Type, intEnums: boolean): Json {
  if (!intEnums) return value;
  const out: Json = {};
  for (const [key, v] of Object.entries(value)) {
    const field = type.fields[key];
    out[key] = field ? encodeValue(v, field, intEnums) : v;
  }
  return out;
}

function encodeValue(value: unknown, field: protobuf.Field, intEnums: boolean): unknown {
  const resolved = field.resolvedType;
  const one = (v: unknown): unknown => {
    if (resolved instanceof protobuf.Enum) return typeof v === 'string' ? (resolved.values[v] ?? v) : v;
    if (resolved instanceof protobuf.Type && v !== null && typeof v === 'object' && !Array.isArray(v) && !WELL_KNOWN_ANY.has(resolved.fullName))
      return encodeMessage(v as Json, resolved, intEnums);
    return v;
  };
  if (field.map && value && typeof value === 'object') return Object.fromEntries(Object.entries(value as Json).map(([k, v]) => [k, one(v)]));
  if (field.repeated && Array.isArray(value)) return value.map(one);
  return one(value);
}

/** Facts about one REST call a method implementation may need. */
export interface GoogleCall {
  /** The method's name in the service (CreateTask). */
  method: string;
  headers: Headers;
}

export type GoogleMethodImpl = (request: Json, call: GoogleCall) => Json | Json[] | Promise<Json | Json[]>;

function setPath(target: Json, path: string, value: unknown): void {
  const parts = path.split('.');
  let at = target;
  for (const part of parts.slice(0, -1)) {
    const next = at[part];
    if (next === null || typeof next !== 'object') at[part] = {};
    at = at[part] as Json;
  }
  at[parts[parts.length - 1] as string] = value;
}

/** Query parameters the front end itself takes (system parameters), not request fields. */
const SYSTEM_PARAMETERS = new Set([
  '$alt',
  'alt',
  '$fields',
  'fields',
  'prettyPrint',
  '$prettyPrint',
  'key',
  'access_token',
  '$callback',
  'callback',
  'quotaUser',
  'userIp',
  'upload_protocol',
  'uploadType',
]);

/** The query string's fields (`a.b=1`, repeated by repetition) bound into the request as Google's transcoding does. */
function bindQuery(params: URLSearchParams, type: protobuf.Type, into: Json): void {
  for (const key of new Set(params.keys())) {
    if (SYSTEM_PARAMETERS.has(key)) continue;
    const parts = key.split('.').map(camel);
    let t: protobuf.Type | undefined = type;
    let field: protobuf.Field | undefined;
    for (const part of parts) {
      field = t?.fields[part];
      if (!field)
        throw invalidArgument(
          `Invalid JSON payload received. Unknown name "${key}": Cannot bind query parameter. Field '${key}' could not be found in request message.`,
        );
      t = field.resolvedType instanceof protobuf.Type ? field.resolvedType : undefined;
    }
    const values = params.getAll(key);
    const isFieldMask = field?.resolvedType?.fullName === '.google.protobuf.FieldMask';
    setPath(into, parts.join('.'), field?.repeated ? values : isFieldMask ? values.join(',') : values[values.length - 1]);
  }
}

/** Google's front end's page for a path no API method serves. */
function frontEnd404(url: URL): Response {
  const page = [
    '<!DOCTYPE html>',
    '<html lang=en>',
    '  <meta charset=utf-8>',
    '  <title>Error 404 (Not Found)!!1</title>',
    '  <p><b>404.</b> <ins>That’s an error.</ins>',
    `  <p>The requested URL <code>${url.pathname.replace(/[<>&"]/g, '')}</code> was not found on this server.  <ins>That’s all we know.</ins>`,
    '',
  ].join('\n');
  return new Response(page, { status: 404, headers: { 'content-type': 'text/html; charset=UTF-8' } });
}

const UNAUTHENTICATED = new GoogleApiError(
  'UNAUTHENTICATED',
  'Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other ' +
    'valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.',
);

/**
 * One Google API host served from a service's proto: `impl` implements the methods by name; a method the service
 * has but `impl` lacks is refused, as the sealed sandbox refuses an API it does not emulate, in Google's form for a
 * method a server does not offer (501 UNIMPLEMENTED, the code google.rpc.Code gives it), naming the method; a path no
 * rule matches gets Google's 404.
 */
export class GoogleRestService {
  readonly #routes: Route[];

  constructor(
    readonly host: string,
    serviceName: string,
    private readonly impl: Record<string, GoogleMethodImpl>,
    private readonly onRequest: (method: string) => void = () => {},
    /** Picks between rules whose templates overlap (Firestore's document and collection paths): false skips this one. */
    private readonly accepts: (method: string, vars: Record<string, string>) => boolean = () => true,
  ) {
    const service = googleApis().lookupService(serviceName);
    const routes: Route[] = [];
    for (const method of Object.values(service.methods)) {
      method.resolve();
      for (const rule of rulesOf(method)) {
        const { regex, vars } = compile(rule.path);
        routes.push({
          method,
          verb: rule.verb,
          regex,
          vars,
          ...(rule.body !== undefined ? { body: rule.body } : {}),
          hasCustomVerb: /:[A-Za-z]+$/.test(rule.path),
        });
      }
    }
    // A custom verb (`:access`) is tried first: `*` would otherwise take `1:access` for a version id.
    this.#routes = routes.sort((a, b) => Number(b.hasCustomVerb) - Number(a.hasCustomVerb));
    for (const name of Object.keys(impl)) if (!service.methods[name]) throw new Error(`${serviceName} has no method ${name}`);
  }

  handler(): HttpHandler {
    return http.all(new RegExp(`^https://${escapeRegExp(this.host)}(/.*)?$`), async ({ request }) => this.handle(request));
  }

  async handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const intEnums = /enum-encoding=int/.test(url.searchParams.get('$alt') ?? '');
    const route = this.#match(request.method, url.pathname);
    if (!route) return frontEnd404(url);
    const { method, match } = route;
    this.onRequest(method.method.name);
    try {
      if (!/^Bearer \S+/.test(request.headers.get('authorization') ?? '')) throw UNAUTHENTICATED;
      const requestType = method.method.resolvedRequestType as protobuf.Type;
      const raw: Json = {};
      const text = await request.text();
      if (method.body !== undefined && text.trim() !== '') {
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          throw invalidArgument(`Invalid JSON payload received. Unexpected token.\n${text.slice(0, 40)}\n^`);
        }
        if (method.body === '*') Object.assign(raw, parsed);
        else setPath(raw, camel(method.body), parsed);
      }
      bindQuery(url.searchParams, requestType, raw);
      for (const [i, v] of method.vars.entries()) setPath(raw, v, decodeURIComponent(match[i + 1] as string));
      const checked = checkMessage(raw, requestType, '');
      const answer = await (this.impl[method.method.name] ?? unimplemented(method.method.name))(checked, {
        method: method.method.name,
        headers: request.headers,
      });
      const responseType = method.method.resolvedResponseType as protobuf.Type;
      const encoded = Array.isArray(answer) ? answer.map((a) => encodeMessage(a, responseType, intEnums)) : encodeMessage(answer, responseType, intEnums);
      return HttpResponse.json(encoded);
    } catch (error) {
      if (error instanceof GoogleApiError) return HttpResponse.json(error.body(), { status: error.httpStatus });
      throw error;
    }
  }

  #match(verb: string, path: string): { method: Route; match: RegExpExecArray } | undefined {
    for (const route of this.#routes) {
      if (route.verb !== verb) continue;
      const match = route.regex.exec(path);
      if (!match) continue;
      const vars = Object.fromEntries(route.vars.map((v, i) => [v, decodeURIComponent(match[i + 1] as string)]));
      if (this.accepts(route.method.name, vars)) return { method: route, match };
    }
    return undefined;
  }
}

function unimplemented(name: string): GoogleMethodImpl {
  return () => {
    throw new GoogleApiError(
      'UNIMPLEMENTED',
      `the sandbox does not emulate ${name} (only the methods kubeplane's Google runtime calls are served; the sandbox has no network)`,
    );
  };
}

/** RFC 3339 with microseconds (`2026-01-01T00:00:00.000001Z`), as Google writes timestamps. */
export function rfc3339Micros(micros: number): string {
  const ms = Math.floor(micros / 1000);
  const rest = String(micros % 1000).padStart(3, '0');
  return new Date(ms).toISOString().replace('Z', `${rest}Z`);
}

/** A Timestamp's JSON (RFC 3339, any fraction) as microseconds since the epoch. */
export function parseMicros(text: string): number {
  const m = /\.(\d+)Z$/i.exec(text);
  const base = Date.parse(text.replace(/\.\d+Z$/i, 'Z'));
  if (Number.isNaN(base)) throw invalidArgument(`Invalid timestamp: ${text}`);
  const frac = m ? Number((m[1] as string).padEnd(6, '0').slice(0, 6)) : 0;
  return base * 1000 + frac;
}

/** A Duration's JSON (`"600s"`, `"1.5s"`) in seconds. */
export function parseDurationSeconds(text: string): number {
  return Number(text.replace(/s$/, ''));
}

/** A page of a sorted list, with an opaque token for the next (AIP-158). */
export function page<T>(items: T[], pageSize: unknown, pageToken: unknown, max = 1000): { items: T[]; nextPageToken?: string } {
  const size = typeof pageSize === 'number' && pageSize > 0 ? Math.min(pageSize, max) : max;
  const start = typeof pageToken === 'string' && pageToken !== '' ? Number.parseInt(Buffer.from(pageToken, 'base64url').toString(), 10) : 0;
  if (!Number.isInteger(start) || start < 0) throw invalidArgument('Invalid page token.');
  const slice = items.slice(start, start + size);
  return start + size < items.length ? { items: slice, nextPageToken: Buffer.from(String(start + size)).toString('base64url') } : { items: slice };
}
