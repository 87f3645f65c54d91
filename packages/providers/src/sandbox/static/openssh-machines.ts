// The user's machines in the sandbox as real OpenSSH servers (../openssh/machine.ts): kubeplane's rendered bootstrap
// and reset run in a real shell over real SSH, and what the machine did is read back from its disk (the overlays'
// upper dirs): the node its bootstrap made of it and the user-data, handed to the same simulated kubelet a cloud
// machine's user-data goes to (the kubelet and kubeadm cannot run here; see MACHINE_STANDINS).
import { STATIC_STATE_DIR, type Clock } from '@kubeplane/sdk';
import type { SandboxVm } from '../kubernetes/vm-source.js';
import { OpenSshMachine } from '../openssh/machine.js';
import type { StaticMachineBackend } from './backend.js';

interface Host {
  endpoint: string;
  port: number;
  machine: Promise<OpenSshMachine>;
  started?: OpenSshMachine;
  node?: string;
  userData?: string;
  runningSinceMs?: number;
  stoppedAtMs?: number;
}

export class OpenSshMachines implements StaticMachineBackend {
  readonly kind = 'openssh';
  readonly version: string;
  readonly #clock: Clock;
  readonly #authorizedKey: string;
  readonly #hosts = new Map<string, Host>();

  constructor(clock: Clock, authorizedKey: string, version: string) {
    this.#clock = clock;
    this.#authorizedKey = authorizedKey;
    this.version = version;
  }

  async dial(endpoint: string, port: number, username: string): Promise<{ host: string; port: number }> {
    const key = `${endpoint}:${port}`;
    let host = this.#hosts.get(key);
    if (!host) {
      const machine = OpenSshMachine.start({ authorizedKey: this.#authorizedKey, users: [username], hostname: endpoint.replace(/[^A-Za-z0-9-]/g, '-') });
      host = { endpoint, port, machine };
      const h = host;
      this.#hosts.set(key, host);
      void machine.then((m) => (h.started = m), () => this.#hosts.delete(key));
    }
    const machine = await host.machine;
    return { host: '127.0.0.1', port: machine.port };
  }

  /** The node state from the machine's disk; the virtual time is when the sandbox first saw it change. */
  observe(): void {
    for (const h of this.#hosts.values()) {
      const m = h.started;
      if (!m) continue;
      const started = m.wrote(`${STATIC_STATE_DIR}/started`);
      if (started) {
        const node = m.readWritten(`${STATIC_STATE_DIR}/node`)?.toString('utf8');
        const userData = m.readWritten(`${STATIC_STATE_DIR}/user-data`)?.toString('utf8');
        if (!node || userData === undefined) continue;
        if (h.runningSinceMs === undefined || h.stoppedAtMs !== undefined || h.node !== node) {
          h.node = node;
          h.userData = userData;
          h.runningSinceMs = this.#clock.now();
          delete h.stoppedAtMs;
        }
      } else if (h.runningSinceMs !== undefined && h.stoppedAtMs === undefined) {
        // The reset removed the state directory; kubeadm reset stops the kubelet first.
        h.stoppedAtMs = this.#clock.now();
      }
    }
  }

  leftovers(endpoint: string): string[] {
    return [...this.#hosts.values()].filter((h) => h.endpoint === endpoint).flatMap((h) => h.started?.written() ?? []);
  }

  async reinstall(endpoint: string, port: number): Promise<void> {
    const host = this.#hosts.get(`${endpoint}:${port}`);
    if (!host) throw new Error(`no sandbox machine at ${endpoint}:${port}`);
    await (await host.machine).rekey();
  }

  async listening(): Promise<Array<{ endpoint: string; port: number; local: number }>> {
    return Promise.all([...this.#hosts.values()].map(async (h) => ({ endpoint: h.endpoint, port: h.port, local: (await h.machine).port })));
  }

  listVms(): SandboxVm[] {
    this.observe();
    return [...this.#hosts.values()].flatMap((h): SandboxVm[] =>
      h.node && h.userData !== undefined && h.runningSinceMs !== undefined
        ? [{ cloud: 'static', name: h.node, id: `${h.endpoint}:${h.port}`, state: h.stoppedAtMs === undefined ? 'running' : 'terminated', runningSinceMs: h.runningSinceMs, ...(h.stoppedAtMs !== undefined ? { stoppedAtMs: h.stoppedAtMs } : {}), userData: h.userData, publicIPv4: h.endpoint }]
        : [],
    );
  }

  async close(): Promise<void> {
    const hosts = [...this.#hosts.values()];
    this.#hosts.clear();
    await Promise.all(hosts.map(async (h) => (await h.machine.catch(() => undefined))?.stop()));
  }
}
