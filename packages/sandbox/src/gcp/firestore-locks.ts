// Firestore's pessimistic concurrency for read-write transactions, as its server clients see it
// (https://firebase.google.com/docs/firestore/transaction-data-contention): a transaction locks the documents it
// reads, and a lock blocks other transactions and non-transactional writes to them until it commits or rolls back.
// Locks here are exclusive (read-modify-write transactions on one document then run one after another, where
// Firestore's shared read locks would deadlock and abort one); a deadlock between documents is broken by
// wound-wait, the older transaction wins ("Firestore ... resolves by letting the oldest transaction proceed").
// A wait longer than `lockWaitMs` (wall time: waits are of real concurrent requests) aborts the waiter.
import { GoogleApiError } from './api.js';

export interface LockOwner {
  id: string;
  /** Begin order: lower is older. */
  age: number;
  /** Set when an older transaction took a lock from it: its next operation answers ABORTED. */
  wounded: boolean;
}

export const aborted = (): GoogleApiError => new GoogleApiError('ABORTED', 'Transaction lock timeout. Please try again.');

export class DocumentLocks {
  readonly #holders = new Map<string, LockOwner>();
  readonly #held = new Map<string, Set<string>>();
  #waiters: Array<() => void> = [];

  constructor(
    private readonly lockWaitMs: number,
    /** Whether a holder's transaction has expired (its locks are then released to whoever asks). */
    private readonly expired: (owner: LockOwner) => boolean = () => false,
  ) {}

  /** Takes `doc` for `owner`, waiting for its holder unless `owner` is older (then the holder is wounded). */
  async acquire(owner: LockOwner, doc: string): Promise<void> {
    const deadline = Date.now() + this.lockWaitMs;
    for (;;) {
      if (owner.wounded) throw aborted();
      const holder = this.#holders.get(doc);
      if (!holder || holder.id === owner.id) break;
      if (owner.age < holder.age || this.expired(holder)) {
        holder.wounded = true;
        this.release(holder);
        continue;
      }
      if (!(await this.#wait(deadline))) throw aborted();
    }
    this.#holders.set(doc, owner);
    let set = this.#held.get(owner.id);
    if (!set) this.#held.set(owner.id, (set = new Set()));
    set.add(doc);
  }

  /** Waits until nobody but `writer` (a transaction, or none for a plain write) holds `doc`. */
  async awaitFree(doc: string, writer?: LockOwner): Promise<void> {
    const deadline = Date.now() + this.lockWaitMs;
    for (;;) {
      const holder = this.#holders.get(doc);
      if (!holder || holder.id === writer?.id) return;
      if (this.expired(holder)) {
        holder.wounded = true;
        this.release(holder);
        continue;
      }
      if (!(await this.#wait(deadline))) throw aborted();
    }
  }

  release(owner: LockOwner): void {
    for (const doc of this.#held.get(owner.id) ?? []) if (this.#holders.get(doc)?.id === owner.id) this.#holders.delete(doc);
    this.#held.delete(owner.id);
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }

  #wait(deadline: number): Promise<boolean> {
    const left = deadline - Date.now();
    if (left <= 0) return Promise.resolve(false);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#waiters = this.#waiters.filter((w) => w !== wake);
        resolve(false);
      }, left);
      const wake = (): void => {
        clearTimeout(timer);
        resolve(true);
      };
      this.#waiters.push(wake);
    });
  }
}
