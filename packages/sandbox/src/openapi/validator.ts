// Checks a request's JSON body and a response (status and JSON body) against the operation an OpenAPI 3.0 or
// Swagger 2.0 document declares, with a real JSON Schema validator (ajv 8); violations carry the operation and a
// JSON pointer.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { type ApiDocument, findOperation, gatewayResponse, requestSchema, resolveRef, responseSchema } from './document.js';

export interface Violation {
  /** `GET /servers/{id}`, or the concrete method and path when the document has no such operation. */
  operation: string;
  status: number;
  /** JSON pointer into the body ('' for the body itself). */
  pointer: string;
  /** Which body broke the document: the response's (the default) or the request's. */
  subject?: 'request';
  message: string;
}

// RFC 3339 date-time, the `date-time` format of OpenAPI 3.0.3 ("Data Types") and Swagger 2.0.
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/**
 * A copy of the document in plain JSON Schema terms for ajv: OpenAPI 3.0's `nullable: true` and Swagger's
 * `x-nullable: true` become "or null" (OpenAPI 3.0.3 "Schema Object", `nullable`), wherever they sit (beside `$ref`
 * or `allOf` too); examples go, they are not schemas. Returns the formats the document names.
 */
function normalize(doc: ApiDocument): { doc: ApiDocument; formats: Set<string> } {
  const formats = new Set<string>();
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (node === null || typeof node !== 'object') return node;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node)) {
      if (k === 'example' || k === 'examples') continue;
      out[k] = k === 'enum' || k === 'required' || k === 'default' ? v : walk(v);
    }
    if (typeof out['format'] === 'string' && typeof out['type'] === 'string') formats.add(out['format']);
    // Crusoe's document lists every field of some request models as `required` while marking each of them
    // `x-redocly-optional: true` (KubernetesNodePoolPatchRequest: a PATCH of the node labels alone is taken, and leaves
    // the count at Go's zero value, crusoe/emulator.test.ts): the field-level mark is what the API does, so it wins.
    const properties = out['properties'] as Record<string, Record<string, unknown>> | undefined;
    if (Array.isArray(out['required']) && properties)
      out['required'] = (out['required'] as string[]).filter((name) => properties[name]?.['x-redocly-optional'] !== true);
    const nullable = out['nullable'] === true || out['x-nullable'] === true;
    delete out['nullable'];
    delete out['x-nullable'];
    if (!nullable) return out;
    if (typeof out['type'] === 'string' && out['$ref'] === undefined && out['allOf'] === undefined && out['oneOf'] === undefined) {
      const result: Record<string, unknown> = { ...out, type: [out['type'], 'null'] };
      if (Array.isArray(out['enum'])) result['enum'] = [...(out['enum'] as unknown[]), null];
      return result;
    }
    return { anyOf: [out, { type: 'null' }] };
  };
  return { doc: walk(doc) as ApiDocument, formats };
}

/**
 * Where a vendor's document is stricter about requests than its API: a field it requires that the API does not
 * (`required`), or a type it names that the API takes in another form as well (`type`), with the evidence in
 * `reason`. Only that error, at a JSON pointer `pointer` matches, of `operation`, is let through.
 */
export interface RequestLeniency {
  operation: string;
  pointer: RegExp;
  /** `unknown`: a field the document names nowhere that the API takes all the same (requestProblems only). */
  keyword: 'required' | 'type' | 'unknown';
  /** For `required`: the properties that may be left out; for `unknown`: the ones the API takes. */
  properties?: string[];
  reason: string;
}

/**
 * What is wrong with a request, for the emulator to answer in its vendor's words: a query parameter or body field (its
 * dotted name: `public_net.enable_ipv4`, `networks.0`) that is missing, of the wrong type, not among its values, or
 * not in the document at all (`unknown`, body fields only).
 */
export interface RequestProblem {
  in: 'query' | 'body';
  field: string;
  kind: 'required' | 'type' | 'enum' | 'unknown' | 'invalid';
  message: string;
}

/** The schema of a query parameter: OpenAPI 3's `schema`, Swagger 2.0's fields on the parameter itself. */
interface ParameterSchema {
  type?: string;
  enum?: unknown[];
  items?: ParameterSchema;
  minimum?: number;
  maximum?: number;
}

export class ApiValidator {
  readonly #doc: ApiDocument;
  readonly #ajv: Ajv;
  readonly #compiled = new Map<string, ValidateFunction>();
  readonly #lenient: RequestLeniency[];

  constructor(document: ApiDocument, requestLeniency: RequestLeniency[] = []) {
    this.#lenient = requestLeniency;
    const { doc, formats } = normalize(document);
    this.#doc = doc;
    // strict: false because API documents carry keywords that are not JSON Schema (`discriminator` as a string,
    // `x-*`, `readOnly` on $ref siblings); numeric formats (int64, double…) are only type hints here.
    this.#ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
    for (const f of formats)
      this.#ajv.addFormat(f, f === 'date-time' ? DATE_TIME : f === 'uuid' ? /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i : true);
    this.#ajv.addSchema(doc, 'api');
  }

  /** The document's name of the operation `method` `path` (`POST /servers/{id}/actions/rebuild`), if it has one. */
  operationName(method: string, path: string): string | undefined {
    return findOperation(this.#doc, method, path)?.name;
  }

  /** Violations of `body` (parsed JSON, or undefined for none) answered with `status` to `method` `path`. */
  validate(method: string, path: string, status: number, body: unknown): Violation[] {
    const op = findOperation(this.#doc, method, path);
    // A path the API does not have is answered 404 (with the vendor's error body): nothing in the document to check
    // that against. Any other answer to such a path is a violation.
    if (!op)
      return status === 404 ? [] : [{ operation: `${method} ${path}`, status, pointer: '', message: 'no operation in the API document matches this request' }];
    const declared = responseSchema(this.#doc, op, status) ?? gatewayResponse(this.#doc, status)?.response;
    if (!declared)
      return [{ operation: op.name, status, pointer: '', message: `status ${status} is not a declared response (${Object.keys(op.responses).join(', ')})` }];
    if (declared.pointer === undefined) {
      return body === undefined ? [] : [{ operation: op.name, status, pointer: '', message: 'the response declares no body but one was sent' }];
    }
    if (body === undefined) return [{ operation: op.name, status, pointer: '', message: 'the response declares a JSON body but none was sent' }];
    return this.#check(declared.pointer, body).map((e) => ({ operation: op.name, status, ...e }));
  }

  /**
   * Violations of a request's JSON `body` (undefined for none) sent to `method` `path` and answered with `status`: a
   * body the operation's schema refuses, or a required body left out. A path the document does not have is the
   * response check's to report.
   */
  validateRequest(method: string, path: string, status: number, body: unknown): Violation[] {
    const op = findOperation(this.#doc, method, path);
    const declared = op && requestSchema(this.#doc, op);
    if (!op || !declared) return [];
    if (body === undefined)
      return declared.required
        ? [{ operation: op.name, status, subject: 'request', pointer: '', message: 'the operation requires a JSON body but none was sent' }]
        : [];
    const lenient = this.#lenient.filter((l) => l.operation === op.name);
    const excused = (e: ErrorObject) => {
      const missing = String((e.params as { missingProperty?: unknown }).missingProperty);
      return lenient.some(
        (l) => l.keyword === e.keyword && l.pointer.test(e.instancePath) && (l.keyword !== 'required' || (l.properties ?? []).includes(missing)),
      );
    };
    return this.#check(declared.pointer, body, excused).map((e) => ({ operation: op.name, status, subject: 'request' as const, ...e }));
  }

  /**
   * Every problem of a request the API would refuse, by the document: its documented query parameters (required ones
   * present, integers and booleans well-formed, values among an enum's; a repeatable one may also be comma-joined) and
   * its JSON body (the schema, and with `unknownFields` every field the schema names nowhere). Leniencies apply as in
   * validateRequest. Empty for an operation the document does not have.
   */
  requestProblems(method: string, path: string, query: URLSearchParams, body: unknown, options: { unknownFields: boolean }): RequestProblem[] {
    const op = findOperation(this.#doc, method, path);
    if (!op) return [];
    const problems: RequestProblem[] = [];
    for (const [i, raw] of op.parameters.entries()) {
      const param = resolveRef(this.#doc, raw, `${op.pointer}/parameters/${i}`).node as
        | (ParameterSchema & { in?: string; name?: string; required?: boolean; schema?: ParameterSchema })
        | undefined;
      if (param?.in !== 'query' || !param.name) continue;
      const schema = param.schema ?? param;
      const values = query.getAll(param.name);
      if (values.length === 0) {
        if (param.required) problems.push({ in: 'query', field: param.name, kind: 'required', message: 'is required' });
        continue;
      }
      const each = schema.type === 'array' ? values.flatMap((v) => v.split(',')) : values;
      const item = schema.type === 'array' ? (schema.items ?? {}) : schema;
      for (const value of each) {
        const problem = queryValueProblem(value, item);
        if (problem) {
          problems.push({ in: 'query', field: param.name, ...problem });
          break;
        }
      }
    }
    const declared = requestSchema(this.#doc, op);
    if (!declared || body === undefined) return problems;
    const lenient = this.#lenient.filter((l) => l.operation === op.name);
    const excused = (e: ErrorObject) => {
      const missing = String((e.params as { missingProperty?: unknown }).missingProperty);
      return lenient.some(
        (l) => l.keyword === e.keyword && l.pointer.test(e.instancePath) && (l.keyword !== 'required' || (l.properties ?? []).includes(missing)),
      );
    };
    let validate = this.#compiled.get(declared.pointer);
    if (!validate) {
      validate = this.#ajv.compile({ $ref: `api${declared.pointer}` });
      this.#compiled.set(declared.pointer, validate);
    }
    if (options.unknownFields) {
      for (const field of unknownFields(this.#doc, resolveRef(this.#doc, { $ref: declared.pointer }, declared.pointer).node, body, [])) {
        const path = field.split('.');
        const parent = path
          .slice(0, -1)
          .map((s) => `/${s}`)
          .join('');
        if (lenient.some((l) => l.keyword === 'unknown' && l.pointer.test(parent) && (l.properties ?? []).includes(path[path.length - 1]!))) continue;
        problems.push({ in: 'body', field, kind: 'unknown', message: `unknown field name '${field}'` });
      }
    }
    if (validate(body)) return problems;
    const dotted = (instancePath: string) => instancePath.split('/').filter(Boolean).join('.');
    const seen = new Set<string>();
    for (const e of validate.errors ?? []) {
      if ((e.keyword === 'type' && (e.params as { type?: unknown }).type === 'null') || excused(e)) continue;
      let problem: RequestProblem;
      if (e.keyword === 'required') {
        const missing = String((e.params as { missingProperty?: unknown }).missingProperty);
        problem = { in: 'body', field: [dotted(e.instancePath), missing].filter(Boolean).join('.'), kind: 'required', message: 'is required' };
      } else if (e.keyword === 'type') {
        problem = { in: 'body', field: dotted(e.instancePath), kind: 'type', message: `must be of type ${String((e.params as { type?: unknown }).type)}` };
      } else if (e.keyword === 'enum') {
        problem = {
          in: 'body',
          field: dotted(e.instancePath),
          kind: 'enum',
          message: `must be one of ${JSON.stringify((e.params as { allowedValues?: unknown }).allowedValues)}`,
        };
      } else if (e.keyword === 'anyOf' || e.keyword === 'oneOf' || e.keyword === 'allOf') {
        continue;
      } else {
        problem = { in: 'body', field: dotted(e.instancePath), kind: 'invalid', message: e.message ?? 'is invalid' };
      }
      const key = `${problem.field} ${problem.kind}`;
      if (seen.has(key)) continue;
      seen.add(key);
      problems.push(problem);
    }
    return problems;
  }

  #check(pointer: string, body: unknown, excused: (e: ErrorObject) => boolean = () => false): Array<{ pointer: string; message: string }> {
    let validate = this.#compiled.get(pointer);
    if (!validate) {
      validate = this.#ajv.compile({ $ref: `api${pointer}` });
      this.#compiled.set(pointer, validate);
    }
    if (validate(body)) return [];
    // The "or null" branch normalize() adds fails whenever the value is not null: that error says nothing new.
    const errors = (validate.errors ?? []).filter((e) => !(e.keyword === 'type' && (e.params as { type?: unknown }).type === 'null') && !excused(e));
    return errors.map((e) => ({
      pointer: e.instancePath,
      message: `${e.message ?? 'invalid'}${e.params && Object.keys(e.params).length > 0 ? ` ${JSON.stringify(e.params)}` : ''}`,
    }));
  }
}

/** Why a query value does not fit its parameter's schema, or undefined when it does. */
function queryValueProblem(value: string, schema: ParameterSchema): Pick<RequestProblem, 'kind' | 'message'> | undefined {
  if (schema.type === 'integer') {
    if (!/^-?\d+$/.test(value)) return { kind: 'type', message: `'${value}' is not an integer` };
    const n = Number(value);
    if ((schema.minimum !== undefined && n < schema.minimum) || (schema.maximum !== undefined && n > schema.maximum))
      return { kind: 'invalid', message: `${value} is out of range` };
  }
  if (schema.type === 'boolean' && queryBoolean(value) === undefined) return { kind: 'type', message: `'${value}' is not a boolean (true or false)` };
  if (Array.isArray(schema.enum) && !schema.enum.includes(value))
    return { kind: 'enum', message: `'${value}' is not one of ${schema.enum.map(String).join(', ')}` };
  return undefined;
}

/**
 * The fields of `body` that its schema names nowhere (dotted), following $ref, allOf and the "or null" anyOf
 * normalize() adds. An object schema that says nothing of its properties, or allows additional ones, takes any field.
 */
function unknownFields(doc: ApiDocument, schema: unknown, body: unknown, at: string[]): string[] {
  if (body === null || typeof body !== 'object') return [];
  const s = resolveRef(doc, schema, '').node as Record<string, unknown> | undefined;
  if (!s) return [];
  const branches = [...((s['allOf'] as unknown[]) ?? []), ...((s['anyOf'] as unknown[]) ?? []), ...((s['oneOf'] as unknown[]) ?? [])];
  if (branches.length > 0 && s['properties'] === undefined) {
    // The branch that is an object schema (the other is `null`), or every branch of an allOf together.
    const objects = branches.map((b) => resolveRef(doc, b, '').node as Record<string, unknown> | undefined).filter((b) => b && b['type'] !== 'null');
    if (objects.length === 1) return unknownFields(doc, objects[0], body, at);
    return [];
  }
  if (Array.isArray(body)) return s['items'] === undefined ? [] : body.flatMap((item, i) => unknownFields(doc, s['items'], item, [...at, String(i)]));
  const properties = s['properties'] as Record<string, unknown> | undefined;
  if (!properties || (s['additionalProperties'] !== undefined && s['additionalProperties'] !== false)) return [];
  return Object.entries(body as Record<string, unknown>).flatMap(([k, v]) =>
    Object.hasOwn(properties, k) ? unknownFields(doc, properties[k], v, [...at, k]) : [[...at, k].join('.')],
  );
}

/**
 * A boolean query value as the APIs read one: `true`/`false` and the other spellings Go's strconv.ParseBool takes (1,
 * t, T, TRUE, True…). Hetzner's own Python library sends Python's `True` (python3-hcloud 1.18,
 * `images.get_all(include_deprecated=True)`), which the API takes. Undefined for anything else.
 */
export function queryBoolean(value: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false;
  return undefined;
}
