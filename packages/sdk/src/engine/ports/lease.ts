// Lease: one holder per cluster at a time, with an expiry, so a crashed holder never needs a manual unlock —
// its lease runs out and the next step takes over. Each grant carries a fencing token that only grows.
/** A held lease: its holder, its fence token and when it expires. */
export interface LeaseGrant {
  key: string;
  owner: string;
  /** Grows with every new grant of the key; writes can be fenced on it. */
  token: number;
  /** Milliseconds on the lease's clock. */
  expiresAt: number;
}

/** The port of leases: at most one holder per key, so one worker at a time acts on a cluster. */
export interface Lease {
  /** The grant, or null while another owner holds an unexpired lease. Re-acquiring one's own lease renews it. */
  acquire(key: string, owner: string, ttlSeconds: number): Promise<LeaseGrant | null>;
  /** Extends a lease still held; null when it expired and someone else took it. */
  renew(grant: LeaseGrant, ttlSeconds: number): Promise<LeaseGrant | null>;
  /** Gives the lease up if still held by this grant. */
  release(grant: LeaseGrant): Promise<void>;
}
