// In-memory adapters of the engine's ports: for tests, scripts and the sandbox's discrete-event runner.
// They keep the exact semantics of the durable adapters (CAS, visibility, fencing), on an injectable clock.
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../provider/clock.js';
import { systemClock } from '../../provider/clock.js';
import { Redacted } from '../../redacted.js';
import type { Lease, LeaseGrant } from '../ports/lease.js';
import type { Queue, ReceivedMessage, SendOptions } from '../ports/queue.js';
import { labelsMatch, type SecretEntry, type SecretStore } from '../ports/secret-store.js';
import { deliver, nextDeliveryAt, type StoredMessage } from './queue-rules.js';
import { checkKey, nextFence, revisionConflict, type PutOptions, type StateStore, type Tombstone, type Versioned } from '../ports/state-store.js';

/** A StateStore in memory, for tests and embedding in one process. */
export class MemoryStateStore implements StateStore {
  readonly #data = new Map<string, { json: string; revision: number; fence?: number }>();
  /** What deleted keys left: their last revision and fence, which a later life of the key continues. */
  readonly #tombstones = new Map<string, Tombstone>();

  /** The value stored under a key with its revision, or null when there is none. */
  async get<T>(key: string): Promise<Versioned<T> | null> {
    checkKey(key);
    const entry = this.#data.get(key);
    return entry ? { value: JSON.parse(entry.json) as T, revision: entry.revision } : null;
  }

  async put<T>(key: string, value: T, expectedRevision: number, options: PutOptions = {}): Promise<number> {
    checkKey(key);
    const stored = this.#data.get(key);
    const actual = stored?.revision ?? 0;
    if (actual !== expectedRevision) throw revisionConflict(key, expectedRevision, actual);
    const before = stored ?? this.#tombstones.get(key);
    const fence = nextFence(key, before?.fence, options.fence);
    const revision = (before?.revision ?? 0) + 1;
    this.#data.set(key, { json: JSON.stringify(value), revision, ...(fence !== undefined ? { fence } : {}) });
    this.#tombstones.delete(key);
    return revision;
  }

  async delete(key: string, expectedRevision: number, options: PutOptions = {}): Promise<void> {
    checkKey(key);
    const stored = this.#data.get(key);
    const actual = stored?.revision ?? 0;
    if (actual !== expectedRevision) throw revisionConflict(key, expectedRevision, actual);
    if (!stored) return;
    const fence = nextFence(key, stored.fence, options.fence);
    this.#tombstones.set(key, { revision: stored.revision, ...(fence !== undefined ? { fence } : {}) });
    this.#data.delete(key);
  }

  async list(prefix: string): Promise<string[]> {
    return [...this.#data.keys()].filter((k) => k.startsWith(prefix)).sort();
  }
}

/** A SecretStore in memory, for tests and embedding in one process. */
export class MemorySecretStore implements SecretStore {
  readonly #data = new Map<string, { value: string; labels: Record<string, string> }>();

  async put(name: string, value: Redacted<string>, labels: Record<string, string> = {}): Promise<void> {
    checkKey(name);
    this.#data.set(name, { value: value.reveal(), labels: { ...labels } });
  }

  async create(name: string, value: Redacted<string>, labels: Record<string, string> = {}): Promise<boolean> {
    checkKey(name);
    if (this.#data.has(name)) return false;
    this.#data.set(name, { value: value.reveal(), labels: { ...labels } });
    return true;
  }

  /** The value of a secret, or null when there is none. */
  async get(name: string): Promise<Redacted<string> | null> {
    const entry = this.#data.get(name);
    return entry ? Redacted.of(entry.value) : null;
  }

  async delete(name: string): Promise<void> {
    this.#data.delete(name);
  }

  async list(labels?: Record<string, string>): Promise<SecretEntry[]> {
    return [...this.#data.entries()]
      .filter(([, e]) => labelsMatch(e.labels, labels))
      .map(([name, e]) => ({ name, labels: { ...e.labels } }))
      .sort((a, b) => a.name.localeCompare(b.name));
  }
}

/** How the in-memory queue behaves: its clock, visibility timeout and deduplication window (SQS FIFO's by default). */
export interface MemoryQueueOptions {
  clock?: Clock;
  /** Seconds a received message stays hidden before it is delivered again (SQS default 30). */
  visibilityTimeoutSeconds?: number;
  /** Seconds a deduplication id is remembered (SQS FIFO: 300). */
  deduplicationWindowSeconds?: number;
}

export class MemoryQueue<T> implements Queue<T> {
  readonly #clock: Clock;
  readonly #visibilityMs: number;
  readonly #dedupMs: number;
  readonly #messages: Array<StoredMessage<T>> = [];
  readonly #dedup = new Map<string, number>();
  #seq = 0;

  constructor(options: MemoryQueueOptions = {}) {
    this.#clock = options.clock ?? systemClock;
    this.#visibilityMs = (options.visibilityTimeoutSeconds ?? 30) * 1000;
    this.#dedupMs = (options.deduplicationWindowSeconds ?? 300) * 1000;
  }

  /** Sends a message, to be delivered after its delay. */
  async send(body: T, options: SendOptions): Promise<void> {
    const now = this.#clock.now();
    if (options.deduplicationId !== undefined) {
      const key = `${options.groupId}\u0000${options.deduplicationId}`;
      const seen = this.#dedup.get(key);
      if (seen !== undefined && now - seen < this.#dedupMs) return;
      this.#dedup.set(key, now);
    }
    this.#messages.push({
      id: randomUUID(),
      body: structuredClone(body),
      groupId: options.groupId,
      seq: this.#seq++,
      visibleAt: now + Math.max(0, options.delaySeconds ?? 0) * 1000,
      receiveCount: 0,
    });
  }

  async receive(max: number): Promise<Array<ReceivedMessage<T>>> {
    const now = this.#clock.now();
    // Copies, as a real queue hands out: a handler changing its message cannot change the stored one.
    return deliver(this.#messages, now, max, this.#visibilityMs).map((m) => ({ ...m, body: structuredClone(m.body) }));
  }

  async ack(receipt: string): Promise<void> {
    const i = this.#messages.findIndex((m) => m.receipt === receipt);
    if (i >= 0) this.#messages.splice(i, 1);
  }

  async release(receipt: string, delaySeconds = 0): Promise<void> {
    const m = this.#messages.find((x) => x.receipt === receipt);
    if (!m) return;
    delete m.receipt;
    m.visibleAt = this.#clock.now() + delaySeconds * 1000;
  }

  async nextVisibleAt(): Promise<number | null> {
    return nextDeliveryAt(this.#messages, this.#clock.now());
  }

  async size(): Promise<number> {
    return this.#messages.length;
  }
}

/** How the in-memory lease behaves; tests use it to make a holder stall. */
export interface MemoryLeaseOptions {
  /**
   * For tests of stalled holders: asked when another owner contends for a live lease; true counts the holder's lease
   * as run out (a paused process, a slow Lambda), so the contender gets it with a new token and the holder's renewals
   * and fenced writes fail from then on.
   */
  runsOut?: (held: LeaseGrant, contender: string) => boolean;
}

/** A Lease in memory, for tests and embedding in one process. */
export class MemoryLease implements Lease {
  readonly #clock: Clock;
  readonly #runsOut: MemoryLeaseOptions['runsOut'];
  readonly #leases = new Map<string, LeaseGrant>();
  readonly #tokens = new Map<string, number>();

  constructor(clock: Clock = systemClock, options: MemoryLeaseOptions = {}) {
    this.#clock = clock;
    this.#runsOut = options.runsOut;
  }

  async acquire(key: string, owner: string, ttlSeconds: number): Promise<LeaseGrant | null> {
    const now = this.#clock.now();
    let held = this.#leases.get(key);
    if (held && held.expiresAt > now && held.owner !== owner) {
      if (!this.#runsOut?.({ ...held }, owner)) return null;
      held = undefined;
    }
    const token = held && held.owner === owner && held.expiresAt > now ? held.token : (this.#tokens.get(key) ?? 0) + 1;
    this.#tokens.set(key, token);
    const grant = { key, owner, token, expiresAt: now + ttlSeconds * 1000 };
    this.#leases.set(key, grant);
    return { ...grant };
  }

  async renew(grant: LeaseGrant, ttlSeconds: number): Promise<LeaseGrant | null> {
    const held = this.#leases.get(grant.key);
    if (!held || held.token !== grant.token || held.owner !== grant.owner || held.expiresAt <= this.#clock.now()) return null;
    held.expiresAt = this.#clock.now() + ttlSeconds * 1000;
    return { ...held };
  }

  async release(grant: LeaseGrant): Promise<void> {
    const held = this.#leases.get(grant.key);
    if (held && held.token === grant.token && held.owner === grant.owner) this.#leases.delete(grant.key);
  }
}
