// A typed client for the Crusoe Cloud API v1 on got + zod: every request is signed (v1.0) in a beforeRequest
// hook, so a retry carries a fresh timestamp and signature; errors become KubeplaneErrors; VM lists are paged.
import got, { type Got } from 'got';
import type * as z from 'zod';
import { KubeplaneError, type Clock, type Redacted } from '@kubeplane/sdk';
import { RateBudgetWait, networkError, retryAfterFromHeaders, type RateBudget } from '@kubeplane/sdk/provider';
import { crusoeAdvice, crusoeErrorKind, crusoeMessage } from './errors.js';
import { errorBodySchema, instanceListSchema, operationSchema, type CrusoeInstance, type CrusoeOperation } from './schemas.js';
import { authorizationHeader, buildQuery, crusoeTimestamp } from './signing.js';

/** Crusoe Cloud's API base URL. */
export const CRUSOE_DEFAULT_BASE_URL = 'https://api.cloud.crusoe.ai/v1';
const PROVIDER = 'crusoe';

/**
 * Crusoe documents no global rate limit (crusoe-notes.md §1.6); this budget is our own estimate to keep many
 * handlers sharing one project from bursting, not a published figure. 429s still win: they block the bucket.
 */
export const CRUSOE_RATE_LIMIT = { capacity: 100, refillPerSecond: 10 } as const;

/** Requests one contract call may take back to back. */
const CALL_BURST = 5;

/** A query parameter's value in a Crusoe request; a list is joined with commas, undefined leaves the parameter out. */
export type QueryValue = string | number | boolean | readonly string[] | undefined;

/** How the Crusoe client is built: the access key and secret, project, clock, rate budget, base URL, timeout and retries. */
export interface CrusoeClientOptions {
  accessKeyId: Redacted<string>;
  /** The secret key as Crusoe issues it (unpadded base64url). */
  secretKey: Redacted<string>;
  projectId: string;
  clock: Clock;
  budget: RateBudget;
  baseUrl?: string;
  /** Real-time request timeout in ms. */
  timeoutMs?: number;
  /**
   * got-level retries for idempotent methods (GET, PUT, DELETE) on 429/5xx/connection errors, Terraform's
   * policy (at most 2, never POST). Default 0: the engine retries on its own clock.
   */
  retries?: number;
}

/** The query, body and resource (for messages) of a Crusoe request. */
export interface CrusoeRequestOptions {
  query?: Record<string, QueryValue>;
  body?: unknown;
  /** The resource concerned, for error messages. */
  resource?: string;
}

/** Operation families, each with its own `/operations/{id}` endpoint. */
export type OperationFamily =
  | 'compute/vms/instances'
  | 'storage/disks'
  | 'networking/vpc-networks'
  | 'networking/vpc-subnets'
  | 'networking/vpc-firewall-rules'
  | 'kubernetes/clusters'
  | 'kubernetes/nodepools';

/** A client of Crusoe Cloud's API: signed requests and the asynchronous operations they start. */
export class CrusoeClient {
  readonly projectId: string;
  readonly #accessKeyId: Redacted<string>;
  readonly #secretKey: Redacted<string>;
  readonly #clock: Clock;
  readonly #budget: RateBudget;
  readonly #http: Got;
  readonly #basePath: string;
  /** Requests sent, retries included (for the bench's calls-per-node figure and the retry tests). */
  sent = 0;

  constructor(options: CrusoeClientOptions) {
    this.projectId = options.projectId;
    this.#accessKeyId = options.accessKeyId;
    this.#secretKey = options.secretKey;
    this.#clock = options.clock;
    this.#budget = options.budget;
    const base = (options.baseUrl ?? CRUSOE_DEFAULT_BASE_URL).replace(/\/+$/, '');
    this.#basePath = base;
    const retries = Math.min(2, Math.max(0, options.retries ?? 0));
    this.#http = got.extend({
      retry: {
        limit: retries,
        methods: ['GET', 'PUT', 'DELETE', 'HEAD'],
        statusCodes: [429, 500, 502, 503, 504],
        // Short real-time pauses only; long waits are the engine's, as pending results on its clock.
        calculateDelay: ({ computedValue }) => (computedValue === 0 ? 0 : 5),
      },
      throwHttpErrors: false,
      timeout: { request: options.timeoutMs ?? 30_000 },
      responseType: 'text',
      hooks: {
        // Runs before every attempt, retries included: each one gets its own timestamp and signature.
        beforeRequest: [
          (request) => {
            this.sent += 1;
            const url = request.url instanceof URL ? request.url : new URL(String(request.url));
            const timestamp = crusoeTimestamp(this.#clock.now());
            request.headers['x-crusoe-timestamp'] = timestamp;
            request.headers['authorization'] = authorizationHeader({
              method: request.method,
              path: url.pathname,
              rawQuery: url.search.replace(/^\?/, ''),
              timestamp,
              accessKeyId: this.#accessKeyId.reveal(),
              secretKey: this.#secretKey.reveal(),
            });
          },
        ],
      },
    });
  }

  /** No enumerable state to print: the keys stay inside. */
  toJSON(): Record<string, string> {
    return { provider: PROVIDER, projectId: this.projectId };
  }

  /** `projects/<id>/<rest>`. */
  project(rest: string): string {
    return `projects/${this.projectId}/${rest.replace(/^\//, '')}`;
  }

  /** Sends a signed request and parses the response with the schema; errors become KubeplaneErrors. */
  async request<S extends z.ZodType>(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    path: string,
    schema: S,
    options: CrusoeRequestOptions = {},
  ): Promise<z.infer<S>> {
    const wait = await this.#budget.take(1);
    // A contract call takes a few requests (find, create, read back): wait until a few tokens are there, or a
    // drained bucket would hand out one token per call forever and the call would never get through.
    if (wait > 0) throw new RateBudgetWait(PROVIDER, wait + (CALL_BURST - 1) / this.#budget.limits.refillPerSecond);
    // The query is built in canonical order and Go's escaping, and used as is in the URL: the API rejects a
    // URL whose query order differs from the signed one (401 bad_credentials).
    const query = buildQuery(options.query ?? {});
    const url = `${this.#basePath}/${path.replace(/^\//, '')}${query ? `?${query}` : ''}`;
    const label = `${method} /${path.replace(/^\//, '').replace(this.projectId, '{project}')}`;
    let response;
    try {
      response = await this.#http(url, {
        method,
        headers: { 'user-agent': 'kubeplane', accept: 'application/json' },
        ...(options.body === undefined ? {} : { json: options.body }),
      });
    } catch (error) {
      // got's errors carry the request options (and so the signed headers): keep only the message.
      throw networkError(PROVIDER, label, new Error(error instanceof Error ? error.message.replace(/Bearer [^\s"]+/g, 'Bearer [redacted]') : 'request failed'));
    }
    const text = response.body;
    let json: unknown;
    if (text.length > 0) {
      try {
        json = JSON.parse(text);
      } catch {
        if (response.statusCode < 400)
          throw new KubeplaneError('retryable', `crusoe ${label}: response is not JSON`, {
            provider: PROVIDER,
            status: response.statusCode,
            code: 'invalid_response',
          });
      }
    }
    if (response.statusCode >= 400) throw await this.#error(label, response.statusCode, json, response.headers, options.resource);
    const parsed = schema.safeParse(json ?? {});
    if (!parsed.success) {
      throw new KubeplaneError(
        'retryable',
        `crusoe ${label}: unexpected response shape (${parsed.error.issues[0]?.path.join('.') ?? ''}: ${parsed.error.issues[0]?.message ?? 'invalid'})`,
        { provider: PROVIDER, code: 'invalid_response', status: response.statusCode },
      );
    }
    return parsed.data;
  }

  async #error(
    label: string,
    status: number,
    json: unknown,
    headers: Record<string, string | string[] | undefined>,
    resource: string | undefined,
  ): Promise<KubeplaneError> {
    const body = errorBodySchema.safeParse(json);
    const code = (body.success ? body.data.code : undefined) ?? `http_${status}`;
    const rawMessage = (body.success ? (body.data.message ?? body.data.reason) : undefined) ?? `HTTP ${status}`;
    const errorId = body.success ? body.data.error_id : undefined;
    const kind =
      crusoeErrorKind(code, rawMessage, status) ??
      (status === 401 || status === 403 ? 'auth' : status === 404 ? 'not-found' : status === 409 ? 'conflict' : 'invalid');
    let retryAfterSeconds: number | undefined;
    if (kind === 'throttled') {
      const told = retryAfterFromHeaders(headers, this.#clock.now());
      if (told !== undefined && told > 0) {
        retryAfterSeconds = Math.min(told, 300);
        await this.#budget.blockUntil(this.#clock.now() + retryAfterSeconds * 1000);
      } else {
        await this.#budget.observeRemaining(0);
      }
    }
    const advice = crusoeAdvice(kind);
    return new KubeplaneError(
      kind,
      `crusoe ${label}${resource ? ` (${resource})` : ''}: ${code}: ` +
        `${crusoeMessage(rawMessage)}${errorId ? ` [error_id ${errorId}]` : ''}${advice ? `; ${advice}` : ''}`,
      {
        provider: PROVIDER,
        code,
        status,
        ...(errorId ? { requestId: errorId } : {}),
        ...(resource ? { resource } : {}),
        ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
      },
    );
  }

  /** One operation of a family: IN_PROGRESS, SUCCEEDED (result = the resource) or FAILED (result = {code, message}). */
  operation(family: OperationFamily, operationId: string): Promise<CrusoeOperation> {
    return this.request('GET', this.project(`${family}/operations/${operationId}`), operationSchema);
  }

  /**
   * All VMs matching the filters, following `next_page_token` with `sort=created_at` (without it pages may
   * repeat or drop items, as Crusoe support warns).
   */
  async listInstances(filters: { names?: string[]; ids?: string[]; locations?: string[] } = {}, pageSize = 100): Promise<CrusoeInstance[]> {
    const out: CrusoeInstance[] = [];
    let token: string | undefined;
    for (let page = 0; page < 1000; page++) {
      const data = await this.request('GET', this.project('compute/vms/instances'), instanceListSchema, {
        query: { sort: 'created_at', limit: pageSize, names: filters.names, ids: filters.ids, locations: filters.locations, next_token: token },
      });
      out.push(...data.items);
      token = data.next_page_token || undefined;
      if (!token) return out;
    }
    throw new KubeplaneError('retryable', 'crusoe VM list did not end after 1000 pages', { provider: PROVIDER, code: 'pagination' });
  }
}

/** A FAILED operation's `{code, message}` as a KubeplaneError of the right kind. */
export function operationError(op: CrusoeOperation, resource: string): KubeplaneError {
  const result = errorBodySchema.safeParse(op.result);
  const code = (result.success ? result.data.code : undefined) ?? 'operation_failed';
  const message = (result.success ? result.data.message : undefined) ?? 'the operation failed';
  const kind = crusoeErrorKind(code, message, 400) ?? 'invalid';
  const advice = crusoeAdvice(kind);
  return new KubeplaneError(
    kind,
    `crusoe operation ${op.operation_id} (${resource}) failed: ${code}: ${crusoeMessage(message)}${advice ? `; ${advice}` : ''}`,
    { provider: PROVIDER, code, resource, requestId: op.operation_id },
  );
}
