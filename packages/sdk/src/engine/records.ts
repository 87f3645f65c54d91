// What the engine keeps in the StateStore: one record per project (the manifest as applied, its generation)
// and one per cluster (desired and built state, the provider resources it owns, where its steps stand, and
// a status in Claudie's vocabulary). Records hold no secret: keys and kubeconfigs live in the SecretStore.
import type { AddonStatus } from '../addons/state.js';
import { randomUUID } from 'node:crypto';
import type { Manifest, ProviderDef, SecretRef } from '../manifest/schema.js';
import type { ClusterSpec } from '../model/types.js';
import type { ClusterPkiPublic } from '../bootstrap/pki.js';
import type { EnginePhase } from './events.js';

/** The version of the state records' format. */
export const RECORD_VERSION = 1;

/** Claudie's per-cluster workflow states (InputManifest `.status.clusters[].state`); docs/workflow.md explains each. */
export const CLUSTER_STATES = ['WAIT_FOR_PICKUP', 'IN_PROGRESS', 'DONE', 'ERROR'] as const;
/** One of Claudie's per-cluster workflow states. */
export type ClusterState = (typeof CLUSTER_STATES)[number];
/** Claudie's manifest states (InputManifest `.status.state`); docs/workflow.md explains each. */
export const MANIFEST_STATES = ['WATCHING_FOR_CHANGES', 'IN_PROGRESS', 'DONE', 'ERROR', 'SCHEDULED_FOR_DELETION'] as const;
/** One of Claudie's manifest states. */
export type ManifestState = (typeof MANIFEST_STATES)[number];

/** One stage of a cluster's workflow as its status records it. */
export interface StageRecord {
  status: 'DONE' | 'ERROR';
  stage: EnginePhase;
  taskDescription: string;
  timestamp: string;
}

/** A cluster's status in Claudie's shape: state, current stage, the last stages and the last error. */
export interface ClusterStatus {
  state: ClusterState;
  phase: EnginePhase | 'none';
  message: string;
  /** The last three finished phases, newest last. */
  previous: StageRecord[];
  /** Each add-on's state as the cluster last reported it (the addons step writes it). */
  addons?: AddonStatus[];
}

/** A cloud resource kubeplane created, with its id and where it lives. */
export interface NodeResource {
  pool: string;
  role: 'control' | 'compute' | 'loadbalancer';
  provider: string;
  region: string;
  zone?: string;
  /** The provider's id; absent while the machine is `requested` (its create call not yet answered). */
  id?: string;
  providerId?: string;
  publicIPv4?: string;
  privateIPv4?: string;
  /**
   * `requested`: the creation's token is in the ledger and the create call may have been made, not yet answered.
   * `creating`: the provider answered the create; `pending`/`running` as last listed.
   */
  state: 'requested' | 'creating' | 'pending' | 'running' | 'deleting';
  /**
   * This creation's idempotency token (NodeRequest.idempotencyToken), written to the ledger before the create call:
   * a retry of the same creation sends the same token, and a machine created again under the same name gets a new one
   * (a cloud remembers tokens far longer than it lists the machines they made).
   */
  token?: string;
  createdAt: number;
  /**
   * A static machine: where kubeplane reached it and the host key it pinned at first contact (a fingerprint; no key
   * material). The machine is the user's: removing the node resets it, never deletes it.
   */
  static?: { endpoint: string; port: number; username: string; secretRef: SecretRef; hostKey: string };
}

/** Every cloud resource a cluster owns, so that apply resumes and destroy removes exactly those. */
export interface Ledger {
  /** By `<provider>/<region>`. */
  /** By provider region: the network kubeplane made, or the VPC of the existing subnet the manifest names (`subnetId`: never deleted). */
  networks: Record<string, { name: string; id: string; subnetId?: string }>;
  /** By `<provider>/<region>`, and `#<role>` where firewalls are per role (see firewallKey). */
  firewalls: Record<string, { name: string; id: string; rulesHash?: string }>;
  /** The cluster's machine addresses last written into the firewalls' API rules (see clusterNodeSources). */
  firewallSources?: string[];
  sshKeys: Record<string, { name: string; id: string }>;
  reservedIp?: { provider: string; region: string; zone?: string; name: string; id: string; ip: string; attachedTo?: string };
  nodes: Record<string, NodeResource>;
  /**
   * When the engine last listed the cluster's machines from their providers (ms; create-nodes, await-machines). A cloud
   * machine's `running` state comes only from such a listing, so status reports the pools' running machines as of then.
   */
  machinesReadAt?: number;
  /**
   * Host keys of static machines by endpoint (`SHA256:` fingerprints), pinned at first contact and kept after the
   * node is removed: the same machine added again must offer the same key.
   */
  staticHostKeys?: Record<string, string>;
  /** By record name. */
  dns: Record<string, { zone: string; provider: string; type: 'A' | 'CNAME'; values: string[]; setIdentifiers: string[] }>;
  /** Per load balancer: the record set last sent (as a hash) and its change, until the provider reports it in sync. */
  dnsSync: Record<string, { hash: string; changeId: string; inSync: boolean }>;
  /** Every `<provider>/<region>` ever used, so deletion sweeps all of them even when pools moved. */
  regions: string[];
  /** When the join token for machines added to a running cluster expires (ms); the token is a secret. */
  joinTokenExpiresAt?: number;
  /** A managed control plane (CMK) and its node pools, as the provider named them. */
  managed?: ManagedLedger;
  /** Upgrade batches finished in the apply under way: each is progress, so the upgrade step's deadline is per batch. */
  upgradedBatches?: number;
  /** The serial of the last mesh bundle the engine signed: the next one goes above it, even if the ConfigMap was lost. */
  meshSerial?: number;
  /**
   * Per add-on, a hash of the HelmChart spec last applied: a HelmChart whose spec changed in this run may still carry
   * the controller's Failed condition of the spec before it, which is then not taken as this spec's failure.
   */
  addonSpecs?: Record<string, string>;
  /** Node remediation: machines replaced per node in the apply under way (cleared when the cluster is DONE). */
  remediated?: Record<string, number>;
  /** Per autoscaled pool: the last growth its provider refused, until a growth succeeds (see pool-scaling.ts). */
  growthFailures?: Record<string, GrowthFailure>;
  /** Set by the delete flow's teardown once nothing tagged with the cluster is left: only then are its outputs removed. */
  tornDown?: boolean;
  /**
   * The teardown's progress across attempts: the regions found clean in round 1 (every region swept once), then in
   * round 2 (each looked at again after all were clean, which catches a machine a late create left in one swept early).
   */
  sweep?: { round: 1 | 2; clean: string[] };
}

/** A growth of an autoscaled pool its provider refused: the error's kind and words, when, the count wanted, failures in a row. */
export interface GrowthFailure {
  kind: 'quota' | 'capacity' | 'invalid';
  message: string;
  at: number;
  wanted: number;
  failures: number;
}

/** The resources of a managed (CMK) cluster: the cluster and its node pools. */
export interface ManagedLedger {
  provider: string;
  region: string;
  /** The provider-side cluster name and id. */
  name: string;
  id: string;
  /** The provider's project the cluster is in (Crusoe's autoscaler needs it), where the provider says. */
  projectId?: string;
  /** `https://<provider's API name>:6443` */
  apiEndpoint?: string;
  /**
   * By manifest pool name: the provider's pool id, the count kubeplane asks for, the node image version it last set,
   * the machines it chose to remove (drained first), the machine a rotation to a new image is replacing and the
   * machine count it holds meanwhile (one more than when that round began).
   */
  pools: Record<string, { id: string; count: number; image?: string; removing?: string[]; rotating?: string; surge?: number }>;
  /** The add-ons the service installed when it created the cluster (they stay the provider's; kubeplane installs the others). */
  addonsAtCreation?: string[];
}

/** The state record of one cluster: its spec, ledger, status and the generation being applied. */
export interface ClusterRecord {
  v: typeof RECORD_VERSION;
  project: string;
  name: string;
  clusterId: string;
  /**
   * Random, set when the record is first created: a cluster destroyed and created again gets a new one, so its step
   * messages (whose keys name it) never collide with the earlier cluster's in a queue's deduplication window.
   */
  incarnation: string;
  generation: number;
  /** `absent`: the cluster is being deleted. */
  target: 'present' | 'absent';
  desired: ClusterSpec | null;
  /** What has been built and confirmed so far; null before the first successful apply. */
  current: ClusterSpec | null;
  ledger: Ledger;
  pki: ClusterPkiPublic | null;
  /** The step the cluster is at, its sequence number and when it started (ms on the engine's clock). */
  step: {
    phase: EnginePhase;
    name: string;
    seq: number;
    since: number;
    /** Runs of this step so far (part of each message's key). */
    attempts: number;
    /** Transient failures in a row without progress; drives the backoff. */
    failures?: number;
    /**
     * What this run of the step has already ensured at the provider (a network, a firewall with its rules, a key): an
     * attempt after a throttle or a fault resumes after them instead of reading each again, so a step of twenty calls
     * is not all-or-nothing under a steady error rate. A new run of the step (the next step, a new apply) starts empty.
     */
    ensured?: string[];
    /** Why this step last waited: what its timeout reports as the reason it gave up. */
    reason?: string;
    /**
     * When the message for this step is due (ms): set with every write that queues one. The watchdog re-queues a
     * cluster whose step is overdue by more than a message can spend in flight (a message lost to a crash).
     */
    dueAt?: number;
  };
  status: ClusterStatus;
  /** The manifest this cluster was last applied from: deletion still knows its providers after the project's is gone. */
  lastManifest: Manifest | null;
}

/** The state record of a project: its manifest, generation and clusters. */
export interface ProjectRecord {
  v: typeof RECORD_VERSION;
  project: string;
  generation: number;
  /** The manifest as last applied; null once the project is being destroyed. */
  manifest: Manifest | null;
  /** Cluster name -> id, for every cluster the project has or had and that is not yet deleted. */
  clusters: Record<string, string>;
  /** Manifest pools with machines that the last apply neither grew nor changed (preflight only warns about them). */
  establishedPools?: string[];
  /**
   * The manifest last applied, kept while the project is destroyed (`manifest` is then null): a cluster whose record
   * was lost is still swept by its tag, from the providers and regions it names.
   */
  lastManifest?: Manifest;
  /**
   * Every provider entry (its latest definition, which names credentials, never holds them) and `<provider>/<region>`
   * any apply of the project used: destroy sweeps all of them for a cluster whose record was lost.
   */
  used?: { providers: ProviderDef[]; regions: string[] };
  updatedAt: number;
}

/** The state key of a project's record. */
export const projectKey = (project: string) => `projects/${project}`;
/** The state key of a cluster's record. */
export const clusterKey = (clusterId: string) => `clusters/${clusterId}`;
/** The SecretStore name of one of a cluster's secrets. */
export const secretName = (
  clusterId: string,
  what: 'keys' | 'pki' | 'wireguard' | 'ssh' | 'join-token' | 'managed-kubeconfig' | 'kubeconfig' | 'metadata' | 'autoscaler-tls',
) => `clusters/${clusterId}/${what}`;

/** A cluster creation's id (ClusterRecord.incarnation). */
export function newIncarnation(): string {
  return randomUUID().replace(/-/g, '').slice(0, 16);
}

/** A ledger with no resources. */
export function emptyLedger(): Ledger {
  return { networks: {}, firewalls: {}, sshKeys: {}, nodes: {}, dns: {}, dnsSync: {}, regions: [] };
}

/** Records a finished stage in a cluster's status, keeping the last three. */
export function pushStage(status: ClusterStatus, stage: StageRecord): void {
  status.previous = [...status.previous, stage].slice(-3);
}

/** The manifest's state, from its clusters' states (Claudie's rules). */
export function manifestState(clusters: ClusterRecord[], deleting: boolean): ManifestState {
  // A deletion that failed for good is an error, not a deletion under way: resources are left until destroy runs again.
  if (clusters.some((c) => c.status.state === 'ERROR')) return 'ERROR';
  if (deleting && clusters.length > 0) return 'SCHEDULED_FOR_DELETION';
  if (clusters.some((c) => c.status.state === 'IN_PROGRESS' || c.status.state === 'WAIT_FOR_PICKUP')) return 'IN_PROGRESS';
  return clusters.length === 0 ? 'WATCHING_FOR_CHANGES' : 'DONE';
}

/**
 * Why a stored value is not a cluster record this version can read (a file edited by hand, written by something else,
 * or cut short in a way that is still JSON), or null when it is one. Checked on every read, so a bad record is named
 * instead of failing deep inside a step.
 */
export function clusterRecordProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return `it holds ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}, not a cluster record`;
  const r = value as Record<string, unknown>;
  const object = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);
  const checks: Array<[string, boolean]> = [
    ['project', typeof r.project === 'string'],
    ['name', typeof r.name === 'string'],
    ['clusterId', typeof r.clusterId === 'string'],
    ['generation', typeof r.generation === 'number'],
    ['target', r.target === 'present' || r.target === 'absent'],
    ['ledger', object(r.ledger) && object((r.ledger as Record<string, unknown>).nodes) && Array.isArray((r.ledger as Record<string, unknown>).regions)],
    ['step', object(r.step) && typeof (r.step as Record<string, unknown>).name === 'string' && typeof (r.step as Record<string, unknown>).seq === 'number'],
    [
      'status',
      object(r.status) && typeof (r.status as Record<string, unknown>).state === 'string' && Array.isArray((r.status as Record<string, unknown>).previous),
    ],
  ];
  const bad = checks.filter(([, ok]) => !ok).map(([field]) => field);
  return bad.length ? `${bad.map((f) => `\`${f}\``).join(', ')} ${bad.length === 1 ? 'is' : 'are'} missing or of the wrong type` : null;
}

/** As clusterRecordProblem, for a project record. */
export function projectRecordProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return `it holds ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}, not a project record`;
  const r = value as Record<string, unknown>;
  const bad = [
    ['project', typeof r.project === 'string'],
    ['generation', typeof r.generation === 'number'],
    [
      'clusters',
      typeof r.clusters === 'object' && r.clusters !== null && !Array.isArray(r.clusters) && Object.values(r.clusters).every((id) => typeof id === 'string'),
    ],
    ['manifest', r.manifest === null || (typeof r.manifest === 'object' && !Array.isArray(r.manifest))],
  ]
    .filter(([, ok]) => !ok)
    .map(([field]) => field as string);
  return bad.length ? `${bad.map((f) => `\`${f}\``).join(', ')} ${bad.length === 1 ? 'is' : 'are'} missing or of the wrong type` : null;
}
