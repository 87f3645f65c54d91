// What a provider is built from (the registry, registry.ts, hands it to each cloud's build.ts), and the helpers the
// builders share.
import { createHash } from 'node:crypto';
import { KubeplaneError, type Clock, type ProviderDef, type Redacted } from '@kubeplane/sdk';
import type { RateBudgetSource } from '@kubeplane/sdk/provider';

/** What a provider is built from: the manifest entry, where and for whom it works, its credentials and its runtime. */
export interface ProviderInput {
  def: ProviderDef;
  /** Absent for global services (DNS). */
  region: string | undefined;
  /** `cluster`: the cluster id when the provider works for one cluster (its steps); absent for project-wide reads. */
  context?: { project: string; cluster?: string } | undefined;
  /** The entry's secretRef keys, resolved. */
  credentials: Readonly<Record<string, Redacted<string> | undefined>>;
  clock: Clock;
  budgets: RateBudgetSource;
  /** A source of [0,1) randomness for backoff jitter; pass a seeded one in tests. */
  random?: () => number;
  /** The region of providers made without one (AWS's global services). */
  defaultRegion?: string;
  /** The rate-budget account; default: derived from the credential, so every name for one account shares its budget. */
  account?: string;
  /** Only the cloud's own endpoints, whatever the environment configures (AWS_ENDPOINT_URL): the sandbox's clouds. */
  ownEndpoints?: boolean;
  /** The SSH public key machines get where the cloud wants one (Crusoe). */
  sshPublicKey?: string;
  /** A role in the credentials is assumed for one cluster's work only; project-wide reads use the keys. */
  roleForClustersOnly?: boolean;
}

/**
 * The rate-budget identity of a credential: one budget per cloud account (Hetzner: a token belongs to one project; AWS:
 * an access key to one account), whatever the manifest calls the provider, so two manifests or tenants naming the same
 * account differently still share its budget. A short hash: the key names the account without holding the credential.
 */
export function budgetIdentity(credential: Redacted<string>): string {
  return `id-${createHash('sha256').update(credential.reveal()).digest('hex').slice(0, 16)}`;
}

/** A missing credential key, as the user reads it: the entry, the cloud and what it needs. */
export function incompleteCredentials(def: ProviderDef, cloud: string, needs: string): KubeplaneError {
  return new KubeplaneError('auth', `provider ${def.name}: ${cloud} credentials incomplete (${needs})`, { resource: def.name });
}
