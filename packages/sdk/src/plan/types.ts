// A plan is an ordered list of operations, each saying what changes, where, in which phase and why.
import type { ValidationIssue } from '../manifest/issues.js';
import type { NodeRole } from '../model/types.js';

/** The phase of the workflow an operation belongs to. */
export type Phase = 'infrastructure' | 'dns' | 'kubernetes' | 'addons' | 'outputs';

/** What an operation does. */
export type OperationKind =
  | 'create-cluster'
  | 'delete-cluster'
  | 'create-network'
  | 'delete-network'
  | 'create-pool'
  | 'delete-pool'
  | 'create-node'
  | 'delete-node'
  | 'create-load-balancer'
  | 'delete-load-balancer'
  | 'update-load-balancer-roles'
  | 'upsert-dns-record'
  | 'delete-dns-record'
  | 'change-api-endpoint'
  | 'upgrade-version'
  | 'rotate-nodes'
  | 'patch-node-metadata'
  | 'update-autoscaler-limits'
  | 'update-addons'
  | 'update-access'
  | 'update-installation-proxy'
  | 'write-outputs'
  | 'delete-outputs';

/** One operation of a plan: its kind, the cluster and resource, and why. */
export interface Operation {
  /** Stable across re-planning: `<kind>:<clusterId>:<target>`. */
  id: string;
  kind: OperationKind;
  cluster: string;
  clusterId: string;
  /** The resource concerned: a node, pool, load balancer or DNS name. */
  target: string;
  phase: Phase;
  /** Why, in words a person can check against the manifest. */
  reason: string;
  pool?: string;
  role?: NodeRole;
  /** Deletions of nodes from a cluster that stays: cordon and drain first, one node at a time. */
  drain?: boolean;
  details?: Record<string, string | number | boolean | string[]>;
}

/** Something apply will not do that a reader of the manifest could expect, with the field it concerns. */
export interface PlanWarning {
  cluster: string;
  /** The manifest path, as validation issues give it (`kubernetes.clusters[0].installationProxy`). */
  path: string;
  message: string;
}

/** The operations of a plan, with the warnings found while planning. */
export interface Plan {
  project: string;
  operations: Operation[];
  /** Absent when there is nothing to warn about. */
  warnings?: PlanWarning[];
  /** Operation counts by kind, for a one-line summary. */
  summary: Partial<Record<OperationKind, number>>;
}

/** A plan, or the issues that forbid it. */
export type PlanResult = { ok: true; plan: Plan } | { ok: false; issues: ValidationIssue[] };
