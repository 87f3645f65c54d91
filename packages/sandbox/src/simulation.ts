// A discrete-event driver for provider calls on the sandbox's virtual clock: the local runner's loop in
// miniature. Due tasks run together; a pending task is re-queued after its delay; when nothing is due,
// virtual time jumps to the next due task.
import type { Outcome, PendingReason, VirtualClock } from '@kubeplane/sdk/provider';

/** One unit of work for `simulate`: a provider call retried, as the runner would, until it is done. */
export interface SimTask<T = unknown> {
  name: string;
  /**
   * Makes one attempt. `attempt` counts throttled and retryable results so far (for backoff); a pending result re-queues
   * the task after its `retryAfterSeconds` of virtual time.
   */
  run: (attempt: number) => Promise<Outcome<T>>;
  /** Follow-up tasks once this one is done (they start at once). */
  then?: (value: T) => SimTask[] | void;
}

/** What a `simulate` run took: virtual time, tasks done, and the pending results it met on the way. */
export interface SimResult {
  /** Virtual milliseconds from start to the last task done. */
  elapsedMs: number;
  /** Tasks done. */
  completed: number;
  /** Pending results by reason. */
  pendings: Partial<Record<PendingReason, number>>;
}

/**
 * Runs `tasks` (and their follow-ups) to completion on `clock`, jumping virtual time to the next due task whenever
 * nothing is due, so minutes of provider waits pass in milliseconds. Throws when `maxSteps` (default 20 000) rounds do
 * not finish them.
 */
export async function simulate(clock: VirtualClock, tasks: SimTask[], options: { maxSteps?: number } = {}): Promise<SimResult> {
  const start = clock.now();
  const queue: Array<{ due: number; task: SimTask; attempt: number }> = tasks.map((task) => ({ due: start, task, attempt: 0 }));
  const pendings: Partial<Record<PendingReason, number>> = {};
  let completed = 0;
  let last = start;
  const maxSteps = options.maxSteps ?? 20_000;
  for (let step = 0; queue.length > 0; step++) {
    if (step >= maxSteps) throw new Error(`simulation did not finish in ${maxSteps} steps; ${queue.length} task(s) left, e.g. ${queue[0]?.task.name ?? ''}`);
    const next = Math.min(...queue.map((q) => q.due));
    clock.advanceTo(next);
    const now = clock.now();
    const due = queue.filter((q) => q.due <= now);
    for (const d of due) queue.splice(queue.indexOf(d), 1);
    const results = await Promise.all(due.map(async (d) => ({ d, outcome: await d.task.run(d.attempt) })));
    for (const { d, outcome } of results) {
      if (outcome.status === 'done') {
        completed += 1;
        last = clock.now();
        const follow = d.task.then?.(outcome.value as never);
        if (follow) for (const task of follow) queue.push({ due: clock.now(), task, attempt: 0 });
      } else {
        pendings[outcome.reason] = (pendings[outcome.reason] ?? 0) + 1;
        const backoffAttempt = outcome.reason === 'throttled' || outcome.reason === 'retryable' ? d.attempt + 1 : d.attempt;
        queue.push({ due: clock.now() + Math.ceil(outcome.retryAfterSeconds * 1000), task: d.task, attempt: backoffAttempt });
      }
    }
  }
  return { elapsedMs: last - start, completed, pendings };
}
