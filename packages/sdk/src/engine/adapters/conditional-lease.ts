// The Lease algorithm for stores with conditional writes (DynamoDB, Firestore): read the key, then write only if it is
// still as read, so of concurrent acquirers exactly one wins. Expiry is judged on the injected clock, so a crashed
// holder needs no unlock; the fencing token grows with every new grant and survives releases (a release only expires
// the record, it never deletes it). An adapter only reads and writes (LeaseTable); the decisions are made here once.
import { systemClock, type Clock } from '../../provider/clock.js';
import type { Lease, LeaseGrant } from '../ports/lease.js';

/** What a lease store keeps per key. */
export interface LeaseRecord {
  owner: string;
  token: number;
  /** Milliseconds on the lease's clock; 0 once released. */
  expiresAt: number;
}

/** A store's reads and conditional writes of lease records. `V` is what it checks a write against (a token, a time). */
export interface LeaseTable<V> {
  /** The record of `key` and its version, or null for a key never leased. */
  read(key: string): Promise<{ record: LeaseRecord; version: V } | null>;
  /** Writes `record` if `key` is still at `version` (null: still never written); false when another write came first. */
  replace(key: string, record: LeaseRecord, version: V | null): Promise<boolean>;
  /** Sets the expiry while `key` holds this owner and token; false when it no longer does. */
  extend(key: string, held: Pick<LeaseRecord, 'owner' | 'token'>, expiresAt: number): Promise<boolean>;
}

/** A Lease built on a store's conditional writes, for adapters whose store offers compare-and-set. */
export class ConditionalLease<V> implements Lease {
  readonly #table: LeaseTable<V>;
  readonly #clock: Clock;

  constructor(table: LeaseTable<V>, clock: Clock = systemClock) {
    this.#table = table;
    this.#clock = clock;
  }

  async acquire(key: string, owner: string, ttlSeconds: number): Promise<LeaseGrant | null> {
    const now = this.#clock.now();
    const read = await this.#table.read(key);
    const held = read?.record;
    if (held && held.expiresAt > now) {
      if (held.owner !== owner) return null;
      return this.renew({ key, ...held }, ttlSeconds);
    }
    const grant: LeaseGrant = { key, owner, token: (held?.token ?? 0) + 1, expiresAt: now + ttlSeconds * 1000 };
    return (await this.#table.replace(key, { owner, token: grant.token, expiresAt: grant.expiresAt }, read ? read.version : null)) ? grant : null;
  }

  async renew(grant: LeaseGrant, ttlSeconds: number): Promise<LeaseGrant | null> {
    const expiresAt = this.#clock.now() + ttlSeconds * 1000;
    return (await this.#table.extend(grant.key, grant, expiresAt)) ? { ...grant, expiresAt } : null;
  }

  async release(grant: LeaseGrant): Promise<void> {
    await this.#table.extend(grant.key, grant, 0);
  }
}
