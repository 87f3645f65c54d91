// When a step's message counts as lost, and for how long: shared by the engine (a step found late gets the lost time
// back on its deadline) and the watchdog (which queues a lost step again).
import type { ClusterRecord } from './records.js';

/**
 * The longest a message can be due and not yet handled: hidden while delivered (the visibility timeout), its handler
 * holding the lease (the lease time), and a minute for the clocks and the queue's own lag.
 */
export function defaultOverdueSeconds(options: { messageVisibilitySeconds?: number | undefined; leaseSeconds?: number | undefined }): number {
  return (options.messageVisibilitySeconds ?? 300) + (options.leaseSeconds ?? 120) + 60;
}

/**
 * How long a step's message has been lost (ms): all the time since it was due, once that is more than `inFlightMs`
 * (longer than any message spends in flight), else 0. That time is nobody's work on the step (a crash before the
 * send, a runtime that was stopped), so the step's deadline moves by as much: a step whose message was lost longer
 * than its timeout would otherwise fail, timed out, the first time it runs.
 */
export function lostMs(step: Pick<ClusterRecord['step'], 'dueAt' | 'since'>, now: number, inFlightMs: number): number {
  const late = now - (step.dueAt ?? step.since);
  return late > inFlightMs ? late : 0;
}
