// Long-running operations as plain data: what Hetzner's actions, Crusoe's operations, Route 53's changes, Google's
// Operation, Azure's async operations and OCI's work requests have in common. An operation runs from `startedAt` to
// `finishAt` in virtual time; when the clock passes `finishAt`, its completion (plain data saying what finishing does)
// is applied once, in the order the operations finish.
import type { Collection } from './store.js';

export type OperationState = 'running' | 'succeeded' | 'failed';

export interface LongRunningOperation<C> {
  readonly id: string;
  /** What it does, in the vendor's words (`create_server`, `vm-created`, `ChangeResourceRecordSets`). */
  readonly kind: string;
  /** The resource it acts on. */
  readonly target: string;
  readonly startedAt: number;
  finishAt: number;
  state: OperationState;
  /** What finishing does, as data (so it survives a snapshot). */
  readonly completion: C;
  /** What the vendor reports once it is done. */
  result?: unknown;
  error?: { code: string; message: string };
}

export interface Completed {
  result?: unknown;
  error?: { code: string; message: string };
}

export class Operations<C> {
  constructor(
    readonly items: Collection<string, LongRunningOperation<C>>,
    readonly now: () => number,
    readonly id: () => string,
    /** Applies a completion to the world; what it returns is recorded on the operation. */
    readonly complete: (operation: LongRunningOperation<C>) => Completed,
  ) {}

  start(kind: string, target: string, durationMs: number, completion: C): LongRunningOperation<C> {
    const now = this.now();
    const op: LongRunningOperation<C> = { id: this.id(), kind, target, startedAt: now, finishAt: now + durationMs, state: 'running', completion };
    this.items.set(op.id, op);
    return op;
  }

  /** Completes every running operation whose time has come, earliest first (ties: the order they started). */
  settle(): void {
    const now = this.now();
    const due = [...this.items.values()].filter((op) => op.state === 'running' && op.finishAt <= now);
    due.sort((a, b) => a.finishAt - b.finishAt);
    for (const op of due) {
      const done = this.complete(op);
      op.state = done.error ? 'failed' : 'succeeded';
      if (done.result !== undefined) op.result = done.result;
      if (done.error) op.error = done.error;
    }
  }

  get(id: string): LongRunningOperation<C> | undefined {
    this.settle();
    return this.items.get(id);
  }
}
