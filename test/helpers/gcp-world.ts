// A kubeplane engine on the sandbox clouds with the Google Cloud runtime's ports: every step message is a Cloud Tasks
// task (the sandbox's emulator), all state, leases and dead letters live in Firestore, secrets in Secret Manager, each
// reached through Google's Node clients in REST mode. The step and watchdog functions run in the Functions Framework on
// loopback servers, where the dispatcher (cloud-tasks-dispatcher.ts) sends each task as Cloud Tasks would.
// No vitest here: the benchmarks open worlds too.
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { http as mswHttp, passthrough } from 'msw';
import { setupServer } from 'msw/node';
import { http as registerHttp } from '@google-cloud/functions-framework';
import { getTestServer } from '@google-cloud/functions-framework/testing';
import { OAuth2Client } from 'google-auth-library';
import { Kubeplane, type EngineEvent, type EngineOptions, type Lease, type StateStore, type StepEvent, type WatchdogReport } from '@kubeplane/sdk';
import { Sandbox, SANDBOX_GOOGLE_LOCATION, SANDBOX_GOOGLE_PROJECT, sandboxAddonCredentials, sandboxKubernetes, sandboxProviders } from '@kubeplane/sandbox';
import {
  CloudTasksQueue,
  createCloudTasksStepHandler,
  firestoreClient,
  FirestoreDeadLetters,
  FirestoreLease,
  FirestoreStateStore,
  jsonLogger,
  runGcpWatchdog,
  SecretManagerStore,
  secretManagerClient,
} from '@kubeplane/handlers/gcp';

/** The step function's URL as the deploy would know it; the dispatcher maps its origin to the loopback servers. */
export const STEP_URL = 'https://kubeplane-step-sandbox.a.run.app/';
const TASKS_SERVICE_ACCOUNT = `kubeplane-tasks@${SANDBOX_GOOGLE_PROJECT}.iam.gserviceaccount.com`;

export interface GcpWorld {
  sandbox: Sandbox;
  kp: Kubeplane;
  queue: CloudTasksQueue<StepEvent>;
  deadLetters: FirestoreDeadLetters;
  /** Each world's collections and secrets carry their own prefix. */
  collectionPrefix: string;
  secretPrefix: string;
  /** The dispatcher's targets: the step function's origin served by `instances` Functions Framework servers. */
  targets(instances: number): Record<string, string[]>;
  /** One run of the watchdog function (Cloud Scheduler's call). */
  watchdog(): Promise<WatchdogReport>;
  events: EngineEvent[];
  logs: string[];
  logLines(): Array<Record<string, unknown>>;
  close(): Promise<void>;
}

export interface GcpWorldOptions {
  seed?: number;
  /** The queue's retry_config.max_attempts (default 5). */
  maxAttempts?: number;
  /** Each task's dispatch deadline (default 600 s). */
  deadlineSeconds?: number;
  wrapState?: (s: StateStore) => StateStore;
  wrapLease?: (l: Lease) => Lease;
}

/** Whole lifecycles through three emulators and HTTP take a while on a busy machine: a bound, not a speed claim. */
export const GCP_LIFECYCLE_TIMEOUT = 300_000;

let worlds = 0;

export async function openGcpWorld(options: GcpWorldOptions = {}): Promise<GcpWorld> {
  const sandbox = new Sandbox({ seed: options.seed ?? 1 });
  // Every sandbox cloud and Google API; the function servers on loopback pass through.
  const server = setupServer(
    ...sandbox.handlers(),
    mswHttp.all(/^http:\/\/127\.0\.0\.1:\d+\//, () => passthrough()),
  );
  server.listen({ onUnhandledRequest: 'error' });
  const clock = sandbox.clock;
  const id = `${++worlds}${randomUUID().slice(0, 6)}`;
  const maxAttempts = options.maxAttempts ?? 5;
  const deadlineSeconds = options.deadlineSeconds ?? 600;
  const queueId = `steps-${id}`;
  // The deploy's queue: finite retries with Cloud Tasks' backoff (packages/gcp-terraform/main.tf has the same settings).
  sandbox.google.tasks.createQueue(`projects/${SANDBOX_GOOGLE_PROJECT}/locations/${SANDBOX_GOOGLE_LOCATION}/queues/${queueId}`, {
    maxAttempts,
    minBackoffSeconds: 10,
    maxBackoffSeconds: 300,
    maxDoublings: 4,
  });
  const authClient = new OAuth2Client();
  authClient.setCredentials({ access_token: 'sandbox-google-token' });
  const google = { projectId: SANDBOX_GOOGLE_PROJECT, authClient };
  const firestore = firestoreClient(google);
  const collectionPrefix = `kp${id}`;
  const secretPrefix = `kp${id}-`;
  const queue = new CloudTasksQueue<StepEvent>({
    ...google,
    location: SANDBOX_GOOGLE_LOCATION,
    queue: queueId,
    url: STEP_URL,
    serviceAccountEmail: TASKS_SERVICE_ACCOUNT,
    dispatchDeadlineSeconds: deadlineSeconds,
    now: () => clock.now(),
  });
  const state = new FirestoreStateStore({ ...google, firestore, collection: `${collectionPrefix}-state` });
  const lease = new FirestoreLease({ ...google, firestore, collection: `${collectionPrefix}-leases`, clock });
  const deadLetters = new FirestoreDeadLetters({ ...google, firestore, collection: `${collectionPrefix}-dead-letters` });
  const engineOptions: EngineOptions = {
    state: options.wrapState ? options.wrapState(state) : state,
    secrets: new SecretManagerStore({ ...google, client: secretManagerClient(google), idPrefix: secretPrefix }),
    queue,
    lease: options.wrapLease ? options.wrapLease(lease) : lease,
    clock,
    providers: sandboxProviders(sandbox),
    kubernetes: sandboxKubernetes(sandbox),
    addonCredentials: sandboxAddonCredentials(),
    // A step may hold its cluster for less than the dispatch deadline, so a killed step's lease is free when its task is retried.
    leaseSeconds: Math.min(120, deadlineSeconds),
    messageVisibilitySeconds: deadlineSeconds,
  };
  const kp = new Kubeplane(engineOptions);
  const events: EngineEvent[] = [];
  kp.on((e) => events.push(e));
  const logs: string[] = [];
  const logger = jsonLogger((line) => logs.push(line));

  // Each instance is its own engine (worker id) on the same ports, as a second Cloud Run instance would be.
  const servers: Server[] = [];
  async function instance(n: number): Promise<string> {
    const name = `kubeplaneStep-${id}-${n}`;
    const kubeplane = n === 0 ? kp : new Kubeplane(engineOptions);
    registerHttp(name, createCloudTasksStepHandler({ kubeplane, queue, maxAttempts, deadLetters, taskDeadlineSeconds: deadlineSeconds, clock, logger }));
    const s = getTestServer(name);
    await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', () => resolve()));
    servers.push(s);
    return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
  }
  // Two instances: a test picks how many the dispatcher uses.
  const bases: string[] = [await instance(0), await instance(1)];
  return {
    sandbox,
    kp,
    queue,
    deadLetters,
    collectionPrefix,
    secretPrefix,
    targets(instances) {
      return { [new URL(STEP_URL).origin]: bases.slice(0, instances) };
    },
    watchdog: () => runGcpWatchdog(kp, deadLetters, clock, logger),
    events,
    logs,
    logLines: () => logs.map((l) => JSON.parse(l) as Record<string, unknown>),
    async close() {
      for (const s of servers) {
        s.closeAllConnections();
        await new Promise<void>((resolve) => s.close(() => resolve()));
      }
      await firestore.terminate().catch(() => undefined);
      server.close();
      sandbox.close();
    },
  };
}
