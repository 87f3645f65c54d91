// The step machine: takes one queue message, runs that cluster's current step under the cluster's lease,
// writes the record back with compare-and-swap, and sends the next message. Duplicate, reordered, stale or
// redelivered messages are harmless: a message names the incarnation, generation and step sequence it expects,
// and one that finds the record elsewhere only makes sure the current step's message exists. The lease is held by
// one invocation (not one process), so two deliveries of a step never both run it, and every record write is
// fenced by the lease's token, so a holder whose lease ran out cannot overwrite its successor.
import { randomUUID } from 'node:crypto';
import { KubeplaneError, isKubeplaneError } from '../errors.js';
import { systemRandomSource, type RandomSource } from '../bootstrap/random.js';
import { freshKeyPairs, type KeyPairSource } from '../bootstrap/pki.js';
import type { BootstrapVersions } from '../bootstrap/input.js';
import type { Clock, ClockParticipant } from '../provider/clock.js';
import { backoffSeconds } from '../provider/backoff.js';
import type { Provider } from '../provider/types.js';
import type { ProviderDef } from '../manifest/schema.js';
import { stableJson } from '../stable-json.js';
import { ClusterSecrets } from './cluster-secrets.js';
import { CatalogCache, CatalogPending } from './preflight.js';
import { stepEventKey, stepEventSchema, type EngineEvent, type EngineEventListener, type StepEvent } from './events.js';
import type { KubernetesConnector } from './ports/kubernetes.js';
import type { Lease, LeaseGrant } from './ports/lease.js';
import { busyRetryDelaySeconds } from './busy-retry.js';
import { isPullQueue, SQS_MAX_DELAY_SECONDS, type Queue, type QueueSender, type ReceivedMessage } from './ports/queue.js';
import type { SecretStore } from './ports/secret-store.js';
import type { StateStore } from './ports/state-store.js';
import type { MachineAccess } from './ports/machine-access.js';
import { clusterKey, clusterRecordProblem, projectKey, pushStage, type ClusterRecord, type ProjectRecord } from './records.js';
import {
  followingStep,
  isStepName,
  STEPS,
  type AddonCredentialResolver,
  type ProviderFactory,
  type StepContext,
  type StepName,
  type StepResult,
} from './steps/index.js';
import type { StepDefinition } from './steps/types.js';
import { defaultOverdueSeconds, lostMs } from './lost-messages.js';

/** The ports and settings an Engine runs with. */
export interface EngineOptions {
  state: StateStore;
  secrets: SecretStore;
  /** Where step messages go: a Queue the local runner receives from, or a push queue's sending half (Cloud Tasks). */
  queue: Queue<StepEvent> | QueueSender<StepEvent>;
  lease: Lease;
  clock: Clock;
  providers: ProviderFactory;
  kubernetes: KubernetesConnector;
  /** SSH into static (bring-your-own) machines; without it a cluster with static pools fails in prepare. */
  machines?: MachineAccess;
  /** Reads add-ons' credentials (secretRef); without it an add-on that needs one fails in the addons step. */
  addonCredentials?: AddonCredentialResolver;
  random?: RandomSource;
  /**
   * Makes the clusters' key pairs (default freshKeyPairs: new ones for every cluster). Test harnesses that make many
   * throwaway sandbox clusters may pass reusedRsaKeyPairs(); a real cluster must never share its CA keys.
   */
  keyPairs?: KeyPairSource;
  /** Names this process in leases. */
  workerId?: string;
  versions?: Partial<BootstrapVersions>;
  /**
   * How long a step holds its cluster's lease at a time (default 120). A step renews it every third of this on the
   * real clock while it runs; one that cannot (its process stalled) loses it, and its record write is then fenced.
   */
  leaseSeconds?: number;
  /**
   * The queue's visibility timeout (default 300): how long a delivered message stays hidden. With the lease it bounds
   * how long a message can be in flight, after which the watchdog takes a step without a message as lost.
   */
  messageVisibilitySeconds?: number;
  /** Another party on a virtual clock that `run()` lets finish what is due before it moves time (the sandbox's netns machines). */
  clockParticipant?: ClockParticipant;
}

/** How processing one step message ended. */
export type ProcessOutcome = 'advanced' | 'waiting' | 'finished' | 'failed' | 'stale' | 'busy' | 'conflict' | 'invalid';

/** Runs the steps of clusters one message at a time, safe against duplicate, reordered and stale messages. */
export class Engine {
  readonly options: EngineOptions;
  readonly workerId: string;
  readonly #listeners = new Set<EngineEventListener>();
  readonly #providers = new Map<string, Promise<Provider>>();
  /** Catalog answers (server types, images, zones, DNS zones) reused by every cluster's preflight of a run. */
  readonly catalogs: CatalogCache;

  constructor(options: EngineOptions) {
    this.options = options;
    this.workerId = options.workerId ?? `worker-${randomUUID().slice(0, 8)}`;
    this.catalogs = new CatalogCache(options.clock);
  }

  /** Adds an event listener; the function returned removes it. */
  on(listener: EngineEventListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Sends an event to every listener. */
  emit(event: EngineEvent): void {
    for (const l of this.#listeners) l(event);
  }

  get leaseSeconds(): number {
    return this.options.leaseSeconds ?? 120;
  }

  /** The event for a cluster's current step, as `enqueue` sends it. */
  eventOf(record: ClusterRecord): StepEvent {
    const event: StepEvent = {
      v: 1,
      project: record.project,
      clusterId: record.clusterId,
      incarnation: record.incarnation,
      generation: record.generation,
      seq: record.step.seq,
      phase: record.step.phase,
      step: record.step.name,
      attempt: record.step.attempts,
      key: '',
    };
    event.key = stepEventKey(event);
    return event;
  }

  /**
   * Puts the message for a cluster's current step on the queue (idempotent: deduplicated by its key). The record
   * written before should carry `step.dueAt = dueAt(now, delaySeconds)`, so the watchdog knows when to expect it.
   */
  async enqueue(record: ClusterRecord, delaySeconds = 0): Promise<void> {
    const event = this.eventOf(record);
    await this.options.queue.send(event, { groupId: record.clusterId, deduplicationId: event.key, delaySeconds: queueDelay(delaySeconds) });
  }

  /** The queue as one to receive from; a push queue (Cloud Tasks) delivers to its handler instead, so this throws. */
  pullQueue(): Queue<StepEvent> {
    const { queue } = this.options;
    if (!isPullQueue(queue))
      throw new KubeplaneError(
        'invalid',
        "this engine's queue pushes each step message to the step function (Cloud " +
          'Tasks); nothing in this process receives from it, so there is nothing to run here',
      );
    return queue;
  }

  /** Handles one delivered message: runs the step, sends what follows, acknowledges (or releases) it. */
  async process(message: ReceivedMessage<unknown>): Promise<ProcessOutcome> {
    const queue = this.pullQueue();
    const parsed = stepEventSchema.safeParse(message.body);
    if (!parsed.success) {
      // A malformed message can never succeed: drop it rather than block its group.
      await queue.ack(message.receipt);
      return 'invalid';
    }
    const outcome = await this.handle(parsed.data);
    if (outcome === 'busy' || outcome === 'conflict')
      await queue.release(message.receipt, outcome === 'busy' ? busyRetryDelaySeconds(message.receiveCount, this.leaseSeconds) : 1);
    else await queue.ack(message.receipt);
    return outcome;
  }

  /** Runs the step an event names, if it is still the cluster's current step. */
  async handle(event: StepEvent): Promise<ProcessOutcome> {
    const { state, lease, clock } = this.options;
    // The holder is this invocation: another delivery of the same step in this process is someone else.
    const held = await lease.acquire(clusterKey(event.clusterId), `${this.workerId}/${randomUUID()}`, this.leaseSeconds);
    if (!held) return 'busy';
    const renewal = keepRenewed(lease, held, this.leaseSeconds);
    const grant = held;
    try {
      const stored = await state.get<ClusterRecord>(clusterKey(event.clusterId));
      // A value that is not a record (edited by hand) is no step to run: status names it, destroy sweeps it.
      if (!stored || clusterRecordProblem(stored.value)) return 'stale';
      const record = stored.value;
      // Another creation of the cluster (destroyed and made again), or a message of the format without incarnations.
      if (event.incarnation === undefined || event.incarnation !== record.incarnation) return 'stale';
      const older =
        event.generation < record.generation ||
        (event.generation === record.generation && (event.seq < record.step.seq || (event.seq === record.step.seq && event.attempt < record.step.attempts)));
      if (older || event.generation !== record.generation || event.seq !== record.step.seq || event.step !== record.step.name) {
        // Out of date or a duplicate: the record moved on. Make sure its current step is queued, in case the
        // process that moved it crashed before sending the next message (deduplicated if it is queued).
        if (record.status.state === 'IN_PROGRESS' && older) await this.enqueue(record);
        return 'stale';
      }
      if (record.status.state !== 'IN_PROGRESS') return 'stale';
      const projectStored = await state.get<ProjectRecord>(projectKey(record.project));
      if (!projectStored) return 'stale';

      const stepName = record.step.name;
      if (!isStepName(stepName)) throw new KubeplaneError('invalid', `unknown step "${stepName}"`);
      const def = STEPS[stepName];
      const now = clock.now();
      const ledgerBefore = JSON.stringify(record.ledger);
      const ensuredBefore = record.step.ensured?.length ?? 0;
      const answeredBefore = this.catalogs.answered;
      let revision = stored.revision;
      let lost = false;
      const checkpoint = async () => {
        try {
          revision = await state.put(clusterKey(record.clusterId), record, revision, { fence: grant.token });
        } catch (e) {
          if (isKubeplaneError(e) && e.kind === 'conflict') lost = true;
          throw e;
        }
      };
      // A message handled later than any message spends in flight was held up outside the engine (a stopped local
      // runtime): that time is not the step's, as for a lost message the watchdog re-queues.
      record.step.since += lostMs(record.step, now, defaultOverdueSeconds(this.options) * 1000);
      const { result, events } =
        now - record.step.since > def.timeoutSeconds * 1000
          ? { result: { kind: 'failed', error: timedOut(def, record) } as StepResult, events: [] }
          : await this.#run(stepName, record, projectStored.value, now, checkpoint);
      // The record moved on under a checkpoint (another step, or a successor holding the lease): nothing to write.
      if (lost) return 'conflict';
      // A wait after progress (the ledger changed, one more resource ensured, or the clouds' catalogs answered more of
      // what preflight asks) starts the backoff afresh.
      const progressed =
        JSON.stringify(record.ledger) !== ledgerBefore || (record.step.ensured?.length ?? 0) > ensuredBefore || this.catalogs.answered > answeredBefore;
      return await this.#commit(record, revision, grant.token, result, events, progressed);
    } finally {
      await renewal.stop();
      await lease.release(renewal.current());
    }
  }

  async #run(
    step: StepName,
    record: ClusterRecord,
    project: ProjectRecord,
    now: number,
    checkpoint: () => Promise<void>,
  ): Promise<{ result: StepResult; events: EngineEvent[] }> {
    const emitted: EngineEvent[] = [];
    const ctx: StepContext = {
      record,
      project,
      now,
      clock: this.options.clock,
      random: this.options.random ?? systemRandomSource(),
      keyPairs: this.options.keyPairs ?? freshKeyPairs,
      secrets: new ClusterSecrets(this.options.secrets, record.clusterId, {
        'kubeplane.dev/project': record.project,
        'kubeplane.dev/cluster': record.name,
        'kubeplane.dev/cluster-id': record.clusterId,
      }),
      provider: (name, region) => this.#provider(project, record, name, region),
      kubernetes: this.options.kubernetes,
      ...(this.options.machines ? { machines: this.options.machines } : {}),
      ...(this.options.addonCredentials ? { addonCredentials: this.options.addonCredentials } : {}),
      catalogs: this.catalogs,
      ...(this.options.versions ? { versions: this.options.versions } : {}),
      attempt: record.step.failures ?? 0,
      emit: (e) => emitted.push({ ...e, at: now, project: record.project, cluster: record.name } as EngineEvent),
      checkpoint,
    };
    try {
      // Events are published only once the record write that makes them true has happened.
      return { result: await STEPS[step].run(ctx), events: emitted };
    } catch (e) {
      const error = isKubeplaneError(e) ? e : new KubeplaneError('retryable', `unexpected error in step ${step}: ${(e as Error).message}`, {}, { cause: e });
      if (error.retryable && (record.step.failures ?? 0) < 12) {
        // The later of the cloud's own hint and the backoff: a hint of "0.05 s" (a rate budget's next token) repeated
        // for an attempt that needs more tokens than that would spend the twelve tries in a second.
        const backoff = backoffSeconds(record.step.failures ?? 0, { maxSeconds: 300, random: () => (ctx.random.bytes(1)[0] ?? 0) / 256 });
        const seconds = Math.max(error.details.retryAfterSeconds ?? 0, backoff);
        // A catalog listing that got further is no failure in a row (preflight.ts CatalogPending).
        const transient = !(error instanceof CatalogPending && error.progressed);
        return { result: { kind: 'wait', seconds, reason: `${error.kind}: ${error.message}`, transient }, events: emitted };
      }
      return { result: { kind: 'failed', error }, events: emitted };
    }
  }

  async #commit(
    record: ClusterRecord,
    revision: number,
    fence: number,
    result: StepResult,
    events: EngineEvent[],
    progressed: boolean,
  ): Promise<ProcessOutcome> {
    const { state, clock } = this.options;
    const now = clock.now();
    const step = record.step.name as StepName;
    const phase = record.step.phase;
    let outcome: ProcessOutcome;
    let follow: { delay: number } | null = null;
    switch (result.kind) {
      case 'next': {
        const to = result.step ?? followingStep(step, record.desired ?? undefined);
        if (!to) throw new KubeplaneError('invalid', `step ${step} has no follower`);
        const toPhase = STEPS[to].phase;
        events.push({ type: 'step-done', at: now, project: record.project, cluster: record.name, phase, step, message: result.message });
        if (toPhase !== phase) {
          pushStage(record.status, { status: 'DONE', stage: phase, taskDescription: result.message, timestamp: new Date(now).toISOString() });
          events.push({ type: 'phase-started', at: now, project: record.project, cluster: record.name, phase: toPhase });
        }
        // A step that hands to itself keeps its deadline, unless it made progress (a node removed, a batch requested).
        record.step = { phase: toPhase, name: to, seq: record.step.seq + 1, since: to === step && !progressed ? record.step.since : now, attempts: 0 };
        record.status = { ...record.status, state: 'IN_PROGRESS', phase: toPhase, message: result.message };
        follow = { delay: 0 };
        outcome = 'advanced';
        break;
      }
      case 'wait': {
        // A wait for kubeplane's own rate budget is no answer from the cloud. While deleting it leaves the count of
        // failures as it was: a cloud that throttles for good without saying until when (a 429 without rate-limit
        // headers) alternates budget waits with throttles, and a reset at each kept the backoff at its first step, a
        // request a second up to the deletion ceiling. (Apply's steps keep the reset; their own deadlines bound them.)
        const before = record.step.failures ?? 0;
        const failures = progressed ? 0 : result.transient ? before + 1 : result.budget === true && phase === 'delete' ? before : 0;
        record.step = { ...record.step, attempts: record.step.attempts + 1, failures, reason: result.reason };
        record.status = { ...record.status, message: result.reason };
        events.push({
          type: 'waiting',
          at: now,
          project: record.project,
          cluster: record.name,
          phase,
          step,
          seconds: result.seconds,
          reason: result.reason,
          attempt: record.step.attempts,
          failures,
          since: record.step.since,
        });
        follow = { delay: result.seconds };
        outcome = 'waiting';
        break;
      }
      case 'finished': {
        pushStage(record.status, { status: 'DONE', stage: phase, taskDescription: result.message, timestamp: new Date(now).toISOString() });
        record.status = { ...record.status, state: 'DONE', phase: 'none', message: result.message };
        events.push({ type: 'step-done', at: now, project: record.project, cluster: record.name, phase, step, message: result.message });
        events.push({ type: 'cluster-done', at: now, project: record.project, cluster: record.name, state: record.target === 'absent' ? 'DELETED' : 'DONE' });
        outcome = 'finished';
        break;
      }
      case 'failed': {
        pushStage(record.status, { status: 'ERROR', stage: phase, taskDescription: result.error.message, timestamp: new Date(now).toISOString() });
        record.status = { ...record.status, state: 'ERROR', message: `${step}: ${result.error.message}` };
        events.push({
          type: 'error',
          at: now,
          project: record.project,
          cluster: record.name,
          phase,
          step,
          message: result.error.message,
          kind: result.error.kind,
        });
        outcome = 'failed';
        break;
      }
    }
    if (follow) record.step.dueAt = dueAt(now, follow.delay);
    try {
      if (result.kind === 'finished' && record.target === 'absent') await this.#forget(record, revision, fence);
      else await state.put(clusterKey(record.clusterId), record, revision, { fence });
    } catch (e) {
      if (isKubeplaneError(e) && e.kind === 'conflict') return 'conflict';
      throw e;
    }
    for (const e of events) this.emit(e);
    if (follow) await this.enqueue(record, follow.delay);
    return outcome;
  }

  async #forget(record: ClusterRecord, revision: number, fence: number): Promise<void> {
    const { state } = this.options;
    await state.delete(clusterKey(record.clusterId), revision, { fence });
    for (let i = 0; i < 10; i++) {
      const p = await state.get<ProjectRecord>(projectKey(record.project));
      if (!p) return;
      const clusters = { ...p.value.clusters };
      if (clusters[record.name] === record.clusterId) delete clusters[record.name];
      try {
        if (Object.keys(clusters).length === 0 && p.value.manifest === null) await state.delete(projectKey(record.project), p.revision);
        else await state.put(projectKey(record.project), { ...p.value, clusters }, p.revision);
        return;
      } catch (e) {
        if (!(isKubeplaneError(e) && e.kind === 'conflict')) throw e;
      }
    }
  }

  async #provider(project: ProjectRecord, record: ClusterRecord, name: string, region: string | undefined): Promise<Provider> {
    // While a project is destroyed its manifest is null: the cluster's last manifest, then every provider entry the
    // project ever used (a region swept for a cluster whose record was lost may be a provider's the manifest dropped).
    const def = (project.manifest ?? record.lastManifest)?.providers.find((p) => p.name === name) ?? project.used?.providers.find((p) => p.name === name);
    if (!def) throw new KubeplaneError('invalid', `provider "${name}" is not in the manifest of project ${project.project}`);
    return this.providerFor(project.project, def, region, record.clusterId);
  }

  /**
   * The provider for a manifest entry and region, made once per project, entry, credentials and cluster (a provider
   * may work as a session scoped to one cluster, as AWS's does with a role); no cluster for project-wide reads.
   */
  providerFor(project: string, def: ProviderDef, region: string | undefined, cluster?: string): Promise<Provider> {
    // Per project and credentials too: two projects may both call a provider "aws-1" with other accounts.
    const key = `${project}/${cluster ?? ''}/${def.name}/${region ?? ''}/${stableJson(def.secretRef)}`;
    let p = this.#providers.get(key);
    if (!p) {
      p = this.options.providers(def, region, { project, ...(cluster ? { cluster } : {}) });
      this.#providers.set(key, p);
      p.catch(() => this.#providers.delete(key));
    }
    return p;
  }
}

/** A step past its deadline: what it could not do, for how long it tried, and the reason its last attempt gave. */
function timedOut(def: StepDefinition, record: ClusterRecord): KubeplaneError {
  const limit =
    def.timeoutSeconds % 3600 === 0
      ? `${def.timeoutSeconds / 3600} h`
      : def.timeoutSeconds % 60 === 0
        ? `${def.timeoutSeconds / 60} min`
        : `${def.timeoutSeconds} s`;
  const last = record.step.reason ? `; its last attempt: ${record.step.reason}` : '; no attempt of it reported why';
  return new KubeplaneError('retryable', `${def.timeoutMessage(record)} (step ${record.step.name} gave up after ${limit}${last})`, { resource: record.name });
}

/** The delay a queue is asked for: SQS allows at most 15 minutes, so longer waits come back early and wait again. */
export function queueDelay(seconds: number): number {
  return Math.min(SQS_MAX_DELAY_SECONDS, Math.max(0, seconds));
}

/** When a message sent at `now` with this delay becomes due (ms): what `record.step.dueAt` holds. */
export function dueAt(now: number, delaySeconds: number): number {
  return now + queueDelay(delaySeconds) * 1000;
}

/**
 * Renews a lease every third of its time on the real clock while a step runs (an unref'd timer, so it never keeps a
 * process alive). A renewal that finds the lease taken stops; the step's record write is then refused by the fence.
 */
export function keepRenewed(lease: Lease, grant: LeaseGrant, ttlSeconds: number): { current(): LeaseGrant; stop(): Promise<void> } {
  let current = grant;
  let lost = false;
  let inFlight: Promise<void> | null = null;
  const timer = setInterval(
    () => {
      if (lost || inFlight) return;
      inFlight = lease
        .renew(current, ttlSeconds)
        .then((renewed) => {
          if (renewed) current = renewed;
          else {
            // Taken by another holder: nothing more to renew, and nothing to keep ticking (or alive) until stop().
            lost = true;
            clearInterval(timer);
          }
        })
        // A failed renewal is tried again at the next tick; the lease's expiry and the fence keep things safe meanwhile.
        .catch(() => undefined)
        .finally(() => {
          inFlight = null;
        });
    },
    Math.max(1, (ttlSeconds * 1000) / 3),
  );
  timer.unref();
  return {
    current: () => current,
    async stop() {
      clearInterval(timer);
      await inFlight;
    },
  };
}
