// The one way kubeplane reaches into a machine: static (bring-your-own) machines, over SSH, to start their bootstrap
// and to reset them when they leave. The adapter (ssh2, in @kubeplane/providers) resolves the key and checks the
// host key; the engine decides what runs (packages/sdk/src/bootstrap/static-machine.ts) and records the pin.
import type { Redacted } from '../../redacted.js';
import type { SecretRef } from '../../manifest/schema.js';

/** A machine to run commands on over SSH: address, port, user and key. */
export interface MachineTarget {
  /** The Kubernetes node name the machine is (or was) — for messages. */
  node: string;
  /** IPv4 address or host name, as the manifest gives it. */
  endpoint: string;
  port: number;
  username: string;
  /** Where the SSH private key is (its `privatekey` key): resolved by the adapter, never held by the engine. */
  secretRef: SecretRef;
  /**
   * The host key's SHA-256 fingerprint (`SHA256:<base64>`, as `ssh-keygen -lf` prints it) pinned at first contact.
   * Absent the first time: whatever key the machine offers is taken and reported back to be pinned. A different key
   * later is refused before anything is sent, with both fingerprints.
   */
  hostKey?: string;
}

/** The outcome of a script run on a machine: the host key it offered, the exit code and the last lines of output. */
export interface MachineRun {
  /** The fingerprint of the host key the machine offered (equal to the pin, when there was one). */
  hostKey: string;
  exitCode: number;
  /** The last lines the script printed (stdout and stderr), for messages. */
  output: string;
}

/** The port of running commands on the user's static machines. */
export interface MachineAccess {
  /**
   * Runs `script` with `sh` as root on the machine (through `sudo -n` when the user is not root), its text on stdin,
   * and waits for it to end. Throws a KubeplaneError: `invalid` for a changed host key, `auth` for a refused key,
   * `retryable` when the machine cannot be reached.
   */
  run(target: MachineTarget, script: Redacted<string>): Promise<MachineRun>;
}
