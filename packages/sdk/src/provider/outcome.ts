// The result of a provider call that may have to be re-tried later: either a value, or "pending, check
// again after N seconds". Long operations are never awaited by sleeping; the engine re-enqueues instead.
import type { KubeplaneError } from '../errors.js';

/** Why a call could not finish now. */
export type PendingReason =
  /** The cloud accepted the request and is working on it (a VM booting, a DNS change propagating). */
  | 'in-progress'
  /** Our own rate budget for this account/region is spent; no request was sent. */
  | 'rate-budget'
  /** The cloud throttled us (HTTP 429, RequestLimitExceeded, Throttling). */
  | 'throttled'
  /** A transient failure (5xx, timeout, connection reset); retrying is safe because calls are idempotent. */
  | 'retryable'
  /** Something this call depends on is not there or not ready yet (an instance not yet visible, a
   * firewall still attached to a node that is shutting down). */
  | 'dependency';

/** An outcome that is final: the call's value. */
export interface Done<T> {
  readonly status: 'done';
  readonly value: T;
}

/** An outcome that is not final yet: call again after the given seconds. */
export interface Pending {
  readonly status: 'pending';
  /** Seconds after which calling again is useful. Always > 0. */
  readonly retryAfterSeconds: number;
  readonly reason: PendingReason;
  /** A sentence a person can read in the status ("server kp-a-w-01 is starting"). */
  readonly message: string;
  /** The classified error behind a `throttled`/`retryable` pending, kept for logs and status. */
  readonly cause?: KubeplaneError;
}

/** What every provider call returns: done with a value, or pending with when to ask again. */
export type Outcome<T> = Done<T> | Pending;

/** A done outcome with this value. */
export function done<T>(value: T): Done<T> {
  return { status: 'done', value };
}

/** A pending outcome: why, when to call again, and a sentence for the status. */
export function pending(reason: PendingReason, retryAfterSeconds: number, message: string, cause?: KubeplaneError): Pending {
  const seconds = Number.isFinite(retryAfterSeconds) ? Math.max(0.001, retryAfterSeconds) : 1;
  return cause ? { status: 'pending', reason, retryAfterSeconds: seconds, message, cause } : { status: 'pending', reason, retryAfterSeconds: seconds, message };
}

/** Whether the outcome is done. */
export function isDone<T>(outcome: Outcome<T>): outcome is Done<T> {
  return outcome.status === 'done';
}

/** Whether the outcome is pending. */
export function isPending<T>(outcome: Outcome<T>): outcome is Pending {
  return outcome.status === 'pending';
}
