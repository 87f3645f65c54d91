// The user's own machines in the sandbox (static pools): one SSH server per endpoint on loopback, started on first
// contact, each with its own host key and authorizing the sandbox's key. Where it can (openssh-server and sudo
// installed, root, mount namespaces), each is a real sshd in its own namespaces running kubeplane's scripts in a real
// shell (static/openssh-machines.ts); elsewhere an in-process ssh2 server that interprets them (static/ssh2-machines.ts).
// Either way the engine's real ssh2 adapter dials it, and the user-data a machine was handed goes to the same
// simulated kubelet as a cloud machine's. The sandbox ignores the nodes' secretRefs, as it ignores the providers'.
// Nothing happens (no key, no server) until a static machine is first contacted. A machine is at one endpoint, with its
// sshd on one port and some users, as a real one: set up beforehand (addMachine), or as the first contact found it
// (the port and user the manifest named). Another port is refused (ECONNREFUSED), another user fails to authenticate.
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

/** Which SSH servers stand in for the user's machines, and where they are kept between processes. */
export interface SandboxStaticMachinesOptions {
  /** `auto` (default): real sshd machines where they can run, else in-process ssh2 servers. */
  use?: 'auto' | 'openssh' | 'in-process';
  /**
   * Where the machines are kept between processes (static/saved.ts): their state, host keys and disks. Without it
   * they live as long as this object.
   */
  saveDir?: string;
}

/** One of the user's machines as it is set up: where its sshd listens and who may log in. */
export interface SandboxStaticMachine {
  endpoint: string;
  /** Default 22. */
  sshPort?: number;
  /** Default root alone. */
  users?: string[];
}

/** Which machines serve the static pools, and why (for the one line `kubeplane sandbox lifecycle` prints). */
export interface StaticMachinesInfo {
  kind: 'openssh' | 'in-process';
  /** e.g. `OpenSSH_9.2 (real sshd) on 127.0.0.1:40123, 127.0.0.1:40125` or `in-process ssh2 server (openssh-server not found (/usr/sbin/sshd))`. */
  description: string;
  machines: Array<{ endpoint: string; port: number; local: number }>;
}

/**
 * The user's own machines of static pools (`sandbox.staticMachines`): an SSH server per endpoint on loopback, started on
 * first contact, a real sshd in its own namespaces where it can run, else an in-process ssh2 server. `close()` ends
 * them.
 */
export class SandboxStaticMachines implements SandboxVmSource {
  readonly #clock: Clock;
  readonly #use: NonNullable<SandboxStaticMachinesOptions['use']>;
  readonly #saved: SavedMachines | undefined;
  #keptVms: SandboxVm[] | undefined;
  #client: { private: string; public: string } | undefined;
  #backend: Promise<{ backend: StaticMachineBackend; why?: string }> | undefined;
  #chosen: { backend: StaticMachineBackend; why?: string } | undefined;
  /** Each endpoint's machine: its sshd's port and its users (undefined: the first user to come). */
  readonly #machines = new Map<string, { port: number; users?: string[] }>();

  constructor(clock: Clock, options: SandboxStaticMachinesOptions = {}) {
    this.#clock = clock;
    this.#use = options.use ?? 'auto';
    this.#saved = options.saveDir === undefined ? undefined : new SavedMachines(options.saveDir);
    for (const h of this.#saved?.list() ?? []) this.#machines.set(h.endpoint, { port: h.port, ...(h.users ? { users: h.users } : {}) });
  }

  /**
   * Sets up the user's machine at `endpoint` before anything contacts it: its sshd answers on `sshPort` only and lets in
   * only `users`. A machine already contacted keeps what it is.
   */
  addMachine(machine: SandboxStaticMachine): void {
    if (this.#machines.has(machine.endpoint)) throw new Error(`the sandbox already has a machine at ${machine.endpoint}`);
    this.#machines.set(machine.endpoint, { port: machine.sshPort ?? 22, users: machine.users ?? ['root'] });
  }

  /**
   * Where the engine's connection to `endpoint:port` as `username` goes: the machine's sshd, or a refusal when nothing
   * listens on that port there. A machine not set up beforehand is as the first contact found it.
   */
  async #dial(endpoint: string, port: number, username: string): Promise<{ host: string; port: number }> {
    let machine = this.#machines.get(endpoint);
    if (!machine) this.#machines.set(endpoint, (machine = { port, users: [username] }));
    machine.users ??= [username];
    if (port !== machine.port) {
      // What connecting to a port no server listens on gives (connect(2) ECONNREFUSED), as Node words it.
      throw Object.assign(new Error(`connect ECONNREFUSED ${endpoint}:${port}`), { code: 'ECONNREFUSED', address: endpoint, port });
    }
    return (await this.#choose()).backend.dial(endpoint, port, machine.users);
  }

  /** The engine's way in: the real ssh2 adapter, dialling these loopback servers with the sandbox's key. */
  access(): MachineAccess {
    const ssh = new SshMachineAccess({
      privateKey: async () => Redacted.of(this.#clientKey().private),
      dial: (target) => this.#dial(target.endpoint, target.port, target.username),
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

  /**
   * The machines as the simulated kubelets see them, with the user-data kubeplane's scripts handed each; machines kept
   * by an earlier process are listed before they are contacted.
   */
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
    this.#machines.clear();
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
