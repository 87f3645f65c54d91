// A step's lease is renewed on a timer while the step runs. Once a renewal finds the lease taken, the timer must end:
// a holder that never reaches stop() (it died mid-step, or hangs on a cloud call) would otherwise keep an interval
// ticking, and with it the whole of its world, for the rest of the process (the chaos harness ran out of memory so).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { keepRenewed } from './engine.js';
import type { Lease, LeaseGrant } from './ports/lease.js';

afterEach(() => vi.useRealTimers());

const grant: LeaseGrant = { key: 'clusters/c1', owner: 'worker-1', token: 7, expiresAt: 60_000 };

function lease(renewals: Array<LeaseGrant | null>): Lease & { renewed: number } {
  return {
    renewed: 0,
    acquire: () => Promise.resolve(grant),
    async renew() {
      this.renewed += 1;
      return renewals.shift() ?? null;
    },
    release: () => Promise.resolve(),
  };
}

describe('keepRenewed', () => {
  it('renews every third of the lease time and hands out the newest grant', async () => {
    vi.useFakeTimers();
    const l = lease([
      { ...grant, expiresAt: 80_000 },
      { ...grant, expiresAt: 100_000 },
    ]);
    const renewal = keepRenewed(l, grant, 60);
    await vi.advanceTimersByTimeAsync(40_000);
    expect(l.renewed).toBe(2);
    expect(renewal.current().expiresAt).toBe(100_000);
    await renewal.stop();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('stops its timer once the lease is found taken, though stop() is never called', async () => {
    vi.useFakeTimers();
    const l = lease([null]);
    keepRenewed(l, grant, 60);
    await vi.advanceTimersByTimeAsync(20_000);
    expect(l.renewed).toBe(1);
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(120_000);
    expect(l.renewed).toBe(1);
  });
});
