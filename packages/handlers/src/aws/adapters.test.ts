// The AWS adapters pass the engine's port suite against the real AWS APIs: SQS on fauxqs, DynamoDB on
// dynalite, Secrets Manager on its emulator. The SQS queue is a standard queue (see sqs-queue.ts), so the
// suite checks the standard-queue rules in place of the FIFO group and deduplication rules.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { describePortSuite } from '@kubeplane/sdk/port-suite';
import { isKubeplaneError, Redacted } from '@kubeplane/sdk';
import { VirtualClock } from '@kubeplane/sdk/provider';
import { awsPorts, followClock, startAwsEmulators, type AwsEmulators } from '../../../../test/helpers/aws-emulators.js';
import { DynamoDbStateStore } from './dynamodb-state-store.js';
import { DynamoDbDeduplicationLog } from './dynamodb-deduplication-log.js';
import { SqsQueue } from './sqs-queue.js';

let emulators: AwsEmulators;
let restoreClock: (() => void) | undefined;
beforeAll(async () => {
  emulators = await startAwsEmulators();
});
afterAll(async () => {
  await emulators.stop();
});
afterEach(() => {
  restoreClock?.();
  restoreClock = undefined;
});

describePortSuite('AWS (SQS standard queue, DynamoDB, Secrets Manager)', {
  queueSemantics: 'standard',
  async stateStore() {
    return awsPorts(emulators, await emulators.createTable(), '', new VirtualClock()).state;
  },
  async secretStore() {
    // Each test starts from an empty store.
    emulators.secretsEmulator.secrets.clear();
    return awsPorts(emulators, '', '', new VirtualClock()).secrets;
  },
  async queue(clock) {
    restoreClock = followClock(clock);
    const { queueUrl } = await emulators.createQueue();
    return awsPorts(emulators, '', queueUrl, clock, 30).queue<{ n: number }>();
  },
  async lease(clock) {
    return awsPorts(emulators, await emulators.createTable(), '', clock).lease;
  },
  async inspectSecret(name) {
    // Stored under the prefix IAM policies are scoped to, with the value only in the secret itself.
    expect([...emulators.secretsEmulator.secrets.keys()]).toContain(`kubeplane/${name}`);
  },
});

describe('DynamoDbStateStore', () => {
  it('keeps a record larger than a DynamoDB item may be by compressing it', async () => {
    const store = new DynamoDbStateStore({ ...emulators.dynamodb, tableName: await emulators.createTable() });
    const machines = Array.from({ length: 5000 }, (_, i) => ({
      name: `hybrid-htz-worker-${i}`,
      id: `srv-${i * 7919}`,
      address: `10.${i % 250}.${i % 7}.${i % 13}`,
      state: 'running',
    }));
    expect(JSON.stringify(machines).length).toBeGreaterThan(400 * 1024);
    await store.put('clusters/big', { machines }, 0);
    expect((await store.get<{ machines: unknown[] }>('clusters/big'))?.value.machines).toEqual(machines);
  });

  it('refuses a write fenced by an older lease token than one already written, and keeps the fence through unfenced writes', async () => {
    const store = new DynamoDbStateStore({ ...emulators.dynamodb, tableName: await emulators.createTable() });
    await store.put('clusters/c', 'created', 0);
    await store.put('clusters/c', 'by holder 7', 1, { fence: 7 });
    // A holder whose lease was taken over (token 5 < 7) writes on the revision it read: refused, nothing written.
    await expect(store.put('clusters/c', 'by stale holder 5', 2, { fence: 5 })).rejects.toSatisfy(
      (e: unknown) => isKubeplaneError(e) && e.kind === 'conflict' && e.details.code === 'Fenced',
    );
    // A write without a fence is judged by revision only and leaves the stored fence at 7.
    await store.put('clusters/c', 'unfenced', 2);
    await expect(store.put('clusters/c', 'by stale holder 6', 3, { fence: 6 })).rejects.toSatisfy(
      (e: unknown) => isKubeplaneError(e) && e.details.code === 'Fenced',
    );
    // A stale revision with a good fence is an ordinary revision conflict.
    await expect(store.put('clusters/c', 'late', 2, { fence: 9 })).rejects.toSatisfy(
      (e: unknown) => isKubeplaneError(e) && e.details.code === 'RevisionConflict',
    );
    expect(await store.put('clusters/c', 'by holder 7 again', 3, { fence: 7 })).toBe(4);
    expect(await store.get('clusters/c')).toEqual({ value: 'by holder 7 again', revision: 4 });
  });

  it('lists keys by a partial first segment too', async () => {
    const store = new DynamoDbStateStore({ ...emulators.dynamodb, tableName: await emulators.createTable() });
    await store.put('projects/a', 1, 0);
    await store.put('clusters/b', 1, 0);
    expect(await store.list('proj')).toEqual(['projects/a']);
    expect(await store.list('')).toEqual(['clusters/b', 'projects/a']);
  });
});

describe('SecretsManagerStore', () => {
  it('replaces labels on put, dropping those no longer given', async () => {
    const store = awsPorts(emulators, '', '', new VirtualClock()).secrets;
    await store.put('x/labels', Redacted.of('v1'), { cluster: 'c1', output: 'kubeconfig' });
    await store.put('x/labels', Redacted.of('v2'), { cluster: 'c1' });
    expect((await store.list({ cluster: 'c1' })).find((e) => e.name === 'x/labels')?.labels).toEqual({ cluster: 'c1' });
  });

  it('deletes into a 7-day recovery window, and a cluster made again under the same id takes its names back', async () => {
    const store = awsPorts(emulators, '', '', new VirtualClock()).secrets;
    await store.put('c9/keys', Redacted.of('first CA key'), { cluster: 'c9' });
    await store.delete('c9/keys');
    // Restorable (a CA key destroyed by mistake), but gone for the engine.
    expect(emulators.secretsEmulator.secrets.get('kubeplane/c9/keys')?.deletedDate).toBeDefined();
    expect(await store.get('c9/keys')).toBeNull();
    expect(await store.list({ cluster: 'c9' })).toEqual([]);
    await store.delete('c9/keys');
    // The cluster's next life: its first writer wins the name, with its own value and labels.
    expect(await store.create('c9/keys', Redacted.of('second CA key'), { cluster: 'c9', life: '2' })).toBe(true);
    expect((await store.get('c9/keys'))?.reveal()).toBe('second CA key');
    expect(await store.create('c9/keys', Redacted.of('a racer'), { cluster: 'c9' })).toBe(false);
    expect((await store.list({ cluster: 'c9' })).map((e) => e.labels)).toEqual([{ cluster: 'c9', life: '2' }]);
    // put over a deleted name too.
    await store.delete('c9/keys');
    await store.put('c9/keys', Redacted.of('third CA key'));
    expect((await store.get('c9/keys'))?.reveal()).toBe('third CA key');
  });
});

describe('SqsQueue with a deduplication log', () => {
  it('drops a message sent again with the same deduplication id within the window, and sends it after', async () => {
    const clock = new VirtualClock();
    restoreClock = followClock(clock);
    const { queueUrl } = await emulators.createQueue();
    const deduplication = new DynamoDbDeduplicationLog({ ...emulators.dynamodb, tableName: await emulators.createTable(), clock, windowSeconds: 300 });
    const q = new SqsQueue<{ n: number }>({ ...emulators.sqs, queueUrl, clock, deduplication });
    await q.send({ n: 1 }, { groupId: 'g', deduplicationId: 'step-1' });
    await q.send({ n: 1 }, { groupId: 'g', deduplicationId: 'step-1' });
    await q.send({ n: 1 }, { groupId: 'other', deduplicationId: 'step-1' });
    await q.send({ n: 2 }, { groupId: 'g', deduplicationId: 'step-2' });
    expect(await q.size()).toBe(3);
    clock.advance(300_001);
    await q.send({ n: 1 }, { groupId: 'g', deduplicationId: 'step-1' });
    expect(await q.size()).toBe(4);
  });

  it('sends once when several senders send the same deduplication id at the same moment', async () => {
    const clock = new VirtualClock();
    restoreClock = followClock(clock);
    const { queueUrl } = await emulators.createQueue();
    const deduplication = new DynamoDbDeduplicationLog({ ...emulators.dynamodb, tableName: await emulators.createTable(), clock });
    // Separate queue instances, as separate Lambda containers.
    const senders = Array.from({ length: 8 }, () => new SqsQueue<{ n: number }>({ ...emulators.sqs, queueUrl, clock, deduplication }));
    await Promise.all(senders.map((q) => q.send({ n: 1 }, { groupId: 'g', deduplicationId: 'step-1' })));
    expect(await senders[0]!.size()).toBe(1);
  });

  it('gives the claim back when the send fails, so the next sender of the id sends', async () => {
    const clock = new VirtualClock();
    restoreClock = followClock(clock);
    const { queueUrl } = await emulators.createQueue();
    const deduplication = new DynamoDbDeduplicationLog({ ...emulators.dynamodb, tableName: await emulators.createTable(), clock });
    const broken = new SqsQueue<{ n: number }>({ ...emulators.sqs, queueUrl: `${queueUrl}-missing`, clock, deduplication });
    await expect(broken.send({ n: 1 }, { groupId: 'g', deduplicationId: 'step-1' })).rejects.toThrow();
    const q = new SqsQueue<{ n: number }>({ ...emulators.sqs, queueUrl, clock, deduplication });
    await q.send({ n: 1 }, { groupId: 'g', deduplicationId: 'step-1' });
    expect(await q.size()).toBe(1);
  });
});
