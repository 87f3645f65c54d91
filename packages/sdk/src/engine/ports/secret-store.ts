// SecretStore: private material (CA keys, kubeconfigs, SSH and WireGuard keys) kept apart from state, which
// holds only references to it. Values cross this boundary as Redacted, so they cannot be logged by accident.
import type { Redacted } from '../../redacted.js';

/** A secret with its labels. */
export interface SecretEntry {
  name: string;
  labels: Record<string, string>;
}

/** The port of secrets: kubeconfigs, keys and tokens, kept apart from the state. */
export interface SecretStore {
  /** Creates or replaces the secret. */
  put(name: string, value: Redacted<string>, labels?: Record<string, string>): Promise<void>;
  /**
   * Creates the secret only if none of that name exists; true if this call created it. Of concurrent creators exactly
   * one wins, so material that must be issued once (a cluster's PKI: machines carry its CA and token) is the first
   * issuer's for every step, even when two invocations of one step overlap (a lease that ran out mid-step).
   */
  create(name: string, value: Redacted<string>, labels?: Record<string, string>): Promise<boolean>;
  /** The value of a secret, or null when there is none. */
  get(name: string): Promise<Redacted<string> | null>;
  /** Deleting a missing secret is fine. */
  delete(name: string): Promise<void>;
  /** Secrets carrying every given label, sorted by name. */
  list(labels?: Record<string, string>): Promise<SecretEntry[]>;
}

/** Whether a secret's labels include every wanted label (all match when none are wanted). */
export function labelsMatch(have: Record<string, string>, want: Record<string, string> | undefined): boolean {
  return Object.entries(want ?? {}).every(([k, v]) => have[k] === v);
}
