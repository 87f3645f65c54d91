// The engine's two event kinds. StepEvent is the queue message that drives one bounded step of one
// cluster (versioned, validated with zod on receipt). EngineEvent is the typed stream callers and the CLI
// watch: phases starting, steps done, resources created, waits and errors.
import * as z from 'zod';
import type { ErrorKind } from '../errors.js';
import type { StepName } from './step-names.js';

/** The phases of a cluster's workflow, in order. */
export const PHASES = ['infrastructure', 'dns', 'kubernetes', 'addons', 'outputs', 'delete'] as const;
/** One phase of a cluster's workflow. */
export type EnginePhase = (typeof PHASES)[number];

/** The version of the step message format. */
export const STEP_EVENT_VERSION = 1;

/** The schema of a step message: which cluster, incarnation, generation and step it is for. */
export const stepEventSchema = z.strictObject({
  v: z.literal(STEP_EVENT_VERSION),
  project: z.string().min(1),
  clusterId: z.string().min(1),
  /**
   * The creation of the cluster this event belongs to (ClusterRecord.incarnation): a cluster destroyed and created
   * again starts its generations and steps over, so only this tells its messages from the earlier one's. Messages
   * of the older format, without it, are stale.
   */
  incarnation: z.string().min(1).optional(),
  /** The manifest generation this event works toward; older generations are dropped. */
  generation: z.int().min(1),
  /** The record's step sequence number this event expects; a duplicate of an executed step finds it moved on. */
  seq: z.int().min(0),
  phase: z.enum(PHASES),
  step: z.string().min(1),
  /** How many times this same step was re-enqueued (waits and retries); drives backoff. */
  attempt: z.int().min(0),
  /** `<clusterId>/<incarnation>/<generation>/<seq>/<attempt>`: the queue's deduplication id. */
  key: z.string().min(1),
});
/** A step message, as queues carry it. */
export type StepEvent = z.infer<typeof stepEventSchema>;

/** A queue message's text as a step event, or the reasons it is not one (never throws). */
export function parseStepEvent(text: string): { ok: true; event: StepEvent } | { ok: false; issues: string[] } {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { ok: false, issues: ['not JSON'] };
  }
  const parsed = stepEventSchema.safeParse(body);
  return parsed.success ? { ok: true, event: parsed.data } : { ok: false, issues: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`) };
}

/** The deduplication key of a step message. */
export function stepEventKey(e: Pick<StepEvent, 'clusterId' | 'incarnation' | 'generation' | 'seq' | 'attempt'>): string {
  return `${e.clusterId}/${e.incarnation ?? '-'}/${e.generation}/${e.seq}/${e.attempt}`;
}

/** What every engine event carries: when (epoch ms), and the project and cluster it concerns. */
export interface EngineEventBase {
  at: number;
  project: string;
  cluster: string;
}

/** A cluster's flow entered a phase. */
export interface PhaseStartedEvent extends EngineEventBase {
  type: 'phase-started';
  phase: EnginePhase;
}

/** A step finished and the flow moved on; `message` says what it did. */
export interface StepDoneEvent extends EngineEventBase {
  type: 'step-done';
  phase: EnginePhase;
  step: StepName;
  message: string;
}

/** A resource was created in a cloud (`kind`: machine, network, firewall, ssh-key, reserved-ip, node-pool…). */
export interface ResourceCreatedEvent extends EngineEventBase {
  type: 'resource-created';
  kind: string;
  name: string;
  provider?: string;
}

/** A resource was deleted from a cloud (`kind` as for ResourceCreatedEvent, and dns-record, helm-chart). */
export interface ResourceDeletedEvent extends EngineEventBase {
  type: 'resource-deleted';
  kind: string;
  name: string;
  provider?: string;
}

/**
 * A step waits: `attempt` counts its runs so far (1 for the first wait), `failures` the transient failures in a row
 * (5xx, throttling) behind this wait, 0 when it waits on the cloud's work; `since` is when the step began (ms).
 */
export interface WaitingEvent extends EngineEventBase {
  type: 'waiting';
  phase: EnginePhase;
  step: StepName;
  seconds: number;
  reason: string;
  attempt: number;
  failures: number;
  since: number;
}

/**
 * A step failed for good and the cluster is in ERROR. `kind` is the error's kind, or `undeliverable` when the queue
 * gave up delivering the step's message (it failed more often than the queue retries).
 */
export interface ErrorEvent extends EngineEventBase {
  type: 'error';
  phase: EnginePhase;
  step: StepName;
  message: string;
  kind: ErrorKind | 'undeliverable';
}

/** A cluster's flow ended: built (`DONE`) or deleted (`DELETED`). */
export interface ClusterDoneEvent extends EngineEventBase {
  type: 'cluster-done';
  state: 'DONE' | 'DELETED';
}

/** An add-on's state changed (installing, installed, upgraded, failed, removing), as the cluster reports it. */
export interface AddonEvent extends EngineEventBase {
  type: 'addon';
  name: string;
  chart: string;
  declaredVersion: string;
  installedVersion?: string;
  state: 'installed' | 'installing' | 'failed' | 'removing';
  message: string;
}

/**
 * An autoscaled pool's provider refused to grow it (`kind`: quota, capacity, invalid…): the pool keeps what exists
 * and is backed off (pool-scaling.ts).
 */
export interface PoolGrowthRefusedEvent extends EngineEventBase {
  type: 'pool-growth-refused';
  pool: string;
  kind: ErrorKind;
  message: string;
}

/** What the engine reports as it works: phases started, steps done, resources, waits, failures. Narrow on `type`. */
export type EngineEvent =
  | PhaseStartedEvent
  | StepDoneEvent
  | ResourceCreatedEvent
  | ResourceDeletedEvent
  | WaitingEvent
  | ErrorEvent
  | ClusterDoneEvent
  | AddonEvent
  | PoolGrowthRefusedEvent;

/** A function that receives the engine's events. */
export type EngineEventListener = (event: EngineEvent) => void;
