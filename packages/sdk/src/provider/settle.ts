// Drives a call that may return pending to completion on a virtual clock: the loop the engine's queue
// runs with re-enqueues, compressed for tests, sandboxes and simulations.
import { KubeplaneError } from '../errors.js';
import type { VirtualClock } from './clock.js';
import type { Outcome, Pending } from './outcome.js';

/** How settle waits: its clock, the most pending results it accepts, and a hook on each. */
export interface SettleOptions {
  clock: VirtualClock;
  /** Give up after this many pending results (a stuck operation is a bug the caller should see). */
  maxAttempts?: number;
  /** Called with every pending result, e.g. to record reasons. */
  onPending?: (pending: Pending, attempt: number) => void;
}

/** Calls until the outcome is done, advancing the clock by each pending wait; for tests and scripts. */
export async function settle<T>(call: (attempt: number) => Promise<Outcome<T>>, options: SettleOptions): Promise<T> {
  const maxAttempts = options.maxAttempts ?? 200;
  for (let attempt = 0; attempt < maxAttempts; attempt++) {
    const outcome = await call(attempt);
    if (outcome.status === 'done') return outcome.value;
    options.onPending?.(outcome, attempt);
    options.clock.advance(Math.ceil(outcome.retryAfterSeconds * 1000));
  }
  throw new KubeplaneError('retryable', `still pending after ${maxAttempts} attempts`);
}
