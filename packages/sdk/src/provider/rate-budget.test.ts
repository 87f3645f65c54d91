import { describe, expect, it } from 'vitest';
import { VirtualClock } from './clock.js';
import { describeRateBudgetSuite } from './conformance/rate-budget-suite.js';
import { RATE_LIMITS, RateBudgets, TokenBucket } from './rate-budget.js';
import { MemoryBucketStore, SharedRateBudgets, type BucketStore } from './shared-rate-budget.js';

describe('TokenBucket', () => {
  it('grants the burst at once and then refills at the configured rate', () => {
    const clock = new VirtualClock();
    const bucket = new TokenBucket(RATE_LIMITS.ec2RunInstances, clock);
    for (let i = 0; i < 5; i++) expect(bucket.tryTake()).toBe(0);
    expect(bucket.tryTake()).toBeCloseTo(0.5);
    clock.advance(500);
    expect(bucket.tryTake()).toBe(0);
    expect(bucket.tryTake()).toBeCloseTo(0.5);
  });

  it('does not take tokens when it refuses', () => {
    const clock = new VirtualClock();
    const bucket = new TokenBucket({ capacity: 1, refillPerSecond: 1 }, clock);
    expect(bucket.tryTake()).toBe(0);
    expect(bucket.tryTake()).toBeCloseTo(1);
    expect(bucket.tryTake()).toBeCloseTo(1);
    clock.advance(1000);
    expect(bucket.tryTake()).toBe(0);
  });

  it('never holds more than its capacity, however long it idles', () => {
    const clock = new VirtualClock();
    const bucket = new TokenBucket(RATE_LIMITS.hetznerProject, clock, 0);
    clock.advance(10 * 3600 * 1000);
    expect(bucket.available()).toBe(3600);
  });

  it('lowers what is left to what the cloud reported, but never raises it', () => {
    const clock = new VirtualClock();
    const bucket = new TokenBucket(RATE_LIMITS.hetznerProject, clock, 100);
    bucket.observeRemaining(10);
    expect(bucket.available()).toBe(10);
    bucket.observeRemaining(500);
    expect(bucket.available()).toBe(10);
  });

  it('stays empty until a blocking deadline, then refills from there', () => {
    const clock = new VirtualClock();
    const bucket = new TokenBucket({ capacity: 10, refillPerSecond: 1 }, clock);
    bucket.blockUntil(clock.now() + 5000);
    expect(bucket.tryTake()).toBeCloseTo(6);
    clock.advance(5000);
    expect(bucket.available()).toBe(0);
    clock.advance(1000);
    expect(bucket.tryTake()).toBe(0);
  });

  it('keeps the request rate of a greedy caller within the limit over any window', () => {
    const clock = new VirtualClock();
    const bucket = new TokenBucket({ capacity: 50, refillPerSecond: 10 }, clock);
    const grants: number[] = [];
    for (let step = 0; step < 20_000; step++) {
      if (bucket.tryTake() === 0) grants.push(clock.now());
      else clock.advance(7);
    }
    // In any 10 s window: at most burst + 10 s * rate.
    for (let i = 0; i < grants.length; i++) {
      const start = grants[i] ?? 0;
      let j = i;
      while (j < grants.length && (grants[j] ?? 0) < start + 10_000) j++;
      expect(j - i).toBeLessThanOrEqual(50 + 100);
    }
  });
});

describeRateBudgetSuite('in one process (RateBudgets)', {
  inFlightAllowance: 0,
  async store(clock) {
    const budgets = new RateBudgets(clock);
    return { worker: () => budgets };
  },
});

describeRateBudgetSuite('shared, on a store in memory (SharedRateBudgets)', {
  inFlightAllowance: 10,
  async store(clock) {
    const store = new MemoryBucketStore();
    return { worker: () => new SharedRateBudgets(store, clock) };
  },
});

describe('SharedRateBudgets', () => {
  it('refuses a take it knows cannot be granted without asking the store', async () => {
    const clock = new VirtualClock();
    const inner = new MemoryBucketStore();
    let calls = 0;
    const counting: BucketStore = {
      take: (key, now, addMs, slackMs) => ((calls += 1), inner.take(key, now, addMs, slackMs)),
      raise: (...args) => ((calls += 1), inner.raise(...args)),
    };
    const budget = new SharedRateBudgets(counting, clock).get('aws:1:eu-central-1:run', RATE_LIMITS.ec2RunInstances);
    for (let i = 0; i < 5; i++) await budget.take();
    expect(calls).toBe(5);
    expect(await budget.take()).toBeCloseTo(0.5);
    expect(await budget.take()).toBeCloseTo(0.5);
    expect(calls).toBe(5);
    // Reports that change nothing it knows of are not written either.
    await budget.observeRemaining(3);
    expect(calls).toBe(5);
  });

  it("matches the sandbox clouds' own token bucket request by request", async () => {
    const clock = new VirtualClock();
    const limits = { capacity: 7, refillPerSecond: 3 };
    const cloud = new TokenBucket(limits, clock);
    const budget = new SharedRateBudgets(new MemoryBucketStore(), clock).get('k', limits);
    // A pseudo-random walk of takes and waits: every grant here is a grant there, and no refusal is early.
    let x = 7;
    for (let i = 0; i < 500; i++) {
      x = (x * 1103515245 + 12345) % 2147483648;
      clock.advance(x % 700);
      const wait = await budget.take();
      expect(cloud.tryTake() === 0).toBe(wait === 0);
    }
  });
});
