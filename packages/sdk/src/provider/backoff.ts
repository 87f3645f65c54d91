// Exponential backoff with full jitter (the AWS-recommended shape): spreads retries of many callers so
// they do not hit a recovering API in lockstep.

/** The bounds of a jittered exponential backoff. */
export interface BackoffOptions {
  /** The first delay's upper bound, in seconds. */
  baseSeconds?: number;
  /** No delay exceeds this. */
  maxSeconds?: number;
  /** A source of [0,1) randomness; pass a seeded one in tests. */
  random?: () => number;
}

/** Delay before attempt number `attempt` (0 = first retry): uniform in [base/2, min(max, base * 2^attempt)]. */
export function backoffSeconds(attempt: number, options: BackoffOptions = {}): number {
  const base = options.baseSeconds ?? 1;
  const max = options.maxSeconds ?? 300;
  const random = options.random ?? Math.random;
  const ceiling = Math.min(max, base * 2 ** Math.max(0, Math.min(attempt, 30)));
  const floor = Math.min(ceiling, base / 2);
  return floor + random() * (ceiling - floor);
}

/**
 * A small deterministic PRNG (mulberry32) for tests, sandboxes and simulations, with its whole state in one
 * 32-bit number so a simulation can be saved and resumed exactly (the sandbox's snapshot).
 */
export class SeededRandom {
  #state: number;

  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  /** The next value in [0,1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** The generator's state: `new SeededRandom(r.state)` continues exactly where `r` is. */
  get state(): number {
    return this.#state;
  }
}

/** The same sequence as a plain function (what providers and emulators take). */
export function seededRandom(seed: number): () => number {
  const random = new SeededRandom(seed);
  return () => random.next();
}
