// The user's machines in the sandbox as real OpenSSH servers (../openssh/machine.ts): kubeplane's rendered bootstrap
// and reset run in a real shell over real SSH, and what the machine did is read back from its disk (the overlays'
// upper dirs): the node its bootstrap made of it and the user-data, handed to the same simulated kubelet a cloud
// machine's user-data goes to (the kubelet and kubeadm cannot run here; see MACHINE_STANDINS). With a SavedMachines
// directory, machines outlive the process: a later one starts them again from their saved disk and host key.
import { STATIC_STATE_DIR } from '@kubeplane/sdk/internal';
import type { Clock } from '@kubeplane/sdk';
import type { SandboxVm } from '../kubernetes/vm-source.js';
import { OpenSshMachine } from '../openssh/machine.js';
import type { StaticMachineBackend } from './backend.js';
import { vmOf, type MachineState, type SavedMachines } from './saved.js';

interface Host extends MachineState {
  machine?: Promise<OpenSshMachine>;
  started?: OpenSshMachine;
}

export class OpenSshMachines implements StaticMachineBackend {
  readonly kind = 'openssh';
  readonly version: string;
  readonly #clock: Clock;
  readonly #authorizedKey: string;
  readonly #saved: SavedMachines | undefined;
  readonly #hosts = new Map<string, Host>();

  constructor(clock: Clock, authorizedKey: string, version: string, saved?: SavedMachines) {
    this.#clock = clock;
    this.#authorizedKey = authorizedKey;
    this.version = version;
    this.#saved = saved;
    for (const h of saved?.list() ?? []) this.#hosts.set(`${h.endpoint}:${h.port}`, { ...h });
  }

  async dial(endpoint: string, port: number, users: readonly string[]): Promise<{ host: string; port: number }> {
    const key = `${endpoint}:${port}`;
    let host = this.#hosts.get(key);
    if (!host) {
      host = { endpoint, port, users: [...users] };
      this.#hosts.set(key, host);
    }
    if (!host.machine) {
      const h = host;
      const keep = this.#saved?.machineDir(endpoint, port);
      h.machine = OpenSshMachine.start({
        authorizedKey: this.#authorizedKey,
        // Its users, and only they may log in (sshd's AllowUsers): another user is refused as a real machine refuses it.
        users: users.filter((u) => u !== 'root'),
        allowUsers: h.users ?? users,
        hostname: endpoint.replace(/[^A-Za-z0-9-]/g, '-'),
        ...(keep ? { keep } : {}),
      });
      void h.machine.then(
        (m) => {
          h.started = m;
          this.#saved?.save(stateOf(h));
        },
        () => delete h.machine,
      );
    }
    const machine = await (host.machine as Promise<OpenSshMachine>);
    return { host: '127.0.0.1', port: machine.port };
  }

  /** The node state from the machine's disk; the virtual time is when the sandbox first saw it change. */
  observe(): void {
    // Asked on every kubelet tick: the user-data (hundreds of kB) is read only when the machine's state changes.
    for (const h of this.#hosts.values()) {
      const m = h.started;
      if (!m) continue;
      let changed = false;
      if (m.wrote(`${STATIC_STATE_DIR}/started`)) {
        const node = m.readWritten(`${STATIC_STATE_DIR}/node`)?.toString('utf8');
        if (!node) continue;
        if (h.runningSinceMs === undefined || h.stoppedAtMs !== undefined || h.node !== node) {
          const userData = m.readWritten(`${STATIC_STATE_DIR}/user-data`)?.toString('utf8');
          if (userData === undefined) continue;
          h.node = node;
          h.userData = userData;
          h.runningSinceMs = this.#clock.now();
          delete h.stoppedAtMs;
          changed = true;
        }
      } else if (h.runningSinceMs !== undefined && h.stoppedAtMs === undefined) {
        // The reset removed the state directory; kubeadm reset stops the kubelet first.
        h.stoppedAtMs = this.#clock.now();
        changed = true;
      }
      if (changed) this.#saved?.save(stateOf(h));
    }
  }

  leftovers(endpoint: string): string[] {
    return [...this.#hosts.values()].filter((h) => h.endpoint === endpoint).flatMap((h) => h.started?.written() ?? []);
  }

  async reinstall(endpoint: string, port: number): Promise<void> {
    const host = this.#hosts.get(`${endpoint}:${port}`);
    if (!host?.machine) throw new Error(`no sandbox machine at ${endpoint}:${port}`);
    await (await host.machine).rekey();
  }

  async listening(): Promise<Array<{ endpoint: string; port: number; local: number }>> {
    const started = [...this.#hosts.values()].filter((h) => h.machine);
    return Promise.all(started.map(async (h) => ({ endpoint: h.endpoint, port: h.port, local: (await h.machine!).port })));
  }

  listVms(): SandboxVm[] {
    this.observe();
    return [...this.#hosts.values()].flatMap(vmOf);
  }

  async close(): Promise<void> {
    const hosts = [...this.#hosts.values()];
    this.#hosts.clear();
    for (const h of hosts) if (h.started) this.#saved?.save(stateOf(h));
    await Promise.all(hosts.map(async (h) => (await h.machine?.catch(() => undefined))?.stop()));
  }
}

function stateOf(h: Host): MachineState {
  const { machine: _machine, started: _started, ...state } = h;
  return state;
}
