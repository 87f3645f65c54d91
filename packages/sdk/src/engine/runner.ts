// The local runtime: pulls step messages from the queue and hands them to the engine until nothing is left.
// On a virtual clock it is a discrete-event simulation: when no message is due, time jumps to the next due
// one, so a three-minute boot costs no real time. On the system clock it sleeps until the next one.
import type { Clock, ClockParticipant } from '../provider/clock.js';
import { VirtualClock } from '../provider/clock.js';
import type { Engine, ProcessOutcome } from './engine.js';
import type { StepEvent } from './events.js';
import type { Queue } from './ports/queue.js';

/** When a local run stops: after a number of messages, a span of clock time, or when told to. */
export interface RunOptions {
  /** Stop after this many messages (a safety net against a loop; default 1,000,000). */
  maxMessages?: number;
  /** Stop once the clock has advanced this far (ms); default unlimited. */
  maxElapsedMs?: number;
  /** Called between messages; return true to stop early (tests inject crashes and faults here). */
  beforeMessage?: (count: number) => boolean | void;
  /** Another party on the virtual clock (see ClockParticipant). */
  participant?: ClockParticipant;
}

/** What a local run did: the messages processed, their outcomes, the time elapsed and why it stopped. */
export interface RunReport {
  messages: number;
  outcomes: Partial<Record<ProcessOutcome, number>>;
  elapsedMs: number;
  /** Why the run stopped. */
  stopped: 'idle' | 'max-messages' | 'max-elapsed' | 'stopped';
}

/** Drives an Engine from an in-process queue until no message is due, for the CLI, tests and embedding. */
export class LocalRunner {
  constructor(
    private readonly engine: Engine,
    private readonly queue: Queue<StepEvent>,
    private readonly clock: Clock,
  ) {}

  /** Processes due messages, advancing a virtual clock to the next one, until the queue is idle or a limit is reached. */
  async runUntilIdle(options: RunOptions = {}): Promise<RunReport> {
    const started = this.clock.now();
    const outcomes: RunReport['outcomes'] = {};
    let messages = 0;
    const max = options.maxMessages ?? 1_000_000;
    const report = (stopped: RunReport['stopped']): RunReport => ({ messages, outcomes, elapsedMs: this.clock.now() - started, stopped });
    for (;;) {
      if (messages >= max) return report('max-messages');
      if (options.maxElapsedMs !== undefined && this.clock.now() - started > options.maxElapsedMs) return report('max-elapsed');
      await options.participant?.settle();
      const batch = await this.queue.receive(10);
      if (batch.length === 0) {
        const next = await this.queue.nextVisibleAt();
        if (next === null) return report('idle');
        const wake = options.participant?.nextWakeAt() ?? null;
        if (this.clock instanceof VirtualClock) this.clock.advanceTo(wake !== null && wake > this.clock.now() ? Math.min(next, wake) : next);
        else await new Promise((r) => setTimeout(r, Math.max(5, Math.min(1000, next - this.clock.now()))));
        continue;
      }
      for (const message of batch) {
        if (options.beforeMessage?.(messages)) return report('stopped');
        const outcome = await this.engine.process(message);
        outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
        messages++;
      }
    }
  }
}
