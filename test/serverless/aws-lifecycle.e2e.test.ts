// The sandbox lifecycle on the AWS runtime: every step crosses the real SQS API (fauxqs), all state and leases
// the real DynamoDB API (dynalite), secrets the Secrets Manager API — driven through the Lambda step handler
// as the SQS event source mapping would. The outcome must equal the local runtime's.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { Context } from 'aws-lambda';
import type { StepEvent } from '@kubeplane/sdk';
import { createDeadLetterHandler, createWatchdogHandler, sqsKeeper } from '@kubeplane/handlers/aws';
import { liveMachines, manifestOf, sandboxWorld } from '../helpers/sandbox-world.js';
import { leaseHolders } from '../helpers/lease-holders.js';
import { LIFECYCLE_TIMEOUT, useAwsWorlds, type AwsWorld } from '../helpers/aws-world.js';
import { runEventSourceMapping } from '../helpers/lambda-simulator.js';

const minimal = readFileSync(join(import.meta.dirname, '..', '..', 'examples', 'minimal.yaml'), 'utf8');
const workers = (n: number) => minimal.replace(/count: 2\n/, `count: ${n}\n`);

const worlds = useAwsWorlds();

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

async function applyOnAws(
  w: AwsWorld,
  text: string,
  onMessage?: Parameters<typeof runEventSourceMapping>[0]['onMessage'],
  handlers = [w.handler],
  duplicateUntil = 0,
) {
  await w.kp.apply(manifestOf(text));
  const run = await runEventSourceMapping({
    queue: w.queue,
    handlers,
    clock: w.sandbox.clock,
    duplicateUntil,
    maxDeliveries: 2000,
    ...(onMessage ? { onMessage } : {}),
  });
  const status = await w.kp.status('minimal');
  expect(status.clusters.minimal?.state, JSON.stringify(status.clusters.minimal)).toBe('DONE');
  expect(run.stopped).toBe('idle');
  return { run, state: status.clusters.minimal?.state, machines: liveMachines(w.sandbox) };
}

describe('the minimal example on the AWS runtime (SQS, DynamoDB, Secrets Manager)', { timeout: LIFECYCLE_TIMEOUT }, () => {
  it('is created, scaled up and down and destroyed with the same outcome as the local runtime, leaving nothing behind', async () => {
    const manifests = [minimal, workers(3), workers(1)];
    const local = await localOutcome(3, manifests);
    const world = await worlds.open({ seed: 3 });
    const aws = [];
    const counts = [];
    for (const text of manifests) {
      const r = await applyOnAws(world, text);
      aws.push({ state: r.state, machines: r.machines });
      counts.push({ invocations: r.run.invocations, messages: r.run.deliveries });
    }
    expect(aws).toEqual(local);
    expect(aws.map((a) => a.machines.length)).toEqual([3, 4, 2]);
    expect((await world.kp.kubeconfig('minimal', 'minimal')).reveal()).toContain('apiVersion: v1');

    await world.kp.destroy('minimal');
    const run = await runEventSourceMapping({ queue: world.queue, handlers: [world.handler], clock: world.sandbox.clock });
    expect(run.stopped).toBe('idle');
    expect(world.sandbox.inventory()).toEqual([]);
    expect(await world.kp.projects()).toEqual([]);
    expect(await world.queue.size()).toBe(0);
    // Nothing secret was logged: the cluster's private keys never appear in the handler's log lines.
    expect(world.logs.join('\n')).not.toMatch(/PRIVATE KEY|client-key-data/);
    process.stdout.write(
      `aws runtime, minimal example: create/scale-up/scale-down ${JSON.stringify(counts)}, destroy ${JSON.stringify({ invocations: run.invocations, messages: run.deliveries })}\n`,
    );
  });

  it('does no harm when a message is delivered again after its visibility timeout', async () => {
    const [local] = await localOutcome(5, [minimal]);
    const world = await worlds.open({ seed: 5 });
    const lost: StepEvent[] = [];
    // The deletes of three step messages are lost, so each comes back after the timeout, its step long done.
    const r = await applyOnAws(world, minimal, (body) => {
      if (['networks', 'dns', 'mesh'].includes(body.step) && !lost.some((l) => l.step === body.step)) {
        lost.push(body);
        return 'lose-delete';
      }
    });
    expect(lost.map((l) => l.step)).toEqual(['networks', 'dns', 'mesh']);
    expect({ state: r.state, machines: r.machines }).toEqual(local);
    const redelivered = world.logs
      .map((l) => JSON.parse(l) as { key?: string; outcome?: string; deliveries?: number })
      .filter((l) => lost.some((x) => x.key === l.key) && (l.deliveries ?? 0) > 1);
    expect(redelivered.map((l) => l.outcome)).toEqual(['stale', 'stale', 'stale']);
  });

  it('resumes a step whose handler was killed mid-way when SQS delivers its message again', async () => {
    const [local] = await localOutcome(6, [minimal]);
    let hang = false;
    const world = await worlds.open({
      seed: 6,
      wrapState: (s) => ({
        get: (k) => s.get(k),
        // The kill lands after the step's cloud calls, before its record write: the machines exist, the record does not say so.
        put: (k, v, rev) => (hang && k.startsWith('clusters/') ? new Promise<number>(() => undefined) : s.put(k, v, rev)),
        delete: (k, rev) => s.delete(k, rev),
        list: (p) => s.list(p),
      }),
    });
    let killed = 0;
    const r = await applyOnAws(world, minimal, (body) => {
      hang = false;
      if (body.step === 'create-nodes' && killed === 0) {
        killed++;
        hang = true;
        return 'kill';
      }
    });
    expect(killed).toBe(1);
    expect({ state: r.state, machines: r.machines }).toEqual(local);
    const created = world.events.filter((e) => e.type === 'resource-created' && e.kind === 'machine');
    expect(created).toHaveLength(3);
  });

  it('never lets two handlers given the same messages at once both hold the cluster lease', async () => {
    const [local] = await localOutcome(8, [minimal]);
    const leases = leaseHolders();
    const world = await worlds.open({
      seed: 8,
      wrapLease: (l) => leases.wrap(l),
    });
    const r = await applyOnAws(world, minimal, undefined, [world.handler, world.secondHandler()], 25);
    expect(leases.refused).toBeGreaterThan(0);
    expect(leases.most).toBe(1);
    expect({ state: r.state, machines: r.machines }).toEqual(local);
  });

  it("turns a poison message into the cluster's ERROR status with the reason, and sends it to the DLQ", async () => {
    let broken = false;
    const world = await worlds.open({
      seed: 9,
      maxReceiveCount: 3,
      wrapLease: (l) => ({
        acquire: (key, owner, ttl) => (broken ? Promise.reject(new Error('lease table unavailable (simulated outage)')) : l.acquire(key, owner, ttl)),
        renew: (g, ttl) => l.renew(g, ttl),
        release: (g) => l.release(g),
      }),
    });
    await world.kp.apply(manifestOf(minimal));
    const run = await runEventSourceMapping({
      queue: world.queue,
      handlers: [world.handler],
      clock: world.sandbox.clock,
      maxDeliveries: 2000,
      onMessage: (body) => {
        if (body.step === 'dns') broken = true;
      },
    });
    expect(run.failures).toBe(3);
    const status = (await world.kp.status('minimal')).clusters.minimal;
    expect(status?.state).toBe('ERROR');
    expect(status?.message).toMatch(
      /^dns: gave up after 3 deliveries of message minimal-\w+\/\w+\/1\/\d+\/0: Error: lease table unavailable \(simulated outage\)$/,
    );

    const sqs = new SQSClient(worlds.emulators.sqs);
    const dead = await sqs.send(new ReceiveMessageCommand({ QueueUrl: world.dlqUrl, MaxNumberOfMessages: 10 }));
    sqs.destroy();
    expect(dead.Messages?.map((m) => (JSON.parse(m.Body ?? '{}') as StepEvent).step)).toEqual(['dns']);
    // The DLQ handler leaves a cluster already in ERROR as it is, and keeps the message (not deleted: inspected, redriven).
    const { queueUrl: keptUrl } = await worlds.emulators.createQueue();
    const dlq = createDeadLetterHandler({
      kubeplane: world.kp,
      keeper: sqsKeeper({ ...worlds.emulators.sqs, queueUrl: keptUrl }),
      logger: {
        log: () => undefined,
        child() {
          return this;
        },
      },
    });
    const records = (dead.Messages ?? []).map((m) => ({
      messageId: m.MessageId ?? '',
      receiptHandle: '',
      body: m.Body ?? '',
      attributes: { ApproximateReceiveCount: '4', SentTimestamp: '0', SenderId: 'x', ApproximateFirstReceiveTimestamp: '0' },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:eu-central-1:000000000000:dlq',
      awsRegion: 'eu-central-1',
    }));
    expect(await dlq({ Records: records }, { awsRequestId: 'dlq-1' } as Context)).toEqual({ batchItemFailures: [] });
    expect((await world.kp.status('minimal')).clusters.minimal?.message).toBe(status?.message);
    const keptClient = new SQSClient(worlds.emulators.sqs);
    const kept = await keptClient.send(new ReceiveMessageCommand({ QueueUrl: keptUrl, MaxNumberOfMessages: 10, MessageAttributeNames: ['All'] }));
    keptClient.destroy();
    expect(
      kept.Messages?.map((m) => [
        m.Body,
        m.MessageAttributes?.['kubeplane-dead-letter']?.StringValue,
        m.MessageAttributes?.['kubeplane-dead-letter-id']?.StringValue,
      ]),
    ).toEqual((dead.Messages ?? []).map((m) => [m.Body, 'cluster already moved on', m.MessageId]));
    // A keeper that fails leaves the message in the DLQ for another try.
    const stuck = createDeadLetterHandler({
      kubeplane: world.kp,
      keeper: { keep: () => Promise.reject(new Error('SQS unavailable (simulated)')) },
      logger: {
        log: () => undefined,
        child() {
          return this;
        },
      },
    });
    expect(await stuck({ Records: records }, { awsRequestId: 'dlq-2' } as Context)).toEqual({
      batchItemFailures: records.map((r) => ({ itemIdentifier: r.messageId })),
    });

    // Deleting the half-built cluster works once the outage is over.
    broken = false;
    await world.kp.destroy('minimal');
    await runEventSourceMapping({ queue: world.queue, handlers: [world.handler], clock: world.sandbox.clock, maxDeliveries: 2000 });
    expect(world.sandbox.inventory()).toEqual([]);
    expect(await world.kp.projects()).toEqual([]);
  });

  it("creates the cluster again after a destroy, within the queue's deduplication window (a new incarnation, new message keys)", async () => {
    const world = await worlds.open({ seed: 10 });
    await applyOnAws(world, minimal);
    await world.kp.destroy('minimal');
    await runEventSourceMapping({ queue: world.queue, handlers: [world.handler], clock: world.sandbox.clock, maxDeliveries: 2000 });
    expect(await world.kp.projects()).toEqual([]);
    // Well inside the 300 s window in which the first creation's message keys are remembered.
    const r = await applyOnAws(world, minimal);
    expect(r.machines).toHaveLength(3);
  });

  it("brings a cluster whose step message was lost to DONE on the watchdog's schedule", async () => {
    const world = await worlds.open({ seed: 11 });
    const watchdog = createWatchdogHandler({
      kubeplane: world.kp,
      logger: {
        log: () => undefined,
        child() {
          return this;
        },
      },
    });
    // The API function dies between apply's record write and its send: the cluster is IN_PROGRESS, no message exists.
    const send = world.queue.send.bind(world.queue);
    world.queue.send = () => Promise.reject(new Error('the API function was killed before its send (simulated)'));
    await expect(world.kp.apply(manifestOf(minimal))).rejects.toThrow(/killed before its send/);
    world.queue.send = send;
    const idle = await runEventSourceMapping({ queue: world.queue, handlers: [world.handler], clock: world.sandbox.clock });
    expect(idle.deliveries).toBe(0);
    expect((await world.kp.status('minimal')).clusters.minimal).toMatchObject({ state: 'IN_PROGRESS', message: 'queued' });

    // EventBridge runs the watchdog every 5 minutes; it re-queues once the message is overdue (visibility + lease + 60 s).
    const start = world.sandbox.clock.now();
    let requeued: Array<{ cluster: string; step: string }> = [];
    while (requeued.length === 0) {
      world.sandbox.clock.advance(5 * 60_000);
      requeued = (await watchdog({} as never, { awsRequestId: 'watchdog' } as Context)).requeued;
    }
    expect(requeued).toEqual([{ project: 'minimal', cluster: 'minimal', step: 'preflight' }]);
    expect(world.sandbox.clock.now() - start).toBeLessThanOrEqual((120 + 120 + 60 + 300) * 1000);
    const run = await runEventSourceMapping({ queue: world.queue, handlers: [world.handler], clock: world.sandbox.clock, maxDeliveries: 2000 });
    expect(run.stopped).toBe('idle');
    expect((await world.kp.status('minimal')).clusters.minimal?.state).toBe('DONE');
    // A second run of the watchdog finds nothing to do.
    expect((await watchdog({} as never, { awsRequestId: 'watchdog-2' } as Context)).requeued).toEqual([]);
  });
});
