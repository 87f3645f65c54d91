// A typed client for the Cloudflare API v4 on got + zod: bearer token, the `{success, errors, result,
// result_info}` envelope unwrapped, paged lists, and every failure a KubeplaneError without the token.
import got, { type Got } from 'got';
import * as z from 'zod';
import { KubeplaneError, type Clock, type Redacted } from '@kubeplane/sdk';
import { RateBudgetWait, networkError, retryAfterFromHeaders, type RateBudget } from '@kubeplane/sdk/provider';
import { cloudflareAdvice, cloudflareErrorKind } from './errors.js';
import { envelope, errorEnvelopeSchema } from './schemas.js';

/** Cloudflare's API base URL. */
export const CLOUDFLARE_DEFAULT_BASE_URL = 'https://api.cloudflare.com/client/v4';
const PROVIDER = 'cloudflare';

/** Cloudflare's global API limit: 1200 requests per 5 minutes per user (Cloudflare API docs, "Rate limits"). */
export const CLOUDFLARE_RATE_LIMIT = { capacity: 1200, refillPerSecond: 4 } as const;

/** How the Cloudflare client is built: the API token, clock, rate budget, base URL and timeout. */
export interface CloudflareClientOptions {
  apiToken: Redacted<string>;
  clock: Clock;
  budget: RateBudget;
  baseUrl?: string;
  timeoutMs?: number;
}

/** The query, body and resource (for messages) of a Cloudflare request. */
export interface CloudflareRequestOptions {
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  resource?: string;
}

/** A client of Cloudflare's v4 API: authenticated, rate-budgeted calls whose errors are classified. */
export class CloudflareClient {
  readonly #token: Redacted<string>;
  readonly #clock: Clock;
  readonly #budget: RateBudget;
  readonly #http: Got;
  sent = 0;

  constructor(options: CloudflareClientOptions) {
    this.#token = options.apiToken;
    this.#clock = options.clock;
    this.#budget = options.budget;
    this.#http = got.extend({
      prefixUrl: options.baseUrl ?? CLOUDFLARE_DEFAULT_BASE_URL,
      retry: { limit: 0 },
      throwHttpErrors: false,
      timeout: { request: options.timeoutMs ?? 30_000 },
      responseType: 'text',
    });
  }

  /** What the client shows of itself in logs: never the token. */
  toJSON(): Record<string, string> {
    return { provider: PROVIDER };
  }

  /** The envelope's `result` (and `result_info`). */
  async call<S extends z.ZodType>(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    path: string,
    result: S,
    options: CloudflareRequestOptions = {},
  ): Promise<{ result: z.infer<S>; totalPages: number }> {
    const wait = await this.#budget.take(1);
    if (wait > 0) throw new RateBudgetWait(PROVIDER, wait + 4 / this.#budget.limits.refillPerSecond);
    const searchParams: Record<string, string> = {};
    for (const [k, v] of Object.entries(options.query ?? {})) if (v !== undefined) searchParams[k] = String(v);
    const label = `${method} /${path.replace(/[0-9a-f]{32}/g, '{id}')}`;
    this.sent += 1;
    let response;
    try {
      response = await this.#http(path.replace(/^\//, ''), {
        method,
        searchParams,
        headers: { authorization: `Bearer ${this.#token.reveal()}`, 'user-agent': 'kubeplane' },
        ...(options.body === undefined ? {} : { json: options.body }),
      });
    } catch (error) {
      throw networkError(PROVIDER, label, new Error(error instanceof Error ? error.message : 'request failed'));
    }
    const rayId = typeof response.headers['cf-ray'] === 'string' ? response.headers['cf-ray'] : undefined;
    let json: unknown;
    try {
      json = response.body ? JSON.parse(response.body) : {};
    } catch {
      throw new KubeplaneError('retryable', `cloudflare ${label}: response is not JSON (HTTP ${response.statusCode})`, {
        provider: PROVIDER,
        code: 'invalid_response',
        status: response.statusCode,
      });
    }
    if (response.statusCode >= 400) {
      const parsed = errorEnvelopeSchema.safeParse(json);
      const first = parsed.success ? parsed.data.errors[0] : undefined;
      const kind =
        cloudflareErrorKind(first?.code, response.statusCode) ??
        (response.statusCode === 401 || response.statusCode === 403 ? 'auth' : response.statusCode === 404 ? 'not-found' : 'invalid');
      let retryAfterSeconds: number | undefined;
      if (kind === 'throttled') {
        const told = retryAfterFromHeaders(response.headers, this.#clock.now());
        if (told !== undefined && told > 0) {
          retryAfterSeconds = Math.min(told, 300);
          await this.#budget.blockUntil(this.#clock.now() + retryAfterSeconds * 1000);
        } else await this.#budget.observeRemaining(0);
      }
      const advice = cloudflareAdvice(kind);
      throw new KubeplaneError(
        kind,
        `cloudflare ${label}${options.resource ? ` (${options.resource})` : ''}: ` +
          `${first ? `${first.code}: ${first.message}` : `HTTP ${response.statusCode}`}${advice ? `; ${advice}` : ''}`,
        {
          provider: PROVIDER,
          code: first ? String(first.code) : `http_${response.statusCode}`,
          status: response.statusCode,
          ...(rayId ? { requestId: rayId } : {}),
          ...(options.resource ? { resource: options.resource } : {}),
          ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
        },
      );
    }
    const parsed = envelope(result).safeParse(json);
    if (!parsed.success || !parsed.data.success) {
      throw new KubeplaneError(
        'retryable',
        `cloudflare ${label}: unexpected response (${parsed.success ? 'success: false' : (parsed.error.issues[0]?.message ?? 'invalid')})`,
        { provider: PROVIDER, code: 'invalid_response', status: response.statusCode },
      );
    }
    const data = parsed.data as { result: z.infer<S>; result_info?: { total_pages?: number } };
    return { result: data.result, totalPages: data.result_info?.total_pages ?? 1 };
  }

  /** Every page of a list (per_page 100). */
  async list<S extends z.ZodType>(path: string, item: S, query: Record<string, string | number | undefined> = {}): Promise<Array<z.infer<S>>> {
    const out: Array<z.infer<S>> = [];
    for (let page = 1; page <= 1000; page++) {
      const { result, totalPages } = await this.call('GET', path, z.array(item), { query: { ...query, page, per_page: 100 } });
      out.push(...(result as Array<z.infer<S>>));
      if (page >= totalPages) return out;
    }
    return out;
  }
}
