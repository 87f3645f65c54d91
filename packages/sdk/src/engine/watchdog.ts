// The watchdog: no cluster waits on a lost message. A cluster IN_PROGRESS whose current step's message was due
// longer ago than any message can spend in flight has none (a crash between the record write and the send, a
// queue that lost it): its step's attempt is bumped with compare-and-swap and the step is queued again.
import { randomUUID } from 'node:crypto';
import { isKubeplaneError } from '../errors.js';
import type { Engine } from './engine.js';
import type { StepEvent } from './events.js';
import { defaultOverdueSeconds, lostMs } from './lost-messages.js';
import { clusterKey, clusterRecordProblem, newIncarnation, projectKey, projectRecordProblem, type ClusterRecord, type ProjectRecord } from './records.js';

/** Which clusters the watchdog looks at and when a step's message counts as lost. */
export interface WatchdogOptions {
  /** Only this project's clusters (default: every project in the StateStore). */
  project?: string;
  /** How long after it was due a step's message counts as lost (default: see defaultOverdueSeconds). */
  overdueAfterSeconds?: number;
  /** Whether the queue still holds this event, where the runtime can tell (a cluster whose message exists is left alone). */
  isQueued?: (event: StepEvent) => Promise<boolean>;
}

/** What the watchdog did: the steps whose lost messages it sent again. */
export interface WatchdogReport {
  requeued: Array<{ project: string; cluster: string; step: string }>;
}

export async function runWatchdog(engine: Engine, options: WatchdogOptions = {}): Promise<WatchdogReport> {
  const { state } = engine.options;
  const overdueMs = (options.overdueAfterSeconds ?? defaultOverdueSeconds(engine.options)) * 1000;
  const projects = options.project !== undefined ? [options.project] : (await state.list('projects/')).map((k) => k.slice('projects/'.length));
  const requeued: WatchdogReport['requeued'] = [];
  for (const project of projects) {
    const p = await state.get<ProjectRecord>(projectKey(project));
    // A record that is not one is named by status and the commands that read it; the watchdog has nothing to re-queue.
    if (!p || projectRecordProblem(p.value)) continue;
    for (const clusterId of Object.values(p.value.clusters)) {
      const step = await requeueIfOverdue(engine, clusterId, overdueMs, options.isQueued);
      if (step) requeued.push({ project, ...step });
    }
  }
  return { requeued };
}

async function requeueIfOverdue(
  engine: Engine,
  clusterId: string,
  overdueMs: number,
  isQueued: WatchdogOptions['isQueued'],
): Promise<{ cluster: string; step: string } | null> {
  const { state, lease, clock } = engine.options;
  const stored = await state.get<ClusterRecord>(clusterKey(clusterId));
  const r = stored?.value;
  if (!stored || !r || clusterRecordProblem(r) || r.status.state !== 'IN_PROGRESS') return null;
  // Records from before `dueAt` existed: the step's start is the best guess (a re-queue too early is harmless).
  if (clock.now() - (r.step.dueAt ?? r.step.since) <= overdueMs) return null;
  if (r.incarnation && isQueued && (await isQueued(engine.eventOf(r)))) return null;
  // A step running now holds the lease, and queues what follows itself.
  const grant = await lease.acquire(clusterKey(clusterId), `watchdog/${randomUUID()}`, engine.leaseSeconds);
  if (!grant) return null;
  try {
    const now = clock.now();
    // The time the message was lost is given back to the step's deadline (see lostMs): the new message is due now.
    const since = r.step.since + lostMs(r.step, now, overdueMs);
    const next: ClusterRecord = { ...r, incarnation: r.incarnation || newIncarnation(), step: { ...r.step, since, attempts: r.step.attempts + 1, dueAt: now } };
    try {
      // On the revision read above: a record that moved meanwhile has its message, and is left alone.
      await state.put(clusterKey(clusterId), next, stored.revision, { fence: grant.token });
    } catch (e) {
      if (isKubeplaneError(e) && e.kind === 'conflict') return null;
      throw e;
    }
    await engine.enqueue(next);
    return { cluster: r.name, step: r.step.name };
  } finally {
    await lease.release(grant);
  }
}
