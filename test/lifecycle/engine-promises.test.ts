// The engine keeps its promises under re-creation, lost messages, duplicate deliveries and re-used machine names:
// each test is one experiment of issue 13, run through the public Kubeplane API on the sandbox clouds.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { clusterKey, type ClusterRecord } from '@kubeplane/sdk/internal';
import {
  KubeplaneError,
  FileLease,
  FileQueue,
  FileSecretStore,
  FileStateStore,
  MemoryLease,
  MemoryQueue,
  MemorySecretStore,
  systemClock,
  validateManifestText,
  type ProviderFactory,
  type Redacted,
  type SendOptions,
  type StepEvent,
} from '@kubeplane/sdk';
import { pending } from '@kubeplane/sdk/provider';
import { sandboxProviders, type Sandbox } from '@kubeplane/sandbox';
import { liveMachines, manifestOf, sandboxWorld, type World } from '../helpers/sandbox-world.js';

const minimal = readFileSync(join(import.meta.dirname, '..', '..', 'examples', 'minimal.yaml'), 'utf8');

let sandbox: Sandbox | undefined;
afterEach(() => sandbox?.close());

async function recordOf(w: World, project: string, cluster = project): Promise<ClusterRecord> {
  const id = (await w.kp.status(project)).clusters[cluster]?.id ?? '';
  const r = await w.options.state.get<ClusterRecord>(clusterKey(id));
  if (!r) throw new Error(`no record for ${project}/${cluster}`);
  return r.value;
}

/** Handles messages one at a time until the cluster's current step is `step`. */
async function runUntilStep(w: World, project: string, step: string): Promise<ClusterRecord> {
  for (let i = 0; i < 400; i++) {
    const r = await recordOf(w, project);
    if (r.step.name === step) return r;
    await w.kp.run({ maxMessages: 1 });
  }
  throw new Error(`cluster ${project} never reached step ${step}`);
}

type Create = NonNullable<Awaited<ReturnType<ProviderFactory>>['compute']>['createNode'];

/** The sandbox's providers, with every machine create call going through `around`. */
function aroundCreates(sb: Sandbox, around: (request: Parameters<Create>[0], create: () => ReturnType<Create>) => ReturnType<Create>): ProviderFactory {
  const real = sandboxProviders(sb);
  const wrapped = new WeakSet<object>();
  return async (def, region) => {
    const provider = await real(def, region);
    const compute = provider.compute;
    if (compute && !wrapped.has(compute)) {
      wrapped.add(compute);
      const create = compute.createNode.bind(compute);
      compute.createNode = (request, context) => around(request, () => create(request, context));
    }
    return provider;
  };
}

/** The sandbox's providers, counting the create calls each machine name gets. */
const countingCreates = (sb: Sandbox, calls: string[]) =>
  aroundCreates(sb, (request, create) => {
    calls.push(request.name);
    return create();
  });

/** A queue whose next send fails, as if the process died between the record write and the send. */
class QueueThatFailsOnce<T> extends MemoryQueue<T> {
  failNext = false;
  override async send(body: T, options: SendOptions): Promise<void> {
    if (this.failNext) {
      this.failNext = false;
      throw new Error('the process died before the message was sent');
    }
    return super.send(body, options);
  }
}

describe('incarnations', () => {
  it("applies, destroys and applies again within the queue's deduplication window, and the cluster ends DONE", async () => {
    const w = sandboxWorld(31);
    sandbox = w.sandbox;
    const m = manifestOf(minimal);
    const started = w.sandbox.clock.now();
    await w.kp.apply(m);
    await w.kp.destroy('minimal');
    await w.kp.run();
    expect(await w.kp.findStatus('minimal')).toBeNull();

    // Generation 1, step 1, attempt 0 again: only the incarnation tells its message from the first apply's.
    expect(w.sandbox.clock.now() - started).toBeLessThan(300_000);
    await w.kp.apply(m);
    await w.kp.run();
    const status = await w.kp.status('minimal');
    expect(status.state, JSON.stringify(status.clusters)).toBe('DONE');
    expect(liveMachines(w.sandbox)).toHaveLength(3);
  });

  it('treats a message of the format without an incarnation as stale', async () => {
    const w = sandboxWorld(32);
    sandbox = w.sandbox;
    await w.kp.apply(manifestOf(minimal));
    const r = await recordOf(w, 'minimal');
    const { incarnation: _, ...older } = w.kp.engine.eventOf(r);
    expect(await w.kp.engine.handle(older)).toBe('stale');
    expect((await recordOf(w, 'minimal')).step).toEqual(r.step);
  });
});

describe('one step at a time', () => {
  it('runs a step once when two deliveries of it are handled at the same time by one engine', async () => {
    const calls: string[] = [];
    const w = sandboxWorld(33, (sb) => ({ providers: countingCreates(sb, calls), workerId: 'one-lambda-container' }));
    sandbox = w.sandbox;
    await w.kp.apply(manifestOf(minimal));
    const r = await runUntilStep(w, 'minimal', 'create-nodes');
    const event = w.kp.engine.eventOf(r);

    const outcomes = await Promise.all([w.kp.engine.handle(event), w.kp.engine.handle(event)]);
    expect(outcomes.filter((o) => o === 'busy')).toHaveLength(1);
    expect(calls.length).toBeGreaterThan(0);
    expect(new Set(calls).size).toBe(calls.length);

    await w.kp.run();
    expect((await w.kp.status('minimal')).state).toBe('DONE');
  });
});

describe('long steps', () => {
  it('keep their lease by renewing it while they run, so another delivery stays out', async () => {
    // The lease runs on the real clock here, like a Lambda's, and a create call takes longer than the lease.
    let slow = false;
    const second: Array<Promise<string>> = [];
    let w: World | undefined;
    const world = sandboxWorld(39, (sb) => {
      return {
        lease: new MemoryLease(systemClock),
        leaseSeconds: 1.5,
        providers: aroundCreates(sb, async (_request, create) => {
          if (slow) {
            slow = false;
            // Well past the lease: only renewals keep it. Another delivery of the same step tries meanwhile.
            await new Promise((r) => setTimeout(r, 2500));
            const r = await recordOf(w as World, 'minimal');
            second.push(w!.kp.engine.handle(w!.kp.engine.eventOf(r)));
            await new Promise((r) => setTimeout(r, 1000));
          }
          return create();
        }),
      };
    });
    w = world;
    sandbox = world.sandbox;
    await world.kp.apply(manifestOf(minimal));
    const r = await runUntilStep(world, 'minimal', 'create-nodes');
    slow = true;
    expect(await world.kp.engine.handle(world.kp.engine.eventOf(r))).not.toBe('conflict');
    expect(await Promise.all(second)).toEqual(['busy']);
  });
});

describe('the watchdog', () => {
  const crashedApply = async (seed: number) => {
    let flaky: QueueThatFailsOnce<StepEvent> | undefined;
    const world = sandboxWorld(seed, (sb) => {
      flaky = new QueueThatFailsOnce<StepEvent>({ clock: sb.clock, visibilityTimeoutSeconds: 120 });
      return { queue: flaky };
    });
    sandbox = world.sandbox;
    if (!flaky) throw new Error('no queue');
    flaky.failNext = true;
    await expect(world.kp.apply(manifestOf(minimal))).rejects.toThrow(/died before the message was sent/);
    // The record says IN_PROGRESS, and no message exists to move it.
    expect((await world.kp.run()).messages).toBe(0);
    expect((await world.kp.status('minimal')).state).toBe('IN_PROGRESS');
    return world;
  };

  it('re-queues a cluster whose message was lost between the record write and the send, which then ends DONE', async () => {
    const w = await crashedApply(34);
    // Not yet: the message might still be in flight somewhere.
    expect((await w.kp.watchdog()).requeued).toEqual([]);
    w.sandbox.clock.advance(10 * 60_000);
    expect((await w.kp.watchdog()).requeued).toEqual([{ project: 'minimal', cluster: 'minimal', step: 'preflight' }]);
    await w.kp.run();
    expect((await w.kp.status('minimal')).state).toBe('DONE');
  });

  it('is run by reconcile, which finds a busy cluster without a message', async () => {
    const w = await crashedApply(35);
    w.sandbox.clock.advance(10 * 60_000);
    await w.kp.reconcile('minimal');
    await w.kp.run();
    expect((await w.kp.status('minimal')).state).toBe('DONE');
  });

  it('gives a step whose message was lost for longer than its timeout the whole of its time once re-queued', async () => {
    const w = await crashedApply(37);
    // Preflight may take 30 minutes; its message was lost 40 minutes ago, before it ever ran.
    w.sandbox.clock.advance(40 * 60_000);
    expect((await w.kp.watchdog()).requeued).toEqual([{ project: 'minimal', cluster: 'minimal', step: 'preflight' }]);
    await w.kp.run();
    expect((await w.kp.status('minimal')).state).toBe('DONE');
  });

  it('does not time out a step whose message waited in a runtime that was stopped', async () => {
    const w = sandboxWorld(38);
    sandbox = w.sandbox;
    await w.kp.apply(manifestOf(minimal));
    // Nothing ran the queue for 40 minutes (a local runtime that was stopped); the message is still there.
    w.sandbox.clock.advance(40 * 60_000);
    await w.kp.run();
    expect((await w.kp.status('minimal')).state).toBe('DONE');
  });

  it('leaves alone a cluster whose message is merely delayed', async () => {
    const w = sandboxWorld(36);
    sandbox = w.sandbox;
    await w.kp.apply(manifestOf(minimal));
    let r = await recordOf(w, 'minimal');
    for (let i = 0; i < 400 && !((r.step.dueAt ?? 0) > w.sandbox.clock.now()); i++) {
      await w.kp.run({ maxMessages: 1 });
      r = await recordOf(w, 'minimal');
    }
    expect(r.step.dueAt).toBeGreaterThan(w.sandbox.clock.now());
    // Even taking any message as lost the moment it is due, one due later is not.
    expect((await w.kp.watchdog({ overdueAfterSeconds: 0 })).requeued).toEqual([]);
    expect((await recordOf(w, 'minimal')).step).toEqual(r.step);
  });
});

/** A SecretStore whose every write is throttled, as Secrets Manager answers a caller over its request rate. */
class ThrottledSecretStore extends MemorySecretStore {
  static readonly reason = 'secretsmanager CreateSecret: ThrottlingException: Rate exceeded';
  #refuse(): Promise<never> {
    return Promise.reject(new KubeplaneError('throttled', ThrottledSecretStore.reason, { retryAfterSeconds: 120 }));
  }
  override put(_name: string, _value: Redacted<string>): Promise<void> {
    return this.#refuse();
  }
  override create(_name: string, _value: Redacted<string>): Promise<boolean> {
    return this.#refuse();
  }
}

describe('a step that runs out of time', () => {
  it('reports what its last attempt failed on, not only what it could not do', async () => {
    const w = sandboxWorld(39, { secrets: new ThrottledSecretStore() });
    sandbox = w.sandbox;
    await w.kp.apply(manifestOf(minimal));
    await w.kp.run();
    const status = (await w.kp.status('minimal')).clusters.minimal;
    expect(status?.state).toBe('ERROR');
    expect(status?.message).toContain('prepare: could not prepare the cluster keys');
    expect(status?.message).toContain(ThrottledSecretStore.reason);
  });
});

const AWS_MANIFEST = `apiVersion: kubeplane.dev/v1
kind: Manifest
metadata: { name: scale }
providers:
  - { name: aws-1, providerType: aws, secretRef: { env: { accesskey: AWS_ACCESS_KEY_ID, secretkey: AWS_SECRET_ACCESS_KEY } } }
nodePools:
  dynamic:
    - { name: cp, providerSpec: { name: aws-1, region: eu-central-1, zone: eu-central-1a }, count: 1, serverType: t3.medium, image: ami-0965bd5ba4d59211c }
    - { name: workers, providerSpec: { name: aws-1, region: eu-central-1, zone: eu-central-1a }, count: WORKERS, serverType: t3.medium, image: ami-0965bd5ba4d59211c }
kubernetes:
  clusters:
    - { name: scale, version: "1.34.2", network: 10.9.0.0/24, pools: { control: [cp], compute: [workers] } }
`;

describe('machines created again under an earlier name', () => {
  it('scales an AWS pool 1 -> 2 -> 1 -> 2 with hours between, the last scale-up costing at most 1.2x the messages of the first', async () => {
    const w = sandboxWorld(37);
    sandbox = w.sandbox;
    const workers = (n: number) => manifestOf(AWS_MANIFEST.replace('WORKERS', String(n)));
    const applyAndRun = async (n: number) => {
      await w.kp.apply(workers(n));
      const report = await w.kp.run();
      const status = await w.kp.status('scale');
      expect(status.state, JSON.stringify(status.clusters)).toBe('DONE');
      expect(liveMachines(w.sandbox).filter((name) => name.includes('-workers-'))).toHaveLength(n);
      w.sandbox.clock.advance(3 * 3600_000);
      return report.messages;
    };
    await applyAndRun(1);
    const firstScale = await applyAndRun(2);
    await applyAndRun(1);
    // The worker removed above comes back under its name; EC2 still remembers the token it was first created with.
    const lastScale = await applyAndRun(2);
    expect(lastScale).toBeLessThanOrEqual(Math.ceil(firstScale * 1.2));
  });
});

describe('machines that vanish', () => {
  it('creates again a machine that vanished while the ledger still had it as creating', async () => {
    const w = sandboxWorld(38);
    sandbox = w.sandbox;
    const m = manifestOf(minimal);
    await w.kp.apply(m);
    const r = await runUntilStep(w, 'minimal', 'await-machines');
    const [victim, machine] = Object.entries(r.ledger.nodes).find(([name]) => name.includes('-workers-')) ?? [];
    expect(machine?.state).toBe('creating');
    const hetzner = await sandboxProviders(w.sandbox)(m.providers[0] as (typeof m.providers)[number], 'fsn1');
    for (let i = 0; i < 30; i++) {
      const gone = await hetzner.compute?.deleteNode({ clusterId: r.clusterId, name: victim ?? '', region: 'fsn1' });
      if (gone?.status === 'done') break;
      w.sandbox.clock.advance(5_000);
    }
    expect(liveMachines(w.sandbox)).not.toContain(victim);

    await w.kp.run();
    const status = await w.kp.status('minimal');
    expect(status.state, JSON.stringify(status.clusters)).toBe('DONE');
    expect(liveMachines(w.sandbox)).toContain(victim);
    expect(liveMachines(w.sandbox)).toHaveLength(3);
  });
});

describe('long manifest names', () => {
  const named = (name: string) => minimal.replace('name: minimal\n', `name: ${name}\n`);
  const longest = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}`;

  it("accepts a metadata.name of 253 characters, Kubernetes' limit for object names, and refuses 254", () => {
    expect(longest).toHaveLength(253);
    expect(validateManifestText(named(longest)).errors).toEqual([]);
    expect(validateManifestText(named(`${longest}d`)).errors.map((e) => e.path)).toEqual(['metadata.name']);
  });

  it('applies a project named with 253 characters on the file-backed stores, to DONE', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubeplane-long-name-'));
    const w = sandboxWorld(40, (sb) => ({
      state: new FileStateStore(dir),
      secrets: new FileSecretStore(dir),
      lease: new FileLease(dir, sb.clock),
      queue: new FileQueue<StepEvent>(dir, 'steps', { clock: sb.clock, visibilityTimeoutSeconds: 120 }),
    }));
    sandbox = w.sandbox;
    await w.kp.apply(manifestOf(named(longest)));
    await w.kp.run();
    expect((await w.kp.status(longest)).state).toBe('DONE');
    expect(await w.kp.projects()).toEqual([longest]);
  });
});

describe('a step resumed after a fault', () => {
  it('does not ensure again what the same run of the step already ensured', async () => {
    // The networks step ensures a network, a firewall per role and an SSH key per region; the key fails four times.
    const calls: string[] = [];
    let keyFailures = 4;
    const w = sandboxWorld(40, (sb) => {
      const real = sandboxProviders(sb);
      const wrapped = new WeakSet<object>();
      const providers: ProviderFactory = async (def, region) => {
        const provider = await real(def, region);
        const network = provider.network;
        if (network && !wrapped.has(network)) {
          wrapped.add(network);
          const { ensureNetwork, ensureFirewall, ensureSshKey } = network;
          network.ensureNetwork = (r, c) => (calls.push(`network ${r.name}`), ensureNetwork.call(network, r, c));
          network.ensureFirewall = (r, c) => (calls.push(`firewall ${r.name}`), ensureFirewall.call(network, r, c));
          network.ensureSshKey = async (r, c) => {
            calls.push(`ssh-key ${r.name}`);
            if (keyFailures-- > 0) return pending('retryable', 5, 'InternalError: An internal error has occurred');
            return ensureSshKey.call(network, r, c);
          };
        }
        return provider;
      };
      return { providers };
    });
    sandbox = w.sandbox;
    await w.kp.apply(manifestOf(minimal));
    const r = await runUntilStep(w, 'minimal', 'create-nodes');
    const count = (prefix: string) => calls.filter((c) => c.startsWith(prefix)).length;
    expect(count('ssh-key')).toBe(5);
    expect(count('network')).toBe(1);
    expect(count('firewall')).toBe(Object.keys(r.ledger.firewalls).length);
    // The next step starts with nothing ensured.
    expect(r.step.ensured).toBeUndefined();
    await w.kp.run();
    expect((await w.kp.status('minimal')).state).toBe('DONE');
  });
});

describe('a step told to retry very soon', () => {
  it('waits at least its backoff, so a hint of 0.05 s repeated does not spend its twelve tries in a second', async () => {
    // A catalog read that the rate budget keeps refusing for 30 s of virtual time, each time saying "in 0.05 s".
    let busyUntil = 0;
    const w = sandboxWorld(41, (sb) => {
      const real = sandboxProviders(sb);
      const wrapped = new WeakSet<object>();
      const providers: ProviderFactory = async (def, region, context) => {
        const provider = await real(def, region, context);
        const compute = provider.compute;
        if (compute && !wrapped.has(compute)) {
          wrapped.add(compute);
          const serverTypes = compute.serverTypes.bind(compute);
          compute.serverTypes = async (r, c) =>
            sb.clock.now() < busyUntil ? pending('throttled', 0.05, 'rate budget hetzner is spent; next request possible in 0.05 s') : serverTypes(r, c);
        }
        return provider;
      };
      return { providers };
    });
    sandbox = w.sandbox;
    await w.kp.apply(manifestOf(minimal));
    busyUntil = w.sandbox.clock.now() + 30_000;
    await w.kp.run();
    const status = (await w.kp.status('minimal')).clusters.minimal;
    expect(status?.state, status?.message).toBe('DONE');
  });
});
