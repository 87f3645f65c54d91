// The watchdog function (a Cloud Scheduler job POSTs to it every few minutes): re-queues every IN_PROGRESS cluster
// whose step has had no message for too long (kubeplane.watchdog(), as on AWS), and marks ERROR the clusters whose
// last-attempt task died without a word — a pending dead letter older than the task's dispatch deadline is a
// delivery that crashed or timed out, which Cloud Tasks drops silently (it has no dead-letter queue).
import type { WatchdogReport } from '@kubeplane/sdk';
import { systemClock, type Clock, type Kubeplane } from '@kubeplane/sdk';
import { errorFields, jsonLogger, type Logger } from '../runtime/logger.js';
import type { HttpHandler } from './cloud-tasks-step-handler.js';
import type { FirestoreDeadLetters } from './firestore-dead-letters.js';

/** What the Google watchdog did: the lost messages sent again and the dead letters found overdue. */
export interface GcpWatchdogReport extends WatchdogReport {
  /** Dead letters found overdue: their clusters, and whether each was marked (false: it had moved on). */
  deadLetters: Array<{ task: string; clusterId: string; marked: boolean }>;
}

/** Builds the HTTP function Cloud Scheduler calls to send lost messages again and settle overdue dead letters. */
export function createGcpWatchdogHandler(options: { kubeplane: Kubeplane; deadLetters: FirestoreDeadLetters; clock?: Clock; logger?: Logger }): HttpHandler {
  const logger = options.logger ?? jsonLogger();
  const clock = options.clock ?? systemClock;
  return async (_req, res) => {
    try {
      res.status(200).json(await runGcpWatchdog(options.kubeplane, options.deadLetters, clock, logger));
    } catch (e) {
      logger.log('error', 'watchdog failed', errorFields(e));
      res.status(500).json({ error: 'the watchdog failed; see the function logs' });
    }
  };
}

/** One watchdog pass (the handler's body, for runtimes and tests that call it directly). */
export async function runGcpWatchdog(kubeplane: Kubeplane, deadLetters: FirestoreDeadLetters, clock: Clock, logger: Logger): Promise<GcpWatchdogReport> {
  const report = await kubeplane.watchdog();
  for (const r of report.requeued) logger.log('warn', 'cluster had no step message; re-queued its step', r);
  const found: GcpWatchdogReport['deadLetters'] = [];
  for (const letter of await deadLetters.overdue(clock.now())) {
    const event = letter.event;
    if (!event) continue;
    const reason =
      `step task ${event.key} did not finish its last attempt (it crashed or ran past its ` +
      `${Math.round((letter.deadlineAt - letter.recordedAt) / 1000)} s deadline); see the step function's logs, then apply again to retry`;
    const marked = await kubeplane.markFailed(event.clusterId, reason, { generation: event.generation, seq: event.seq });
    await deadLetters.update(letter.id, 'expired', reason);
    logger.log('error', 'dead-lettered step task', { task: letter.task, clusterId: event.clusterId, step: event.step, key: event.key, marked });
    found.push({ task: letter.task, clusterId: event.clusterId, marked });
  }
  return { ...report, deadLetters: found };
}
