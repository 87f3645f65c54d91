// The step function as Cloud Functions runs it: registered with the Functions Framework and called over HTTP on
// loopback the way Cloud Tasks calls it (X-CloudTasks-* headers, JSON body), its dead letters in Firestore (the
// sandbox's emulator), the engine on in-memory ports so that each test controls the cluster's lease and failures.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddressInfo } from 'node:net';
import { setupServer } from 'msw/node';
import { OAuth2Client } from 'google-auth-library';
import { http } from '@google-cloud/functions-framework';
import { getTestServer } from '@google-cloud/functions-framework/testing';
import { done, VirtualClock, type Provider } from '@kubeplane/sdk/provider';
import { Kubeplane, MemoryLease, MemoryQueue, MemorySecretStore, MemoryStateStore, validateManifestText, type Manifest, type StepEvent } from '@kubeplane/sdk';
import { FirestoreEmulator } from '@kubeplane/sandbox';
import { createCloudTasksStepHandler, RESENDS_HEADER, type TaskSender } from './cloud-tasks-step-handler.js';
import { FirestoreDeadLetters } from './firestore-dead-letters.js';
import { firestoreClient } from './google-clients.js';
import { runGcpWatchdog } from './watchdog-handler.js';

const manifest = validateManifestText(`apiVersion: kubeplane.dev/v1
kind: Manifest
metadata: { name: gcp }
providers:
  - name: hetzner-1
    providerType: hetzner
    secretRef: { env: { credentials: HCLOUD_TOKEN } }
nodePools:
  dynamic:
    - { name: control, providerSpec: { name: hetzner-1, region: fsn1 }, count: 1, serverType: cpx22, image: ubuntu-24.04 }
kubernetes:
  clusters:
    - { name: gcp, version: "1.34.2", network: 10.0.0.0/24, pools: { control: [control], compute: [] } }
`).manifests[0] as Manifest;

/** The catalog of a cloud, all the first step (preflight) asks of one. */
const catalogOnly = {
  name: 'hetzner',
  compute: {
    zones: async () => done([{ name: 'fsn1-dc14', region: 'fsn1' }]),
    serverTypes: async () => done([{ name: 'cpx22', vcpus: 2, memoryGiB: 4, architecture: 'x86_64' as const }]),
    images: async () => done([{ id: '1', name: 'ubuntu-24.04', architecture: 'x86_64' as const }]),
  },
} as unknown as Provider;

const projectId = 'kubeplane-sandbox';
const emulator = new FirestoreEmulator({ clock: new VirtualClock() });
// Loopback is the function under test; everything else must be an emulated Google API.
const server = setupServer(emulator.handler());
const authClient = new OAuth2Client();
authClient.setCredentials({ access_token: 't' });
const firestore = firestoreClient({ projectId, authClient });
beforeAll(() => server.listen({ onUnhandledRequest: (req, print) => (new URL(req.url).hostname === '127.0.0.1' ? undefined : print.error()) }));
afterAll(() => server.close());

/** A state store that can be made to fail, as Firestore failing mid-step would. */
class BreakableState extends MemoryStateStore {
  broken = false;
  override async get<T>(key: string) {
    if (this.broken) throw new Error('Firestore is unavailable');
    return super.get<T>(key);
  }
}

let worlds = 0;
async function world(maxAttempts = 3) {
  const clock = new VirtualClock();
  const queue = new MemoryQueue<StepEvent>({ clock });
  const lease = new MemoryLease(clock);
  const state = new BreakableState();
  const kp = new Kubeplane({
    state,
    secrets: new MemorySecretStore(),
    queue,
    lease,
    clock,
    providers: () => Promise.resolve(catalogOnly),
    kubernetes: () => {
      throw new Error('no clusters here');
    },
  });
  const resent: Array<{ body: StepEvent; options: Parameters<TaskSender['send']>[1] }> = [];
  const deadLetters = new FirestoreDeadLetters({ projectId, firestore, collection: `dl-${++worlds}` });
  const name = `kubeplaneStep${worlds}`;
  http(
    name,
    createCloudTasksStepHandler({
      kubeplane: kp,
      queue: { send: async (body, options) => void resent.push({ body, options }) },
      maxAttempts,
      deadLetters,
      taskDeadlineSeconds: 60,
      clock,
      logger: {
        log: () => undefined,
        child() {
          return this;
        },
      },
    }),
  );
  const srv = getTestServer(name);
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}/`;
  const post = async (body: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const task = (retryCount = 0, extra: Record<string, string> = {}) => ({
    'x-cloudtasks-queuename': 'kubeplane-steps',
    'x-cloudtasks-taskname': `t-${worlds}-${retryCount}`,
    'x-cloudtasks-taskretrycount': String(retryCount),
    'x-cloudtasks-taskexecutioncount': String(retryCount),
    ...extra,
  });
  await kp.apply(manifest);
  const [first] = await queue.receive(1);
  await queue.ack(first!.receipt);
  return { kp, queue, lease, state, clock, post, task, first: first!.body, resent, deadLetters, close: () => srv.close() };
}

describe('the Cloud Tasks step function', () => {
  it('refuses a request that did not come from Cloud Tasks', async () => {
    const w = await world();
    const res = await w.post(w.first);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/X-CloudTasks-QueueName and X-CloudTasks-TaskName headers are missing/);
    w.close();
  });

  it('runs the step a task names and sends the next one; the same task again is stale', async () => {
    const w = await world();
    expect(await w.post(w.first, w.task())).toEqual({ status: 200, body: { outcome: 'advanced' } });
    const [next] = await w.queue.receive(1);
    expect(next?.body).toMatchObject({ step: 'prepare', seq: w.first.seq + 1 });
    expect(await w.post(w.first, w.task(1))).toEqual({ status: 200, body: { outcome: 'stale' } });
    w.close();
  });

  it('answers 2xx to a busy cluster after sending a fresh copy, its delay growing with the resends it carries', async () => {
    const w = await world();
    await w.lease.acquire(`clusters/${w.first.clusterId}`, 'another-instance', 120);
    expect(await w.post(w.first, w.task())).toEqual({ status: 200, body: { outcome: 'busy', resends: 1, delaySeconds: 2 } });
    expect(await w.post(w.first, w.task(0, { [RESENDS_HEADER]: '3' }))).toEqual({ status: 200, body: { outcome: 'busy', resends: 4, delaySeconds: 16 } });
    expect(w.resent).toEqual([
      { body: w.first, options: { groupId: w.first.clusterId, delaySeconds: 2, headers: { [RESENDS_HEADER]: '1' } } },
      { body: w.first, options: { groupId: w.first.clusterId, delaySeconds: 16, headers: { [RESENDS_HEADER]: '4' } } },
    ]);
    w.close();
  });

  it('keeps a body that is not a step message as a dead letter and answers 2xx so that Cloud Tasks stops', async () => {
    const w = await world();
    expect(await w.post({ hello: 1 }, w.task())).toEqual({ status: 200, body: { outcome: 'invalid' } });
    expect(await w.deadLetters.list()).toEqual([expect.objectContaining({ status: 'invalid', reason: 'not a step message', body: '{"hello":1}' })]);
    w.close();
  });

  it('answers 5xx to a failing step before the last attempt, and keeps no dead letter', async () => {
    const w = await world(3);
    w.state.broken = true;
    expect((await w.post(w.first, w.task(0))).status).toBe(500);
    expect((await w.post(w.first, w.task(1))).status).toBe(500);
    expect(await w.deadLetters.list()).toEqual([]);
    w.close();
  });

  it('on the last attempt of a failing step marks the cluster ERROR with the reason and keeps the dead letter', async () => {
    const w = await world(3);
    w.kp.engine.handle = async () => {
      throw new Error('the step crashed');
    };
    expect(await w.post(w.first, w.task(2))).toEqual({ status: 200, body: { outcome: 'dead-lettered', marked: true } });
    const status = await w.kp.status('gcp');
    expect(status.clusters.gcp?.state).toBe('ERROR');
    expect(status.clusters.gcp?.message).toMatch(/gave up after 3 attempts of task .*: Error: the step crashed/);
    expect(await w.deadLetters.list()).toEqual([
      expect.objectContaining({ status: 'failed', reason: expect.stringMatching(/the step crashed/) as unknown, event: w.first }),
    ]);
    w.close();
  });

  it('when the store fails on the last attempt too, answers 5xx and leaves the dead letter pending for the watchdog', async () => {
    const w = await world(3);
    w.state.broken = true;
    expect(await w.post(w.first, w.task(2))).toEqual({ status: 500, body: { error: 'the step failed on its last attempt; the watchdog marks the cluster' } });
    expect((await w.deadLetters.list()).map((d) => d.status)).toEqual(['pending']);
    w.close();
  });

  it('on the last attempt of a step that returns leaves no dead letter', async () => {
    const w = await world(3);
    expect((await w.post(w.first, w.task(2))).body).toEqual({ outcome: 'advanced' });
    expect(await w.deadLetters.list()).toEqual([]);
    w.close();
  });

  it('a last attempt that died mid-step leaves a pending dead letter the watchdog turns into ERROR after the deadline', async () => {
    const w = await world(3);
    w.kp.engine.handle = () => new Promise(() => undefined); // never returns: a crash or a timeout, as far as anyone sees
    const headers = w.task(2);
    void w.post(w.first, headers).catch(() => undefined);
    await expect.poll(async () => (await w.deadLetters.list()).map((d) => d.status)).toEqual(['pending']);
    const log = {
      log: () => undefined,
      child() {
        return this;
      },
    };
    // Before the deadline the delivery may still be running: nothing happens.
    expect((await runGcpWatchdog(w.kp, w.deadLetters, w.clock, log)).deadLetters).toEqual([]);
    w.clock.advance(61_000);
    const report = await runGcpWatchdog(w.kp, w.deadLetters, w.clock, log);
    expect(report.deadLetters).toEqual([{ task: headers['x-cloudtasks-taskname'], clusterId: w.first.clusterId, marked: true }]);
    expect((await w.kp.status('gcp')).clusters.gcp?.state).toBe('ERROR');
    expect((await w.deadLetters.list()).map((d) => d.status)).toEqual(['expired']);
    w.close();
  });

  it('a dead letter removed meanwhile (its delivery finished after all) is not an error for the watchdog', async () => {
    const w = await world();
    expect(await w.deadLetters.update(w.deadLetters.idOf('gone'), 'expired', 'late')).toBe(false);
    w.close();
  });
});
