// The four functions of the AWS deploy (@kubeplane/aws-cdk) as packages/handlers/src/aws/lambda/*.ts build them,
// each on AWS clients of its own over one set of emulated resources (the table, the step queue and its DLQ, the kept
// queue, Secrets Manager), so what each function calls can be told apart as IAM tells its role's requests apart. Every
// client records its calls (aws-call-recorder.ts), and so do Lambda's pollers of the two consumed queues, which use
// their function's role. The step function works on the sandbox clouds and reads each provider's credentials from its
// secret as the deployed one does (providerSecretCredentials); the sandbox takes its own credentials in their place.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SQSClient } from '@aws-sdk/client-sqs';
import { Kubeplane, type StepEvent } from '@kubeplane/sdk';
import { sandboxKubernetes, sandboxProviders, type Sandbox } from '@kubeplane/sandbox';
import {
  awsClientConfig,
  createApiHandler,
  createDeadLetterHandler,
  createStepHandler,
  createWatchdogHandler,
  DynamoDbDeduplicationLog,
  DynamoDbLease,
  DynamoDbStateStore,
  dynamoDbRateBudgets,
  jsonLogger,
  providerSecretCredentials,
  SecretsManagerStore,
  SqsQueue,
  sqsKeeper,
  type AccessGrant,
  type ApiHandler,
  type StepHandler,
  type WatchdogHandler,
} from '@kubeplane/handlers/aws';
import type { FunctionName } from '@kubeplane/aws-cdk';
import type { AwsCallRecorder } from './aws-call-recorder.js';
import { REGION, type AwsEmulators } from './aws-emulators.js';
import { sandboxOnLoopback } from './aws-world.js';

/** What the code of a function calls, and what Lambda calls with the function's role on its behalf. */
export const FROM_CODE = 'code';
export const FROM_POLLER = 'event source mapping';

export interface DeployOptions {
  emulators: AwsEmulators;
  recorder: AwsCallRecorder;
  seed: number;
  /** KUBEPLANE_SECRET_PREFIX: where the engine keeps cluster secrets. */
  secretPrefix: string;
  /** KUBEPLANE_PROVIDER_SECRET_PREFIX: each project's folder of provider credentials is `<prefix><project>/`. */
  providerSecretPrefix: string;
  /** The step queue's redrive maxReceiveCount (KUBEPLANE_MAX_RECEIVE_COUNT). */
  maxReceiveCount: number;
  /** The step queue's visibility timeout (KUBEPLANE_VISIBILITY_SECONDS). */
  visibilitySeconds: number;
  /** KUBEPLANE_LEASE_SECONDS: within the visibility timeout, so a killed step's lease is free when its message returns. */
  leaseSeconds: number;
  /** The API's grants (KUBEPLANE_ACCESS). */
  access: AccessGrant[];
}

export interface DeployedFunctions {
  sandbox: Sandbox;
  tableName: string;
  queueUrl: string;
  deadLetterUrl: string;
  keptUrl: string;
  step: StepHandler;
  api: ApiHandler;
  watchdog: WatchdogHandler;
  deadLetter: StepHandler;
  /** Lambda's poller of the step queue, with the step function's role. */
  stepPoller: SqsQueue<StepEvent>;
  /** Lambda's poller of the DLQ, with the dead-letter function's role. */
  deadLetterPoller: SqsQueue<StepEvent>;
  logs: string[];
  close(): void;
}

export async function deployFunctions(o: DeployOptions): Promise<DeployedFunctions> {
  const { emulators, recorder } = o;
  const { sandbox, close } = sandboxOnLoopback(o.seed);
  const clock = sandbox.clock;
  const { queueUrl, dlqUrl } = await emulators.createQueue({ maxReceiveCount: o.maxReceiveCount, visibilityTimeoutSeconds: o.visibilitySeconds });
  if (!dlqUrl) throw new Error('the step queue was made without its DLQ');
  const { queueUrl: keptUrl } = await emulators.createQueue();
  const tableName = await emulators.createTable();
  const logs: string[] = [];
  const logger = jsonLogger((line) => logs.push(line));

  /** A function's clients, each recording its calls as the function's. */
  const clientsOf = (fn: FunctionName, origin: string) => ({
    dynamodb: recorder.record(new DynamoDBClient(awsClientConfig(emulators.dynamodb)), fn, origin),
    sqs: recorder.record(new SQSClient(awsClientConfig(emulators.sqs)), fn, origin),
    secrets: recorder.record(new SecretsManagerClient(awsClientConfig(emulators.secretsManager)), fn, origin),
  });

  /** What awsRuntimeFromEnv builds in every function's container, on that function's clients. */
  const runtimeOf = (fn: FunctionName) => {
    const clients = clientsOf(fn, FROM_CODE);
    const table = { ...emulators.dynamodb, client: clients.dynamodb, tableName, clock };
    const queue = new SqsQueue<StepEvent>({
      ...emulators.sqs,
      client: clients.sqs,
      queueUrl,
      clock,
      visibilityTimeoutSeconds: o.visibilitySeconds,
      deduplication: new DynamoDbDeduplicationLog(table),
    });
    const credentials = providerSecretCredentials({ prefix: o.providerSecretPrefix, defaultRegion: REGION, clientFor: () => clients.secrets });
    const clouds = sandboxProviders(sandbox, dynamoDbRateBudgets(table));
    const kubeplane = new Kubeplane({
      state: new DynamoDbStateStore(table),
      lease: new DynamoDbLease(table),
      secrets: new SecretsManagerStore({ ...emulators.secretsManager, client: clients.secrets, namePrefix: o.secretPrefix }),
      queue,
      clock,
      providers: async (def, region, context) => {
        await credentials(def, context?.project);
        return clouds(def, region, context);
      },
      kubernetes: sandboxKubernetes(sandbox),
      leaseSeconds: o.leaseSeconds,
      messageVisibilitySeconds: o.visibilitySeconds,
    });
    return { kubeplane, queue, clients };
  };

  const poller = (fn: FunctionName, url: string) =>
    new SqsQueue<StepEvent>({ ...emulators.sqs, client: clientsOf(fn, FROM_POLLER).sqs, queueUrl: url, clock, visibilityTimeoutSeconds: o.visibilitySeconds });
  const step = runtimeOf('step');
  const deadLetter = runtimeOf('deadLetter');
  return {
    sandbox,
    tableName,
    queueUrl,
    deadLetterUrl: dlqUrl,
    keptUrl,
    step: createStepHandler({ kubeplane: step.kubeplane, queue: step.queue, maxReceiveCount: o.maxReceiveCount, logger }),
    api: createApiHandler({ kubeplane: runtimeOf('api').kubeplane, access: o.access, logger }),
    watchdog: createWatchdogHandler({ kubeplane: runtimeOf('watchdog').kubeplane, logger }),
    deadLetter: createDeadLetterHandler({
      kubeplane: deadLetter.kubeplane,
      keeper: sqsKeeper({ region: REGION, queueUrl: keptUrl, client: deadLetter.clients.sqs }),
      logger,
    }),
    stepPoller: poller('step', queueUrl),
    deadLetterPoller: poller('deadLetter', dlqUrl),
    logs,
    close,
  };
}
