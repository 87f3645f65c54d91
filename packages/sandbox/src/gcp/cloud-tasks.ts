// Cloud Tasks v2 (cloudtasks.googleapis.com) with HTTP targets, on the virtual clock: queues with their RetryConfig,
// tasks with de-duplication, and the push side Cloud Tasks' backend runs (takeDue/complete: the lead's dispatcher
// delivers each TaskDispatch to the step function and reports the outcome). Rules quoted from google/cloud/tasks/v2's
// protos (protos/) and https://cloud.google.com/tasks/docs/creating-http-target-tasks.
import { randomInt } from 'node:crypto';
import type { HttpHandler } from 'msw';
import type { VirtualClock } from '@kubeplane/sdk/provider';
import { alreadyExists, GoogleRestService, invalidArgument, notFound, page, parseDurationSeconds, parseMicros, rfc3339Micros, type Json } from './api.js';
import type { GoogleIdentityEmulator } from './identity.js';

export const CLOUD_TASKS_HOST = 'cloudtasks.googleapis.com';

/** Task ids: "letters, numbers, hyphens or underscores", at most 500 characters (Task.name). */
const TASK_NAME = /^(projects\/[^/]+\/locations\/[^/]+\/queues\/[^/]+)\/tasks\/([A-Za-z0-9_-]{1,500})$/;
/** Queue ids: "letters, numbers or hyphens", at most 100 characters (Queue.name). */
const QUEUE_NAME = /^(projects\/[^/]+\/locations\/[^/]+)\/queues\/([A-Za-z0-9-]{1,100})$/;
/** "another task with the same name can't be created for ~1hour after the original task was deleted or executed". */
const TOMBSTONE_MS = 3600_000;
/** CreateTaskRequest: schedule_time at most 30 days ahead. */
const MAX_SCHEDULE_AHEAD_MS = 30 * 24 * 3600_000;
/** "The maximum task size is 100KB." (CreateTask). */
const MAX_TASK_BYTES = 100 * 1024;
/** Task.dispatch_deadline: "For HTTP tasks, the default is 10 minutes. The deadline must be in the interval [15 seconds, 30 minutes]." */
const DEFAULT_DEADLINE_S = 600;
const MIN_DEADLINE_S = 15;
const MAX_DEADLINE_S = 1800;
/**
 * The RetryConfig a queue made through the API gets when none is given
 * (https://cloud.google.com/tasks/docs/configuring-queues#retry): 100 attempts, backoff 0.1 s to 3600 s, 16 doublings,
 * no retry-duration limit.
 */
const DEFAULT_RETRY: QueueRetry = { maxAttempts: 100, minBackoffSeconds: 0.1, maxBackoffSeconds: 3600, maxDoublings: 16, maxRetryDurationSeconds: 0 };

/** Headers a task cannot set: "ignored or replaced" (HttpRequest.headers). */
const REPLACED_HEADERS = /^(host|content-length|user-agent|x-google-.*|x-appengine-.*|x-cloudtasks-.*)$/i;

/** A queue's RetryConfig (google/cloud/tasks/v2's Queue.retry_config), durations in seconds. */
export interface QueueRetry {
  maxAttempts: number;
  minBackoffSeconds: number;
  maxBackoffSeconds: number;
  maxDoublings: number;
  maxRetryDurationSeconds: number;
}

interface Queue {
  name: string;
  state: 'RUNNING' | 'PAUSED';
  retry: QueueRetry;
  /** RateLimits.max_concurrent_dispatches: at most this many of the queue's tasks in flight (default 1000). */
  maxConcurrentDispatches: number;
  /** RateLimits.max_dispatches_per_second, shown, not enforced: the dispatcher paces deliveries. */
  maxDispatchesPerSecond: number;
}

interface Attempt {
  scheduleMs: number;
  dispatchMs: number;
  responseMs?: number;
  responseStatus?: { code: number; message: string };
}

interface Task {
  name: string;
  queue: string;
  url: string;
  method: string;
  headers: Record<string, string>;
  body: Buffer;
  oidc?: { serviceAccountEmail: string; audience?: string };
  scheduleMs: number;
  createMs: number;
  deadlineSeconds: number;
  dispatchCount: number;
  responseCount: number;
  /**
   * X-CloudTasks-TaskExecutionCount: "the total number of times that the task has received a response from the
   * handler ... This number does not include failures due to 5XX error codes."
   */
  executionCount: number;
  /** Task.first_attempt: "Only dispatch_time will be set. The other Attempt information is not retained by Cloud Tasks." */
  firstDispatchMs?: number;
  lastAttempt?: Attempt;
  inFlight: boolean;
  /** RunTask: dispatch now even though the queue is paused. */
  forced: boolean;
  previousResponse?: number;
  retryReason?: string;
}

/** One HTTP request Cloud Tasks sends to a task's target. */
export interface TaskDispatch {
  /** The task's full name. */
  task: string;
  /** The queue's full name. */
  queue: string;
  url: string;
  method: string;
  headers: Record<string, string>;
  body: Buffer;
  dispatchDeadlineSeconds: number;
  /** 1-based. */
  attempt: number;
}

/**
 * What a dispatched task's target did: answered with an HTTP status, let the dispatch deadline pass, or could not be
 * reached.
 */
export type TaskOutcome = { status: number } | 'deadline-exceeded' | 'unreachable';

export interface CloudTasksCounts {
  created: number;
  /** CreateTask answered ALREADY_EXISTS (the name is taken or was used within the hour). */
  duplicates: number;
  dispatched: number;
}

/** google.rpc.Code for an HTTP status (google/rpc/code.proto's HTTP mapping), as Attempt.response_status carries it. */
function rpcCode(status: number): number {
  const codes: Record<number, number> = { 400: 3, 401: 16, 403: 7, 404: 5, 409: 10, 429: 8, 499: 1, 500: 13, 501: 12, 503: 14, 504: 4 };
  return codes[status] ?? 2;
}

/**
 * The wait before retry `n` (1 = the first retry), RetryConfig.max_doublings' rule: min_backoff doubling
 * max_doublings times, then growing linearly by 2^max_doublings * min_backoff, capped at max_backoff ("10s, 20s,
 * 40s, 80s, 160s, 240s, 300s, 300s" for 10 s, 300 s and 3 doublings).
 */
export function retryDelaySeconds(retry: QueueRetry, n: number): number {
  const k = n - 1;
  const base = retry.minBackoffSeconds;
  const interval = k <= retry.maxDoublings ? base * 2 ** k : base * 2 ** retry.maxDoublings * (1 + k - retry.maxDoublings);
  return Math.min(interval, retry.maxBackoffSeconds);
}

/**
 * Cloud Tasks v2 (cloudtasks.googleapis.com, REST from the vendored protos) with HTTP-target tasks on the virtual clock:
 * queues with their RetryConfig, task de-duplication for an hour, and the push side, which the caller drives: `takeDue`
 * hands out due tasks and `complete` reports each outcome.
 */
export class CloudTasksEmulator {
  readonly #queues = new Map<string, Queue>();
  readonly #tasks = new Map<string, Task>();
  /** Names deleted or executed, and when they can be used again. */
  readonly #tombstones = new Map<string, number>();
  readonly #dropped: Array<{ task: string; queue: string; attempts: number; lastStatus: number | string }> = [];
  readonly #counts: CloudTasksCounts = { created: 0, duplicates: 0, dispatched: 0 };
  readonly #clock: VirtualClock;
  readonly #identity: GoogleIdentityEmulator;
  readonly #service: GoogleRestService;

  constructor(options: { clock: VirtualClock; identity: GoogleIdentityEmulator }) {
    this.#clock = options.clock;
    this.#identity = options.identity;
    this.#service = new GoogleRestService(CLOUD_TASKS_HOST, 'google.cloud.tasks.v2.CloudTasks', {
      CreateQueue: (r) =>
        this.#queueView(
          this.#createQueue(
            `${r.parent as string}/queues/${String(((r.queue as Json | undefined)?.name as string | undefined)?.split('/').pop() ?? '')}`,
            (r.queue as Json | undefined) ?? {},
            r.parent as string,
          ),
        ),
      GetQueue: (r) => this.#queueView(this.#queue(r.name as string)),
      ListQueues: (r) => {
        const all = [...this.#queues.values()].filter((q) => q.name.startsWith(`${r.parent as string}/queues/`)).sort((a, b) => (a.name < b.name ? -1 : 1));
        const { items, nextPageToken } = page(all, r.pageSize, r.pageToken, 9800);
        return { queues: items.map((q) => this.#queueView(q)), ...(nextPageToken ? { nextPageToken } : {}) };
      },
      DeleteQueue: (r) => {
        const queue = this.#queue(r.name as string);
        for (const t of this.#tasks.values()) if (t.queue === queue.name) this.#tasks.delete(t.name);
        this.#queues.delete(queue.name);
        return {};
      },
      PurgeQueue: (r) => {
        const queue = this.#queue(r.name as string);
        for (const t of this.#tasks.values()) if (t.queue === queue.name) this.#forget(t);
        return this.#queueView(queue);
      },
      PauseQueue: (r) => this.#queueView(Object.assign(this.#queue(r.name as string), { state: 'PAUSED' as const })),
      ResumeQueue: (r) => this.#queueView(Object.assign(this.#queue(r.name as string), { state: 'RUNNING' as const })),
      CreateTask: (r) => this.#createTask(r),
      GetTask: (r) => this.#taskView(this.#task(r.name as string), r.responseView),
      ListTasks: (r) => {
        const queue = this.#queue(r.parent as string);
        const all = [...this.#tasks.values()].filter((t) => t.queue === queue.name).sort((a, b) => a.scheduleMs - b.scheduleMs || (a.name < b.name ? -1 : 1));
        const { items, nextPageToken } = page(all, r.pageSize, r.pageToken, 1000);
        return { tasks: items.map((t) => this.#taskView(t, r.responseView)), ...(nextPageToken ? { nextPageToken } : {}) };
      },
      DeleteTask: (r) => {
        this.#forget(this.#task(r.name as string));
        return {};
      },
      RunTask: (r) => {
        const task = this.#task(r.name as string);
        task.scheduleMs = Math.min(task.scheduleMs, this.#clock.now());
        task.forced = true;
        return this.#taskView(task, r.responseView);
      },
    });
  }

  /** The msw handler serving cloudtasks.googleapis.com. */
  handler(): HttpHandler {
    return this.#service.handler();
  }

  /** Tasks created, refused as duplicates and dispatched so far. */
  counts(): CloudTasksCounts {
    return { ...this.#counts };
  }

  /** Creates a RUNNING queue (what `gcloud tasks queues create` or the deploy does). */
  createQueue(name: string, config: Partial<QueueRetry> & { maxConcurrentDispatches?: number } = {}): void {
    const parent = QUEUE_NAME.exec(name)?.[1];
    if (!parent) throw new Error(`a queue name is projects/<project>/locations/<location>/queues/<id>, not ${name}`);
    const { maxConcurrentDispatches, ...retry } = config;
    this.#createQueue(name, { retryConfig: {}, ...(maxConcurrentDispatches !== undefined ? { rateLimits: { maxConcurrentDispatches } } : {}) }, parent, retry);
  }

  /** The earliest time (ms) a task not in flight in a RUNNING queue is due; null when there is none. */
  nextDueAt(): number | null {
    let next: number | null = null;
    for (const t of this.#tasks.values()) if (this.#dispatchable(t) && (next === null || t.scheduleMs < next)) next = t.scheduleMs;
    return next;
  }

  /** Up to `max` due tasks, earliest first, marked in flight: the requests Cloud Tasks sends now. */
  takeDue(max: number): TaskDispatch[] {
    const now = this.#clock.now();
    const due = [...this.#tasks.values()]
      .filter((t) => this.#dispatchable(t) && t.scheduleMs <= now)
      .sort((a, b) => a.scheduleMs - b.scheduleMs || a.createMs - b.createMs);
    const out: TaskDispatch[] = [];
    for (const t of due) {
      if (out.length >= max) break;
      if (this.#dispatchable(t)) out.push(this.#dispatch(t, now));
    }
    return out;
  }

  /**
   * What came of a dispatch: a 2xx deletes the task; anything else (another status, the dispatch deadline passing,
   * the target unreachable) retries it per the queue's RetryConfig, or drops it once its attempts are spent.
   */
  complete(name: string, outcome: TaskOutcome): void {
    const task = this.#tasks.get(name);
    // "A task can be deleted if it is scheduled or dispatched": what its target answers after that changes nothing.
    if (!task) return;
    if (!task.inFlight) throw new Error(`Cloud Tasks' task ${name} is not in flight: complete() follows takeDue()`);
    const now = this.#clock.now();
    task.inFlight = false;
    task.forced = false;
    const attempt = task.lastAttempt as Attempt;
    if (typeof outcome === 'object') {
      attempt.responseMs = now;
      attempt.responseStatus = { code: outcome.status >= 200 && outcome.status < 300 ? 0 : rpcCode(outcome.status), message: `HTTP status ${outcome.status}` };
      task.responseCount += 1;
      if (outcome.status < 500) task.executionCount += 1;
      if (outcome.status >= 200 && outcome.status < 300) {
        this.#forget(task);
        return;
      }
      task.previousResponse = outcome.status;
    } else {
      attempt.responseStatus =
        outcome === 'deadline-exceeded' ? { code: 4, message: 'Deadline exceeded.' } : { code: 14, message: 'The target was unreachable.' };
      delete task.previousResponse;
    }
    // X-CloudTasks-TaskRetryReason's values are not documented; these name the cause the sandbox knows.
    task.retryReason = typeof outcome === 'object' ? `HTTP_STATUS_${outcome.status}` : outcome === 'deadline-exceeded' ? 'DEADLINE_EXCEEDED' : 'UNREACHABLE';
    const retry = (this.#queues.get(task.queue) as Queue).retry;
    const attemptsSpent = retry.maxAttempts !== -1 && task.dispatchCount >= retry.maxAttempts;
    const elapsed = (now - (task.firstDispatchMs ?? now)) / 1000;
    const durationSpent = retry.maxRetryDurationSeconds > 0 && elapsed >= retry.maxRetryDurationSeconds;
    // RetryConfig.max_retry_duration: "Once max_retry_duration time has passed *and* the task has been attempted
    // max_attempts times, no further attempts will be made"; an unlimited one of the two leaves the other to decide.
    const exhausted =
      (retry.maxAttempts === -1 ? retry.maxRetryDurationSeconds > 0 : attemptsSpent) &&
      (retry.maxRetryDurationSeconds > 0 ? durationSpent : retry.maxAttempts !== -1);
    if (exhausted) {
      this.#dropped.push({
        task: task.name,
        queue: task.queue,
        attempts: task.dispatchCount,
        lastStatus: typeof outcome === 'object' ? outcome.status : outcome,
      });
      this.#forget(task);
      return;
    }
    task.scheduleMs = now + Math.round(retryDelaySeconds(retry, task.dispatchCount) * 1000);
  }

  /** Tasks Cloud Tasks gave up on (their attempts spent), oldest first. */
  dropped(): Array<{ task: string; queue: string; attempts: number; lastStatus: number | string }> {
    return this.#dropped.map((d) => ({ ...d }));
  }

  /** Tasks not done (scheduled or in flight), of one queue (full name) or all. */
  size(queue?: string): number {
    let n = 0;
    for (const t of this.#tasks.values()) if (queue === undefined || t.queue === queue) n += 1;
    return n;
  }

  #dispatchable(t: Task): boolean {
    if (t.inFlight) return false;
    if (t.forced) return true;
    const queue = this.#queues.get(t.queue);
    return queue?.state === 'RUNNING' && this.#inFlight(queue.name) < queue.maxConcurrentDispatches;
  }

  #inFlight(queue: string): number {
    let n = 0;
    for (const t of this.#tasks.values()) if (t.queue === queue && t.inFlight) n += 1;
    return n;
  }

  #dispatch(task: Task, now: number): TaskDispatch {
    task.inFlight = true;
    task.dispatchCount += 1;
    this.#counts.dispatched += 1;
    const attempt: Attempt = { scheduleMs: task.scheduleMs, dispatchMs: now };
    task.lastAttempt = attempt;
    task.firstDispatchMs ??= now;
    const queueId = task.queue.split('/').pop() as string;
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(task.headers)) if (!REPLACED_HEADERS.test(k)) headers[k] = v;
    // Cloud Tasks' request headers (https://cloud.google.com/tasks/docs/creating-http-target-tasks#handler).
    Object.assign(headers, {
      'User-Agent': 'Google-Cloud-Tasks',
      'X-CloudTasks-QueueName': queueId,
      'X-CloudTasks-TaskName': task.name.split('/').pop() as string,
      'X-CloudTasks-TaskRetryCount': String(task.dispatchCount - 1),
      'X-CloudTasks-TaskExecutionCount': String(task.executionCount),
      'X-CloudTasks-TaskETA': (task.scheduleMs / 1000).toFixed(6),
      ...(task.previousResponse !== undefined ? { 'X-CloudTasks-TaskPreviousResponse': String(task.previousResponse) } : {}),
      ...(task.retryReason !== undefined && task.dispatchCount > 1 ? { 'X-CloudTasks-TaskRetryReason': task.retryReason } : {}),
    });
    if (task.body.length > 0 && !Object.keys(headers).some((k) => k.toLowerCase() === 'content-type')) headers['Content-Type'] = 'application/octet-stream';
    if (task.oidc) {
      // OidcToken.audience: "If not specified, the URI specified in target will be used" (without its query).
      const audience = task.oidc.audience || (task.url.split('?')[0] as string);
      headers.Authorization = `Bearer ${this.#identity.idToken({ email: task.oidc.serviceAccountEmail, audience })}`;
    }
    return {
      task: task.name,
      queue: task.queue,
      url: task.url,
      method: task.method,
      headers,
      body: Buffer.from(task.body),
      dispatchDeadlineSeconds: task.deadlineSeconds,
      attempt: task.dispatchCount,
    };
  }

  #forget(task: Task): void {
    this.#tasks.delete(task.name);
    this.#tombstones.set(task.name, this.#clock.now() + TOMBSTONE_MS);
  }

  #createQueue(name: string, body: Json, parent: string, overrides: Partial<QueueRetry> = {}): Queue {
    if (!QUEUE_NAME.test(name) || !name.startsWith(`${parent}/`)) {
      throw invalidArgument(
        `Queue name must be formatted: "projects/<PROJECT_ID>/locations/<LOCATION_ID>/queues/<QUEUE_ID>" ` +
          `with QUEUE_ID of letters, numbers or hyphens, at most 100: ${name}`,
      );
    }
    if (this.#queues.has(name)) throw alreadyExists('Requested entity already exists');
    const r = (body.retryConfig as Json | undefined) ?? {};
    const retry: QueueRetry = {
      maxAttempts: typeof r.maxAttempts === 'number' && r.maxAttempts !== 0 ? r.maxAttempts : DEFAULT_RETRY.maxAttempts,
      minBackoffSeconds: typeof r.minBackoff === 'string' ? parseDurationSeconds(r.minBackoff) : DEFAULT_RETRY.minBackoffSeconds,
      maxBackoffSeconds: typeof r.maxBackoff === 'string' ? parseDurationSeconds(r.maxBackoff) : DEFAULT_RETRY.maxBackoffSeconds,
      maxDoublings: typeof r.maxDoublings === 'number' && r.maxDoublings !== 0 ? r.maxDoublings : DEFAULT_RETRY.maxDoublings,
      maxRetryDurationSeconds: typeof r.maxRetryDuration === 'string' ? parseDurationSeconds(r.maxRetryDuration) : DEFAULT_RETRY.maxRetryDurationSeconds,
      ...overrides,
    };
    if (retry.maxAttempts < -1) throw invalidArgument('RetryConfig.max_attempts must be >= -1.');
    if (retry.minBackoffSeconds > retry.maxBackoffSeconds) throw invalidArgument('RetryConfig.min_backoff must not be greater than RetryConfig.max_backoff.');
    const limits = (body.rateLimits as Json | undefined) ?? {};
    // RateLimits' defaults for a queue made through the API: 500 dispatches a second, 1000 concurrent.
    const queue: Queue = {
      name,
      state: body.state === 'PAUSED' ? 'PAUSED' : 'RUNNING',
      retry,
      maxConcurrentDispatches: typeof limits.maxConcurrentDispatches === 'number' && limits.maxConcurrentDispatches > 0 ? limits.maxConcurrentDispatches : 1000,
      maxDispatchesPerSecond: typeof limits.maxDispatchesPerSecond === 'number' && limits.maxDispatchesPerSecond > 0 ? limits.maxDispatchesPerSecond : 500,
    };
    if (queue.maxConcurrentDispatches > 5000) throw invalidArgument('RateLimits.max_concurrent_dispatches must be at most 5000.');
    if (queue.maxDispatchesPerSecond > 500) throw invalidArgument('RateLimits.max_dispatches_per_second must be at most 500.');
    this.#queues.set(name, queue);
    return queue;
  }

  #queue(name: string): Queue {
    const queue = this.#queues.get(name);
    if (!queue) throw notFound('Requested entity was not found.');
    return queue;
  }

  #queueView(q: Queue): Json {
    const s = (n: number): string => `${n}s`;
    return {
      name: q.name,
      state: q.state,
      rateLimits: { maxDispatchesPerSecond: q.maxDispatchesPerSecond, maxBurstSize: 100, maxConcurrentDispatches: q.maxConcurrentDispatches },
      retryConfig: {
        maxAttempts: q.retry.maxAttempts,
        minBackoff: s(q.retry.minBackoffSeconds),
        maxBackoff: s(q.retry.maxBackoffSeconds),
        maxDoublings: q.retry.maxDoublings,
        maxRetryDuration: s(q.retry.maxRetryDurationSeconds),
      },
    };
  }

  #task(name: string): Task {
    const task = this.#tasks.get(name);
    if (!task) throw notFound('Requested entity was not found.');
    return task;
  }

  #createTask(r: Json): Json {
    const parent = r.parent as string;
    const queue = this.#queues.get(parent);
    if (!queue) throw notFound('Queue does not exist. If you just created the queue, wait at least a minute for the queue to initialize.');
    const body = (r.task as Json | undefined) ?? {};
    if (body.appEngineHttpRequest !== undefined || body.httpRequest === undefined)
      throw invalidArgument('The sandbox emulates HTTP target tasks: Task.http_request is required.');
    const now = this.#clock.now();
    let name = body.name as string | undefined;
    if (name === undefined || name === '') name = `${parent}/tasks/${String(randomInt(1e9, 1e10 - 1))}${String(randomInt(1e9, 1e10 - 1))}`;
    else {
      const m = TASK_NAME.exec(name);
      if (!m || m[1] !== parent)
        throw invalidArgument(
          `Task name must be formatted: "projects/<PROJECT_ID>/locations/<LOCATION_ID>/queues/<QUEUE_ID>/tasks/<TASK_ID>" ` +
            `with TASK_ID of letters, numbers, hyphens or underscores, at most 500, in queue ${parent}: ${name}`,
        );
      const tomb = this.#tombstones.get(name);
      if (this.#tasks.has(name) || (tomb !== undefined && tomb > now)) {
        this.#counts.duplicates += 1;
        throw alreadyExists('Requested entity already exists');
      }
    }
    const http = body.httpRequest as Json;
    const url = http.url as string | undefined;
    if (!url || !/^https?:\/\/[^/]/.test(url) || url.length > 2083)
      throw invalidArgument(`HttpRequest.url must be an absolute http(s) URL of at most 2083 characters: ${String(url)}`);
    const taskBody = Buffer.from((http.body as string | undefined) ?? '', 'base64');
    const size = Buffer.byteLength(JSON.stringify(body));
    if (size > MAX_TASK_BYTES) throw invalidArgument(`Task size too large: ${size} bytes; the maximum task size is 102400 bytes.`);
    const scheduleMs = typeof body.scheduleTime === 'string' ? Math.floor(parseMicros(body.scheduleTime) / 1000) : now;
    if (scheduleMs > now + MAX_SCHEDULE_AHEAD_MS) throw invalidArgument('Task.schedule_time must be at most 30 days in the future.');
    const deadlineSeconds = typeof body.dispatchDeadline === 'string' ? parseDurationSeconds(body.dispatchDeadline) : DEFAULT_DEADLINE_S;
    if (deadlineSeconds < MIN_DEADLINE_S || deadlineSeconds > MAX_DEADLINE_S)
      throw invalidArgument(`Task.dispatch_deadline must be in the interval [15s, 1800s] for HTTP tasks, got ${String(body.dispatchDeadline)}.`);
    if (http.oauthToken !== undefined)
      throw invalidArgument('The sandbox emulates OIDC tokens only (HttpRequest.oidc_token); OAuth tokens are for *.googleapis.com targets.');
    const oidc = http.oidcToken as Json | undefined;
    if (oidc && typeof oidc.serviceAccountEmail !== 'string') throw invalidArgument('OidcToken.service_account_email is required.');
    const task: Task = {
      name,
      queue: parent,
      url,
      method: (http.httpMethod as string | undefined) && http.httpMethod !== 'HTTP_METHOD_UNSPECIFIED' ? (http.httpMethod as string) : 'POST',
      headers: { ...((http.headers as Record<string, string> | undefined) ?? {}) },
      body: taskBody,
      ...(oidc
        ? {
            oidc: {
              serviceAccountEmail: oidc.serviceAccountEmail as string,
              ...(typeof oidc.audience === 'string' && oidc.audience !== '' ? { audience: oidc.audience } : {}),
            },
          }
        : {}),
      // "If schedule_time is not set or is in the past then Cloud Tasks will set it to the current time."
      scheduleMs: Math.max(scheduleMs, now),
      createMs: now,
      deadlineSeconds,
      dispatchCount: 0,
      responseCount: 0,
      executionCount: 0,
      inFlight: false,
      forced: false,
    };
    this.#tasks.set(name, task);
    this.#counts.created += 1;
    return this.#taskView(task, r.responseView);
  }

  #taskView(t: Task, view: unknown): Json {
    const full = view === 'FULL';
    const attempt = (a: Attempt | undefined): Json | undefined =>
      a && {
        scheduleTime: rfc3339Micros(a.scheduleMs * 1000),
        dispatchTime: rfc3339Micros(a.dispatchMs * 1000),
        ...(a.responseMs !== undefined ? { responseTime: rfc3339Micros(a.responseMs * 1000) } : {}),
        ...(a.responseStatus ? { responseStatus: a.responseStatus } : {}),
      };
    return {
      name: t.name,
      httpRequest: {
        url: t.url,
        httpMethod: t.method,
        headers: t.headers,
        // Task.View BASIC "omits fields which can be large or can contain sensitive data": the body.
        ...(full && t.body.length > 0 ? { body: t.body.toString('base64') } : {}),
        ...(t.oidc ? { oidcToken: { ...t.oidc } } : {}),
      },
      scheduleTime: rfc3339Micros(t.scheduleMs * 1000),
      createTime: rfc3339Micros(t.createMs * 1000),
      dispatchDeadline: `${t.deadlineSeconds}s`,
      dispatchCount: t.dispatchCount,
      responseCount: t.responseCount,
      ...(t.firstDispatchMs !== undefined ? { firstAttempt: { dispatchTime: rfc3339Micros(t.firstDispatchMs * 1000) } } : {}),
      ...(t.lastAttempt ? { lastAttempt: attempt(t.lastAttempt) } : {}),
      view: full ? 'FULL' : 'BASIC',
    };
  }
}
