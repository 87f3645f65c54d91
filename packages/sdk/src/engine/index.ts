// Engine: the ports (StateStore, SecretStore, Queue, Lease) and their local adapters. The port test suite is
// a separate entry point (`@kubeplane/sdk/port-suite`) because it imports vitest.
export { checkKey, fenced, nextFence, type PutOptions, revisionConflict, type StateStore, type Tombstone, type Versioned } from './ports/state-store.js';
export { labelsMatch, type SecretEntry, type SecretStore } from './ports/secret-store.js';
export { isPullQueue, type Queue, type QueueSender, type ReceivedMessage, type SendOptions, SQS_MAX_DELAY_SECONDS } from './ports/queue.js';
export type { Lease, LeaseGrant } from './ports/lease.js';
export { MemoryLease, type MemoryLeaseOptions, MemoryQueue, type MemoryQueueOptions, MemorySecretStore, MemoryStateStore } from './adapters/memory.js';
export { FileLease, FileQueue, FileSecretStore, FileStateStore } from './adapters/file.js';
export { alive, tryLock, withFileLock, writeFileAtomic, type HeldLock, type LockOwner, type TryLockResult } from './adapters/file-lock.js';
export { fileSystemError } from './adapters/file-system-error.js';
export { makeDirectory, type MakeDirectoryOptions } from './adapters/make-directory.js';
export { deliverStep, errorText, type DeliveryDecision, type StepDelivery, type StepDeliveryTarget } from './delivery.js';
export { ConditionalLease, type LeaseRecord, type LeaseTable } from './adapters/conditional-lease.js';
export type { KubeNode, KubeObject, KubernetesApi, KubernetesConnector, NodePatch } from './ports/kubernetes.js';
export type { MachineAccess, MachineRun, MachineTarget } from './ports/machine-access.js';
export {
  type AddonEvent,
  type ClusterDoneEvent,
  type EngineEvent,
  type EngineEventBase,
  type EngineEventListener,
  type EnginePhase,
  type ErrorEvent,
  parseStepEvent,
  type PhaseStartedEvent,
  type PoolGrowthRefusedEvent,
  type ResourceCreatedEvent,
  type ResourceDeletedEvent,
  type StepDoneEvent,
  type WaitingEvent,
  PHASES,
  STEP_EVENT_VERSION,
  type StepEvent,
  stepEventKey,
  stepEventSchema,
} from './events.js';
export {
  CLUSTER_STATES,
  clusterKey,
  type ClusterRecord,
  clusterRecordProblem,
  type ClusterState,
  type ClusterStatus,
  emptyLedger,
  type GrowthFailure,
  type Ledger,
  type ManagedLedger,
  MANIFEST_STATES,
  manifestState,
  type ManifestState,
  newIncarnation,
  type NodeResource,
  projectKey,
  type ProjectRecord,
  projectRecordProblem,
  pushStage,
  RECORD_VERSION,
  secretName,
  type StageRecord,
} from './records.js';
export { ClusterSecrets, generateSshKeyPair, type SshKeyPair } from './cluster-secrets.js';
export { adapterServingTls, newAutoscalerTls, parseAdapterAddress, type AdapterServingTls, type AutoscalerTls } from './autoscaler-tls.js';
export type { ClusterMetadata } from './steps/outputs.js';
export { Engine, dueAt, queueDelay, type EngineOptions, type ProcessOutcome } from './engine.js';
export { busyRetryDelaySeconds } from './busy-retry.js';
export type { WatchdogOptions, WatchdogReport } from './watchdog.js';
export { defaultOverdueSeconds } from './lost-messages.js';
export { LocalRunner, type RunOptions, type RunReport } from './runner.js';
export { Kubeplane, type ApplyResult, type DestroyResult, type ManifestStatus, type PoolCounts } from './kubeplane.js';
export {
  GROWTH_BACKOFF_INITIAL_MS,
  GROWTH_BACKOFF_MAX_MS,
  growthBackoffMs,
  KUBELET_MAX_PODS,
  type NodeGroup,
  type NodeGroupNode,
  type NodeGroupTemplate,
} from './pool-scaling.js';
export {
  STEPS,
  APPLY_FLOW,
  DELETE_FLOW,
  DELETION_CEILING_SECONDS,
  type AddonCredentialResolver,
  type ProviderFactory,
  type StepName,
  type StepResult,
} from './steps/index.js';
export { FileBucketStore, fileRateBudgets } from './adapters/file-rate-budget.js';
export { CatalogCache, closestNames, preflight, preflightError, type PreflightIssue, type PreflightProviders } from './preflight.js';
