// MachineAccess over SSH with ssh2 (pure JavaScript; its optional native crypto and cpu-features are not needed):
// one connection per script, the host key checked against the pin before anything is sent, the script on stdin.
// Private keys are only ever handed to ssh2; messages name the node, the endpoint and fingerprints, never a key.
import { createHash } from 'node:crypto';
// ssh2 is CommonJS: its classes come from the default export (Node's ESM loader cannot see its named exports).
import ssh2 from 'ssh2';
const { Client } = ssh2;
import { KubeplaneError, type MachineAccess, type MachineRun, type MachineTarget, type Redacted } from '@kubeplane/sdk';

/** Where SSH machine access gets each target's private key, where it dials, and how long connecting may take. */
export interface SshMachineAccessOptions {
  /** The target's private key (OpenSSH or PEM), from where its secretRef points. */
  privateKey(target: MachineTarget): Promise<Redacted<string>>;
  /** Where to connect (default: the target's endpoint and port); the sandbox dials its own loopback machines. */
  dial?(target: MachineTarget): Promise<{ host: string; port: number }>;
  /** How long connecting and authenticating may take (default 20 s). */
  readyTimeoutMs?: number;
}

/** The fingerprint `ssh-keygen -lf` prints: `SHA256:` and the unpadded base64 of the SHA-256 of the key blob. */
export function hostKeyFingerprint(keyBlob: Buffer): string {
  return `SHA256:${createHash('sha256').update(keyBlob).digest('base64').replace(/=+$/, '')}`;
}

/** The last lines of what a script printed, for a message. */
function tail(text: string): string {
  const lines = text.trim().split('\n');
  return lines.slice(-8).join('\n').slice(-2000);
}

/** Runs scripts on the user's static machines over SSH, checking the host key against its pin first. */
export class SshMachineAccess implements MachineAccess {
  readonly #options: SshMachineAccessOptions;

  constructor(options: SshMachineAccessOptions) {
    this.#options = options;
  }

  /** What the machine access shows of itself in logs: never a key. */
  toJSON(): Record<string, string> {
    return { machineAccess: 'ssh2' };
  }

  async run(target: MachineTarget, script: Redacted<string>): Promise<MachineRun> {
    const where = `static node ${target.node} (${target.username}@${target.endpoint}:${target.port})`;
    const key = await this.#options.privateKey(target);
    let dialled: { host: string; port: number };
    try {
      dialled = this.#options.dial ? await this.#options.dial(target) : { host: target.endpoint, port: target.port };
    } catch (e) {
      // As a failed connect: nothing answers there (the sandbox's machines refuse a port their sshd is not on).
      throw new KubeplaneError('retryable', `${where}: cannot connect (${e instanceof Error ? e.message : String(e)})`, { resource: target.node });
    }
    const { host, port } = dialled;
    let offered: string | undefined;
    return new Promise<MachineRun>((resolve, reject) => {
      const conn = new Client();
      let settled = false;
      const fail = (error: KubeplaneError) => {
        if (settled) return;
        settled = true;
        conn.end();
        reject(error);
      };
      conn.on('ready', () => {
        // `sh -s` reads the script from stdin, so it never appears in a process list or a command line log.
        const command = target.username === 'root' ? 'sh -s' : 'sudo -n sh -s';
        conn.exec(command, (err, stream) => {
          if (err) return fail(new KubeplaneError('retryable', `${where}: could not start a shell (${err.message})`, { resource: target.node }));
          let output = '';
          const keep = (chunk: Buffer) => {
            output = (output + chunk.toString('utf8')).slice(-16_384);
          };
          stream.on('data', keep);
          stream.stderr.on('data', keep);
          stream.on('close', (code: number | null, signal?: string) => {
            if (settled) return;
            settled = true;
            conn.end();
            resolve({ hostKey: offered ?? '', exitCode: code ?? (signal ? 128 : 255), output: tail(output) });
          });
          stream.end(script.reveal());
        });
      });
      conn.on('error', (err: Error & { level?: string }) => {
        if (offered && target.hostKey && offered !== target.hostKey) {
          return fail(
            new KubeplaneError(
              'invalid',
              `${where}: the host key changed: pinned ${target.hostKey} at first contact, now offered ${offered}. If the machine was ` +
                `reinstalled, remove its pin (ledger.staticHostKeys) after checking the new key; otherwise someone may be in the middle`,
              { resource: target.node, code: 'HostKeyChanged' },
            ),
          );
        }
        if (err.level === 'client-authentication') {
          return fail(
            new KubeplaneError(
              'auth',
              `${where}: the machine refused user ${target.username} with the key from the node's secretRef; check nodes[].username and that key`,
              { resource: target.node, code: 'SshAuthFailed' },
            ),
          );
        }
        fail(new KubeplaneError('retryable', `${where}: cannot connect (${err.message})`, { resource: target.node }));
      });
      try {
        conn.connect({
          host,
          port,
          username: target.username,
          // A key read from a file or a variable loses its final newline to trimming; OpenSSH's format wants it.
          privateKey: key.reveal().endsWith('\n') ? key.reveal() : `${key.reveal()}\n`,
          readyTimeout: this.#options.readyTimeoutMs ?? 20_000,
          hostVerifier: (blob: Buffer) => {
            offered = hostKeyFingerprint(blob);
            return !target.hostKey || offered === target.hostKey;
          },
        });
      } catch {
        // ssh2 throws on a key it cannot parse; its message is generic, never the key.
        fail(
          new KubeplaneError('auth', `${where}: the key from the node's secretRef is not an SSH private key (OpenSSH or PEM, unencrypted)`, {
            resource: target.node,
            code: 'SshKeyMalformed',
          }),
        );
      }
    });
  }
}
