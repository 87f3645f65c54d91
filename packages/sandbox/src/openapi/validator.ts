// Checks a request's JSON body and a response (status and JSON body) against the operation an OpenAPI 3.0 or
// Swagger 2.0 document declares, with a real JSON Schema validator (ajv 8); violations carry the operation and a
// JSON pointer.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { findOperation, gatewayResponse, requestSchema, responseSchema, type ApiDocument } from './document.js';

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
  keyword: 'required' | 'type';
  /** For `required`: the properties that may be left out. */
  properties?: string[];
  reason: string;
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
