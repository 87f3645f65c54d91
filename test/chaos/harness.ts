// The chaos harness: one seeded run of a small hybrid cluster's life on the sandbox under a random fault
// schedule — 429 and 5xx storms and timeouts in the clouds, duplicate and reordered deliveries, crashes between
// a cloud call and the state write, leases taken over mid-step, and a manifest changed mid-flight. Invariants
// are checked after every message; a failure names its seed so it can be replayed (CHAOS_SEED=n).
import { defaultOverdueSeconds, SQS_MAX_DELAY_SECONDS, reusedRsaKeyPairs, seededRandomSource } from '@kubeplane/sdk/internal';
import {
  Engine,
  Kubeplane,
  MemoryQueue,
  MemorySecretStore,
  MemoryStateStore,
  validateManifestText,
  type Lease,
  type LeaseGrant,
  type Manifest,
  type PutOptions,
  type Queue,
  type ReceivedMessage,
  type SendOptions,
  type StateStore,
  type StepEvent,
  type Versioned,
} from '@kubeplane/sdk';
import { seededRandom, type VirtualClock } from '@kubeplane/sdk/provider';
import { Sandbox, sandboxKubernetes, sandboxProviders, type FaultRule } from '@kubeplane/sandbox';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

export class SimulatedCrash extends Error {
  constructor() {
    super('simulated crash after the cloud call, before the state write');
  }
}

/** A process dying after its state write and before its enqueue: the record moved on, no message says so. */
export class SimulatedEnqueueCrash extends Error {
  constructor() {
    super('simulated crash after the state write, before the enqueue');
  }
}

const isSimulated = (e: unknown) => e instanceof SimulatedCrash || e instanceof SimulatedEnqueueCrash;

/** Crashes some writes: the step's cloud calls happened, its record write did not. Counts the writes that land, per key. */
class CrashingStateStore implements StateStore {
  armed = false;
  readonly #writes = new Map<string, number>();
  constructor(
    readonly inner: StateStore,
    private readonly random: () => number,
    private readonly p: number,
  ) {}
  get<T>(key: string): Promise<Versioned<T> | null> {
    return this.inner.get<T>(key);
  }
  async put<T>(key: string, value: T, expected: number, options?: PutOptions): Promise<number> {
    if (this.armed && key.startsWith('clusters/') && this.random() < this.p) throw new SimulatedCrash();
    const revision = await this.inner.put(key, value, expected, options);
    this.#writes.set(key, this.writesOf(key) + 1);
    return revision;
  }
  async delete(key: string, expected: number, options?: PutOptions): Promise<void> {
    await this.inner.delete(key, expected, options);
    this.#writes.set(key, this.writesOf(key) + 1);
  }
  list(prefix: string): Promise<string[]> {
    return this.inner.list(prefix);
  }
  /** Writes (puts and deletes) that landed on `key` so far, whoever made them. */
  writesOf(key: string): number {
    return this.#writes.get(key) ?? 0;
  }
}

/** Duplicates and delays deliveries; sometimes hands out the same message twice in one batch. */
class ChaosQueue implements Queue<StepEvent> {
  duplicates = 0;
  constructor(
    readonly inner: MemoryQueue<StepEvent>,
    private readonly random: () => number,
    private readonly p: { duplicate: number; delay: number },
  ) {}
  async send(body: StepEvent, options: SendOptions): Promise<void> {
    const extra = this.random() < this.p.delay ? this.random() * 20 : 0;
    if (process.env.CHAOS_TRACE)
      console.log('send', body.step, body.seq, body.attempt, options.deduplicationId, options.delaySeconds, extra, 'size before', await this.inner.size());
    await this.inner.send(body, { ...options, delaySeconds: (options.delaySeconds ?? 0) + extra });
    // A duplicate without the deduplication id: delivered again, later, as SQS standard queues may.
    if (this.random() < this.p.duplicate) {
      this.duplicates++;
      await this.inner.send(body, { groupId: options.groupId, delaySeconds: (options.delaySeconds ?? 0) + this.random() * 30 });
    }
  }
  async receive(max: number): Promise<Array<ReceivedMessage<StepEvent>>> {
    const got = await this.inner.receive(max);
    const dup = got.filter(() => this.random() < this.p.duplicate).map((m) => ({ ...m, receipt: `dup-${m.receipt}` }));
    this.duplicates += dup.length;
    return [...got, ...dup];
  }
  ack(receipt: string): Promise<void> {
    return this.inner.ack(receipt);
  }
  release(receipt: string, delaySeconds?: number): Promise<void> {
    return this.inner.release(receipt, delaySeconds);
  }
  nextVisibleAt(): Promise<number | null> {
    return this.inner.nextVisibleAt();
  }
  size(): Promise<number> {
    return this.inner.size();
  }
}

/** Dies (throws) before some sends: whoever wrote a record just before has not queued its next step. */
class EnqueueCrashingQueue implements Queue<StepEvent> {
  armed = false;
  constructor(
    readonly inner: Queue<StepEvent>,
    private readonly random: () => number,
    private readonly p: number,
  ) {}
  async send(body: StepEvent, options: SendOptions): Promise<void> {
    if (this.armed && this.p > 0 && this.random() < this.p) throw new SimulatedEnqueueCrash();
    return this.inner.send(body, options);
  }
  receive(max: number): Promise<Array<ReceivedMessage<StepEvent>>> {
    return this.inner.receive(max);
  }
  ack(receipt: string): Promise<void> {
    return this.inner.ack(receipt);
  }
  release(receipt: string, delaySeconds?: number): Promise<void> {
    return this.inner.release(receipt, delaySeconds);
  }
  nextVisibleAt(): Promise<number | null> {
    return this.inner.nextVisibleAt();
  }
  size(): Promise<number> {
    return this.inner.size();
  }
}

/**
 * A lease whose holder sometimes loses it mid-step (as if it expired): another worker gets it too. It also
 * watches that a holder is one invocation: a second acquire under an owner that still holds the lease (not
 * released, not expired) means two deliveries run one cluster's step at once in one process.
 */
class ExpiringLease implements Lease {
  readonly #held = new Map<string, LeaseGrant>();
  #token = 0;
  forcedExpiries = 0;
  constructor(
    private readonly clock: VirtualClock,
    private readonly random: () => number,
    private readonly pExpire: number,
    private readonly violations: string[],
  ) {}
  async acquire(key: string, owner: string, ttlSeconds: number): Promise<LeaseGrant | null> {
    const held = this.#held.get(key);
    if (held && held.owner === owner && held.expiresAt > this.clock.now()) {
      this.violations.push(`two invocations held the lease of ${key} at once under one owner (${owner}): a holder must be one invocation`);
    }
    const expired = !held || held.expiresAt <= this.clock.now() || this.random() < this.pExpire;
    if (held && !expired && held.owner !== owner) return null;
    if (held && held.expiresAt > this.clock.now() && held.owner !== owner) this.forcedExpiries++;
    const grant = { key, owner, token: ++this.#token, expiresAt: this.clock.now() + ttlSeconds * 1000 };
    this.#held.set(key, grant);
    return { ...grant };
  }
  async renew(grant: LeaseGrant, ttlSeconds: number): Promise<LeaseGrant | null> {
    const held = this.#held.get(grant.key);
    if (held?.token !== grant.token) return null;
    held.expiresAt = this.clock.now() + ttlSeconds * 1000;
    return { ...held };
  }
  async release(grant: LeaseGrant): Promise<void> {
    if (this.#held.get(grant.key)?.token === grant.token) this.#held.delete(grant.key);
  }
}

/**
 * A worker that dies holding a cluster's lease: it freezes at its first cluster-record write (after its cloud
 * calls), never releases the lease and never acknowledges its message. Some wake up much later and try that
 * write: it must not land over writes made since it read the record (the lease ran out; fencing stops it).
 */
class DyingStateStore implements StateStore {
  paused: { key: string; expected: number; writesAtRead: number; resume: () => void; kill: () => void } | null = null;
  readonly #readAt = new Map<string, number>();
  constructor(
    private readonly inner: CrashingStateStore,
    private readonly onPause: () => void,
    private readonly violations: string[],
    private readonly name: string,
  ) {}
  async get<T>(key: string): Promise<Versioned<T> | null> {
    const writes = this.inner.writesOf(key);
    const value = await this.inner.get<T>(key);
    this.#readAt.set(key, writes);
    return value;
  }
  async put<T>(key: string, value: T, expected: number, options?: PutOptions): Promise<number> {
    await this.#freeze(key, expected);
    const before = this.inner.writesOf(key);
    const revision = await this.inner.put(key, value, expected, options);
    this.#landed(key, before);
    return revision;
  }
  async delete(key: string, expected: number, options?: PutOptions): Promise<void> {
    await this.#freeze(key, expected);
    const before = this.inner.writesOf(key);
    await this.inner.delete(key, expected, options);
    this.#landed(key, before);
  }
  list(prefix: string): Promise<string[]> {
    return this.inner.list(prefix);
  }
  async #freeze(key: string, expected: number): Promise<void> {
    if (this.paused || !key.startsWith('clusters/')) return;
    await new Promise<void>((resolve, reject) => {
      this.paused = { key, expected, writesAtRead: this.#readAt.get(key) ?? 0, resume: resolve, kill: () => reject(new SimulatedCrash()) };
      this.onPause();
    });
  }
  #landed(key: string, before: number): void {
    const read = this.#readAt.get(key) ?? 0;
    if (this.paused?.key === key && before > read) {
      this.violations.push(
        `${this.name}, a lease holder that died and woke up, wrote ${key} over ${before - read} newer write(s) made since it read it (its lease had run out: fencing must stop the write)`,
      );
    }
  }
}

/** The dead worker's lease and queue: it never releases, acknowledges or returns its message. */
class DyingLease implements Lease {
  constructor(private readonly inner: Lease) {}
  acquire(key: string, owner: string, ttlSeconds: number): Promise<LeaseGrant | null> {
    return this.inner.acquire(key, owner, ttlSeconds);
  }
  renew(grant: LeaseGrant, ttlSeconds: number): Promise<LeaseGrant | null> {
    return this.inner.renew(grant, ttlSeconds);
  }
  async release(): Promise<void> {}
}

class DyingQueue implements Queue<StepEvent> {
  constructor(private readonly inner: Queue<StepEvent>) {}
  send(body: StepEvent, options: SendOptions): Promise<void> {
    return this.inner.send(body, options);
  }
  receive(max: number): Promise<Array<ReceivedMessage<StepEvent>>> {
    return this.inner.receive(max);
  }
  async ack(): Promise<void> {}
  async release(): Promise<void> {}
  nextVisibleAt(): Promise<number | null> {
    return this.inner.nextVisibleAt();
  }
  size(): Promise<number> {
    return this.inner.size();
  }
}

export interface ChaosReport {
  seed: number;
  messages: number;
  crashes: number;
  faultsFired: number;
  violations: string[];
  finalState: string;
  leaked: number;
  /** Fault events of every kind (cloud faults, duplicates, crashes, lost messages, dead holders, leases taken over). */
  faultEvents?: number;
  /** Clusters the watchdog re-queued. */
  requeued?: number;
  /** Deliveries whose worker died holding the lease. */
  dying?: number;
  /** The messages the same schedule took without faults, and the bound derived from it (see messageBound). */
  faultFreeMessages?: number;
  messageBound?: number;
}

/** How often the serverless runtime runs the watchdog (EventBridge schedule), in virtual time. */
export const WATCHDOG_EVERY_MS = 5 * 60_000;

/** What the new faults draw from the seed (a second stream, so the original schedules stay as they were). */
export interface NewFaults {
  /** A crash after a record write, before its enqueue (engine, CLI command or watchdog). */
  enqueueCrash: number;
  /** A worker that crashed so has also lost its incoming message (its last delivery went to the DLQ). */
  lose: number;
  /** A delivery handled by a worker that dies holding the lease. */
  dying: number;
  /** A batch handed to one container, its records run in parallel (Lambda's BatchProcessor). */
  oneContainer: number;
}

/**
 * The clusters of a chaos process share three RSA CA keys (ECDSA keys stay fresh): a new RSA-2048 key for each of a
 * seed's CAs was a third of its time (5.5 a seed), and what a seed proves does not depend on whose key signs.
 */
const CHAOS_KEY_PAIRS = reusedRsaKeyPairs();

/** The engine under chaos: crashing state writes and enqueues, a duplicating queue, expiring leases, dying holders and two workers. */
function chaosEngine(seed: number, rng: () => number, sandbox: Sandbox, faults: NewFaults, rng2: () => number, violations: string[]) {
  const state = new CrashingStateStore(new MemoryStateStore(), rng, rng() * 0.08);
  const chaosQueue = new ChaosQueue(new MemoryQueue<StepEvent>({ clock: sandbox.clock, visibilityTimeoutSeconds: 60 }), rng, {
    duplicate: rng() * 0.15,
    delay: rng() * 0.2,
  });
  const queue = new EnqueueCrashingQueue(chaosQueue, rng2, faults.enqueueCrash);
  const lease = new ExpiringLease(sandbox.clock, rng, rng() * 0.1, violations);
  const options = {
    state,
    secrets: new MemorySecretStore(),
    queue,
    lease,
    clock: sandbox.clock,
    random: seededRandomSource(`chaos-${seed}`),
    keyPairs: CHAOS_KEY_PAIRS,
    providers: sandboxProviders(sandbox),
    kubernetes: sandboxKubernetes(sandbox),
    leaseSeconds: 60,
    messageVisibilitySeconds: 60,
  };
  const kp = new Kubeplane(options);
  // Ticks an empty queue with a cluster still IN_PROGRESS is given before the run counts the cluster as stuck: a
  // lost message was due at most SQS's longest delay from now, the watchdog takes it for lost once it is overdue
  // (visibility + lease + a minute), and the schedule looks every WATCHDOG_EVERY_MS; one tick more for rounding.
  const maxIdleTicks = Math.ceil(((SQS_MAX_DELAY_SECONDS + defaultOverdueSeconds(options)) * 1000) / WATCHDOG_EVERY_MS) + 1;
  // A second worker on the same queue and stores, as a second Lambda would be.
  const workers = [kp.engine, new Engine({ ...options, workerId: 'second' })];
  if (process.env.CHAOS_TRACE) for (const w of workers) w.on((e) => console.log(w.workerId, JSON.stringify(e).slice(0, 220)));
  const counts = { crashes: 0, messages: 0, lost: 0, dying: 0, requeued: 0 };
  const arm = (on: boolean) => {
    state.armed = on;
    queue.armed = on;
  };

  // Workers that died holding a lease, frozen before their write; `late` ones wake up at the worst moment.
  const dead: Array<{ store: DyingStateStore; late: boolean; wakeAt: number; done: Promise<unknown>; woke: boolean }> = [];
  const dieWith = async (m: ReceivedMessage<StepEvent>) => {
    counts.dying++;
    const name = `dying-${counts.dying}`;
    let frozen!: () => void;
    const paused = new Promise<'paused'>((resolve) => (frozen = () => resolve('paused')));
    const store = new DyingStateStore(state, frozen, violations, name);
    const engine = new Engine({ ...options, state: store, lease: new DyingLease(lease), queue: new DyingQueue(queue), workerId: name });
    const done = engine.process(m).catch((e: unknown) => {
      if (isSimulated(e)) counts.crashes++;
      else violations.push(`${name} threw: ${String(e)}`);
    });
    if ((await Promise.race([paused, done.then(() => 'done' as const)])) === 'paused') {
      dead.push({ store, late: rng2() < 0.6, wakeAt: sandbox.clock.now() + (2 + rng2() * 28) * 60_000, done, woke: false });
    }
  };
  /** Wakes the late dead holders: when their key's revision is back where they read it after other writes (ABA), or at their time. */
  const wakeDead = async () => {
    for (const d of dead) {
      const p = d.store.paused;
      if (d.woke || !d.late || !p) continue;
      const revision = (await state.inner.get(p.key))?.revision ?? 0;
      const newer = state.writesOf(p.key) - p.writesAtRead;
      if ((newer > 0 && revision === p.expected) || sandbox.clock.now() >= d.wakeAt) {
        d.woke = true;
        p.resume();
        await d.done;
      }
    }
  };

  let nextTick = sandbox.clock.now() + WATCHDOG_EVERY_MS;
  const watchdog = async () => {
    try {
      counts.requeued += (await kp.watchdog()).requeued.length;
    } catch (e) {
      if (!isSimulated(e)) throw e;
      counts.crashes++;
    }
  };
  /** The serverless schedule: the watchdog every WATCHDOG_EVERY_MS of virtual time; dead holders that wake. */
  const tick = async () => {
    while (sandbox.clock.now() >= nextTick) {
      nextTick += WATCHDOG_EVERY_MS;
      await watchdog();
    }
    await wakeDead();
  };
  const inProgress = async () => {
    for (const key of await state.list('clusters/')) {
      const r = await state.inner.get<{ status: { state: string } }>(key);
      if (r?.value.status.state === 'IN_PROGRESS') return true;
    }
    return false;
  };

  /**
   * A CLI command (apply, destroy): it runs the watchdog first, as every command holding the writer lock does. A
   * crash before the state write is a dying CLI: the user runs the command again. A crash after the write and
   * before the enqueue leaves the cluster IN_PROGRESS with no message: half the time the user walks away.
   */
  const command = async (run: () => Promise<unknown>) => {
    for (;;) {
      await watchdog();
      try {
        return await run();
      } catch (e) {
        if (!isSimulated(e)) throw e;
        counts.crashes++;
        if (e instanceof SimulatedEnqueueCrash && rng2() < 0.5) return undefined;
      }
    }
  };
  /**
   * Delivers messages until the queue is empty and no cluster is IN_PROGRESS (the watchdog is given
   * maxIdleTicks to find a lost one); applies `changeAt` mid-flight; `check` runs after every batch.
   * `stopAfter` stops after that many messages (a command typed while work is under way).
   */
  const drive = async (check: () => void, changeAt?: { after: number; manifest: Manifest; before?: (m: Manifest) => void }, stopAfter?: number) => {
    arm(true);
    let idleTicks = 0;
    const start = counts.messages;
    for (let guard = 0; guard < 20000; guard++) {
      if (stopAfter !== undefined && counts.messages - start >= stopAfter) break;
      const batch = await queue.receive(4);
      if (batch.length === 0) {
        const next = await queue.nextVisibleAt();
        if (process.env.CHAOS_TRACE) console.log('idle; next visible at', next, 'now', sandbox.clock.now(), 'size', await queue.size());
        if (next === null && changeAt) {
          // The work finished before the change was due: change the manifest now.
          const { manifest, before } = changeAt;
          before?.(manifest);
          await command(() => kp.apply(manifest));
          changeAt = undefined;
          continue;
        }
        if (next === null) {
          if (idleTicks >= maxIdleTicks || !(await inProgress())) break;
          idleTicks++;
        }
        sandbox.clock.advanceTo(next === null ? nextTick : Math.min(next, nextTick));
        await tick();
        continue;
      }
      idleTicks = 0;
      // A batch goes to one container (its records run in parallel) or is spread over the two workers.
      const one = rng2() < faults.oneContainer ? workers[Math.floor(rng2() * workers.length)] : undefined;
      await Promise.all(
        batch.map(async (m, i) => {
          if (rng2() < faults.dying) return dieWith(m);
          const worker = (one ?? workers[i % workers.length]) as Engine;
          try {
            const outcome = await worker.process(m);
            if (process.env.CHAOS_TRACE) console.log(worker.workerId, 'processed', m.body.step, m.body.seq, m.body.attempt, m.receipt.slice(0, 8), outcome);
          } catch (e) {
            if (process.env.CHAOS_TRACE) console.log(worker.workerId, 'CRASH', m.body.step, m.body.seq, String(e));
            if (!isSimulated(e)) throw e;
            counts.crashes++;
            // Crashed after its write, and this was the message's last delivery: nothing will bring it back.
            if (e instanceof SimulatedEnqueueCrash && rng2() < faults.lose) {
              counts.lost++;
              await chaosQueue.inner.ack(m.receipt);
            }
          }
        }),
      );
      counts.messages += batch.length;
      check();
      await tick();
      if (changeAt && counts.messages >= changeAt.after) {
        const { manifest, before } = changeAt;
        before?.(manifest);
        await command(() => kp.apply(manifest));
        changeAt = undefined;
      }
    }
    arm(false);
  };
  /** Time passing with nothing to do (hours between two applies): the schedule keeps running the watchdog. */
  const idle = async (ms: number) => {
    const until = sandbox.clock.now() + ms;
    while (sandbox.clock.now() < until) {
      sandbox.clock.advanceTo(Math.min(until, nextTick));
      await tick();
    }
  };
  /** Destroys the project under the same chaos; anything left in the clouds afterwards is a violation. */
  const destroyAndCheck = async (project: string, check: () => void): Promise<number> => {
    await command(() => kp.destroy(project));
    await drive(check);
    const status = await kp.findStatus(project);
    if (status) violations.push(`destroy did not finish: ${JSON.stringify(status.clusters)}`);
    const leaked = sandbox.inventory();
    if (leaked.length) violations.push(`leaked after destroy: ${leaked.map((l) => `${l.cloud} ${l.kind} ${l.name ?? l.id}`).join(', ')}`);
    return leaked.length;
  };
  const faultEvents = () => sandbox.faults.fired.length + chaosQueue.duplicates + counts.crashes + counts.lost + counts.dying + lease.forcedExpiries;
  const report = (finalState: string, leaked: number): ChaosReport => ({
    seed,
    messages: counts.messages,
    crashes: counts.crashes,
    faultsFired: sandbox.faults.fired.length,
    violations: [...new Set(violations)],
    finalState,
    leaked,
    faultEvents: faultEvents(),
    requeued: counts.requeued,
    dying: counts.dying,
  });
  /**
   * The schedule is over: the dead holders that never woke are gone for good, their processes with them. Ended here
   * (their step fails as a crash), or their lease-renewal timers would keep this whole world in memory, seed after seed.
   */
  const bury = async () => {
    for (const d of dead) {
      if (d.woke) continue;
      d.woke = true;
      d.store.paused?.kill();
      await d.done;
    }
  };
  return { kp, drive, command, idle, destroyAndCheck, report, bury };
}

export const CHAOS_MANIFEST = `apiVersion: kubeplane.dev/v1
kind: Manifest
metadata: { name: chaos }
providers:
  - { name: aws-1, providerType: aws, secretRef: { env: { accesskey: AWS_ACCESS_KEY_ID, secretkey: AWS_SECRET_ACCESS_KEY } } }
  - { name: htz-1, providerType: hetzner, secretRef: { env: { credentials: HCLOUD_TOKEN } } }
nodePools:
  dynamic:
    - { name: cp, providerSpec: { name: aws-1, region: eu-central-1, zone: eu-central-1a }, count: 1, serverType: t3.medium, image: ami-0965bd5ba4d59211c }
    - { name: workers, providerSpec: { name: htz-1, region: fsn1 }, count: WORKERS, serverType: cpx32, image: ubuntu-24.04 }
    - { name: lb, providerSpec: { name: htz-1, region: fsn1 }, count: 1, serverType: cpx22, image: ubuntu-24.04 }
AWS_POOL
kubernetes:
  clusters:
    - { name: chaos, version: "1.34.2", network: 10.9.0.0/24, pools: { control: [cp], compute: [workers COMPUTE] } }
loadBalancers:
  roles:
    - { name: api, protocol: tcp, port: 6443, targetPort: 6443, targetPools: [cp] }
  clusters:
    - { name: chaos-lb, roles: [api], dns: { dnsZone: example.com, provider: aws-1, hostname: chaos }, targetedK8s: chaos, pools: [lb] }
`;

/** The chaos manifest with `workers` Hetzner workers and, when `aws` > 0, a pool `aw` of that many AWS workers. */
export function chaosManifest(workers: number, aws = 0): Manifest {
  const text = CHAOS_MANIFEST.replace('WORKERS', String(workers))
    .replace(
      'AWS_POOL\n',
      aws > 0
        ? `    - { name: aw, providerSpec: { name: aws-1, region: eu-central-1, zone: eu-central-1a }, count: ${aws}, serverType: t3.medium, image: ami-0965bd5ba4d59211c }\n`
        : '',
    )
    .replace(' COMPUTE', aws > 0 ? ', aw' : '');
  const r = validateManifestText(text);
  if (!r.ok || !r.manifests[0]) throw new Error(r.errors.map((e) => e.message).join('; '));
  return r.manifests[0];
}

/**
 * The most messages a run may take: MESSAGE_SLACK times what the same schedule took without faults (time-driven
 * polling shifts when faults delay steps), plus MESSAGES_PER_FAULT for every fault event. A fault costs the
 * delivery it spoiled and its retry, the stale duplicate it leaves, and, while a lease it stranded runs out
 * (60 s here), the busy retries: with a backoff growing from 2 s, log2(60 / 2) + 1 = 6 of them. 2 + 6 = 8.
 * (A fixed 2 s busy retry spends 30 per stranded lease; a step wedged for an hour, 1,800 — issue 13.)
 */
export const MESSAGE_SLACK = 1.2;
export const MESSAGES_PER_FAULT = 8;
export const messageBound = (faultFree: number, faultEvents: number) => Math.ceil(MESSAGE_SLACK * faultFree) + MESSAGES_PER_FAULT * faultEvents;

export async function chaosRun(seed: number): Promise<ChaosReport> {
  const chaos = await chaosLife(seed, true);
  // The bound holds whatever the fault-free run takes when the faults alone allow this many messages; only
  // otherwise is the schedule run again without faults (half the cost of a seed) to learn its share.
  if (chaos.messages <= messageBound(0, chaos.faultEvents ?? 0)) return chaos;
  const faultFree = await chaosLife(seed, false);
  if (faultFree.violations.length) chaos.violations.push(`the fault-free run of this schedule failed: ${faultFree.violations.join('; ')}`);
  const bound = messageBound(faultFree.messages, chaos.faultEvents ?? 0);
  if (chaos.messages > bound) {
    chaos.violations.push(
      `${chaos.messages} messages, more than the bound ${bound} (${MESSAGE_SLACK} x ${faultFree.messages} fault-free + ${MESSAGES_PER_FAULT} x ${chaos.faultEvents} fault events)`,
    );
  }
  return { ...chaos, faultFreeMessages: faultFree.messages, messageBound: bound };
}

/**
 * One schedule's run, with its faults or (`faults` false) without any, for the message bound. The life:
 * sometimes apply, a few messages, destroy and apply again within the deduplication window; apply with a
 * manifest change mid-flight; converge; destroy; and for half the seeds apply again with AWS workers, scale
 * them 2 -> 1, wait hours (EC2 forgets terminated instances after an hour, not their ClientTokens), 1 -> 2,
 * converge and destroy.
 */
async function chaosLife(seed: number, withFaults: boolean): Promise<ChaosReport> {
  const rng = seededRandom(seed * 7919 + 13);
  const rng2 = seededRandom(seed * 31337 + 101);
  const sandbox = new Sandbox({ seed }).listen();
  const violations: string[] = [];
  const on = withFaults ? 1 : 0;
  let buried: (() => Promise<void>) | undefined;
  try {
    // The schedule, drawn from the seed.
    const storm = rng();
    const rules: FaultRule[] = [
      { cloud: 'hetzner', operation: '*', kind: 'throttled', probability: storm * 0.15 },
      { cloud: 'hetzner', operation: '*', kind: 'server-error', probability: rng() * 0.08 },
      { cloud: 'ec2', operation: '*', kind: rng() < 0.5 ? 'throttled' : 'throttled-no-headers', probability: rng() * 0.12 },
      { cloud: 'ec2', operation: '*', kind: 'server-error', probability: rng() * 0.06 },
      { cloud: 'ec2', operation: 'RunInstances', kind: rng() < 0.5 ? 'timeout' : 'lost-response', probability: rng() * 0.3 },
      { cloud: 'route53', operation: '*', kind: 'throttled', probability: rng() * 0.1 },
    ];
    if (withFaults) for (const rule of rules) sandbox.injectFault(rule);
    const faults: NewFaults = { enqueueCrash: rng2() * 0.04 * on, lose: rng2(), dying: rng2() * 0.03 * on, oneContainer: rng2() };
    const flap = rng2() < 0.5 ? Math.floor(rng2() * 6) : null;
    const awsGapMs = rng2() < 0.5 ? (1.5 + rng2() * 6) * 3_600_000 : null;
    const first = 1 + Math.floor(rng2() * 2);
    const second = first === 1 ? 2 : 1;
    const changeAfter = 5 + Math.floor(rng2() * 40);
    // Without faults every probability the engine's wrappers draw against is zero.
    const silent = () => (withFaults ? rng() : 1);
    const { kp, drive, command, idle, destroyAndCheck, report, bury } = chaosEngine(seed, silent, sandbox, faults, rng2, violations);
    buried = bury;

    const allowed = new Set<string>();
    const remember = (m: Manifest) => {
      for (const p of m.nodePools.dynamic) for (let i = 1; i <= (p.count ?? 0); i++) allowed.add(`${p.name}-${i.toString(16).padStart(2, '0')}`);
    };
    const check = () => {
      const live = sandbox.liveMachines();
      const names = live.map((i) => i.name ?? i.id);
      const dupes = names.filter((n, i) => names.indexOf(n) !== i);
      if (dupes.length) violations.push(`duplicate machines: ${dupes.join(', ')}`);
      const ghosts = names.filter((n) => ![...allowed].some((a) => n.endsWith(a)));
      if (ghosts.length) violations.push(`machines no manifest asked for: ${ghosts.join(', ')}`);
      // Networks, firewalls and SSH keys are one per name too (names carry the cluster and region): at every moment
      // where the cloud makes names unique or takes a token, at convergence for EC2 VPCs (see duplicates).
      const twice = duplicates().filter((d) => !d.startsWith('ec2 network '));
      if (twice.length) violations.push(`duplicate resources: ${twice.join(', ')}`);
    };
    /**
     * Resources of one name made twice. CreateVpc takes no ClientToken and EC2 does not make VPC names unique, so two
     * invocations that overlap (a lease that ran out mid-step) can each make one before either sees the other; the
     * provider removes the younger at its next look. Between the two a duplicate VPC is the real cloud's behaviour, not
     * a broken promise; one still there when the cluster has converged is.
     */
    const duplicates = () => {
      const named = sandbox
        .inventory()
        .filter((i) => ['network', 'firewall', 'ssh-key'].includes(i.kind) && i.name)
        .map((i) => `${i.cloud} ${i.kind} ${i.name}`);
      return [...new Set(named.filter((n, i) => named.indexOf(n) !== i))];
    };
    const converged = async (workers: number, aws: number, when: string) => {
      const status = await kp.status('chaos');
      // Converged to the latest manifest: its machines and nodes, nothing else.
      const live = sandbox
        .liveMachines()
        .map((i) => i.name ?? '')
        .sort();
      const expected = [
        'cp-01',
        'lb-01',
        ...Array.from({ length: workers }, (_, i) => `workers-0${i + 1}`),
        ...Array.from({ length: aws }, (_, i) => `aw-0${i + 1}`),
      ].sort();
      if (status.state !== 'DONE') violations.push(`${when}: did not converge: ${JSON.stringify(status.clusters)}`);
      const twice = duplicates();
      if (twice.length) violations.push(`${when}: duplicate resources left after converging: ${twice.join(', ')}`);
      if (live.length !== expected.length || !expected.every((e) => live.some((n) => n.endsWith(e))))
        violations.push(`${when}: machines ${live.join(', ')} != desired ${expected.join(', ')}`);
      const ready = sandbox.kubernetes
        .inventory()
        .clusters.flatMap((c) => c.nodes)
        .filter((n) => n.ready)
        .map((n) => n.name);
      for (const e of expected.filter((x) => !x.startsWith('lb'))) if (!ready.some((n) => n.endsWith(e))) violations.push(`${when}: node ${e} is not Ready`);
      return status.state;
    };

    const m1 = chaosManifest(first);
    const m2 = chaosManifest(second);
    remember(m1);
    if (flap !== null) {
      // apply, destroy while it starts, apply again: inside SQS's 300 s deduplication window.
      await command(() => kp.apply(m1));
      await drive(check, undefined, flap);
      await command(() => kp.destroy('chaos'));
      await drive(check);
      const after = await kp.findStatus('chaos');
      if (after) violations.push(`destroy right after apply did not finish: ${JSON.stringify(after.clusters)}`);
    }
    await command(() => kp.apply(m1));
    await drive(check, { after: changeAfter, manifest: m2, before: remember });
    const finalState = await converged(second, 0, 'after the change');
    let leaked = await destroyAndCheck('chaos', check);

    if (awsGapMs !== null) {
      // The same cluster again (a new life), AWS workers scaled 2 -> 1, hours pass, 1 -> 2.
      for (const [aws, label] of [
        [2, 'AWS pool at 2'],
        [1, 'AWS pool scaled down to 1'],
      ] as const) {
        const m = chaosManifest(second, aws);
        remember(m);
        await command(() => kp.apply(m));
        await drive(check);
        await converged(second, aws, label);
      }
      await idle(awsGapMs);
      await command(() => kp.apply(chaosManifest(second, 2)));
      await drive(check);
      await converged(second, 2, `AWS pool scaled up to 2 again ${(awsGapMs / 3_600_000).toFixed(1)} h later`);
      leaked += await destroyAndCheck('chaos', check);
    }
    return report(finalState, leaked);
  } finally {
    await buried?.();
    await sandbox.close();
  }
}

export const CMK_CHAOS_MANIFEST = `apiVersion: kubeplane.dev/v1
kind: Manifest
metadata: { name: cmk-chaos }
providers:
  - { name: crusoe-1, providerType: crusoe, secretRef: { env: { accesskey: CRUSOE_ACCESS_KEY_ID, secretkey: CRUSOE_SECRET_KEY, project: CRUSOE_PROJECT_ID } } }
  - { name: cf-1, providerType: cloudflare, secretRef: { env: { apitoken: CLOUDFLARE_API_TOKEN, accountid: CLOUDFLARE_ACCOUNT_ID } } }
nodePools:
  dynamic:
    - { name: gpu, providerSpec: { name: crusoe-1, region: us-east1-a }, count: GPUS, serverType: h100-80gb-sxm-ib.8x, image: 1.33.4-cmk.4 }
    - { name: cpu, providerSpec: { name: crusoe-1, region: us-east1-a }, autoscaler: { min: 1, max: 3 }, serverType: c1a.8x, image: CPU_IMAGE }
kubernetes:
  clusters:
    - name: cmk
      version: "1.33.4-cmk.20"
      network: 10.9.0.0/24
      controlPlane: managed
      pools: { compute: [gpu, cpu] }
      apiDns: { dnsZone: kubeplane-sandbox.dev, provider: cf-1, hostname: cmk-chaos }
      addons: [{ name: nvidia_gpu_operator }, { name: nvidia_network_operator }, { name: cluster_autoscaler }]
`;

/**
 * The same chaos for a Crusoe Managed Kubernetes cluster: 429 and 5xx storms on Crusoe and Cloudflare, lost responses
 * to the cluster and node-pool creates, crashes, duplicates and a pool count changed mid-flight. It must converge to
 * one cluster with one pool per name and the latest counts, and leave nothing after destroy.
 */
export async function cmkChaosRun(seed: number): Promise<ChaosReport> {
  const rng = seededRandom(seed * 104729 + 7);
  const sandbox = new Sandbox({ seed }).listen();
  const violations: string[] = [];
  try {
    const rules: FaultRule[] = [
      { cloud: 'crusoe', operation: '*', kind: 'throttled', probability: rng() * 0.12 },
      { cloud: 'crusoe', operation: '*', kind: 'server-error', probability: rng() * 0.06 },
      { cloud: 'crusoe', operation: 'POST /kubernetes/clusters', kind: rng() < 0.5 ? 'timeout' : 'lost-response', probability: rng() * 0.4 },
      { cloud: 'crusoe', operation: 'POST /kubernetes/nodepools', kind: rng() < 0.5 ? 'timeout' : 'lost-response', probability: rng() * 0.4 },
      { cloud: 'crusoe', operation: 'PATCH /kubernetes/nodepools/{id}', kind: 'lost-response', probability: rng() * 0.3 },
      { cloud: 'cloudflare', operation: '*', kind: 'throttled', probability: rng() * 0.1 },
    ];
    for (const rule of rules) sandbox.injectFault(rule);
    const { kp, drive, command, destroyAndCheck, report } = chaosEngine(
      seed,
      rng,
      sandbox,
      { enqueueCrash: 0, lose: 0, dying: 0, oneContainer: 0 },
      seededRandom(seed * 31337 + 101),
      violations,
    );
    const manifest = (gpus: number, cpuImage = '1.33.4-cmk.4'): Manifest => {
      const r = validateManifestText(CMK_CHAOS_MANIFEST.replace('GPUS', String(gpus)).replace('CPU_IMAGE', cpuImage));
      if (!r.ok || !r.manifests[0]) throw new Error(r.errors.map((e) => e.message).join('; '));
      return r.manifests[0];
    };
    const first = 1 + Math.floor(rng() * 3);
    const second = first === 1 ? 3 : 1;
    const poolsOf = () => [...sandbox.crusoe.pools.values()];
    const check = () => {
      const clusters = [...sandbox.crusoe.clusters.values()].filter((c) => c.state !== 'STATE_DELETING');
      if (clusters.length > 1) violations.push(`${clusters.length} CMK clusters: ${clusters.map((c) => c.name).join(', ')}`);
      const names = poolsOf().map((p) => `${p.clusterId}/${p.name}`);
      const dupes = names.filter((n, i) => names.indexOf(n) !== i);
      if (dupes.length) violations.push(`duplicate node pools: ${dupes.join(', ')}`);
      for (const p of poolsOf()) {
        const vms = [...sandbox.crusoe.vms.values()].filter((v) => v.nodePoolId === p.id && v.state !== 'STATE_DELETING').length;
        // A rotation adds one machine while it drains another.
        const cap = (p.name === 'gpu' ? Math.max(first, second) : 3) + 1;
        if (vms > cap) violations.push(`pool ${p.name} has ${vms} machines, more than any manifest asked for (${cap})`);
      }
    };
    await command(() => kp.apply(manifest(first)));
    // Half the schedules also move the CPU pool to a new node image mid-flight: its machines are rotated.
    const cpuImage = rng() < 0.5 ? '1.33.4-cmk.6' : '1.33.4-cmk.4';
    await drive(check, { after: 5 + Math.floor(rng() * 40), manifest: manifest(second, cpuImage) });
    const status = await kp.status('cmk-chaos');
    if (status.state !== 'DONE') violations.push(`did not converge: ${JSON.stringify(status.clusters)}`);
    const count = (pool: string) =>
      [...sandbox.crusoe.vms.values()].filter((v) => v.nodePoolId === poolsOf().find((p) => p.name === pool)?.id && v.state !== 'STATE_DELETING').length;
    if (count('gpu') !== second) violations.push(`gpu pool has ${count('gpu')} machines, not ${second}`);
    if (count('cpu') < 1 || count('cpu') > 3) violations.push(`cpu pool has ${count('cpu')} machines, outside 1..3`);
    const cpuPool = poolsOf().find((p) => p.name === 'cpu');
    const outdated = [...sandbox.crusoe.vms.values()].filter(
      (v) => v.nodePoolId === cpuPool?.id && v.state !== 'STATE_DELETING' && v.image !== `cmk-worker:${cpuImage}`,
    );
    if (outdated.length) violations.push(`cpu machines not on ${cpuImage}: ${outdated.map((v) => `${v.name} (${v.image})`).join(', ')}`);
    const ready = sandbox.kubernetes
      .inventory()
      .clusters.flatMap((c) => c.nodes)
      .filter((n) => n.ready);
    if (ready.length !== count('gpu') + count('cpu')) violations.push(`${ready.length} nodes Ready for ${count('gpu') + count('cpu')} machines`);

    return report(status.state, await destroyAndCheck('cmk-chaos', check));
  } finally {
    sandbox.close();
  }
}

/**
 * Permanent faults during destroy (issue 41): a small cluster converges under the usual chaos (crashes, duplicates,
 * lost leases), then, a few messages into its destroy, one cloud it uses starts refusing for good (auth) or answering
 * 5xx for good. The destroy must end with the project in ERROR and the kubeconfig kept while anything of it is left,
 * or DELETED only with nothing left; never DELETED with resources behind, never a deletion that spins for ever. Then the
 * cloud heals and destroy runs again: nothing may be left.
 */
export async function permanentFaultRun(seed: number): Promise<ChaosReport> {
  const rng = seededRandom(seed * 104_729 + 7);
  const rng2 = seededRandom(seed * 15_485_863 + 3);
  const sandbox = new Sandbox({ seed }).listen();
  const violations: string[] = [];
  let buried: (() => Promise<void>) | undefined;
  try {
    const { kp, drive, command, destroyAndCheck, report, bury } = chaosEngine(
      seed,
      rng,
      sandbox,
      { enqueueCrash: rng2() * 0.04, lose: rng2(), dying: rng2() * 0.02, oneContainer: rng2() },
      rng2,
      violations,
    );
    buried = bury;
    sandbox.injectFault({ cloud: 'hetzner', operation: '*', kind: 'throttled', probability: rng() * 0.1 });
    const aws = rng() < 0.5 ? 1 : 0;
    const manifest = chaosManifest(1 + Math.floor(rng() * 2), aws);
    await command(() => kp.apply(manifest));
    await drive(() => undefined);
    const applied = await kp.findStatus('chaos');
    if (applied?.state !== 'DONE') violations.push(`did not converge before the destroy: ${JSON.stringify(applied?.clusters)}`);
    const clouds = ['hetzner', 'ec2', 'route53'] as const;
    const cloud = clouds[Math.floor(rng() * clouds.length)] ?? 'hetzner';
    const kind = rng() < 0.5 ? 'auth' : 'server-error';
    const after = Math.floor(rng() * 6);
    await command(() => kp.destroy('chaos'));
    await drive(() => undefined, undefined, after);
    sandbox.injectFault({ cloud, operation: '*', kind });
    await drive(() => undefined);
    const status = await kp.findStatus('chaos');
    const left = sandbox.inventory();
    const what = `a permanent ${kind} on ${cloud} from message ${after} of the destroy`;
    if (!status) {
      if (left.length)
        violations.push(
          `${what}: DELETED with ${left.length} resource(s) left: ${left
            .slice(0, 5)
            .map((l) => `${l.cloud} ${l.kind} ${l.name ?? l.id}`)
            .join(', ')}`,
        );
    } else {
      if (status.state !== 'ERROR') violations.push(`${what}: the destroy ended ${status.state}, not ERROR: ${JSON.stringify(status.clusters)}`);
      const kubeconfig = await kp.kubeconfig('chaos', 'chaos').then(
        () => true,
        () => false,
      );
      if (left.length && !kubeconfig) violations.push(`${what}: the kubeconfig was removed while ${left.length} resource(s) are left`);
    }
    sandbox.faults.clear();
    const leaked = await destroyAndCheck('chaos', () => undefined);
    return report(status ? status.state : 'DELETED', leaked);
  } finally {
    await buried?.();
    await sandbox.close();
  }
}
