// The sandbox's static machines kept between processes (`kubeplane apply --sandbox`, then `destroy --sandbox` in
// another process): one directory per machine under the sandbox's state directory, holding what the machine is
// (host.json: its node state, which the simulated kubelet reads) and, per backend, its host key and disk. Without it
// each process met new machines with new host keys, and the pin kubeplane recorded refused them.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SandboxVm } from '../kubernetes/vm-source.js';

/** A static machine's state as the sandbox sees it: which node its bootstrap made of it, and since when. */
export interface MachineState {
  endpoint: string;
  /** The port its sshd listens on. */
  port: number;
  /** The users who may log in; absent in machines saved before users were kept (then the first user to come). */
  users?: string[];
  node?: string;
  userData?: string;
  runningSinceMs?: number;
  stoppedAtMs?: number;
  /** In-process machines only: kubeplane's files on it (a real machine's are on its disk). */
  files?: string[];
}

export class SavedMachines {
  constructor(readonly dir: string) {}

  /** The directory of the machine at `endpoint:port`. */
  machineDir(endpoint: string, port: number): string {
    return join(this.dir, `${endpoint.replace(/[^A-Za-z0-9.-]/g, '_')}_${port}`);
  }

  list(): MachineState[] {
    if (!existsSync(this.dir)) return [];
    return readdirSync(this.dir).flatMap((name) => {
      const file = join(this.dir, name, 'host.json');
      return existsSync(file) ? [JSON.parse(readFileSync(file, 'utf8')) as MachineState] : [];
    });
  }

  save(state: MachineState): void {
    const dir = this.machineDir(state.endpoint, state.port);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(join(dir, 'host.json.new'), JSON.stringify(state));
    renameSync(join(dir, 'host.json.new'), join(dir, 'host.json'));
  }
}

/** The VM the simulated kubelet sees for a machine that is (or was) a node. */
export function vmOf(h: Omit<MachineState, 'files'>): SandboxVm[] {
  return h.node && h.userData !== undefined && h.runningSinceMs !== undefined
    ? [
        {
          cloud: 'static',
          name: h.node,
          id: `${h.endpoint}:${h.port}`,
          state: h.stoppedAtMs === undefined ? 'running' : 'terminated',
          runningSinceMs: h.runningSinceMs,
          ...(h.stoppedAtMs !== undefined ? { stoppedAtMs: h.stoppedAtMs } : {}),
          userData: h.userData,
          publicIPv4: h.endpoint,
        },
      ]
    : [];
}
