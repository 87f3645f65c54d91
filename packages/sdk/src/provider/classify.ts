// Helpers providers use to map their wire errors onto the shared taxonomy (errors.ts) and to turn the
// retryable ones into "pending, check again after N seconds" instead of sleeping.
import { KubeplaneError, type ErrorKind, type KubeplaneErrorDetails } from '../errors.js';
import { backoffSeconds, type BackoffOptions } from './backoff.js';
import { pending, type Outcome, type Pending } from './outcome.js';

/** The kind an HTTP status implies when the provider's own code says nothing more specific. */
export function kindFromHttpStatus(status: number): ErrorKind {
  if (status === 429) return 'throttled';
  if (status === 401 || status === 403) return 'auth';
  if (status === 404) return 'not-found';
  if (status === 409 || status === 423) return 'conflict';
  if (status === 408 || status >= 500) return 'retryable';
  return 'invalid';
}

/** Response headers as Node's `http` or the Fetch API hands them over. */
export type HeaderBag = Record<string, string | string[] | undefined> | Headers;

function header(headers: HeaderBag, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const bag = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(bag).find((k) => k.toLowerCase() === name.toLowerCase());
  const value = key === undefined ? undefined : bag[key];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Seconds to wait according to the response headers: `Retry-After` (seconds or an HTTP date), or
 * `RateLimit-Reset` (a Unix timestamp, as Hetzner sends it, or a delta in seconds, as the IETF draft has it)
 * when `RateLimit-Remaining` is 0. Undefined when the headers say nothing.
 */
export function retryAfterFromHeaders(headers: HeaderBag, nowMs: number): number | undefined {
  const retryAfter = header(headers, 'retry-after');
  if (retryAfter !== undefined) {
    const seconds = Number(retryAfter);
    if (Number.isFinite(seconds) && seconds >= 0) return seconds;
    const date = Date.parse(retryAfter);
    if (Number.isFinite(date)) return Math.max(0, (date - nowMs) / 1000);
  }
  const remaining = header(headers, 'ratelimit-remaining');
  const reset = header(headers, 'ratelimit-reset');
  if (remaining !== undefined && Number(remaining) <= 0 && reset !== undefined) {
    const value = Number(reset);
    if (Number.isFinite(value)) {
      // A value this large is a timestamp, anything else a delta.
      if (value > 1_000_000_000) return Math.max(0, value - nowMs / 1000);
      return Math.max(0, value);
    }
  }
  return undefined;
}

const NETWORK_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN', 'ENOTFOUND', 'ERR_GOT_REQUEST_ERROR', 'ESOCKETTIMEDOUT']);

/** True for failures where no HTTP response arrived: the request may or may not have been applied. */
export function isNetworkFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
  if (error.name === 'TimeoutError' || error.name === 'RequestError' || error.name === 'AbortError') return true;
  if (error instanceof TypeError && /fetch failed|Failed to fetch|socket|network/i.test(error.message)) return true;
  return error.cause instanceof Error && error.cause !== error && isNetworkFailure(error.cause);
}

/** Builds a KubeplaneError for a transport failure (no response). */
export function networkError(provider: string, operation: string, cause: unknown): KubeplaneError {
  const reason = cause instanceof Error ? cause.message : 'no response';
  return new KubeplaneError(
    'retryable',
    `${provider} ${operation}: no response from the API (${reason}); the call is idempotent and will be retried`,
    { provider, code: 'NetworkError' },
    { cause },
  );
}

/** Thrown by a provider's request path when its own rate budget is spent: no request was sent. */
export class RateBudgetWait extends Error {
  constructor(
    readonly budget: string,
    readonly retryAfterSeconds: number,
  ) {
    super(`rate budget ${budget} is spent; next request possible in ${retryAfterSeconds.toFixed(2)} s`);
    this.name = 'RateBudgetWait';
  }
}

/**
 * Turns a spent budget, a throttled or a retryable error into a Pending with the delay the cloud asked for, or a jittered
 * exponential backoff when it said nothing. Terminal kinds are rethrown: they need a person or a plan change.
 */
export function retryLater(error: unknown, attempt: number, options: BackoffOptions = {}): Pending {
  if (error instanceof RateBudgetWait) return pending('rate-budget', error.retryAfterSeconds, error.message);
  if (!(error instanceof KubeplaneError)) throw error;
  if (error.kind !== 'throttled' && error.kind !== 'retryable') throw error;
  const told = error.details.retryAfterSeconds;
  const seconds = told !== undefined && told > 0 ? told : backoffSeconds(attempt, options);
  return pending(error.kind === 'throttled' ? 'throttled' : 'retryable', seconds, error.message, error);
}

/**
 * Runs one provider call for the contract: budget waits, throttles and transient failures become a pending outcome
 * (what the cloud asked for, or a jittered backoff by the caller's attempt); terminal errors propagate.
 */
export async function guardedCall<T>(call: () => Promise<Outcome<T>>, attempt: number, random: () => number): Promise<Outcome<T>> {
  try {
    return await call();
  } catch (error) {
    return retryLater(error, attempt, { baseSeconds: 1, maxSeconds: 120, random });
  }
}

/** A KubeplaneError with the details every provider error carries. */
export function providerError(kind: ErrorKind, message: string, details: KubeplaneErrorDetails, cause?: unknown): KubeplaneError {
  return new KubeplaneError(kind, message, details, cause === undefined ? undefined : { cause });
}

/**
 * Runs a provider call that may use ids cached by name for the provider's life (a warm Lambda container keeps one for
 * hours). Another worker may have deleted the resource and made it again under the same name (destroy, then apply):
 * the cloud then answers not-found for the cached id. That is no reason to fail the step: the cache is forgotten and
 * the error becomes retryable, so the next attempt looks the ids up again.
 */
export async function forgettingStaleIds<T>(
  call: () => Promise<T>,
  cache: { readonly size: number; clear(): void },
  isStaleId: (error: KubeplaneError) => boolean,
  provider: string,
): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof KubeplaneError && isStaleId(error)) || cache.size === 0) throw error;
    cache.clear();
    throw new KubeplaneError(
      'retryable',
      `${error.message} (an id cached by this worker went stale; looking it up again)`,
      { provider, ...(error.details.code ? { code: error.details.code } : {}) },
      { cause: error },
    );
  }
}
