// A stand-in for Cloud Tasks' dispatcher, for tests: takes the tasks that are due from the sandbox's Cloud Tasks
// emulator, sends each as the HTTP request Cloud Tasks would send to the step function (a functions-framework server
// on loopback), and reports each response back so the emulator deletes the task (2xx) or schedules its retry with the
// queue's backoff. On the sandbox's virtual clock it jumps time to the next due task when none is due. Hooks let a test
// kill an invocation mid-step (no answer: the dispatch deadline passes and Cloud Tasks retries) or deliver one task twice
// at once (Cloud Tasks delivers at least once), and several step functions (instances) share the work.
import type { VirtualClock } from '@kubeplane/sdk/provider';
import type { CloudTasksEmulator, TaskDispatch } from '@kubeplane/sandbox';

export interface DispatchReport {
  /** HTTP requests sent to step functions. */
  invocations: number;
  /** Tasks taken from the queue (a task delivered twice counts once). */
  dispatches: number;
  /** Responses that were not 2xx, and kills. */
  failures: number;
  stopped: 'idle' | 'max-dispatches';
}

export interface DispatcherOptions {
  tasks: CloudTasksEmulator;
  clock: VirtualClock;
  /** Where each task URL's host is served: the functions-framework servers on loopback, by task URL origin. */
  targets: Record<string, string[]>;
  /** Tasks dispatched at a time (the queue's maxConcurrentDispatches stands in). */
  batchSize?: number;
  maxDispatches?: number;
  /**
   * Called per task; 'kill' sends it and abandons the invocation unanswered (its deadline passes, Cloud Tasks retries),
   * 'twice' sends the same request to two instances at once.
   */
  onTask?: (dispatch: TaskDispatch, body: unknown, index: number) => 'kill' | 'twice' | void;
}

export async function runCloudTasks(options: DispatcherOptions): Promise<DispatchReport> {
  const { tasks, clock } = options;
  const report: DispatchReport = { invocations: 0, dispatches: 0, failures: 0, stopped: 'idle' };
  // Killed invocations: Cloud Tasks learns nothing until the task's dispatch deadline has passed.
  const abandoned: Array<{ task: string; at: number }> = [];
  let turn = 0;
  for (;;) {
    abandoned.sort((a, b) => a.at - b.at);
    while (abandoned[0] && abandoned[0].at <= clock.now()) tasks.complete(abandoned.shift()!.task, 'deadline-exceeded');
    if (report.dispatches >= (options.maxDispatches ?? 20_000)) return { ...report, stopped: 'max-dispatches' };
    const batch = tasks.takeDue(options.batchSize ?? 10);
    if (batch.length === 0) {
      const due = tasks.nextDueAt();
      const next = Math.min(due ?? Infinity, abandoned[0]?.at ?? Infinity);
      if (!Number.isFinite(next)) return report;
      clock.advanceTo(Math.max(next, clock.now()));
      continue;
    }
    report.dispatches += batch.length;
    await Promise.all(
      batch.map(async (d) => {
        const body = parseBody(d.body);
        const action = options.onTask?.(d, body, report.dispatches);
        const instances = instancesFor(options.targets, d.url);
        const pick = (k: number) => instances[(turn + k) % instances.length] as string;
        turn++;
        if (action === 'kill') {
          report.invocations++;
          report.failures++;
          void send(pick(0), d).catch(() => undefined);
          abandoned.push({ task: d.task, at: clock.now() + d.dispatchDeadlineSeconds * 1000 });
          return;
        }
        const targets = action === 'twice' ? [pick(0), pick(1)] : [pick(0)];
        report.invocations += targets.length;
        const statuses = await Promise.all(
          targets.map((t) =>
            send(t, d).then(
              (r) => r,
              () => 0,
            ),
          ),
        );
        // One delivery's answer settles the task; a duplicate's answer is about a copy Cloud Tasks does not track.
        const status = statuses[0] ?? 0;
        if (status < 200 || status > 299) report.failures++;
        tasks.complete(d.task, status === 0 ? 'unreachable' : { status });
      }),
    );
  }
}

function instancesFor(targets: Record<string, string[]>, url: string): string[] {
  const origin = new URL(url).origin;
  const found = targets[origin];
  if (!found || found.length === 0) throw new Error(`no step function serves ${origin} in this test (targets: ${Object.keys(targets).join(', ')})`);
  return found;
}

/** Sends the task's request to a function server at `base` (keeping the task URL's path and query); resolves to the HTTP status. */
async function send(base: string, d: TaskDispatch): Promise<number> {
  const url = new URL(d.url);
  const res = await fetch(`${base}${url.pathname}${url.search}`, {
    method: d.method,
    headers: d.headers,
    ...(d.method === 'GET' || d.method === 'HEAD' ? {} : { body: d.body }),
  });
  await res.arrayBuffer();
  return res.status;
}

function parseBody(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}
