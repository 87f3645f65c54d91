// The engine's queue on Cloud Tasks: each step message is an HTTP task that Cloud Tasks POSTs to the step function
// (JSON body, an OIDC token for the tasks service account with the function's URL as audience), retried with the
// queue's backoff until it answers 2xx. Cloud Tasks pushes; nothing receives, so this is a QueueSender only.
//
// Delays: scheduleTime (Cloud Tasks allows up to 30 days ahead; the engine asks for at most 900 s).
// Deduplication: a task named after the message's deduplication id is created once; a second create of the name
// answers ALREADY_EXISTS, which is the duplicate being dropped. The name stays taken while the task exists and for
// about an hour after it ran or was deleted ("task de-duplication",
// https://cloud.google.com/tasks/docs/reference/rest/v2/projects.locations.queues.tasks/create); past that window an
// id could be sent again. The engine stays safe past it: its deduplication ids name the cluster's incarnation,
// generation, sequence number and attempt, a message that no longer matches the cluster's record is dropped as stale,
// and a wait re-sends under a bumped attempt, so an id reused after the window is a stale message.
// Google recommends a well-distributed (hashed) prefix on task names for throughput, as sequential names make a hot
// spot (https://cloud.google.com/tasks/docs/reference/rest/v2/projects.locations.queues.tasks#Task): names are
// `<8 hex of sha256(id)>-<the id, made safe>`.
import { createHash } from 'node:crypto';
import type { CloudTasksClient } from '@google-cloud/tasks';
import { KubeplaneError, type QueueSender, type SendOptions } from '@kubeplane/sdk';
import { cloudTasksClient, googleStatus, type GoogleClientOptions } from './google-clients.js';

/** Cloud Tasks allows a dispatch deadline of 15 s to 30 min (https://cloud.google.com/tasks/docs/reference/rest/v2/projects.locations.queues.tasks#Task). */
export const MIN_DISPATCH_DEADLINE_SECONDS = 15;
/** The longest dispatch deadline Cloud Tasks allows, in seconds. */
export const MAX_DISPATCH_DEADLINE_SECONDS = 1800;
/** Cloud Tasks' limit on how far ahead a task may be scheduled. */
export const MAX_SCHEDULE_SECONDS = 30 * 86_400;

/** The Cloud Tasks queue the steps go through: its location, id, the step function's URL and the service account. */
export interface CloudTasksQueueOptions extends GoogleClientOptions {
  location: string;
  /** The queue id (short). */
  queue: string;
  /** Where tasks are POSTed: the step function's HTTPS URL; also the OIDC token's audience unless `audience` says. */
  url: string;
  /** The service account whose OIDC token Cloud Tasks attaches (it holds run.invoker on the step function). */
  serviceAccountEmail: string;
  audience?: string;
  /** Each task's dispatch deadline (>= the step function's timeout); default 600 s. */
  dispatchDeadlineSeconds?: number;
  /** Milliseconds now, for scheduleTime (default Date.now; the sandbox passes its virtual clock). */
  now?: () => number;
  client?: CloudTasksClient;
}

/** What a step message may carry besides the SendOptions: request headers of the task (the resend count). */
export interface CloudTasksSendOptions extends SendOptions {
  headers?: Record<string, string>;
}

export class CloudTasksQueue<T> implements QueueSender<T> {
  readonly client: CloudTasksClient;
  readonly queuePath: string;
  readonly #options: CloudTasksQueueOptions;
  readonly #deadline: number;
  readonly #now: () => number;

  constructor(options: CloudTasksQueueOptions) {
    this.client = options.client ?? cloudTasksClient(options);
    this.queuePath = `projects/${options.projectId}/locations/${options.location}/queues/${options.queue}`;
    this.#options = options;
    this.#deadline = options.dispatchDeadlineSeconds ?? 600;
    if (!Number.isInteger(this.#deadline) || this.#deadline < MIN_DISPATCH_DEADLINE_SECONDS || this.#deadline > MAX_DISPATCH_DEADLINE_SECONDS) {
      throw new KubeplaneError(
        'invalid',
        `dispatch deadline ${this.#deadline} s is outside Cloud Tasks' range (${MIN_DISPATCH_DEADLINE_SECONDS} to ${MAX_DISPATCH_DEADLINE_SECONDS} s)`,
      );
    }
    this.#now = options.now ?? Date.now;
  }

  /** The task name for a deduplication id. */
  taskName(deduplicationId: string): string {
    return `${this.queuePath}/tasks/${taskId(deduplicationId)}`;
  }

  /** Creates the task of a message, named after its deduplication id, scheduled after its delay. */
  async send(body: T, options: CloudTasksSendOptions): Promise<void> {
    const delay = options.delaySeconds ?? 0;
    if (delay < 0 || delay > MAX_SCHEDULE_SECONDS)
      throw new KubeplaneError('invalid', `a delay of ${delay} s is outside what Cloud Tasks schedules (0 to 30 days)`);
    const at = this.#now() + delay * 1000;
    const task = {
      ...(options.deduplicationId ? { name: this.taskName(options.deduplicationId) } : {}),
      ...(delay > 0 ? { scheduleTime: { seconds: Math.floor(at / 1000), nanos: (at % 1000) * 1e6 } } : {}),
      dispatchDeadline: { seconds: this.#deadline },
      httpRequest: {
        url: this.#options.url,
        httpMethod: 'POST' as const,
        headers: { 'Content-Type': 'application/json', 'X-Kubeplane-Group': options.groupId, ...options.headers },
        body: Buffer.from(JSON.stringify(body), 'utf8'),
        oidcToken: { serviceAccountEmail: this.#options.serviceAccountEmail, audience: this.#options.audience ?? this.#options.url },
      },
    };
    try {
      await this.client.createTask({ parent: this.queuePath, task });
    } catch (e) {
      // The name is taken: this message was sent already (or ran within the last hour). Dropping it is the point.
      if (googleStatus(e) === 'ALREADY_EXISTS') return;
      throw e;
    }
  }
}

/** `<8 hex of sha256(id)>-<id with anything outside [A-Za-z0-9_-] as '_'>`, within the 500 characters a task id may have. */
export function taskId(deduplicationId: string): string {
  const hash = createHash('sha256').update(deduplicationId).digest('hex');
  // The readable part is for people reading the queue; the full hash keeps distinct ids distinct when it is cut.
  const readable = deduplicationId.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 400);
  return `${hash.slice(0, 8)}-${readable}-${hash.slice(8, 40)}`;
}
