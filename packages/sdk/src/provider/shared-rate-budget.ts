// Rate budgets shared by every worker of an account: one record per budget key in a store (a DynamoDB item, a
// file), changed only by atomic conditional updates, so N processes together never spend more than the cloud's bucket.
//
// The bucket is kept as one number, `fullAt`: the time at which it would be full again (the "theoretical
// arrival time" of GCRA, the generic cell rate algorithm). With capacity C and T ms per token, the bucket holds
// C - max(0, fullAt - now) / T tokens, so taking c tokens is `fullAt := max(fullAt, now) + c·T`, allowed when
// `max(fullAt, now) <= now + (C - c)·T`. This is exactly the token bucket the clouds run (TokenBucket), but
// `fullAt` only ever grows, which lets a store grant a take with one conditional write (no read-modify-write
// race), and lets a process that once saw `fullAt` refuse a take locally without asking the store: what it saw is
// a lower bound of what is stored now.
import type { Clock } from './clock.js';
import type { RateBudget, RateBudgetSource, TokenBucketLimits } from './rate-budget.js';

/** What a take did: granted or not, and the stored `fullAt` after it (null: the store does not know the key). */
export interface BucketTakeResult {
  granted: boolean;
  fullAt: number | null;
}

/**
 * The port a shared budget's store implements. Every method is atomic for one key across processes.
 * `fullAt` values are epoch milliseconds; a key never written counts as a full bucket.
 */
export interface BucketStore {
  /**
   * When `max(fullAt, now) <= now + slackMs`, sets `fullAt := max(fullAt, now) + addMs` and grants; otherwise
   * changes nothing. `hint` is a `fullAt` the caller saw before (a lower bound), to choose the cheaper path.
   */
  take(key: string, now: number, addMs: number, slackMs: number, hint: number | null): Promise<BucketTakeResult>;
  /** Sets `fullAt := to` when the stored `fullAt` is below `ifBelow` (or the key is new); otherwise nothing. */
  raise(key: string, to: number, ifBelow: number): Promise<void>;
}

/** The take rule on a known `fullAt`, for stores that read and write under a lock (memory, file). */
export function applyTake(fullAt: number | null, now: number, addMs: number, slackMs: number): BucketTakeResult {
  const base = Math.max(fullAt ?? -Infinity, now);
  // A tolerance for float drift, so an exact refill instant grants the token (as TokenBucket does).
  if (base - now > slackMs + 1e-6) return { granted: false, fullAt };
  return { granted: true, fullAt: base + addMs };
}

/** How shared rate budgets allow for requests other workers have in flight. */
export interface SharedRateBudgetsOptions {
  /**
   * Requests other workers may have in flight, uncounted by the cloud when it reports what is left: a shared
   * budget lowered to the cloud's figure is lowered this much further (at most the bucket's capacity). Default 10.
   */
  inFlightAllowance?: number;
}

/** Budgets by key on a shared store: every worker process makes its own, on the same store. */
export class SharedRateBudgets implements RateBudgetSource {
  readonly #store: BucketStore;
  readonly #clock: Clock;
  readonly #allowance: number;
  readonly #budgets = new Map<string, SharedRateBudget>();

  constructor(store: BucketStore, clock: Clock, options: SharedRateBudgetsOptions = {}) {
    this.#store = store;
    this.#clock = clock;
    this.#allowance = options.inFlightAllowance ?? 10;
  }

  /** The budget of a key on the shared store, made with these limits on first use. */
  get(key: string, limits: TokenBucketLimits): RateBudget {
    let budget = this.#budgets.get(key);
    if (!budget) {
      budget = new SharedRateBudget(this.#store, key, limits, this.#clock, this.#allowance);
      this.#budgets.set(key, budget);
    }
    return budget;
  }
}

/** One key's budget as one process sees it: the store decides, the process remembers the last `fullAt` it saw. */
export class SharedRateBudget implements RateBudget {
  readonly limits: TokenBucketLimits;
  readonly #store: BucketStore;
  readonly #key: string;
  readonly #clock: Clock;
  readonly #allowance: number;
  /** ms per token. */
  readonly #t: number;
  /** The highest `fullAt` this process has seen: a lower bound of the stored one (it only grows). */
  #seen: number | null = null;

  constructor(store: BucketStore, key: string, limits: TokenBucketLimits, clock: Clock, inFlightAllowance: number) {
    if (!(limits.capacity > 0 && limits.refillPerSecond > 0)) throw new RangeError('a rate budget needs capacity > 0 and refill > 0');
    this.limits = limits;
    this.#store = store;
    this.#key = key;
    this.#clock = clock;
    this.#allowance = Math.min(inFlightAllowance, limits.capacity);
    this.#t = 1000 / limits.refillPerSecond;
  }

  #see(fullAt: number | null): void {
    if (fullAt !== null && (this.#seen === null || fullAt > this.#seen)) this.#seen = fullAt;
  }

  /** Seconds until `cost` tokens are there, judged on `fullAt`; 0 when they are there now. */
  #waitFor(fullAt: number | null, now: number, cost: number): number {
    const over = Math.max(fullAt ?? -Infinity, now) - now - (this.limits.capacity - cost) * this.#t;
    return over > 1e-6 ? over / 1000 : 0;
  }

  async take(cost = 1): Promise<number> {
    if (cost > this.limits.capacity) throw new RangeError(`cost ${cost} exceeds the bucket's capacity ${this.limits.capacity}`);
    const now = this.#clock.now();
    // Refused on what we saw: the stored fullAt is at least that, so the store would refuse too. No call.
    const known = this.#waitFor(this.#seen, now, cost);
    if (known > 0) return known;
    const result = await this.#store.take(this.#key, now, cost * this.#t, (this.limits.capacity - cost) * this.#t, this.#seen);
    this.#see(result.fullAt);
    if (result.granted) return 0;
    // Someone else took the tokens between what we saw and now; at least one token's refill away.
    return Math.max(this.#waitFor(result.fullAt, now, cost), 1 / this.limits.refillPerSecond);
  }

  async observeRemaining(remaining: number): Promise<void> {
    if (!(Number.isFinite(remaining) && remaining >= 0)) return;
    const now = this.#clock.now();
    // Only when more than `remaining` is left here: then set it to `remaining` less what other workers may
    // have in flight (taken here, not yet counted by the cloud). Less than that left here is already right.
    const ifBelow = now + (this.limits.capacity - remaining) * this.#t;
    if (this.#seen !== null && this.#seen >= ifBelow) return;
    const to = now + (this.limits.capacity - remaining + this.#allowance) * this.#t;
    await this.#store.raise(this.#key, to, ifBelow);
    // Either it was raised to `to`, or it already was at least `ifBelow`.
    this.#see(ifBelow);
  }

  async blockUntil(untilMs: number): Promise<void> {
    const to = untilMs + this.limits.capacity * this.#t;
    if (this.#seen !== null && this.#seen >= to) return;
    await this.#store.raise(this.#key, to, to);
    this.#see(to);
  }

  async available(): Promise<number> {
    const now = this.#clock.now();
    return this.limits.capacity - Math.max(0, (this.#seen ?? now) - now) / this.#t;
  }
}

/** A BucketStore in one process's memory (tests of the shared policy; one process needs no store). */
export class MemoryBucketStore implements BucketStore {
  readonly #fullAt = new Map<string, number>();

  async take(key: string, now: number, addMs: number, slackMs: number): Promise<BucketTakeResult> {
    const result = applyTake(this.#fullAt.get(key) ?? null, now, addMs, slackMs);
    if (result.granted && result.fullAt !== null) this.#fullAt.set(key, result.fullAt);
    return result;
  }

  async raise(key: string, to: number, ifBelow: number): Promise<void> {
    const current = this.#fullAt.get(key);
    if (current === undefined || current < ifBelow) this.#fullAt.set(key, to);
  }
}
