// The step machine: takes one queue message, runs that cluster's current step under the cluster's lease,
// writes the record back with compare-and-swap, and sends the next message. Duplicate, reordered, stale or
// redelivered messages are harmless: a message names the generation and step sequence it expects, and one
// that finds the record elsewhere only makes sure the current step's message exists.
import { randomUUID } from 'node:crypto';
import { KubeplaneError, isKubeplaneError } from '../errors.js';
import { systemRandomSource, type RandomSource } from '../bootstrap/random.js';
import type { BootstrapVersions } from '../bootstrap/input.js';
import type { Clock } from '../provider/clock.js';
import { backoffSeconds } from '../provider/backoff.js';
import type { Provider } from '../provider/types.js';
import { stableJson } from '../manifest/rules.js';
import { ClusterSecrets } from './cluster-secrets.js';
import { stepEventKey, stepEventSchema, type EngineEvent, type EngineEventListener, type StepEvent } from './events.js';
import type { KubernetesConnector } from './ports/kubernetes.js';
import type { Lease } from './ports/lease.js';
import { SQS_MAX_DELAY_SECONDS, type Queue, type ReceivedMessage } from './ports/queue.js';
import type { SecretStore } from './ports/secret-store.js';
import type { StateStore } from './ports/state-store.js';
import type { ClockParticipant } from './runner.js';
import { clusterKey, projectKey, pushStage, type ClusterRecord, type ProjectRecord } from './records.js';
import { followingStep, isStepName, STEPS, type ProviderFactory, type StepContext, type StepName, type StepResult } from './steps/index.js';

export interface EngineOptions {
  state: StateStore;
  secrets: SecretStore;
  queue: Queue<StepEvent>;
  lease: Lease;
  clock: Clock;
  providers: ProviderFactory;
  kubernetes: KubernetesConnector;
  random?: RandomSource;
  /** Names this process in leases. */
  workerId?: string;
  versions?: Partial<BootstrapVersions>;
  /** How long a step may hold its cluster's lease (a step that runs longer loses it). */
  leaseSeconds?: number;
  /** Another party on a virtual clock that `run()` lets finish what is due before it moves time (the sandbox's netns machines). */
  clockParticipant?: ClockParticipant;
}

export type ProcessOutcome = 'advanced' | 'waiting' | 'finished' | 'failed' | 'stale' | 'busy' | 'conflict' | 'invalid';

export class Engine {
  readonly options: EngineOptions;
  readonly workerId: string;
  readonly #listeners = new Set<EngineEventListener>();
  readonly #providers = new Map<string, Promise<Provider>>();

  constructor(options: EngineOptions) {
    this.options = options;
    this.workerId = options.workerId ?? `worker-${randomUUID().slice(0, 8)}`;
  }

  on(listener: EngineEventListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  emit(event: EngineEvent): void {
    for (const l of this.#listeners) l(event);
  }

  /** Puts the message for a cluster's current step on the queue (idempotent: deduplicated by its key). */
  async enqueue(record: ClusterRecord, delaySeconds = 0): Promise<void> {
    const event: StepEvent = {
      v: 1,
      project: record.project,
      clusterId: record.clusterId,
      generation: record.generation,
      seq: record.step.seq,
      phase: record.step.phase,
      step: record.step.name,
      attempt: record.step.attempts,
      key: '',
    };
    event.key = stepEventKey(event);
    await this.options.queue.send(event, { groupId: record.clusterId, deduplicationId: event.key, delaySeconds: Math.min(SQS_MAX_DELAY_SECONDS, Math.max(0, delaySeconds)) });
  }

  /** Handles one delivered message: runs the step, sends what follows, acknowledges (or releases) it. */
  async process(message: ReceivedMessage<unknown>): Promise<ProcessOutcome> {
    const { queue } = this.options;
    const parsed = stepEventSchema.safeParse(message.body);
    if (!parsed.success) {
      // A malformed message can never succeed: drop it rather than block its group.
      await queue.ack(message.receipt);
      return 'invalid';
    }
    const outcome = await this.handle(parsed.data);
    if (outcome === 'busy' || outcome === 'conflict') await queue.release(message.receipt, outcome === 'busy' ? 2 : 1);
    else await queue.ack(message.receipt);
    return outcome;
  }

  /** Runs the step an event names, if it is still the cluster's current step. */
  async handle(event: StepEvent): Promise<ProcessOutcome> {
    const { state, lease, clock } = this.options;
    const grant = await lease.acquire(clusterKey(event.clusterId), this.workerId, this.options.leaseSeconds ?? 120);
    if (!grant) return 'busy';
    try {
      const stored = await state.get<ClusterRecord>(clusterKey(event.clusterId));
      if (!stored) return 'stale';
      const record = stored.value;
      const older = event.generation < record.generation || (event.generation === record.generation && (event.seq < record.step.seq || (event.seq === record.step.seq && event.attempt < record.step.attempts)));
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
      const { result, events } =
        now - record.step.since > def.timeoutSeconds * 1000
          ? { result: { kind: 'failed', error: new KubeplaneError('retryable', def.timeoutMessage(record), { resource: record.name }) } as StepResult, events: [] }
          : await this.#run(stepName, record, projectStored.value, now);
      // A wait after progress (the ledger changed) starts the backoff afresh.
      const progressed = JSON.stringify(record.ledger) !== ledgerBefore;
      return await this.#commit(record, stored.revision, result, events, progressed);
    } finally {
      await lease.release(grant);
    }
  }

  async #run(step: StepName, record: ClusterRecord, project: ProjectRecord, now: number): Promise<{ result: StepResult; events: EngineEvent[] }> {
    const emitted: EngineEvent[] = [];
    const ctx: StepContext = {
      record,
      project,
      now,
      clock: this.options.clock,
      random: this.options.random ?? systemRandomSource(),
      secrets: new ClusterSecrets(this.options.secrets, record.clusterId, {
        'kubeplane.dev/project': record.project,
        'kubeplane.dev/cluster': record.name,
        'kubeplane.dev/cluster-id': record.clusterId,
      }),
      provider: (name, region) => this.#provider(project, record, name, region),
      kubernetes: this.options.kubernetes,
      ...(this.options.versions ? { versions: this.options.versions } : {}),
      attempt: record.step.failures ?? 0,
      emit: (e) => emitted.push({ ...e, at: now, project: record.project, cluster: record.name } as EngineEvent),
    };
    try {
      // Events are published only once the record write that makes them true has happened.
      return { result: await STEPS[step].run(ctx), events: emitted };
    } catch (e) {
      const error = isKubeplaneError(e) ? e : new KubeplaneError('retryable', `unexpected error in step ${step}: ${(e as Error).message}`, {}, { cause: e });
      if (error.retryable && (record.step.failures ?? 0) < 12) {
        const seconds = error.details.retryAfterSeconds ?? backoffSeconds(record.step.failures ?? 0, { maxSeconds: 300, random: () => (ctx.random.bytes(1)[0] ?? 0) / 256 });
        return { result: { kind: 'wait', seconds, reason: `${error.kind}: ${error.message}`, transient: true }, events: emitted };
      }
      return { result: { kind: 'failed', error }, events: emitted };
    }
  }

  async #commit(record: ClusterRecord, revision: number, result: StepResult, events: EngineEvent[], progressed: boolean): Promise<ProcessOutcome> {
    const { state, clock } = this.options;
    const now = clock.now();
    const step = record.step.name as StepName;
    const phase = record.step.phase;
    let outcome: ProcessOutcome;
    let follow: { delay: number } | null = null;
    switch (result.kind) {
      case 'next': {
        const to = result.step ?? followingStep(step);
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
        const failures = result.transient && !progressed ? (record.step.failures ?? 0) + 1 : 0;
        record.step = { ...record.step, attempts: record.step.attempts + 1, failures };
        record.status = { ...record.status, message: result.reason };
        events.push({ type: 'waiting', at: now, project: record.project, cluster: record.name, phase, step, seconds: result.seconds, reason: result.reason });
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
        events.push({ type: 'error', at: now, project: record.project, cluster: record.name, phase, step, message: result.error.message, kind: result.error.kind });
        outcome = 'failed';
        break;
      }
    }
    try {
      if (result.kind === 'finished' && record.target === 'absent') await this.#forget(record, revision);
      else await state.put(clusterKey(record.clusterId), record, revision);
    } catch (e) {
      if (isKubeplaneError(e) && e.kind === 'conflict') return 'conflict';
      throw e;
    }
    for (const e of events) this.emit(e);
    if (follow) await this.enqueue(record, follow.delay);
    return outcome;
  }

  async #forget(record: ClusterRecord, revision: number): Promise<void> {
    const { state } = this.options;
    await state.delete(clusterKey(record.clusterId), revision);
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
    const def = (project.manifest ?? record.lastManifest)?.providers.find((p) => p.name === name);
    if (!def) throw new KubeplaneError('invalid', `provider "${name}" is not in the manifest of project ${project.project}`);
    // Per project and credentials too: two projects may both call a provider "aws-1" with other accounts.
    const key = `${project.project}/${name}/${region ?? ''}/${stableJson(def.secretRef)}`;
    let p = this.#providers.get(key);
    if (!p) {
      p = this.options.providers(def, region);
      this.#providers.set(key, p);
      p.catch(() => this.#providers.delete(key));
    }
    return p;
  }
}
