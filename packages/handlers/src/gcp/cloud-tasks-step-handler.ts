// The step function behind Cloud Tasks: each task is one StepEvent POSTed by Cloud Tasks, which retries it with the
// queue's backoff until the function answers 2xx. What becomes of each attempt is the SDK's decision (deliverStep);
// this file maps it onto HTTP: contention is answered 2xx after a fresh copy of the task is created (no name, a
// growing delay, the resend count in a header), a failure with attempts left 5xx. Cloud Tasks has no dead-letter
// queue: the last attempt follows the dead-letter path (firestore-dead-letters.ts).
import type { Request, Response } from '@google-cloud/functions-framework';
import { deliverStep } from '@kubeplane/sdk/internal';
import { parseStepEvent, systemClock, type Clock, type Kubeplane, type StepEvent } from '@kubeplane/sdk';
import { errorFields, jsonLogger, type Logger } from '../runtime/logger.js';
import type { FirestoreDeadLetters } from './firestore-dead-letters.js';

/** Where a busy step's fresh copy goes (the CloudTasksQueue the engine sends on). */
export interface TaskSender {
  /** Sends a step message again. */
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

/** What the step function runs with: the Kubeplane, the queue, its max attempts, the dead letters and a logger. */
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

/** An HTTP function as the Functions Framework calls it. */
export type HttpHandler = (req: Request, res: Response) => Promise<void>;

/** Builds the HTTP function Cloud Tasks delivers step messages to. */
export function createCloudTasksStepHandler(options: CloudTasksStepHandlerOptions): HttpHandler {
  const logger = options.logger ?? jsonLogger();
  const clock = options.clock ?? systemClock;
  const deadlineMs = (options.taskDeadlineSeconds ?? 600) * 1000;

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
      res
        .status(400)
        .json({ error: 'this function runs step tasks from Cloud Tasks: the X-CloudTasks-QueueName and X-CloudTasks-TaskName headers are missing' });
      return;
    }
    const attempt = Number(header(CLOUD_TASKS_HEADERS.retryCount) ?? 0) + 1;
    const last = attempt >= options.maxAttempts;
    const text = req.rawBody ? req.rawBody.toString('utf8') : typeof req.body === 'string' ? req.body : JSON.stringify(req.body ?? null);
    const parsed = parseStepEvent(text);
    if (!parsed.ok) {
      // Can never succeed: keep it for someone to look at, and answer 2xx so that Cloud Tasks stops.
      logger.log('error', 'invalid step message', { task, issues: parsed.issues });
      await options.deadLetters.record({
        task,
        status: 'invalid',
        body: text.slice(0, 100_000),
        reason: 'not a step message',
        recordedAt: clock.now(),
        deadlineAt: clock.now(),
      });
      res.status(200).json({ outcome: 'invalid' });
      return;
    }
    const event = parsed.event;
    const log = logger.child({ task, clusterId: event.clusterId, step: event.step, key: event.key, attempt });
    // The last attempt: a record first, so that a crash or timeout in the step still leaves a trace the watchdog acts on.
    const letter = last
      ? await options.deadLetters.record({ task, status: 'pending', body: text, event, recordedAt: clock.now(), deadlineAt: clock.now() + deadlineMs })
      : undefined;
    const decision = await deliverStep(options.kubeplane, {
      event,
      attempt,
      maxAttempts: options.maxAttempts,
      resends: Number(header(RESENDS_HEADER) ?? 0),
      deliveries: 'attempts of task',
    });
    if (decision.action === 'retry' || decision.action === 'dead-letter') log.log('error', 'step failed', errorFields(decision.error));
    if (decision.action === 'retry') {
      // Cloud Tasks retries with the queue's backoff.
      res.status(500).json({ error: 'the step failed; Cloud Tasks retries it' });
      return;
    }
    if (decision.action === 'dead-letter') {
      // (Only on the last attempt, which recorded the letter above.)
      try {
        if (decision.markError) throw decision.markError;
        if (letter) await options.deadLetters.update(letter.id, 'failed', decision.reason);
      } catch (markError) {
        // The store is failing too: the dead letter stays pending, and the watchdog marks the cluster once it is overdue.
        log.log('error', 'last attempt failed and the cluster could not be marked; the watchdog will', { deadLetter: letter?.id, ...errorFields(markError) });
        res.status(500).json({ error: 'the step failed on its last attempt; the watchdog marks the cluster' });
        return;
      }
      log.log('error', 'last attempt failed: cluster set to ERROR, dead letter kept', { marked: decision.marked, deadLetter: letter?.id });
      // Handled: there is nothing left for Cloud Tasks to retry (the queue would drop the task after this attempt anyway).
      res.status(200).json({ outcome: 'dead-lettered', marked: decision.marked });
      return;
    }
    if (letter) await options.deadLetters.remove(letter.id);
    if (decision.action !== 'resend') {
      log.log('info', 'step handled', { outcome: decision.outcome });
      res.status(200).json({ outcome: decision.outcome });
      return;
    }
    // A fresh task without a name (its own name was used moments ago): a crash between this create and the 2xx
    // leaves a duplicate, which the engine drops as stale.
    const resend = { resends: decision.resends, delaySeconds: decision.delaySeconds };
    await options.queue.send(event, { groupId: event.clusterId, delaySeconds: resend.delaySeconds, headers: { [RESENDS_HEADER]: String(resend.resends) } });
    log.log('info', 'step handled', { outcome: decision.outcome, ...resend });
    res.status(200).json({ outcome: decision.outcome, ...resend });
  };
}
