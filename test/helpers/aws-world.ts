// A kubeplane engine on the sandbox clouds with the AWS runtime's ports: every step message crosses the SQS
// API (fauxqs), all state and leases the DynamoDB API (dynalite), secrets the Secrets Manager API (emulator).
// The sandbox's msw handlers intercept the cloud calls; loopback calls to the emulators pass through.
import { randomUUID } from 'node:crypto';
import { http, passthrough } from 'msw';
import { setupServer } from 'msw/node';
import { Kubeplane, type EngineEvent, type EngineOptions, type Lease, type StateStore, type StepEvent } from '@kubeplane/sdk';
import { Sandbox, sandboxKubernetes, sandboxProviders } from '@kubeplane/sandbox';
import {
  createStepHandler,
  DynamoDbDeduplicationLog,
  DynamoDbLease,
  DynamoDbStateStore,
  jsonLogger,
  SecretsManagerStore,
  SqsQueue,
  type StepHandler,
} from '@kubeplane/handlers/aws';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { followClock, startAwsEmulators, type AwsEmulators } from './aws-emulators.js';

export interface AwsWorld {
  sandbox: Sandbox;
  kp: Kubeplane;
  queue: SqsQueue<StepEvent>;
  dlqUrl: string | undefined;
  handler: StepHandler;
  /** Another handler with its own engine (worker id) on the same ports, as a second Lambda instance. */
  secondHandler(): StepHandler;
  events: EngineEvent[];
  logs: string[];
  close(): void;
}

export interface AwsWorldOptions {
  seed?: number;
  maxReceiveCount?: number;
  visibilityTimeoutSeconds?: number;
  wrapState?: (s: StateStore) => StateStore;
  wrapLease?: (l: Lease) => Lease;
}

/**
 * The sandbox clouds for a test on the emulators: their msw handlers answer the cloud calls, loopback calls (the
 * emulators) pass through, and Date.now() (fauxqs's SQS time) follows the sandbox's virtual clock until `close`.
 */
export function sandboxOnLoopback(seed: number): { sandbox: Sandbox; close(): void } {
  const sandbox = new Sandbox({ seed });
  // Every sandbox cloud (STS too, which an AWS provider's sessions come from), then the loopback emulators.
  const server = setupServer(
    ...sandbox.handlers(),
    http.all(/^http:\/\/127\.0\.0\.1:\d+\//, () => passthrough()),
  );
  server.listen({ onUnhandledRequest: 'error' });
  const restoreClock = followClock(sandbox.clock);
  return {
    sandbox,
    close() {
      restoreClock();
      server.close();
    },
  };
}

export async function awsWorld(emulators: AwsEmulators, options: AwsWorldOptions = {}): Promise<AwsWorld> {
  const { sandbox, close } = sandboxOnLoopback(options.seed ?? 1);
  const visibility = options.visibilityTimeoutSeconds ?? 120;
  const { queueUrl, dlqUrl } = await emulators.createQueue({ maxReceiveCount: options.maxReceiveCount ?? 5, visibilityTimeoutSeconds: visibility });
  const tableName = await emulators.createTable();
  const deduplication = new DynamoDbDeduplicationLog({ ...emulators.dynamodb, tableName, clock: sandbox.clock });
  const queue = new SqsQueue<StepEvent>({ ...emulators.sqs, queueUrl, clock: sandbox.clock, visibilityTimeoutSeconds: visibility, deduplication });
  const state = new DynamoDbStateStore({ ...emulators.dynamodb, tableName });
  const lease = new DynamoDbLease({ ...emulators.dynamodb, tableName, clock: sandbox.clock });
  const options_: EngineOptions = {
    state: options.wrapState ? options.wrapState(state) : state,
    secrets: new SecretsManagerStore({ ...emulators.secretsManager, namePrefix: `kp-${randomUUID().slice(0, 8)}/` }),
    queue,
    lease: options.wrapLease ? options.wrapLease(lease) : lease,
    clock: sandbox.clock,
    providers: sandboxProviders(sandbox),
    kubernetes: sandboxKubernetes(sandbox),
    // A step may hold its cluster for less than the visibility timeout, so a killed step's lease is free by the time its message returns.
    leaseSeconds: Math.min(120, visibility),
    messageVisibilitySeconds: visibility,
  };
  const kp = new Kubeplane(options_);
  const events: EngineEvent[] = [];
  kp.on((e) => events.push(e));
  const logs: string[] = [];
  const logger = jsonLogger((line) => logs.push(line));
  const maxReceiveCount = options.maxReceiveCount ?? 5;
  return {
    sandbox,
    kp,
    queue,
    dlqUrl,
    handler: createStepHandler({ kubeplane: kp, queue, maxReceiveCount, logger }),
    secondHandler: () => createStepHandler({ kubeplane: new Kubeplane(options_), queue, maxReceiveCount, logger }),
    events,
    logs,
    close,
  };
}

/** Whole lifecycles through three emulators take a minute alone, more on a busy machine: a bound, not a speed claim. */
export const LIFECYCLE_TIMEOUT = 300_000;

/**
 * For a test file: starts the emulators once for the file and closes each world opened by `open` after its test.
 * Call at the top level of the file.
 */
export function useAwsWorlds(): { readonly emulators: AwsEmulators; open(options?: AwsWorldOptions): Promise<AwsWorld> } {
  let emulators: AwsEmulators | undefined;
  const open: AwsWorld[] = [];
  beforeAll(async () => {
    emulators = await startAwsEmulators();
  });
  afterAll(async () => {
    await emulators?.stop();
  });
  afterEach(() => {
    for (const w of open.splice(0)) w.close();
  });
  return {
    get emulators() {
      if (!emulators) throw new Error('the AWS emulators start in beforeAll; use them inside a test');
      return emulators;
    },
    async open(options) {
      const w = await awsWorld(this.emulators, options);
      open.push(w);
      return w;
    },
  };
}
