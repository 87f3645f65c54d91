// A small typed client for the Hetzner Cloud API on got + zod: one request path that spends the project's
// rate budget first, learns from RateLimit-* headers, and maps every failure to a KubeplaneError.
import { AsyncLocalStorage } from 'node:async_hooks';
import got, { type Got } from 'got';
import * as z from 'zod';
import { KubeplaneError, type Clock, type Redacted } from '@kubeplane/sdk';
import { RateBudgetWait, networkError, retryAfterFromHeaders, type RateBudget } from '@kubeplane/sdk/provider';
import { errorEnvelopeSchema, metaSchema } from './schemas.js';
import { hetznerAdvice, hetznerErrorKind } from './errors.js';

/** Hetzner Cloud's API base URL. */
export const HETZNER_DEFAULT_BASE_URL = 'https://api.hetzner.cloud/v1';
const PROVIDER = 'hetzner';

/** How the Hetzner client is built: the API token, rate budget, clock, base URL and timeout. */
export interface HetznerClientOptions {
  token: Redacted<string>;
  budget: RateBudget;
  clock: Clock;
  baseUrl?: string;
  /** Real-time request timeout in ms. */
  timeoutMs?: number;
}

/** The query, body and resource (for messages) of a Hetzner request, and whether its budget is paid already. */
export interface RequestOptions {
  query?: Record<string, string | number | string[] | undefined>;
  body?: unknown;
  /** The resource concerned, for error messages. */
  resource?: string;
  /** The budget token was already taken (a paged list pays for its pages up front). */
  prepaid?: boolean;
}

/** A client of the Hetzner Cloud API: authenticated, rate-budgeted calls whose errors are classified. */
export class HetznerClient {
  readonly #token: Redacted<string>;
  readonly #budget: RateBudget;
  readonly #clock: Clock;
  readonly #http: Got;
  /** Requests sent (for the bench's calls-per-node figure). */
  sent = 0;
  #inFlight = 0;
  #calibrating: Promise<void> | undefined;
  readonly #lastPages = new Map<string, number>();
  #calibrated = false;
  /** Tokens a contract call took up front for its requests (see `prepaid`). */
  readonly #paid = new AsyncLocalStorage<{ left: number }>();

  constructor(options: HetznerClientOptions) {
    this.#token = options.token;
    this.#budget = options.budget;
    this.#clock = options.clock;
    this.#http = got.extend({
      prefixUrl: options.baseUrl ?? HETZNER_DEFAULT_BASE_URL,
      retry: { limit: 0 },
      throwHttpErrors: false,
      timeout: { request: options.timeoutMs ?? 30_000 },
      responseType: 'text',
    });
  }

  /** No enumerable state to print: the token stays inside. */
  toJSON(): Record<string, string> {
    return { provider: PROVIDER };
  }

  /**
   * Runs a contract call of about `requests` requests on tokens taken for all of them at once. Taken one by one,
   * a call of several requests under a spent budget (many workers waiting for each refilled token) would
   * spend its first token on a lookup, find no second one, and start again from the lookup on every retry.
   */
  async prepaid<T>(requests: number, call: () => Promise<T>): Promise<T> {
    const n = Math.min(Math.floor(requests), Math.floor(this.#budget.limits.capacity));
    if (n <= 1) return call();
    await this.#calibration();
    const wait = await this.#budget.take(n);
    if (wait > 0) throw new RateBudgetWait(PROVIDER, wait);
    await this.#calibration();
    return this.#paid.run({ left: n }, call);
  }

  /** Takes up to `n` of the tokens the running call paid for; returns how many it took. */
  #fromCall(n: number): number {
    const paid = this.#paid.getStore();
    const used = Math.min(n, paid?.left ?? 0);
    if (paid) paid.left -= used;
    return used;
  }

  /** Sends a request within the project's budget and parses the response with the schema; errors become KubeplaneErrors. */
  async request<S extends z.ZodType>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, schema: S, options: RequestOptions = {}): Promise<z.infer<S>> {
    // Until a response has told us what is left of the project's budget (other tools share it), send one
    // request at a time rather than a burst sized to a budget we only assume.
    if (!options.prepaid && this.#fromCall(1) === 0) {
      await this.#calibration();
      const wait = await this.#budget.take(1);
      if (wait > 0) throw new RateBudgetWait(PROVIDER, wait);
      // The take may have waited on a shared store, and another request may have become the calibrating one.
      await this.#calibration();
    }
    const searchParams = new URLSearchParams();
    for (const [k, v] of Object.entries(options.query ?? {})) {
      if (Array.isArray(v)) for (const item of v) searchParams.append(k, item);
      else if (v !== undefined) searchParams.append(k, String(v));
    }
    let response;
    this.sent += 1;
    this.#inFlight += 1;
    let calibrated: () => void = () => undefined;
    if (!this.#calibrated && !this.#calibrating) this.#calibrating = new Promise<void>((resolve) => (calibrated = resolve));
    try {
      response = await this.#http(path.replace(/^\//, ''), {
        method,
        searchParams,
        headers: { authorization: `Bearer ${this.#token.reveal()}`, 'user-agent': 'kubeplane' },
        ...(options.body === undefined ? {} : { json: options.body }),
      });
    } catch (error) {
      // got's errors carry the request options (and so the token): keep only the message.
      throw networkError(PROVIDER, `${method} /${path}`, new Error(error instanceof Error ? error.message : 'request failed'));
    } finally {
      this.#inFlight -= 1;
      calibrated();
      if (!this.#calibrated) this.#calibrating = undefined;
    }
    const remaining = Number(response.headers['ratelimit-remaining']);
    if (response.headers['ratelimit-remaining'] !== undefined && Number.isFinite(remaining)) {
      // Requests still in flight were counted by us but not yet by the API when it wrote this header.
      await this.#budget.observeRemaining(Math.max(0, remaining - this.#inFlight));
      this.#calibrated = true;
    }
    const requestId = typeof response.headers['x-correlation-id'] === 'string' ? response.headers['x-correlation-id'] : undefined;
    const text = response.body;
    let json: unknown;
    if (text.length > 0) {
      try {
        json = JSON.parse(text);
      } catch {
        if (response.statusCode < 400)
          throw new KubeplaneError('retryable', `hetzner ${method} /${path}: response is not JSON`, {
            provider: PROVIDER,
            status: response.statusCode,
            code: 'invalid_response',
            ...(requestId ? { requestId } : {}),
          });
      }
    }
    if (response.statusCode >= 400) {
      const envelope = errorEnvelopeSchema.safeParse(json);
      const code = envelope.success ? envelope.data.error.code : `http_${response.statusCode}`;
      const message = envelope.success ? envelope.data.error.message : `HTTP ${response.statusCode}`;
      const kind =
        hetznerErrorKind(code, response.statusCode) ?? (response.statusCode === 429 ? 'throttled' : response.statusCode === 401 ? 'auth' : 'invalid');
      let retryAfterSeconds: number | undefined;
      if (kind === 'throttled') {
        await this.#budget.observeRemaining(0);
        const told = retryAfterFromHeaders(response.headers, this.#clock.now());
        // Hetzner's RateLimit-Reset is when the bucket is full again; one request is possible after 1/refill s.
        if (told !== undefined) retryAfterSeconds = Math.max(1 / this.#budget.limits.refillPerSecond, Math.min(told, 60));
      }
      const advice = hetznerAdvice(kind);
      throw new KubeplaneError(
        kind,
        `hetzner ${method} /${path}${options.resource ? ` (${options.resource})` : ''}: ${code}: ${message}${advice ? `; ${advice}` : ''}`,
        {
          provider: PROVIDER,
          code,
          status: response.statusCode,
          ...(requestId ? { requestId } : {}),
          ...(options.resource ? { resource: options.resource } : {}),
          ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
        },
      );
    }
    const parsed = schema.safeParse(json ?? {});
    if (!parsed.success) {
      throw new KubeplaneError('retryable', `hetzner ${method} /${path}: unexpected response shape (${parsed.error.issues[0]?.message ?? 'invalid'})`, {
        provider: PROVIDER,
        code: 'invalid_response',
        status: response.statusCode,
        ...(requestId ? { requestId } : {}),
      });
    }
    return parsed.data;
  }

  /**
   * Until a response has told us what is left of the project's budget (other tools share it), requests go
   * one at a time: the first one's RateLimit-Remaining sizes the rest. A wait for an HTTP answer, not a sleep.
   */
  async #calibration(): Promise<void> {
    while (!this.#calibrated && this.#calibrating && this.#inFlight > 0) await this.#calibrating;
  }

  /** All pages of a list (per_page 50, the API's maximum). */
  async list<S extends z.ZodType>(
    path: string,
    key: string,
    itemSchema: S,
    query: Record<string, string | string[] | undefined> = {},
  ): Promise<Array<z.infer<S>>> {
    const pageSchema = z.object({ [key]: z.array(itemSchema), meta: metaSchema });
    // Pay for the pages the last listing had, all at once: taking one token per page would let other
    // callers take the refill between pages, and a long listing would restart from page 1 forever.
    const listKey = `${path}?${JSON.stringify(query)}`;
    const expected = Math.min(this.#lastPages.get(listKey) ?? 1, Math.floor(this.#budget.limits.capacity));
    const rest = expected - this.#fromCall(expected);
    if (rest > 0) {
      await this.#calibration();
      const wait = await this.#budget.take(rest);
      if (wait > 0) throw new RateBudgetWait(PROVIDER, wait);
      await this.#calibration();
    }
    const out: Array<z.infer<S>> = [];
    let page: number | null = 1;
    while (page !== null) {
      const data = (await this.request('GET', path, pageSchema, { query: { ...query, per_page: 50, page }, prepaid: page <= expected })) as Record<
        string,
        unknown
      > & { meta: z.infer<typeof metaSchema> };
      out.push(...(data[key] as Array<z.infer<S>>));
      if (data.meta.pagination.last_page) this.#lastPages.set(listKey, data.meta.pagination.last_page);
      page = data.meta.pagination.next_page;
    }
    return out;
  }
}
