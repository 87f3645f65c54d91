// The user's own machines in the sandbox (static pools): one SSH server per endpoint on loopback, started on first
// contact, each with its own host key and authorizing the sandbox's key. Where it can (openssh-server and sudo
// installed, root, mount namespaces), each is a real sshd in its own namespaces running kubeplane's scripts in a real
// shell (static/openssh-machines.ts); elsewhere an in-process ssh2 server that interprets them (static/ssh2-machines.ts).
// Either way the engine's real ssh2 adapter dials it, and the user-data a machine was handed goes to the same
// simulated kubelet as a cloud machine's. The sandbox ignores the nodes' secretRefs, as it ignores the providers'.
// Nothing happens (no key, no server) until a static machine is first contacted.
// ssh2 is CommonJS: its classes come from the default export (Node's ESM loader cannot see its named exports).
import ssh2 from 'ssh2';
const { utils } = ssh2;
import { Redacted, type Clock, type MachineAccess, type MachineRun, type MachineTarget } from '@kubeplane/sdk';
import { SshMachineAccess } from '@kubeplane/providers';
import type { SandboxVm, SandboxVmSource } from './kubernetes/vm-source.js';
import type { StaticMachineBackend } from './static/backend.js';
import { Ssh2Machines } from './static/ssh2-machines.js';
import { OpenSshMachines } from './static/openssh-machines.js';
import { openSshAvailability } from './openssh/machine.js';
import { SavedMachines, vmOf } from './static/saved.js';

export interface SandboxStaticMachinesOptions {
  /** `auto` (default): real sshd machines where they can run, else in-process ssh2 servers. */
  use?: 'auto' | 'openssh' | 'in-process';
  /**
   * Where the machines are kept between processes (static/saved.ts): their state, host keys and disks. Without it
   * they live as long as this object.
   */
  saveDir?: string;
}

/** Which machines serve the static pools, and why (for the one line `kubeplane sandbox lifecycle` prints). */
export interface StaticMachinesInfo {
  kind: 'openssh' | 'in-process';
  /** e.g. `OpenSSH_9.2 (real sshd) on 127.0.0.1:40123, 127.0.0.1:40125` or `in-process ssh2 server (openssh-server not found (/usr/sbin/sshd))`. */
  description: string;
  machines: Array<{ endpoint: string; port: number; local: number }>;
}

export class SandboxStaticMachines implements SandboxVmSource {
  readonly #clock: Clock;
  readonly #use: NonNullable<SandboxStaticMachinesOptions['use']>;
  readonly #saved: SavedMachines | undefined;
  #keptVms: SandboxVm[] | undefined;
  #client: { private: string; public: string } | undefined;
  #backend: Promise<{ backend: StaticMachineBackend; why?: string }> | undefined;
  #chosen: { backend: StaticMachineBackend; why?: string } | undefined;

  constructor(clock: Clock, options: SandboxStaticMachinesOptions = {}) {
    this.#clock = clock;
    this.#use = options.use ?? 'auto';
    this.#saved = options.saveDir === undefined ? undefined : new SavedMachines(options.saveDir);
  }

  /** The engine's way in: the real ssh2 adapter, dialling these loopback servers with the sandbox's key. */
  access(): MachineAccess {
    const ssh = new SshMachineAccess({
      privateKey: async () => Redacted.of(this.#clientKey().private),
      dial: async (target) => (await this.#choose()).backend.dial(target.endpoint, target.port, target.username),
    });
    const access: MachineAccess & { toJSON(): Record<string, string> } = {
      toJSON: () => ({ machineAccess: 'ssh2 (sandbox machines)' }),
      run: async (target: MachineTarget, script: Redacted<string>): Promise<MachineRun> => {
        try {
          return await ssh.run(target, script);
        } finally {
          // The virtual time a machine became a node (or stopped being one) is when its script ended.
          this.#chosen?.backend.observe();
        }
      },
    };
    return access;
  }

  /** Which machines serve the static pools; undefined while none was contacted. */
  async info(): Promise<StaticMachinesInfo | undefined> {
    if (!this.#backend) return undefined;
    const { backend, why } = await this.#backend;
    const machines = await backend.listening();
    const where = machines.map((m) => `127.0.0.1:${m.local}`).join(', ');
    const description =
      backend instanceof OpenSshMachines ? `${backend.version} (real sshd) on ${where}` : `in-process ssh2 server${why ? ` (${why})` : ''} on ${where}`;
    return { kind: backend.kind, description, machines };
  }

  /** The machine was reinstalled: it offers a new host key (to test the pin). */
  async reinstall(endpoint: string, port = 22): Promise<void> {
    await (await this.#choose()).backend.reinstall(endpoint, port);
  }

  /** kubeplane's files left on the machine at `endpoint` (empty: clean, or never touched). */
  leftovers(endpoint: string): string[] {
    return this.#chosen?.backend.leftovers(endpoint) ?? [];
  }

  listVms(): SandboxVm[] {
    // Machines kept by an earlier process are nodes (or were) before this one contacts them; read once, since the
    // kubelets ask at every look and nothing changes them until a backend is chosen.
    if (this.#chosen) return this.#chosen.backend.listVms();
    this.#keptVms ??= this.#saved?.list().flatMap(vmOf) ?? [];
    return this.#keptVms;
  }

  /** Ends every machine (sshd processes, their namespaces and mounts) and removes their directories. */
  async close(): Promise<void> {
    const chosen = this.#backend;
    this.#backend = undefined;
    this.#chosen = undefined;
    if (chosen) await (await chosen).backend.close();
  }

  #clientKey(): { private: string; public: string } {
    this.#client ??= ed25519KeyPair();
    return this.#client;
  }

  #choose(): Promise<{ backend: StaticMachineBackend; why?: string }> {
    this.#backend ??= (async () => {
      const client = this.#clientKey();
      const inProcess = (why?: string) => ({
        backend: new Ssh2Machines(this.#clock, client.public, () => ed25519KeyPair().private, this.#saved),
        ...(why ? { why } : {}),
      });
      if (this.#use === 'in-process') return inProcess('asked for');
      const available = await openSshAvailability();
      if (available.ok) return { backend: new OpenSshMachines(this.#clock, client.public, available.version, this.#saved) };
      if (this.#use === 'openssh') throw new Error(`real sshd machines cannot run here: ${available.reason}`);
      return inProcess(available.reason);
    })();
    return this.#backend.then((c) => (this.#chosen = c));
  }
}

/**
 * An Ed25519 key pair from ssh2. Its generator drops leading zero bytes of the public key (about 1 key in 200 comes
 * out 31 bytes long) and then refuses that key itself ("Malformed OpenSSH public key"); such a pair is drawn again.
 */
export function ed25519KeyPair(): { private: string; public: string } {
  for (;;) {
    const pair = utils.generateKeyPairSync('ed25519');
    if (!(utils.parseKey(pair.public) instanceof Error)) return pair;
  }
}
