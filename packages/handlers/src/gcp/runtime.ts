// The Google Cloud runtime as a function instance builds it once, from its environment: the engine on Firestore
// (state, leases, rate budgets, dead letters), Secret Manager (the cluster's secrets) and Cloud Tasks (the step queue),
// with real cloud providers whose credentials come from each provider's secretRef — `gcpSecretManager` (a JSON secret
// of the provider's credential keys) of the runtime's project under the manifest project's own prefix, nothing else.
import type { SecretManagerServiceClient } from '@google-cloud/secret-manager';
import { gcpSecretVersionName } from '@kubeplane/sdk/internal';
import {
  KubeplaneError,
  Kubeplane,
  Redacted,
  systemClock,
  type Clock,
  type KubernetesConnector,
  type ProviderDef,
  type ProviderFactory,
  type StepEvent,
} from '@kubeplane/sdk';
import { kubernetesConnector } from '@kubeplane/providers';
import type { Credentials } from '../runtime/credentials.js';
import type { Runtime } from '../runtime/runtime.js';
import { cloudProviderFactory } from '../runtime/cloud-providers.js';
import { CloudTasksQueue } from './cloud-tasks-queue.js';
import { FirestoreDeadLetters } from './firestore-dead-letters.js';
import { FirestoreLease } from './firestore-lease.js';
import { firestoreRateBudgets } from './firestore-rate-budget.js';
import { FirestoreStateStore } from './firestore-state-store.js';
import { firestoreClient, secretManagerClient, type GoogleClientOptions } from './google-clients.js';
import { GCP_PROVIDER_SECRET_PREFIX, refusedGcpSecretRef } from './secret-refs.js';
import { SecretManagerStore } from './secret-manager-store.js';

/** The environment variables the functions read (the deploy sets them; names are the contract with @kubeplane/gcp-terraform). */
export interface GcpRuntimeEnv {
  GOOGLE_CLOUD_PROJECT?: string;
  KUBEPLANE_LOCATION?: string;
  KUBEPLANE_TASKS_QUEUE?: string;
  KUBEPLANE_STEP_URL?: string;
  KUBEPLANE_TASKS_SERVICE_ACCOUNT?: string;
  KUBEPLANE_MAX_ATTEMPTS?: string;
  KUBEPLANE_TASK_DEADLINE_SECONDS?: string;
  KUBEPLANE_FIRESTORE_DATABASE?: string;
  KUBEPLANE_COLLECTION_PREFIX?: string;
  KUBEPLANE_SECRET_PREFIX?: string;
  KUBEPLANE_PROVIDER_SECRET_PREFIX?: string;
  KUBEPLANE_LEASE_SECONDS?: string;
  KUBEPLANE_ACCESS?: string;
  KUBEPLANE_API_AUTH?: string;
  KUBEPLANE_API_AUDIENCE?: string;
}

/** The region of an AWS provider whose manifest names none (a Google runtime has no AWS region of its own). */
const DEFAULT_AWS_REGION = 'us-east-1';

/** How callers of the API function authenticate: Cloud Run IAM, or a Google ID token for an audience. */
export type GcpApiAuth = { mode: 'iam' } | { mode: 'id-token'; audience: string };

/** The Google Cloud runtime: the engine on Firestore, Secret Manager and Cloud Tasks, with its dead letters. */
export interface GcpRuntime extends Runtime {
  readonly kind: 'google';
  projectId: string;
  queue: CloudTasksQueue<StepEvent>;
  deadLetters: FirestoreDeadLetters;
  /** The queue's retry_config.max_attempts. */
  maxAttempts: number;
  taskDeadlineSeconds: number;
  /** KUBEPLANE_ACCESS as given (JSON text), checked when the API handler is made; undefined refuses every request. */
  accessJson: string | undefined;
  apiAuth: GcpApiAuth;
  providerSecretPrefix: string;
  clock: Clock;
}

/** What tests and the sandbox replace: credentials, the clock, the providers and the cluster connector. */
export interface GcpRuntimeOverrides extends Partial<Pick<GoogleClientOptions, 'authClient'>> {
  clock?: Clock;
  providers?: ProviderFactory;
  kubernetes?: KubernetesConnector;
}

/** Builds the Google Cloud runtime from a function instance's environment. */
export function gcpRuntimeFromEnv(env: GcpRuntimeEnv & NodeJS.ProcessEnv = process.env, overrides: GcpRuntimeOverrides = {}): GcpRuntime {
  const need = (name: keyof GcpRuntimeEnv): string => {
    const v = env[name];
    if (!v) throw new KubeplaneError('invalid', `environment variable ${name} is not set; the deploy (@kubeplane/gcp-terraform) sets it`, { resource: name });
    return v;
  };
  const int = (name: keyof GcpRuntimeEnv, fallback: number | undefined, min: number, max: number): number => {
    const text = env[name];
    if (text === undefined || text === '') {
      if (fallback === undefined) return Number(need(name));
      return fallback;
    }
    const n = Number(text);
    if (!Number.isInteger(n) || n < min || n > max)
      throw new KubeplaneError('invalid', `environment variable ${name} is "${text}", not a whole number from ${min} to ${max}`, { resource: name });
    return n;
  };
  const projectId = need('GOOGLE_CLOUD_PROJECT');
  const location = need('KUBEPLANE_LOCATION');
  const queueId = need('KUBEPLANE_TASKS_QUEUE');
  const url = need('KUBEPLANE_STEP_URL');
  const serviceAccountEmail = need('KUBEPLANE_TASKS_SERVICE_ACCOUNT');
  const maxAttempts = int('KUBEPLANE_MAX_ATTEMPTS', undefined, 1, 100);
  const taskDeadlineSeconds = int('KUBEPLANE_TASK_DEADLINE_SECONDS', 600, 15, 1800);
  const leaseSeconds = int('KUBEPLANE_LEASE_SECONDS', 120, 10, 3600);
  const authMode = env.KUBEPLANE_API_AUTH ?? 'iam';
  if (authMode !== 'iam' && authMode !== 'id-token')
    throw new KubeplaneError('invalid', `environment variable KUBEPLANE_API_AUTH is "${authMode}"; use iam or id-token`, { resource: 'KUBEPLANE_API_AUTH' });
  const apiAuth: GcpApiAuth = authMode === 'iam' ? { mode: 'iam' } : { mode: 'id-token', audience: need('KUBEPLANE_API_AUDIENCE') };
  const prefix = env.KUBEPLANE_COLLECTION_PREFIX || 'kubeplane';
  const clock = overrides.clock ?? systemClock;
  const google: GoogleClientOptions = {
    projectId,
    ...(overrides.authClient ? { authClient: overrides.authClient } : {}),
    ...(env.KUBEPLANE_FIRESTORE_DATABASE ? { databaseId: env.KUBEPLANE_FIRESTORE_DATABASE } : {}),
  };
  // One client of each kind per instance, shared by the adapters (connections and tokens are reused).
  const firestore = firestoreClient(google);
  const secretsClient = secretManagerClient(google);
  const queue = new CloudTasksQueue<StepEvent>({
    ...google,
    location,
    queue: queueId,
    url,
    serviceAccountEmail,
    dispatchDeadlineSeconds: taskDeadlineSeconds,
    now: () => clock.now(),
  });
  const providerSecretPrefix = env.KUBEPLANE_PROVIDER_SECRET_PREFIX || GCP_PROVIDER_SECRET_PREFIX;
  const budgets = firestoreRateBudgets({ ...google, firestore, collection: `${prefix}-budgets`, clock });
  const providers =
    overrides.providers ??
    cloudProviderFactory(gcpProviderSecretCredentials({ prefix: providerSecretPrefix, projectId, client: secretsClient }), DEFAULT_AWS_REGION, budgets);
  const kubeplane = new Kubeplane({
    state: new FirestoreStateStore({ ...google, firestore, collection: `${prefix}-state` }),
    lease: new FirestoreLease({ ...google, firestore, collection: `${prefix}-leases`, clock }),
    secrets: new SecretManagerStore({ ...google, client: secretsClient, idPrefix: env.KUBEPLANE_SECRET_PREFIX || 'kubeplane-' }),
    queue,
    clock,
    providers,
    kubernetes: overrides.kubernetes ?? kubernetesConnector(),
    leaseSeconds,
    // A task is "in flight" for at most its dispatch deadline (then Cloud Tasks retries it): the watchdog's wait.
    messageVisibilitySeconds: taskDeadlineSeconds,
  });
  return {
    projectId,
    kubeplane,
    queue,
    deadLetters: new FirestoreDeadLetters({ ...google, firestore, collection: `${prefix}-dead-letters` }),
    maxAttempts,
    taskDeadlineSeconds,
    accessJson: env.KUBEPLANE_ACCESS || undefined,
    apiAuth,
    providerSecretPrefix,
    clock,
    kind: 'google',
    // The clients' connections close with the instance; nothing outlives a call.
    close: async () => {},
  };
}

/**
 * A provider's credentials as the step function reads them: a JSON secret of the provider's credential keys
 * (`gcpSecretManager`), of the runtime's project under the manifest project's own prefix and nowhere else.
 */
export function gcpProviderSecretCredentials(options: {
  prefix: string;
  projectId: string;
  client: SecretManagerServiceClient;
}): (def: ProviderDef, project: string | undefined) => Promise<Credentials> {
  return async (def, project) => {
    // The rule the API applies to what it accepts (secret-refs.ts), applied again where credentials are read: a manifest
    // that reached the store another way must not make the function read its environment, files or another project's secret.
    const refusal =
      project === undefined
        ? { message: "no project named for the provider; the serverless runtime reads only a project's own secrets" }
        : refusedGcpSecretRef(def.secretRef, 'secretRef', `${options.prefix}${project}-`, options.projectId);
    if (refusal) throw new KubeplaneError('auth', `provider ${def.name}: ${refusal.message}`, { resource: def.name, code: 'SecretRefRefused' });
    const ref = def.secretRef.gcpSecretManager!;
    const name = gcpSecretVersionName(ref, options.projectId);
    const [out] = await options.client.accessSecretVersion({ name });
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(out.payload?.data ?? '').toString('utf8'));
    } catch {
      parsed = undefined;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new KubeplaneError('auth', `provider ${def.name}: secret ${name} is not a JSON object of credential keys`, { resource: def.name });
    }
    return Object.fromEntries(
      Object.entries(parsed)
        .filter((e): e is [string, string] => typeof e[1] === 'string')
        .map(([k, v]) => [k, Redacted.of(v)]),
    );
  };
}
