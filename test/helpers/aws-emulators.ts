// The AWS side of the serverless tests, all in-process on loopback: fauxqs (SQS), dynalite (DynamoDB) and the
// Secrets Manager emulator, with adapters wired to them (explicit region, static credentials, bounded retries).
// fauxqs judges delays and visibility by Date.now(); `followClock` ties that to a virtual clock so SQS delays
// pass in virtual time, like the sandbox clouds' boot times.
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { vi } from 'vitest';
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import dynalite from 'dynalite';
import { startFauxqs } from 'fauxqs';
import type { Clock } from '@kubeplane/sdk';
import { DynamoDbLease, DynamoDbStateStore, SecretsManagerStore, SqsQueue, tableDefinition, type AwsClientOptions } from '@kubeplane/handlers/aws';
import { SecretsManagerEmulator } from './secrets-manager-emulator.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

export const REGION = 'eu-central-1';
export const CREDENTIALS = { accessKeyId: 'AKIDTESTONLY', secretAccessKey: 'test-secret-not-real' };

export interface AwsEmulators {
  sqs: AwsClientOptions;
  dynamodb: AwsClientOptions;
  secretsManager: AwsClientOptions;
  secretsEmulator: SecretsManagerEmulator;
  /** Creates a standard queue (with a DLQ when maxReceiveCount is given) and returns its URL. */
  createQueue(options?: { maxReceiveCount?: number; visibilityTimeoutSeconds?: number }): Promise<{ queueUrl: string; dlqUrl?: string }>;
  createTable(): Promise<string>;
  stop(): Promise<void>;
}

export async function startAwsEmulators(): Promise<AwsEmulators> {
  const fauxqs = await startFauxqs({ port: 0, logger: false, host: '127.0.0.1' });
  const dyn = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve) => dyn.listen(0, '127.0.0.1', () => resolve()));
  const secretsEmulator = new SecretsManagerEmulator();
  const smEndpoint = await secretsEmulator.start();
  const base = { region: REGION, credentials: CREDENTIALS, maxAttempts: 2 };
  const sqs: AwsClientOptions = { ...base, endpoint: fauxqs.address };
  const dynamodb: AwsClientOptions = { ...base, endpoint: `http://127.0.0.1:${(dyn.address() as AddressInfo).port}` };
  const sqsClient = new SQSClient(sqs);
  const ddbClient = new DynamoDBClient(dynamodb);
  return {
    sqs,
    dynamodb,
    secretsManager: { ...base, endpoint: smEndpoint },
    secretsEmulator,
    async createQueue(options = {}) {
      const name = `kubeplane-steps-${randomUUID().slice(0, 8)}`;
      let dlqUrl: string | undefined;
      const attributes: Record<string, string> = { VisibilityTimeout: String(options.visibilityTimeoutSeconds ?? 30) };
      if (options.maxReceiveCount !== undefined) {
        dlqUrl = (await sqsClient.send(new CreateQueueCommand({ QueueName: `${name}-dlq` }))).QueueUrl;
        const arn = (await sqsClient.send(new GetQueueAttributesCommand({ QueueUrl: dlqUrl, AttributeNames: ['QueueArn'] }))).Attributes?.QueueArn;
        attributes.RedrivePolicy = JSON.stringify({ deadLetterTargetArn: arn, maxReceiveCount: String(options.maxReceiveCount) });
      }
      const queueUrl = (await sqsClient.send(new CreateQueueCommand({ QueueName: name, Attributes: attributes }))).QueueUrl ?? '';
      return dlqUrl ? { queueUrl, dlqUrl } : { queueUrl };
    },
    async createTable() {
      const name = `kubeplane-${randomUUID().slice(0, 8)}`;
      await ddbClient.send(new CreateTableCommand(tableDefinition(name)));
      return name;
    },
    async stop() {
      sqsClient.destroy();
      ddbClient.destroy();
      await fauxqs.stop();
      await new Promise<void>((resolve) => dyn.close(() => resolve()));
      await secretsEmulator.stop();
    },
  };
}

/** Makes Date.now() (what fauxqs keeps SQS time by) read the given clock until the returned function is called. */
export function followClock(clock: Clock): () => void {
  const spy = vi.spyOn(Date, 'now').mockImplementation(() => clock.now());
  return () => spy.mockRestore();
}

export function awsPorts(emulators: AwsEmulators, tableName: string, queueUrl: string, clock: Clock, visibilityTimeoutSeconds = 30) {
  return {
    state: new DynamoDbStateStore({ ...emulators.dynamodb, tableName }),
    lease: new DynamoDbLease({ ...emulators.dynamodb, tableName, clock }),
    secrets: new SecretsManagerStore(emulators.secretsManager),
    queue: <T>() => new SqsQueue<T>({ ...emulators.sqs, queueUrl, clock, visibilityTimeoutSeconds }),
  };
}
