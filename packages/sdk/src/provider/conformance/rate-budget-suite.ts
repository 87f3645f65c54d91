// The rules every RateBudgetSource keeps, run against each implementation (in-process, file, DynamoDB): a
// token bucket's burst and refill, shared by key between workers (separate sources on one store), never
// granting more than the bucket holds when workers take at once, and following what the cloud reports.
import { describe, expect, it } from 'vitest';
import { VirtualClock, type Clock } from '../clock.js';
import { RATE_LIMITS, type RateBudgetSource } from '../rate-budget.js';

/** The rate-budget backend under test, and how to make its budgets. */
export interface RateBudgetSuiteOptions {
  /**
   * A new set of workers on one fresh store: each call of `worker()` is another process's source (an
   * in-process implementation returns the same source every time).
   */
  store(clock: Clock): Promise<{
    /** Another worker's budget source on the store. */
    worker(): RateBudgetSource;
  }>;
  /** How much lower than the cloud's figure observeRemaining sets a budget (0 in one process). */
  inFlightAllowance: number;
}

/** Declares the test suite (vitest) every shared rate-budget backend must pass. */
export function describeRateBudgetSuite(name: string, options: RateBudgetSuiteOptions): void {
  describe(`rate budget rules: ${name}`, () => {
    it('grants the burst at once and then refills at the configured rate', async () => {
      const clock = new VirtualClock();
      const budget = (await options.store(clock)).worker().get('aws:1:eu-central-1:run-instances', RATE_LIMITS.ec2RunInstances);
      for (let i = 0; i < 5; i++) expect(await budget.take()).toBe(0);
      expect(await budget.take()).toBeCloseTo(0.5);
      clock.advance(500);
      expect(await budget.take()).toBe(0);
      expect(await budget.take()).toBeCloseTo(0.5);
    });

    it('takes nothing when it refuses, and never holds more than its capacity', async () => {
      const clock = new VirtualClock();
      const budget = (await options.store(clock)).worker().get('k', { capacity: 2, refillPerSecond: 1 });
      expect(await budget.take(2)).toBe(0);
      expect(await budget.take()).toBeCloseTo(1);
      expect(await budget.take()).toBeCloseTo(1);
      clock.advance(3_600_000);
      expect(await budget.take(2)).toBe(0);
      expect(await budget.take()).toBeCloseTo(1);
    });

    it('is one budget per key for every worker, and keys are independent', async () => {
      const clock = new VirtualClock();
      const store = await options.store(clock);
      const a = store.worker();
      const b = store.worker();
      for (let i = 0; i < 5; i++) expect(await a.get('aws:1:eu-central-1:run', RATE_LIMITS.ec2RunInstances).take()).toBe(0);
      expect(await b.get('aws:1:eu-central-1:run', RATE_LIMITS.ec2RunInstances).take()).toBeCloseTo(0.5);
      expect(await b.get('aws:1:us-east-1:run', RATE_LIMITS.ec2RunInstances).take()).toBe(0);
    });

    it('grants no more than the bucket holds when many workers take at the same moment', async () => {
      const clock = new VirtualClock();
      const store = await options.store(clock);
      const limits = { capacity: 10, refillPerSecond: 2 };
      const workers = Array.from({ length: 4 }, () => store.worker().get('hetzner:shared', limits));
      const round = async () => (await Promise.all(workers.flatMap((w) => Array.from({ length: 8 }, () => w.take())))).filter((wait) => wait === 0).length;
      expect(await round()).toBe(10);
      clock.advance(1000);
      expect(await round()).toBe(2);
      clock.advance(250);
      expect(await round()).toBe(0);
    });

    it('lowers itself to what the cloud reports (less what other workers may have in flight), and never raises itself', async () => {
      const clock = new VirtualClock();
      const store = await options.store(clock);
      const limits = { capacity: 3600, refillPerSecond: 1 };
      await store.worker().get('hetzner:p', limits).observeRemaining(40);
      const other = store.worker().get('hetzner:p', limits);
      let granted = 0;
      while ((await other.take()) === 0) granted++;
      expect(granted).toBe(40 - options.inFlightAllowance);
      // A report of more than is left here changes nothing: other tools may be the reason it is less.
      await store.worker().get('hetzner:p', limits).observeRemaining(3000);
      expect(await other.take()).toBeGreaterThan(0);
      clock.advance(5000);
      for (let i = 0; i < 5; i++) expect(await other.take()).toBe(0);
      expect(await other.take()).toBeGreaterThan(0);
    });

    it('is empty until the time the cloud named, and refills from then', async () => {
      const clock = new VirtualClock();
      const store = await options.store(clock);
      const limits = { capacity: 10, refillPerSecond: 1 };
      await store
        .worker()
        .get('cloudflare:a', limits)
        .blockUntil(clock.now() + 5000);
      const other = store.worker().get('cloudflare:a', limits);
      expect(await other.take()).toBeCloseTo(6);
      clock.advance(5000);
      expect(await other.take()).toBeCloseTo(1);
      clock.advance(1000);
      expect(await other.take()).toBe(0);
    });
  });
}
