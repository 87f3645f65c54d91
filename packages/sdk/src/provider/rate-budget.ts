// Rate budgets: token buckets per (provider, account, region/project) so that every caller sharing an account
// stays under the cloud's own limit. Seeded with the published limits (latency-model.md).
import type { Clock } from './clock.js';

/** A token bucket's burst and refill rate. */
export interface TokenBucketLimits {
  /** Tokens available at once (the burst). */
  capacity: number;
  /** Tokens added per second. */
  refillPerSecond: number;
}

/**
 * A rate budget a provider awaits before each request. Implementations may be shared between processes (one
 * DynamoDB item or one file per key), so every call is asynchronous.
 */
export interface RateBudget {
  readonly limits: TokenBucketLimits;
  /** Takes `cost` tokens and resolves 0, or takes nothing and resolves the seconds until they will be there. */
  take(cost?: number): Promise<number>;
  /**
   * The cloud reported `remaining` (e.g. Hetzner `RateLimit-Remaining`): when more than that is left here, lowers
   * what is left to it (a shared budget to a little less, for other workers' requests the cloud has not yet
   * counted). Never raises it.
   */
  observeRemaining(remaining: number): Promise<void>;
  /** Empties the budget until `untilMs` (the cloud said "come back at"). */
  blockUntil(untilMs: number): Promise<void>;
  /** Tokens available now (fractional); a shared budget may answer from what it last saw (an upper bound). */
  available(): Promise<number>;
}

/** Where providers get their budgets: one per key, so providers for one account and region share it. */
export interface RateBudgetSource {
  /** The budget of a key, made with these limits on first use. */
  get(key: string, limits: TokenBucketLimits): RateBudget;
}

/** A token bucket's mutable state, plain data (for the sandbox's snapshot). */
export interface TokenBucketState {
  tokens: number;
  updatedAt: number;
  blockedUntil: number;
}

/**
 * The token bucket itself, synchronous: the in-process budget's state, and the sandbox clouds' own limits
 * (their emulators decide a 429 inside one request handler).
 */
export class TokenBucket {
  readonly limits: TokenBucketLimits;
  readonly #clock: Clock;
  #tokens: number;
  #updatedAt: number;
  #blockedUntil = 0;

  constructor(limits: TokenBucketLimits, clock: Clock, initialTokens = limits.capacity) {
    if (!(limits.capacity > 0 && limits.refillPerSecond > 0)) throw new RangeError('a token bucket needs capacity > 0 and refill > 0');
    this.limits = limits;
    this.#clock = clock;
    this.#tokens = Math.min(initialTokens, limits.capacity);
    this.#updatedAt = clock.now();
  }

  #refill(): void {
    const now = this.#clock.now();
    const from = Math.max(this.#updatedAt, this.#blockedUntil);
    if (now > from) {
      this.#tokens = Math.min(this.limits.capacity, this.#tokens + ((now - from) / 1000) * this.limits.refillPerSecond);
    }
    this.#updatedAt = Math.max(now, this.#updatedAt);
  }

  /** The tokens available now (0 while the bucket is blocked). */
  available(): number {
    this.#refill();
    return this.#clock.now() < this.#blockedUntil ? 0 : this.#tokens;
  }

  /** Takes `cost` tokens if available and returns 0, else returns the seconds to wait before they are. */
  tryTake(cost = 1): number {
    if (cost > this.limits.capacity) throw new RangeError(`cost ${cost} exceeds the bucket's capacity ${this.limits.capacity}`);
    this.#refill();
    const now = this.#clock.now();
    if (now < this.#blockedUntil) {
      return (this.#blockedUntil - now) / 1000 + Math.max(0, cost - this.#tokens) / this.limits.refillPerSecond;
    }
    // A tolerance for float drift, so an exact refill instant grants the token.
    if (this.#tokens + 1e-9 >= cost) {
      this.#tokens -= cost;
      return 0;
    }
    return (cost - this.#tokens) / this.limits.refillPerSecond;
  }

  /** Lowers the tokens to what the cloud reports remaining, never raises them. */
  observeRemaining(remaining: number): void {
    this.#refill();
    if (Number.isFinite(remaining) && remaining >= 0 && remaining < this.#tokens) this.#tokens = remaining;
  }

  /** Empties the bucket until the given time (ms), as a cloud's Retry-After asks. */
  blockUntil(untilMs: number): void {
    this.#refill();
    if (untilMs > this.#blockedUntil) {
      this.#blockedUntil = untilMs;
      this.#tokens = 0;
    }
  }

  /** The bucket's state as it is (not refilled to now), so a restored bucket continues identically. */
  state(): TokenBucketState {
    return { tokens: this.#tokens, updatedAt: this.#updatedAt, blockedUntil: this.#blockedUntil };
  }

  /** Sets the bucket to a state saved with `state()`. */
  restore(state: TokenBucketState): void {
    this.#tokens = state.tokens;
    this.#updatedAt = state.updatedAt;
    this.#blockedUntil = state.blockedUntil;
  }
}

/** The published limits (latency-model.md, "API rate limits"). */
export const RATE_LIMITS = {
  /** Hetzner Cloud: 3600 requests/hour per project, refilling 1 per second. */
  hetznerProject: { capacity: 3600, refillPerSecond: 1 },
  /** EC2 RunInstances request bucket: 5 burst, 2 per second. */
  ec2RunInstances: { capacity: 5, refillPerSecond: 2 },
  /** EC2 RunInstances resource bucket: 1,000 instances, refilling 2 per second. */
  ec2InstanceLaunches: { capacity: 1000, refillPerSecond: 2 },
  /** EC2 mutating (non-Describe) calls: 50 burst, 5 per second. */
  ec2Mutating: { capacity: 50, refillPerSecond: 5 },
  /** EC2 Describe* calls: 100 burst, 20 per second. */
  ec2Describe: { capacity: 100, refillPerSecond: 20 },
  /** EC2 TerminateInstances: 100 burst, 5 per second. */
  ec2TerminateInstances: { capacity: 100, refillPerSecond: 5 },
  /** Route 53: 10 requests per second per account, burst 50. */
  route53: { capacity: 50, refillPerSecond: 10 },
} as const satisfies Record<string, TokenBucketLimits>;

/** A TokenBucket as a RateBudget: the budget of one process. */
export class InProcessRateBudget implements RateBudget {
  constructor(readonly bucket: TokenBucket) {}

  get limits(): TokenBucketLimits {
    return this.bucket.limits;
  }

  async take(cost = 1): Promise<number> {
    return this.bucket.tryTake(cost);
  }

  async observeRemaining(remaining: number): Promise<void> {
    this.bucket.observeRemaining(remaining);
  }

  async blockUntil(untilMs: number): Promise<void> {
    this.bucket.blockUntil(untilMs);
  }

  async available(): Promise<number> {
    return this.bucket.available();
  }
}

/**
 * In-process budgets by key, so two provider instances for the same account and region in one process draw on
 * one budget. Keys look like `hetzner:<project>` or `aws:<account>:<region>:run-instances`. Workers in several
 * processes share budgets through a store instead (SharedRateBudgets).
 */
export class RateBudgets implements RateBudgetSource {
  readonly #clock: Clock;
  readonly #buckets = new Map<string, RateBudget>();

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** The budget of a key, made with these limits on first use. */
  get(key: string, limits: TokenBucketLimits): RateBudget {
    let bucket = this.#buckets.get(key);
    if (!bucket) {
      bucket = new InProcessRateBudget(new TokenBucket(limits, this.#clock));
      this.#buckets.set(key, bucket);
    }
    return bucket;
  }

  /** The keys of the budgets made so far. */
  keys(): string[] {
    return [...this.#buckets.keys()];
  }
}
