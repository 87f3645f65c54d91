// How long a message waits before its next delivery when its cluster's lease is held by another invocation:
// from 2 s, doubling with each delivery, never beyond the lease (by then a crashed holder's lease has expired).

/**
 * Seconds before a `busy` message is delivered again: 2 s on its first delivery, doubling with each later one, capped
 * at the lease time (and at least 2 s). A holder that crashed costs a few deliveries instead of one every 2 s until
 * its lease runs out.
 */
export function busyRetryDelaySeconds(deliveries: number, leaseSeconds: number): number {
  const cap = Math.max(2, Math.ceil(leaseSeconds));
  const n = Math.max(1, Math.floor(deliveries));
  return Math.min(cap, 2 * 2 ** Math.min(n - 1, 20));
}
