// What one cluster costs in serverless requests on each runtime, measured in the same run on the same example and
// seed: on Google Cloud, step function invocations, Cloud Tasks tasks created, Firestore reads/writes/deletes (as
// Firestore bills them, counted by the emulator) and Secret Manager requests; on AWS, Lambda invocations, SQS messages
// sent and DynamoDB and Secrets Manager requests (counted on the clients). Both create and then destroy the hybrid
// example (10 machines on AWS and Hetzner) on the sandbox clouds.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { Kubeplane, validateManifestText, type Manifest, type StepEvent } from '@kubeplane/sdk';
import { sandboxAddonCredentials, sandboxKubernetes, sandboxProviders } from '@kubeplane/sandbox';
import { createStepHandler, DynamoDbDeduplicationLog, DynamoDbLease, DynamoDbStateStore, SecretsManagerStore, SqsQueue } from '@kubeplane/handlers/aws';
import { startAwsEmulators } from '../helpers/aws-emulators.js';
import { sandboxOnLoopback } from '../helpers/aws-world.js';
import { AwsCallRecorder } from '../helpers/aws-call-recorder.js';
import { runEventSourceMapping } from '../helpers/lambda-simulator.js';
import { openGcpWorld } from '../helpers/gcp-world.js';
import { runCloudTasks } from '../helpers/cloud-tasks-dispatcher.js';
import type { BenchResult } from './types.js';

const root = join(import.meta.dirname, '..', '..');
const SEED = 21;

function hybrid(): Manifest {
  const r = validateManifestText(readFileSync(join(root, 'examples', 'hybrid-aws-hetzner.yaml'), 'utf8'));
  if (!r.ok || !r.manifests[0]) throw new Error(r.errors.map((e) => e.message).join('\n'));
  return r.manifests[0];
}

interface Phase {
  invocations: number;
  messages: number;
  reads: number;
  writes: number;
  deletes: number;
  secrets: number;
}

async function onGoogle(): Promise<{ create: Phase; destroy: Phase }> {
  const w = await openGcpWorld({ seed: SEED });
  try {
    const google = w.sandbox.google;
    const phase = async (start: () => Promise<unknown>, project: string): Promise<Phase> => {
      const before = google.counts();
      await start();
      const run = await runCloudTasks({ tasks: google.tasks, clock: w.sandbox.clock, targets: w.targets(1) });
      const after = google.counts();
      const state = (await w.kp.status(project).catch(() => undefined))?.clusters;
      if (run.stopped !== 'idle' || (state && Object.values(state).some((c) => c.state !== 'DONE')))
        throw new Error(`the Google Cloud run did not finish: ${JSON.stringify(state)}`);
      return {
        invocations: run.invocations,
        messages: after.tasks.created - before.tasks.created,
        reads: after.firestore.reads - before.firestore.reads,
        writes: after.firestore.writes - before.firestore.writes,
        deletes: after.firestore.deletes - before.firestore.deletes,
        secrets: after.secretManager.requests - before.secretManager.requests,
      };
    };
    const create = await phase(() => w.kp.apply(hybrid()), 'hybrid');
    const destroy = await phase(() => w.kp.destroy('hybrid'), 'hybrid');
    return { create, destroy };
  } finally {
    await w.close();
  }
}

async function onAws(): Promise<{ create: Phase; destroy: Phase }> {
  const emulators = await startAwsEmulators();
  const { sandbox, close } = sandboxOnLoopback(SEED);
  try {
    const recorder = new AwsCallRecorder();
    const { queueUrl } = await emulators.createQueue({ maxReceiveCount: 5, visibilityTimeoutSeconds: 120 });
    const tableName = await emulators.createTable();
    // One client of each kind, recorded, shared by the adapters (as awsRuntimeFromEnv builds them, on the emulators).
    const dynamodb = recorder.record(new DynamoDBClient(emulators.dynamodb), 'step', 'code');
    const sqs = recorder.record(new SQSClient(emulators.sqs), 'step', 'code');
    const secrets = new SecretsManagerStore({ ...emulators.secretsManager, namePrefix: 'kp-bench/' });
    recorder.record(secrets.client, 'step', 'code');
    const deduplication = new DynamoDbDeduplicationLog({ ...emulators.dynamodb, tableName, client: dynamodb, clock: sandbox.clock });
    const queue = new SqsQueue<StepEvent>({ ...emulators.sqs, client: sqs, queueUrl, clock: sandbox.clock, visibilityTimeoutSeconds: 120, deduplication });
    const kp = new Kubeplane({
      state: new DynamoDbStateStore({ ...emulators.dynamodb, tableName, client: dynamodb }),
      lease: new DynamoDbLease({ ...emulators.dynamodb, tableName, client: dynamodb, clock: sandbox.clock }),
      secrets,
      queue,
      clock: sandbox.clock,
      providers: sandboxProviders(sandbox),
      kubernetes: sandboxKubernetes(sandbox),
      addonCredentials: sandboxAddonCredentials(),
      messageVisibilitySeconds: 120,
    });
    const handler = createStepHandler({
      kubeplane: kp,
      queue,
      maxReceiveCount: 5,
      logger: {
        log: () => undefined,
        child() {
          return this;
        },
      },
    });
    const count = (client: string, actions?: string[]) => recorder.calls.filter((c) => c.client === client && (!actions || actions.includes(c.action))).length;
    const phase = async (start: () => Promise<unknown>): Promise<Phase> => {
      const before = {
        sent: count('SQSClient', ['SendMessage']),
        reads: count('DynamoDBClient', ['GetItem', 'Query']),
        writes: count('DynamoDBClient', ['PutItem', 'UpdateItem']),
        deletes: count('DynamoDBClient', ['DeleteItem']),
        secrets: count('SecretsManagerClient'),
      };
      await start();
      const run = await runEventSourceMapping({ queue, handlers: [handler], clock: sandbox.clock, batchSize: 1 });
      if (run.stopped !== 'idle') throw new Error('the AWS run did not finish');
      return {
        invocations: run.invocations,
        messages: count('SQSClient', ['SendMessage']) - before.sent,
        reads: count('DynamoDBClient', ['GetItem', 'Query']) - before.reads,
        writes: count('DynamoDBClient', ['PutItem', 'UpdateItem']) - before.writes,
        deletes: count('DynamoDBClient', ['DeleteItem']) - before.deletes,
        secrets: count('SecretsManagerClient') - before.secrets,
      };
    };
    const create = await phase(() => kp.apply(hybrid()));
    const destroy = await phase(() => kp.destroy('hybrid'));
    return { create, destroy };
  } finally {
    close();
    await emulators.stop();
  }
}

export async function run(): Promise<BenchResult[]> {
  const gcp = await onGoogle();
  const aws = await onAws();
  const out: BenchResult[] = [];
  for (const flow of ['create', 'destroy'] as const) {
    const g = gcp[flow];
    const a = aws[flow];
    const what = `${flow === 'create' ? 'create' : 'destroy'} the hybrid example (10 machines)`;
    out.push(
      {
        name: `serverless, Google Cloud: step function invocations to ${what}`,
        value: g.invocations,
        unit: 'invocations',
        note: `AWS, same run: ${a.invocations} Lambda invocations (batch size 1)`,
      },
      {
        name: `serverless, Google Cloud: Cloud Tasks tasks created to ${what}`,
        value: g.messages,
        unit: 'tasks',
        note: `AWS, same run: ${a.messages} SQS messages sent`,
      },
      {
        name: `serverless, Google Cloud: Firestore document reads to ${what}`,
        value: g.reads,
        unit: 'reads',
        note: `AWS, same run: ${a.reads} DynamoDB GetItem/Query requests`,
      },
      {
        name: `serverless, Google Cloud: Firestore document writes to ${what}`,
        value: g.writes,
        unit: 'writes',
        note: `AWS, same run: ${a.writes} DynamoDB PutItem/UpdateItem requests`,
      },
      {
        name: `serverless, Google Cloud: Firestore document deletes to ${what}`,
        value: g.deletes,
        unit: 'deletes',
        note: `AWS, same run: ${a.deletes} DynamoDB DeleteItem requests`,
      },
      {
        name: `serverless, Google Cloud: Secret Manager requests to ${what}`,
        value: g.secrets,
        unit: 'requests',
        note: `AWS, same run: ${a.secrets} Secrets Manager requests`,
      },
    );
  }
  return out;
}
