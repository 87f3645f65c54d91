// Watches a Lease for the serverless concurrency tests: how many holders each key had at once (at most), and how
// many acquisitions were refused because another holder had it.
import type { Lease } from '@kubeplane/sdk';

export interface LeaseHolders {
  /** Wraps the lease; use the returned one in the engine. */
  wrap(lease: Lease): Lease;
  /** The most holders any one key had at the same time. */
  readonly most: number;
  readonly refused: number;
}

export function leaseHolders(): LeaseHolders {
  const holders = new Map<string, number>();
  let most = 0;
  let refused = 0;
  return {
    wrap: (l) => ({
      async acquire(key, owner, ttl) {
        const g = await l.acquire(key, owner, ttl);
        if (g) {
          holders.set(key, (holders.get(key) ?? 0) + 1);
          most = Math.max(most, holders.get(key) ?? 0);
        } else refused++;
        return g;
      },
      renew: (g, ttl) => l.renew(g, ttl),
      async release(g) {
        holders.set(g.key, (holders.get(g.key) ?? 0) - 1);
        await l.release(g);
      },
    }),
    get most() {
      return most;
    },
    get refused() {
      return refused;
    },
  };
}
