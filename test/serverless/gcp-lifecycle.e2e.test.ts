// The sandbox lifecycle on the Google Cloud runtime: every step crosses the Cloud Tasks API (the sandbox's emulator,
// whose dispatcher sends each task to the step function over HTTP, as Cloud Tasks does), all state and leases live in
// Firestore, secrets in Secret Manager, through Google's own Node clients in REST mode. The outcome must equal the
// local runtime's.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { StepEvent } from '@kubeplane/sdk';
import { SANDBOX_GOOGLE_PROJECT } from '@kubeplane/sandbox';
import { liveMachines, manifestOf, sandboxWorld } from '../helpers/sandbox-world.js';
import { leaseHolders } from '../helpers/lease-holders.js';
import { GCP_LIFECYCLE_TIMEOUT, openGcpWorld, type GcpWorld, type GcpWorldOptions } from '../helpers/gcp-world.js';
import { runCloudTasks, type DispatcherOptions } from '../helpers/cloud-tasks-dispatcher.js';

const minimal = readFileSync(join(import.meta.dirname, '..', '..', 'examples', 'minimal.yaml'), 'utf8');
const workers = (n: number) => minimal.replace(/count: 2\n/, `count: ${n}\n`);

const open: GcpWorld[] = [];
afterEach(async () => {
  for (const w of open.splice(0)) await w.close();
});
async function world(options: GcpWorldOptions): Promise<GcpWorld> {
  const w = await openGcpWorld(options);
  open.push(w);
  return w;
}

/** What the local runtime (in-memory ports, in-process queue) ends with for the same manifests and seed. */
async function localOutcome(seed: number, manifests: string[]) {
  const w = sandboxWorld(seed);
  try {
    const after: Array<{ state: string | undefined; machines: string[] }> = [];
    for (const text of manifests) {
      await w.kp.apply(manifestOf(text));
      await w.kp.run({ maxMessages: 20_000 });
      after.push({ state: (await w.kp.status('minimal')).clusters.minimal?.state, machines: liveMachines(w.sandbox) });
    }
    return after;
  } finally {
    w.sandbox.close();
  }
}

type Hooks = Partial<Pick<DispatcherOptions, 'onTask'>> & { instances?: number };

async function dispatch(w: GcpWorld, hooks: Hooks = {}) {
  return runCloudTasks({
    tasks: w.sandbox.google.tasks,
    clock: w.sandbox.clock,
    targets: w.targets(hooks.instances ?? 1),
    maxDispatches: 2000,
    ...(hooks.onTask ? { onTask: hooks.onTask } : {}),
  });
}

async function applyOnGcp(w: GcpWorld, text: string, hooks: Hooks = {}) {
  await w.kp.apply(manifestOf(text));
  const run = await dispatch(w, hooks);
  const status = await w.kp.status('minimal');
  expect(status.clusters.minimal?.state, JSON.stringify(status.clusters.minimal)).toBe('DONE');
  expect(run.stopped).toBe('idle');
  return { run, state: status.clusters.minimal?.state, machines: liveMachines(w.sandbox) };
}

const stepOf = (body: unknown) => (body as StepEvent | undefined)?.step;

describe('the minimal example on the Google Cloud runtime (Cloud Tasks, Firestore, Secret Manager)', { timeout: GCP_LIFECYCLE_TIMEOUT }, () => {
  it('is created, scaled up and down and destroyed with the same outcome as the local runtime, leaving nothing behind', async () => {
    const manifests = [minimal, workers(3), workers(1)];
    const local = await localOutcome(3, manifests);
    const w = await world({ seed: 3 });
    const gcp = [];
    const counts = [];
    for (const text of manifests) {
      const r = await applyOnGcp(w, text);
      gcp.push({ state: r.state, machines: r.machines });
      counts.push({ invocations: r.run.invocations, tasks: r.run.dispatches });
    }
    expect(gcp).toEqual(local);
    expect(gcp.map((a) => a.machines.length)).toEqual([3, 4, 2]);
    expect((await w.kp.kubeconfig('minimal', 'minimal')).reveal()).toContain('apiVersion: v1');
    // All state is in Firestore and every secret in Secret Manager: the emulators hold them, nothing else does.
    const google = w.sandbox.google;
    expect(google.firestore.documentNames().some((n) => n.includes(`${w.collectionPrefix}-state/`))).toBe(true);
    expect(google.secrets.secretIds(SANDBOX_GOOGLE_PROJECT).filter((id) => id.startsWith(w.secretPrefix)).length).toBeGreaterThanOrEqual(5);

    await w.kp.destroy('minimal');
    const run = await dispatch(w);
    expect(run.stopped).toBe('idle');
    expect(w.sandbox.inventory()).toEqual([]);
    expect(await w.kp.projects()).toEqual([]);
    expect(google.tasks.size()).toBe(0);
    expect(google.tasks.dropped()).toEqual([]);
    expect(google.secrets.secretIds(SANDBOX_GOOGLE_PROJECT).filter((id) => id.startsWith(w.secretPrefix))).toEqual([]);
    // Nothing secret was logged: the cluster's private keys never appear in the functions' log lines.
    expect(w.logs.join('\n')).not.toMatch(/PRIVATE KEY|client-key-data/);
    process.stdout.write(
      `gcp runtime, minimal example: create/scale-up/scale-down ${JSON.stringify(counts)}, destroy ${JSON.stringify({ invocations: run.invocations, tasks: run.dispatches })}\n`,
    );
  });

  it('does no harm when a task is delivered twice at once, to two instances', async () => {
    const [local] = await localOutcome(5, [minimal]);
    const w = await world({ seed: 5 });
    const twice: string[] = [];
    const r = await applyOnGcp(w, minimal, {
      instances: 2,
      onTask: (_d, body) => {
        const step = stepOf(body);
        if (step && ['networks', 'dns', 'mesh', 'create-nodes'].includes(step) && !twice.includes(step)) {
          twice.push(step);
          return 'twice';
        }
      },
    });
    expect(twice.sort()).toEqual(['create-nodes', 'dns', 'mesh', 'networks']);
    expect({ state: r.state, machines: r.machines }).toEqual(local);
    const created = w.events.filter((e) => e.type === 'resource-created' && e.kind === 'machine');
    expect(created).toHaveLength(3);
    // Each duplicate found the cluster busy (the other instance held its lease) or its step already done.
    const outcomes = w
      .logLines()
      .filter((l) => twice.length && l.outcome !== undefined && twice.includes(String(l.step)))
      .map((l) => l.outcome);
    expect(outcomes.filter((o) => o === 'busy' || o === 'stale').length).toBeGreaterThanOrEqual(twice.length);
  });

  it('resumes a step whose function was killed mid-way when Cloud Tasks retries its task', async () => {
    const [local] = await localOutcome(6, [minimal]);
    // The next record write of the cluster after the kill never returns: the killed invocation's (requests reach the
    // function a moment after they are sent, so which write is decided when it happens, not when the task is sent).
    let hangNext = false;
    const w = await world({
      seed: 6,
      wrapState: (s) => ({
        get: (k) => s.get(k),
        // The kill lands after the step's cloud calls, before its record write: the machines exist, the record does not say so.
        put: (k, v, rev, o) => {
          if (hangNext && k.startsWith('clusters/')) {
            hangNext = false;
            return new Promise<number>(() => undefined);
          }
          return s.put(k, v, rev, o);
        },
        delete: (k, rev, o) => s.delete(k, rev, o),
        list: (p) => s.list(p),
      }),
    });
    let killed = 0;
    const r = await applyOnGcp(w, minimal, {
      onTask: (_d, body) => {
        if (stepOf(body) === 'create-nodes' && killed === 0) {
          killed++;
          hangNext = true;
          return 'kill';
        }
      },
    });
    expect(killed).toBe(1);
    expect({ state: r.state, machines: r.machines }).toEqual(local);
    const created = w.events.filter((e) => e.type === 'resource-created' && e.kind === 'machine');
    expect(created).toHaveLength(3);
    // Cloud Tasks retried the task itself: the retry carried X-CloudTasks-TaskRetryCount 1.
    expect(w.logLines().some((l) => l.step === 'create-nodes' && l.attempt === 2)).toBe(true);
  });

  it("never lets two instances given the same tasks at once both run a cluster's step", async () => {
    const [local] = await localOutcome(8, [minimal]);
    const leases = leaseHolders();
    const w = await world({
      seed: 8,
      wrapLease: (l) => leases.wrap(l),
    });
    let n = 0;
    const r = await applyOnGcp(w, minimal, { instances: 2, onTask: () => (n++ < 25 ? 'twice' : undefined) });
    expect(leases.refused).toBeGreaterThan(0);
    expect(leases.most).toBe(1);
    expect({ state: r.state, machines: r.machines }).toEqual(local);
  });

  it("turns a poison task into the cluster's ERROR status with the reason, and keeps it as a dead letter", async () => {
    let broken = false;
    const w = await world({
      seed: 9,
      maxAttempts: 3,
      wrapLease: (l) => ({
        acquire: (key, owner, ttl) => (broken ? Promise.reject(new Error('lease collection unavailable (simulated outage)')) : l.acquire(key, owner, ttl)),
        renew: (g, ttl) => l.renew(g, ttl),
        release: (g) => l.release(g),
      }),
    });
    await w.kp.apply(manifestOf(minimal));
    const run = await dispatch(w, {
      onTask: (_d, body) => {
        if (stepOf(body) === 'dns') broken = true;
      },
    });
    // Two attempts answered 5xx; the last one marked the cluster and answered 2xx (nothing is left to retry).
    expect(run.failures).toBe(2);
    const status = (await w.kp.status('minimal')).clusters.minimal;
    expect(status?.state).toBe('ERROR');
    expect(status?.message).toMatch(
      /^dns: gave up after 3 attempts of task minimal-\w+\/\w+\/1\/\d+\/0: Error: lease collection unavailable \(simulated outage\)$/,
    );
    // Cloud Tasks has no dead-letter queue: kubeplane kept the task, with why, and Cloud Tasks holds nothing more.
    expect(w.sandbox.google.tasks.dropped()).toEqual([]);
    expect(w.sandbox.google.tasks.size()).toBe(0);
    const kept = await w.deadLetters.list();
    expect(kept.map((d) => [d.event?.step, d.status])).toEqual([['dns', 'failed']]);
    expect(kept[0]?.reason).toMatch(/lease collection unavailable/);

    // Deleting the half-built cluster works once the outage is over.
    broken = false;
    await w.kp.destroy('minimal');
    await dispatch(w);
    expect(w.sandbox.inventory()).toEqual([]);
    expect(await w.kp.projects()).toEqual([]);
  });

  it("marks the cluster ERROR when its task's last attempt crashed, on the watchdog's schedule", async () => {
    let crash = false;
    const w = await world({
      seed: 12,
      maxAttempts: 2,
      // Each attempt dies before it gets anywhere (the instance is killed, or runs past its deadline, before the lease):
      // no handler lives to say why, and none holds the cluster.
      wrapLease: (l) => ({
        // (The watchdog's own turn with the lease is not a step's.)
        acquire: (key, owner, ttl) => (crash && !owner.startsWith('watchdog/') ? new Promise<null>(() => undefined) : l.acquire(key, owner, ttl)),
        renew: (g, ttl) => l.renew(g, ttl),
        release: (g) => l.release(g),
      }),
    });
    await w.kp.apply(manifestOf(minimal));
    const run = await dispatch(w, {
      onTask: (_d, body) => {
        // From the dns step on, every attempt dies (requests reach the function a moment after they are sent).
        crash ||= stepOf(body) === 'dns';
        return crash ? 'kill' : undefined;
      },
    });
    expect(run.stopped).toBe('idle');
    expect(w.sandbox.google.tasks.dropped().map((d) => d.attempts)).toEqual([2]);
    expect((await w.kp.status('minimal')).clusters.minimal?.state).toBe('IN_PROGRESS');
    // Cloud Scheduler calls the watchdog every 5 minutes: the pending dead letter has outlived the dispatch deadline.
    let marked = false;
    for (let i = 0; i < 4 && !marked; i++) {
      w.sandbox.clock.advance(5 * 60_000);
      await w.watchdog();
      marked = (await w.kp.status('minimal')).clusters.minimal?.state === 'ERROR';
    }
    expect(
      marked,
      JSON.stringify({ letters: await w.deadLetters.list(), status: (await w.kp.status('minimal')).clusters.minimal, logs: w.logLines().slice(-6) }),
    ).toBe(true);
    expect((await w.kp.status('minimal')).clusters.minimal?.message).toMatch(
      /^dns: .*did not finish its last attempt \(it crashed or ran past its 600 s deadline\)/,
    );
    expect((await w.deadLetters.list()).map((d) => [d.event?.step, d.status])).toEqual([['dns', 'expired']]);
  });

  it("creates the cluster again after a destroy, within Cloud Tasks' task-name reuse window (a new incarnation, new task names)", async () => {
    const w = await world({ seed: 10 });
    await applyOnGcp(w, minimal);
    await w.kp.destroy('minimal');
    await dispatch(w);
    expect(await w.kp.projects()).toEqual([]);
    // Well inside the hour in which the first creation's task names stay taken.
    const r = await applyOnGcp(w, minimal);
    expect(r.machines).toHaveLength(3);
    expect(w.sandbox.google.counts().tasks.duplicates).toBeGreaterThanOrEqual(0);
  });

  it("brings a cluster whose first task was never created to DONE on the watchdog's schedule", async () => {
    const w = await world({ seed: 11 });
    // The API function dies between apply's record write and its task: the cluster is IN_PROGRESS, no task exists.
    const send = w.queue.send.bind(w.queue);
    w.queue.send = () => Promise.reject(new Error('the API function was killed before its task was created (simulated)'));
    await expect(w.kp.apply(manifestOf(minimal))).rejects.toThrow(/killed before its task/);
    w.queue.send = send;
    expect((await dispatch(w)).dispatches).toBe(0);
    expect((await w.kp.status('minimal')).clusters.minimal).toMatchObject({ state: 'IN_PROGRESS', message: 'queued' });
    let requeued: Array<{ cluster: string; step: string }> = [];
    while (requeued.length === 0) {
      w.sandbox.clock.advance(5 * 60_000);
      requeued = (await w.watchdog()).requeued;
    }
    expect(requeued).toEqual([{ project: 'minimal', cluster: 'minimal', step: 'preflight' }]);
    const run = await dispatch(w);
    expect(run.stopped).toBe('idle');
    expect((await w.kp.status('minimal')).clusters.minimal?.state).toBe('DONE');
  });
});
