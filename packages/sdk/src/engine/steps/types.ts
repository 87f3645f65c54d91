// What a step is: one bounded piece of work on one cluster that ends with "go on to step X", "wait N
// seconds and run me again", "finished" or "failed". Steps mutate the record they are given; the engine
// writes it back with compare-and-swap, so a step that loses a race changes nothing.
import type { MachineAccess } from '../ports/machine-access.js';
import type { KubeplaneError } from '../../errors.js';
import type { Provider } from '../../provider/types.js';
import type { RandomSource } from '../../bootstrap/random.js';
import type { KeyPairSource } from '../../bootstrap/pki.js';
import type { BootstrapVersions } from '../../bootstrap/input.js';
import type { Clock } from '../../provider/clock.js';
import type { ClusterSpec } from '../../model/types.js';
import type { ClusterSecrets } from '../cluster-secrets.js';
import type { EngineEvent, EnginePhase } from '../events.js';
import type { KubernetesConnector } from '../ports/kubernetes.js';
import type { ClusterRecord, ProjectRecord } from '../records.js';
import type { ProviderDef, SecretRef } from '../../manifest/schema.js';
import type { CredentialKey, ProviderType } from '../../manifest/provider-types.js';
import type { Redacted } from '../../redacted.js';
import type { CatalogCache } from '../preflight.js';
import type { StepName } from '../step-names.js';

/**
 * Makes the provider for a manifest provider entry in a region (absent for global services such as DNS); the factory
 * resolves the credentials. `context.project` names the project whose manifest it is; `context.cluster` is the
 * cluster id when the provider works for one cluster (its steps), absent for project-wide reads (preflight's catalogs).
 */
export type ProviderFactory = (def: ProviderDef, region: string | undefined, context?: { project: string; cluster?: string }) => Promise<Provider>;

/**
 * Resolves a secretRef (an add-on's own, or the provider's it names with fromProvider) to the credential keys given,
 * each Redacted; `what` names the add-on in messages, `cloud` whose keys they are (absent: kubeplane's own token). The
 * runtime's, as a provider factory resolves providers' (the sandbox answers with its clouds' credentials).
 */
export type AddonCredentialResolver = (
  ref: SecretRef,
  keys: readonly CredentialKey[],
  what: string,
  cloud?: ProviderType,
) => Promise<Record<string, Redacted<string>>>;

/** How a step ended: move on, wait and come back, finish, or fail. */
export type StepResult =
  | { kind: 'next'; message: string; step?: StepName }
  /** `budget`: a wait for kubeplane's own rate budget (no request was sent): neither progress nor a failure. */
  | { kind: 'wait'; seconds: number; reason: string; transient?: boolean; budget?: boolean }
  | { kind: 'finished'; message: string }
  | { kind: 'failed'; error: KubeplaneError };

/** An engine event as a step emits it; the engine adds the time, project and cluster. */
export type EmitInput = EngineEvent extends infer E ? (E extends EngineEvent ? Omit<E, 'at' | 'project' | 'cluster'> : never) : never;

/** What a step runs with: the cluster's records, the clock, randomness, secrets, and the ports to providers and clusters. */
export interface StepContext {
  record: ClusterRecord;
  project: ProjectRecord;
  now: number;
  clock: Clock;
  random: RandomSource;
  /** Makes the cluster's key pairs (EngineOptions.keyPairs). */
  keyPairs: KeyPairSource;
  secrets: ClusterSecrets;
  /** The provider a manifest provider names, for a region. */
  provider(name: string, region?: string): Promise<Provider>;
  kubernetes: KubernetesConnector;
  /** SSH into static machines (absent in runtimes that cannot reach them). */
  machines?: MachineAccess;
  /** The providers' catalog answers, shared by every step of this engine (preflight). */
  catalogs: CatalogCache;
  versions?: Partial<BootstrapVersions>;
  /** Reads an add-on's credential keys from its secretRef (absent in runtimes that cannot). */
  addonCredentials?: AddonCredentialResolver;
  /** Transient failures of this step in a row without progress (0 the first time); drives the backoff. */
  attempt: number;
  /** Reports an event of the step. */
  emit(event: EmitInput): void;
  /**
   * Writes the record as the step has changed it so far (compare-and-swap, fenced by the step's lease), before a call
   * that must find its intent in the ledger if the process dies during it (a creation's idempotency token). Throws a
   * `conflict` when another step changed the record or took the lease; the step then ends as a conflict.
   */
  checkpoint(): Promise<void>;
}

/** One step of a flow: its phase, its timeout, which clusters it applies to, and what it runs. */
export interface StepDefinition {
  phase: EnginePhase;
  /** After this long in the step (waits included) it fails with its timeout message. */
  timeoutSeconds: number;
  /** The message the step fails with when it times out. */
  timeoutMessage: (record: ClusterRecord) => string;
  /**
   * Whether the step has work for a cluster of this spec (absent: always). The flow passes over a step that has none
   * (followingStep), so a step names its follower only to loop or jump, never to skip one that does not apply.
   */
  appliesTo?: (spec: ClusterSpec) => boolean;
  /** Runs the step once and says how it ended. */
  run(ctx: StepContext): Promise<StepResult>;
}

export { APPLY_FLOW, DELETE_FLOW, type StepName } from '../step-names.js';

export const next = (message: string, step?: StepName): StepResult => (step ? { kind: 'next', message, step } : { kind: 'next', message });
export const wait = (seconds: number, reason: string): StepResult => ({ kind: 'wait', seconds, reason });
