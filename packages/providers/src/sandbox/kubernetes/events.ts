// A small discrete-event queue on virtual time: events run in (time, insertion) order, each seeing its own time,
// so what the simulated cluster records (Ready transitions, creation timestamps) carries the exact virtual instant.

interface Event {
  at: number;
  seq: number;
  run: (at: number) => void;
}

export class EventQueue {
  readonly #events: Event[] = [];
  #seq = 0;

  /** Schedules `run` at virtual time `at` (ms). */
  at(at: number, run: (at: number) => void): void {
    const event = { at, seq: this.#seq++, run };
    let lo = 0;
    let hi = this.#events.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const e = this.#events[mid] as Event;
      if (e.at < at || (e.at === at && e.seq < event.seq)) lo = mid + 1;
      else hi = mid;
    }
    this.#events.splice(lo, 0, event);
  }

  /** Runs every event due at or before `now`, including those scheduled while running. */
  runUntil(now: number): void {
    for (let guard = 0; guard < 1_000_000; guard++) {
      const next = this.#events[0];
      if (!next || next.at > now) return;
      this.#events.shift();
      next.run(next.at);
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
}
