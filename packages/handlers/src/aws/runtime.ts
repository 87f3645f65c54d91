// The AWS runtime as a Lambda function builds it once per container, from its environment: the engine on the
// DynamoDB table, the SQS step queue (with the deduplication log) and Secrets Manager, with real cloud
// providers whose credentials come from each provider's secretRef — `awsSecretsManager` (a JSON secret of the
// provider's credential keys) under the project's own prefix, and nothing else (secret-refs.ts).
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { KubeplaneError, Kubeplane, Redacted, systemClock, type ProviderDef, type ProviderFactory, type StepEvent } from '@kubeplane/sdk';
import type { RateBudgetSource } from '@kubeplane/sdk/provider';
import { kubernetesConnector } from '@kubeplane/providers';
import type { Credentials } from '../runtime/credentials.js';
import type { Runtime } from '../runtime/runtime.js';
import { accessGrantsFromJson, type AccessGrant } from './access.js';
import { PROVIDER_SECRET_PREFIX, refusedSecretRef } from './secret-refs.js';
import { cloudProviderFactory } from '../runtime/cloud-providers.js';
import { DynamoDbDeduplicationLog } from './dynamodb-deduplication-log.js';
import { dynamoDbRateBudgets } from './dynamodb-rate-budget.js';
import { DynamoDbLease } from './dynamodb-lease.js';
import { DynamoDbStateStore } from './dynamodb-state-store.js';
import { SecretsManagerStore } from './secrets-manager-store.js';
import { SqsQueue } from './sqs-queue.js';

/** The environment variables the functions read (the CDK app sets them). */
export interface AwsRuntimeEnv {
  AWS_REGION?: string;
  KUBEPLANE_TABLE?: string;
  KUBEPLANE_QUEUE_URL?: string;
  KUBEPLANE_SECRET_PREFIX?: string;
  KUBEPLANE_MAX_RECEIVE_COUNT?: string;
  /** Must stay below the queue's visibility timeout. */
  KUBEPLANE_LEASE_SECONDS?: string;
  /** The step queue's visibility timeout: with the lease, how long the watchdog waits before it takes a step's message as lost. */
  KUBEPLANE_VISIBILITY_SECONDS?: string;
  /** Where providers' credential secrets live, one folder per project (default `kubeplane-providers/`). */
  KUBEPLANE_PROVIDER_SECRET_PREFIX?: string;
  /** The API function's access grants, a JSON array (access.ts); unset, the API refuses every request. */
  KUBEPLANE_ACCESS?: string;
}

/** The AWS runtime: the engine on DynamoDB, SQS and Secrets Manager, and its step queue. */
export interface AwsRuntime extends Runtime {
  readonly kind: 'aws';
  queue: SqsQueue<StepEvent>;
  maxReceiveCount: number;
}

/** Builds the AWS runtime from a Lambda function's environment. */
export function awsRuntimeFromEnv(env: AwsRuntimeEnv & NodeJS.ProcessEnv = process.env): AwsRuntime {
  const need = (name: keyof AwsRuntimeEnv): string => {
    const v = env[name];
    if (!v) throw new KubeplaneError('invalid', `environment variable ${name} is not set; the deploy (examples/aws) sets it`);
    return v;
  };
  const region = need('AWS_REGION');
  const tableName = need('KUBEPLANE_TABLE');
  // Lambda's role credentials come from the SDK's default chain; bounded retries, the engine retries steps.
  const base = { region, maxAttempts: 3 };
  const deduplication = new DynamoDbDeduplicationLog({ ...base, tableName });
  const queue = new SqsQueue<StepEvent>({ ...base, queueUrl: need('KUBEPLANE_QUEUE_URL'), deduplication });
  const kubeplane = new Kubeplane({
    state: new DynamoDbStateStore({ ...base, tableName }),
    lease: new DynamoDbLease({ ...base, tableName }),
    secrets: new SecretsManagerStore({ ...base, namePrefix: env.KUBEPLANE_SECRET_PREFIX ?? 'kubeplane/' }),
    queue,
    clock: systemClock,
    // One budget per provider account and region for every container, on the table's `b/` items.
    providers: lambdaProviders(env, region, dynamoDbRateBudgets({ ...base, tableName })),
    kubernetes: kubernetesConnector(),
    leaseSeconds: Number(env.KUBEPLANE_LEASE_SECONDS ?? 120),
    ...(env.KUBEPLANE_VISIBILITY_SECONDS ? { messageVisibilitySeconds: Number(env.KUBEPLANE_VISIBILITY_SECONDS) } : {}),
  });
  // The SDK clients keep no connection a Lambda container must release.
  return { kind: 'aws', kubeplane, clock: systemClock, close: async () => {}, queue, maxReceiveCount: Number(env.KUBEPLANE_MAX_RECEIVE_COUNT ?? 5) };
}

/** The API's access grants from KUBEPLANE_ACCESS; a malformed value throws, naming the variable, so the cold start fails. */
export function accessGrantsFromEnv(env: AwsRuntimeEnv & NodeJS.ProcessEnv = process.env): AccessGrant[] {
  const text = env.KUBEPLANE_ACCESS;
  return text ? accessGrantsFromJson(text, 'environment variable KUBEPLANE_ACCESS') : [];
}

/** Where a provider's credentials are read from, and with which client. */
export interface ProviderSecretsOptions {
  /** Each project's folder of provider secrets is `<prefix><project>/` (KUBEPLANE_PROVIDER_SECRET_PREFIX). */
  prefix: string;
  /** The Region of a secretRef that names none. */
  defaultRegion: string;
  /**
   * The Secrets Manager client of a Region. Default: one per Region on the SDK's provider chain (the function's role);
   * tests pass clients on an emulator, whose calls they record.
   */
  clientFor?: (region: string) => SecretsManagerClient;
}

/**
 * A provider's credentials as the step function reads them: a JSON secret of the provider's credential keys
 * (`awsSecretsManager`), under the project's own prefix and nowhere else.
 */
export function providerSecretCredentials(options: ProviderSecretsOptions): (def: ProviderDef, project: string | undefined) => Promise<Credentials> {
  const clients = new Map<string, SecretsManagerClient>();
  const clientFor = options.clientFor ?? ((region: string) => new SecretsManagerClient({ region, maxAttempts: 3 }));
  return async (def, project) => {
    // The rule the API applies to what it accepts (secret-refs.ts), applied again where credentials are read: a manifest
    // that reached the table another way (the SDK, an older API) must not make the function read its own environment,
    // its files, or another project's secret.
    const refusal =
      project === undefined
        ? { message: "no project named for the provider; the serverless runtime reads only a project's own secrets" }
        : refusedSecretRef(def.secretRef, 'secretRef', `${options.prefix}${project}/`);
    if (refusal) throw new KubeplaneError('auth', `provider ${def.name}: ${refusal.message}`, { resource: def.name, code: 'SecretRefRefused' });
    const ref = def.secretRef.awsSecretsManager;
    if (!ref) throw new KubeplaneError('auth', `provider ${def.name}: no awsSecretsManager secretRef`, { resource: def.name });
    const region = ref.region ?? options.defaultRegion;
    let client = clients.get(region);
    if (!client) clients.set(region, (client = clientFor(region)));
    const out = await client.send(new GetSecretValueCommand({ SecretId: ref.secretId }));
    let parsed: unknown;
    try {
      parsed = JSON.parse(out.SecretString ?? '');
    } catch {
      throw new KubeplaneError('auth', `provider ${def.name}: secret ${ref.secretId} is not a JSON object of credential keys`, { resource: def.name });
    }
    if (typeof parsed !== 'object' || parsed === null)
      throw new KubeplaneError('auth', `provider ${def.name}: secret ${ref.secretId} is not a JSON object of credential keys`, { resource: def.name });
    return Object.fromEntries(
      Object.entries(parsed)
        .filter((e): e is [string, string] => typeof e[1] === 'string')
        .map(([k, v]) => [k, Redacted.of(v)]),
    );
  };
}

function lambdaProviders(env: NodeJS.ProcessEnv, defaultRegion: string, budgets: RateBudgetSource): ProviderFactory {
  return cloudProviderFactory(
    providerSecretCredentials({ prefix: env.KUBEPLANE_PROVIDER_SECRET_PREFIX ?? PROVIDER_SECRET_PREFIX, defaultRegion }),
    defaultRegion,
    budgets,
  );
}
