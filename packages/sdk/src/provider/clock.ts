// Time as a port: providers, rate budgets and the sandbox read time only through a Clock, so a virtual
// clock can make a three-minute boot cost no real time.

/** The time as providers, rate budgets and the sandbox read it, so a virtual clock can stand in. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

/** The clock of the operating system. */
export const systemClock: Clock = { now: () => Date.now() };

/** A clock that moves only when told to. Used by the sandbox and by discrete-event simulations. */
export class VirtualClock implements Clock {
  #now: number;

  constructor(startMs = Date.UTC(2026, 0, 1)) {
    this.#now = startMs;
  }

  now(): number {
    return this.#now;
  }

  /** Moves time forward; time never goes back. */
  advance(ms: number): void {
    if (!(ms >= 0)) throw new RangeError(`cannot advance a clock by ${ms} ms`);
    this.#now += ms;
  }

  /** Moves the clock forward to the given time (ms); an earlier time changes nothing. */
  advanceTo(ms: number): void {
    if (ms > this.#now) this.#now = ms;
  }
}

/**
 * Something else living on the same virtual clock: the sandbox's real machines in its netns mode, whose processes
 * wait in virtual time. The runner lets it finish what is due before each batch, and jumps time no further than its
 * next wake-up.
 */
export interface ClockParticipant {
  /** Resolves once everything due at the clock's now is done (or waits on a later virtual time). */
  settle(): Promise<void>;
  /** When it next has something to do (virtual ms), or null. */
  nextWakeAt(): number | null;
}
