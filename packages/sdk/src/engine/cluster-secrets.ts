// The private material of one cluster, kept in the SecretStore and never in state: the key pairs behind the
// PKI, the issued PKI's secret half (CA keys, bootstrap token, admin kubeconfig), every node's WireGuard key
// pair and the cluster's SSH key. Values are revealed only here, at the boundary of the store.
import { generateKeyPairSync } from 'node:crypto';
import { Redacted, isRedacted } from '../redacted.js';
import { asOpenSshPrivateKey, openSshPrivateKey, publicKeyComment, sshPublicKeyLine } from './openssh-key.js';
import type { ClusterKeys, ClusterPki } from '../bootstrap/pki.js';
import type { WireguardKeyPair } from '../bootstrap/wireguard-keys.js';
import type { AutoscalerTls } from './autoscaler-tls.js';
import type { SecretStore } from './ports/secret-store.js';
import { secretName } from './records.js';

/** An SSH key pair: the private key (redacted) and the OpenSSH public key. */
export interface SshKeyPair {
  /** OpenSSH public key line. */
  publicKey: string;
  /** OpenSSH's own format (openssh-key-v1, unencrypted), as `ssh -i` and `ssh-keygen -y` read it. */
  privateKey: Redacted<string>;
}

/** Redacted values become `{"$secret": value}` for storage, and back. */
function seal(value: unknown): unknown {
  if (isRedacted(value)) return { $secret: value.reveal() };
  if (Array.isArray(value)) return value.map(seal);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, seal(v)]));
  return value;
}

function unseal(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(unseal);
  if (value && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    if (Object.keys(o).length === 1 && typeof o.$secret === 'string') return Redacted.of(o.$secret);
    return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, unseal(v)]));
  }
  return value;
}

/** A cluster's secrets in the SecretStore: keys, WireGuard keys, join token and outputs, under one naming scheme. */
export class ClusterSecrets {
  constructor(
    private readonly store: SecretStore,
    private readonly clusterId: string,
    private readonly labels: Record<string, string>,
  ) {}

  async #get<T>(what: Parameters<typeof secretName>[1]): Promise<T | null> {
    const raw = await this.store.get(secretName(this.clusterId, what));
    return raw ? (unseal(JSON.parse(raw.reveal())) as T) : null;
  }

  async #put(what: Parameters<typeof secretName>[1], value: unknown, extraLabels: Record<string, string> = {}): Promise<void> {
    await this.store.put(secretName(this.clusterId, what), Redacted.of(JSON.stringify(seal(value))), { ...this.labels, ...extraLabels });
  }

  /**
   * Stores `candidate` unless the secret exists, and returns what is stored: the first issuer's value. Two overlapping
   * invocations of a step (a lease that ran out mid-step, a duplicate delivery) may both find nothing and both issue;
   * with a plain put the last writer would win while machines already carry the first one's material.
   */
  async #issue<T>(what: Parameters<typeof secretName>[1], candidate: T): Promise<T> {
    if (await this.store.create(secretName(this.clusterId, what), Redacted.of(JSON.stringify(seal(candidate))), this.labels)) return candidate;
    const stored = await this.#get<T>(what);
    if (stored === null) throw new Error(`the ${what} secret of cluster ${this.clusterId} exists but could not be read`);
    return stored;
  }

  /** The cluster's key pairs, or null before they are made. */
  keys(): Promise<ClusterKeys | null> {
    return this.#get<ClusterKeys>('keys');
  }
  /** Stores the cluster's key pairs. */
  putKeys(keys: ClusterKeys): Promise<void> {
    return this.#put('keys', keys);
  }
  /** The cluster's first keys, once: the ones stored if another invocation issued them first. */
  issueKeys(keys: ClusterKeys): Promise<ClusterKeys> {
    return this.#issue('keys', keys);
  }
  /** The issued PKI, both halves: once stored it is the cluster's for good (machines carry its CA). */
  pki(): Promise<ClusterPki | null> {
    return this.#get<ClusterPki>('pki');
  }
  /** Issues the PKI once: returns the stored PKI if another invocation issued one first (use that one). */
  issuePki(pki: ClusterPki): Promise<ClusterPki> {
    return this.#issue('pki', pki);
  }
  /** The nodes' WireGuard key pairs, by node name (empty before any is made). */
  async wireguard(): Promise<Record<string, WireguardKeyPair>> {
    return (await this.#get<Record<string, WireguardKeyPair>>('wireguard')) ?? {};
  }
  /** Stores the nodes' WireGuard key pairs, by node name. */
  putWireguard(keys: Record<string, WireguardKeyPair>): Promise<void> {
    return this.#put('wireguard', keys);
  }
  /** The token machines added to a running cluster join with (the first control plane's lives 24 hours). */
  async joinToken(): Promise<Redacted<string> | null> {
    return this.store.get(secretName(this.clusterId, 'join-token'));
  }
  /** Stores the kubeadm join token. */
  putJoinToken(token: Redacted<string>): Promise<void> {
    return this.store.put(secretName(this.clusterId, 'join-token'), token, this.labels);
  }
  /** The admin kubeconfig the engine reaches the cluster with: from the PKI it issued, or the one a managed service handed out. */
  async adminKubeconfig(): Promise<Redacted<string> | null> {
    const pki = await this.pki();
    return pki ? pki.secret.adminKubeconfig : this.store.get(secretName(this.clusterId, 'managed-kubeconfig'));
  }
  /** Stores the admin kubeconfig a managed service gave. */
  putManagedKubeconfig(kubeconfig: Redacted<string>): Promise<void> {
    return this.store.put(secretName(this.clusterId, 'managed-kubeconfig'), kubeconfig, this.labels);
  }
  /**
   * The cluster's SSH key, its private half in OpenSSH's format: clusters made before kubeplane wrote that format
   * hold PKCS#8 PEM, converted here as it is read (the stored secret is left as it is).
   */
  async ssh(): Promise<SshKeyPair | null> {
    const stored = await this.#get<SshKeyPair>('ssh');
    if (!stored) return null;
    return { publicKey: stored.publicKey, privateKey: Redacted.of(asOpenSshPrivateKey(stored.privateKey.reveal(), publicKeyComment(stored.publicKey))) };
  }
  /** The cluster's SSH key, once: the stored one if another invocation made it first. */
  issueSsh(pair: SshKeyPair): Promise<SshKeyPair> {
    return this.#issue('ssh', pair);
  }

  /** The CA and client certificate of the autoscaler's connection to an adapter outside the cluster (autoscaler-tls.ts). */
  autoscalerTls(): Promise<AutoscalerTls | null> {
    return this.#get<AutoscalerTls>('autoscaler-tls');
  }
  /** Issues them once: the stored ones if another invocation issued first (the cluster may already hold the client half). */
  issueAutoscalerTls(candidate: AutoscalerTls): Promise<AutoscalerTls> {
    return this.#issue('autoscaler-tls', candidate);
  }

  /** Outputs are stored as plain text (a kubeconfig, a metadata JSON), labelled like Claudie's output Secrets. */
  async putOutput(what: 'kubeconfig' | 'metadata', value: Redacted<string>): Promise<void> {
    await this.store.put(secretName(this.clusterId, what), value, { ...this.labels, 'kubeplane.dev/output': what });
  }
  /** One of the cluster's outputs (its kubeconfig or metadata), or null before it is written. */
  async output(what: 'kubeconfig' | 'metadata'): Promise<Redacted<string> | null> {
    return this.store.get(secretName(this.clusterId, what));
  }
  /** Deletes the cluster's outputs: its kubeconfig and metadata. */
  async deleteOutputs(): Promise<void> {
    await this.store.delete(secretName(this.clusterId, 'kubeconfig'));
    await this.store.delete(secretName(this.clusterId, 'metadata'));
  }
  /** Deletes every secret of the cluster. */
  async deleteAll(): Promise<void> {
    for (const what of ['keys', 'pki', 'wireguard', 'ssh', 'join-token', 'managed-kubeconfig', 'kubeconfig', 'metadata', 'autoscaler-tls'] as const) {
      await this.store.delete(secretName(this.clusterId, what));
    }
  }
}

/** An Ed25519 key pair in OpenSSH's formats: the public half as an authorized_keys line, the private half as openssh-key-v1. */
export function generateSshKeyPair(comment: string): SshKeyPair {
  const { privateKey } = generateKeyPairSync('ed25519');
  return { publicKey: sshPublicKeyLine(privateKey, comment), privateKey: Redacted.of(openSshPrivateKey(privateKey, comment)) };
}
