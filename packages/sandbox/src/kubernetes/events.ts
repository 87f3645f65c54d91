// A small discrete-event queue on virtual time: events run in (time, insertion) order, each seeing its own time,
// so what the simulated cluster records (Ready transitions, creation timestamps) carries the exact virtual instant.
// Events are data, not closures, so a pending schedule can be saved and resumed (the sandbox's snapshot).

export interface QueuedEvent<E> {
  at: number;
  seq: number;
  event: E;
}

export class EventQueue<E> {
  readonly #events: Array<QueuedEvent<E>> = [];
  #seq = 0;

  /** Schedules `event` at virtual time `at` (ms). */
  at(at: number, event: E): void {
    const queued = { at, seq: this.#seq++, event };
    let lo = 0;
    let hi = this.#events.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const e = this.#events[mid] as QueuedEvent<E>;
      if (e.at < at || (e.at === at && e.seq < queued.seq)) lo = mid + 1;
      else hi = mid;
    }
    this.#events.splice(lo, 0, queued);
  }

  /** Runs every event due at or before `now`, including those scheduled while running. */
  runUntil(now: number, run: (event: E, at: number) => void): void {
    for (let guard = 0; guard < 1_000_000; guard++) {
      const next = this.#events[0];
      if (!next || next.at > now) return;
      this.#events.shift();
      run(next.event, next.at);
    }
    throw new Error('kubernetes sandbox: more than a million events in one tick; a schedule loops');
  }

  /** When the next event is due, if any (for runners that jump virtual time). */
  nextAt(): number | undefined {
    return this.#events[0]?.at;
  }

  get size(): number {
    return this.#events.length;
  }

  /** The pending events in run order, and the next sequence number. */
  pending(): { seq: number; events: Array<QueuedEvent<E>> } {
    return { seq: this.#seq, events: this.#events.map((e) => ({ ...e })) };
  }

  /** Replaces the queue with `events` (in run order, as `pending()` gave them). */
  restore(seq: number, events: Array<QueuedEvent<E>>): void {
    this.#seq = seq;
    this.#events.splice(0, this.#events.length, ...events.map((e) => ({ ...e })));
  }
}
