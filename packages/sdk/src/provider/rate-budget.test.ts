import { describe, expect, it } from 'vitest';
import { VirtualClock } from './clock.js';
import { RATE_LIMITS, RateBudgets, TokenBucket } from './rate-budget.js';

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

describe('RateBudgets', () => {
  it('shares one bucket between callers of the same key', () => {
    const clock = new VirtualClock();
    const budgets = new RateBudgets(clock);
    const a = budgets.get('aws:1:eu-central-1:run-instances', RATE_LIMITS.ec2RunInstances);
    const b = budgets.get('aws:1:eu-central-1:run-instances', RATE_LIMITS.ec2RunInstances);
    for (let i = 0; i < 5; i++) expect(a.tryTake()).toBe(0);
    expect(b.tryTake()).toBeGreaterThan(0);
    expect(budgets.get('aws:1:us-east-1:run-instances', RATE_LIMITS.ec2RunInstances).tryTake()).toBe(0);
  });
});
