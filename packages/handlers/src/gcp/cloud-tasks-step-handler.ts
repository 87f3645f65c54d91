// The step function behind Cloud Tasks: each task is one StepEvent POSTed by Cloud Tasks, which retries it with the
// queue's backoff until the function answers 2xx. A cluster busy under another invocation's lease, or a lost
// compare-and-swap, is answered 2xx after a fresh copy of the task is created (no name, a growing delay, the resend
// count in a header), so contention never uses up a good message's attempts; only real failures (5xx) count. Cloud
// Tasks has no dead-letter queue: the last attempt follows the dead-letter path (firestore-dead-letters.ts).
import type { Request, Response } from '@google-cloud/functions-framework';
import { busyRetryDelaySeconds, parseStepEvent, systemClock, type Clock, type Kubeplane, type ProcessOutcome, type StepEvent } from '@kubeplane/sdk';
import { errorFields, jsonLogger, type Logger } from '../aws/logger.js';
import type { FirestoreDeadLetters } from './firestore-dead-letters.js';

/** Where a busy step's fresh copy goes (the CloudTasksQueue the engine sends on). */
export interface TaskSender {
  send(body: StepEvent, options: { groupId: string; delaySeconds?: number; headers?: Record<string, string> }): Promise<void>;
}

/** The request header a re-sent busy/conflict copy carries: how many times its step was re-sent so. */
export const RESENDS_HEADER = 'x-kubeplane-resends';

/** The headers Cloud Tasks sets on every HTTP target request (https://cloud.google.com/tasks/docs/creating-http-target-tasks#handler). */
export const CLOUD_TASKS_HEADERS = {
  queue: 'x-cloudtasks-queuename',
  task: 'x-cloudtasks-taskname',
  /** Times the task was retried (0 on the first attempt), counting attempts that got no response. */
  retryCount: 'x-cloudtasks-taskretrycount',
  executionCount: 'x-cloudtasks-taskexecutioncount',
} as const;

export interface CloudTasksStepHandlerOptions {
  kubeplane: Kubeplane;
  queue: TaskSender;
  /** The queue's retry_config.max_attempts: the attempt that reaches it is the last. */
  maxAttempts: number;
  deadLetters: FirestoreDeadLetters;
  /** Each task's dispatch deadline: a pending dead letter older than this is a delivery that died. Default 600. */
  taskDeadlineSeconds?: number;
  clock?: Clock;
  logger?: Logger;
}

export type HttpHandler = (req: Request, res: Response) => Promise<void>;

export function createCloudTasksStepHandler(options: CloudTasksStepHandlerOptions): HttpHandler {
  const logger = options.logger ?? jsonLogger();
  const clock = options.clock ?? systemClock;
  const deadlineMs = (options.taskDeadlineSeconds ?? 600) * 1000;
  const engine = options.kubeplane.engine;

  return async (req, res) => {
    const header = (name: string) => {
      const v = req.headers[name];
      return Array.isArray(v) ? v[0] : v;
    };
    const task = header(CLOUD_TASKS_HEADERS.task);
    const queue = header(CLOUD_TASKS_HEADERS.queue);
    // Only Cloud Tasks calls this function (it holds run.invoker through the tasks service account, and Google's front
    // end strips X-CloudTasks-* headers from anything else); a request without them is a mistake, told so plainly.
    if (!task || !queue) {
      logger.log('warn', 'request refused: not from Cloud Tasks', { status: 400, method: req.method, path: req.path });
      res.status(400).json({ error: 'this function runs step tasks from Cloud Tasks: the X-CloudTasks-QueueName and X-CloudTasks-TaskName headers are missing' });
      return;
    }
    const attempt = Number(header(CLOUD_TASKS_HEADERS.retryCount) ?? 0) + 1;
    const last = attempt >= options.maxAttempts;
    const text = req.rawBody ? req.rawBody.toString('utf8') : typeof req.body === 'string' ? req.body : JSON.stringify(req.body ?? null);
    const parsed = parseStepEvent(text);
    if (!parsed.ok) {
      // Can never succeed: keep it for someone to look at, and answer 2xx so that Cloud Tasks stops.
      logger.log('error', 'invalid step message', { task, issues: parsed.issues });
      await options.deadLetters.record({ task, status: 'invalid', body: text.slice(0, 100_000), reason: 'not a step message', recordedAt: clock.now(), deadlineAt: clock.now() });
      res.status(200).json({ outcome: 'invalid' });
      return;
    }
    const event = parsed.event;
    const log = logger.child({ task, clusterId: event.clusterId, step: event.step, key: event.key, attempt });
    // The last attempt: a record first, so that a crash or timeout in the step still leaves a trace the watchdog acts on.
    const letter = last ? await options.deadLetters.record({ task, status: 'pending', body: text, event, recordedAt: clock.now(), deadlineAt: clock.now() + deadlineMs }) : undefined;
    let outcome: ProcessOutcome;
    try {
      outcome = await engine.handle(event);
    } catch (e) {
      log.log('error', 'step failed', errorFields(e));
      if (!letter) {
        // Cloud Tasks retries with the queue's backoff.
        res.status(500).json({ error: 'the step failed; Cloud Tasks retries it' });
        return;
      }
      const reason = `gave up after ${attempt} attempts of task ${event.key}: ${String(errorFields(e).error)}`;
      let marked: boolean;
      try {
        marked = await options.kubeplane.markFailed(event.clusterId, reason, { generation: event.generation, seq: event.seq });
        await options.deadLetters.update(letter.id, 'failed', reason);
      } catch (markError) {
        // The store is failing too: the dead letter stays pending, and the watchdog marks the cluster once it is overdue.
        log.log('error', 'last attempt failed and the cluster could not be marked; the watchdog will', { deadLetter: letter.id, ...errorFields(markError) });
        res.status(500).json({ error: 'the step failed on its last attempt; the watchdog marks the cluster' });
        return;
      }
      log.log('error', 'last attempt failed: cluster set to ERROR, dead letter kept', { marked, deadLetter: letter.id });
      // Handled: there is nothing left for Cloud Tasks to retry (the queue would drop the task after this attempt anyway).
      res.status(200).json({ outcome: 'dead-lettered', marked });
      return;
    }
    if (letter) await options.deadLetters.remove(letter.id);
    let resend: { resends: number; delaySeconds: number } | undefined;
    if (outcome === 'busy' || outcome === 'conflict') {
      // A fresh task without a name (its own name was used moments ago): a crash between this create and the 2xx
      // leaves a duplicate, which the engine drops as stale. The count grows the delay: 2, 4, 8 … s, capped by the lease.
      const resends = Number(header(RESENDS_HEADER) ?? 0) + 1;
      resend = { resends, delaySeconds: busyRetryDelaySeconds(resends, engine.leaseSeconds) };
      await options.queue.send(event, { groupId: event.clusterId, delaySeconds: resend.delaySeconds, headers: { [RESENDS_HEADER]: String(resends) } });
    }
    log.log('info', 'step handled', { outcome, ...resend });
    res.status(200).json({ outcome, ...resend });
  };
}
