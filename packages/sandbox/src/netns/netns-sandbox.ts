// The sandbox's netns mode: every machine the sandbox clouds run becomes a network namespace booted from its real
// user-data (NetnsWorld), and the Kubernetes simulation follows what those machines report instead of its own boot
// timeline. The engine's runner treats it as a participant of the virtual clock (settle, nextWakeAt).
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { ClockParticipant } from '@kubeplane/sdk';
import { resolveSandboxName } from '../dns-resolver.js';
import type { SandboxVm } from '../kubernetes/vm-source.js';
import { sandboxResponder } from '../respond.js';
import type { Sandbox } from '../sandbox.js';
import { NetnsWorld, type HandshakeReport } from './world.js';

/** Where a NetnsSandbox keeps its machines and how long one settle may take in real time. */
export interface NetnsSandboxOptions {
  /** Where machine disks and sockets live (default: NetnsWorld's, /dev/shm/kubeplane-netns). */
  baseDir?: string;
  /** Real-time guard for one settle (default: NetnsWorld's 120 s). */
  settleTimeoutMs?: number;
}

/**
 * The sandbox's netns mode (`NetnsSandbox.attach`): every machine the sandbox clouds run becomes a network namespace
 * booted from its real user-data, and the Kubernetes simulation follows what those machines report. Pass it to the
 * engine's runner as a clock participant; call `close()` when done.
 */
export class NetnsSandbox implements ClockParticipant {
  readonly #pending = new Set<Promise<void>>();
  readonly #problems: string[];

  private constructor(
    readonly sandbox: Sandbox,
    readonly world: NetnsWorld,
    problems: string[],
  ) {
    this.#problems = problems;
  }

  /**
   * Attaches real machines to `sandbox`: from now on every machine that starts running boots in a namespace. Fails with
   * NetnsUnavailable (naming what is missing: root, namespaces, wireguard-go, nginx, etcd...) where this host cannot.
   */
  static async attach(sandbox: Sandbox, options: NetnsSandboxOptions = {}): Promise<NetnsSandbox> {
    const problems: string[] = [];
    const respond = sandboxResponder(sandbox);
    const world = await NetnsWorld.open({
      clock: sandbox.clock,
      resolve: (name) => resolveSandboxName(sandbox, name),
      kubeResponder: async (request) => (await respond(request)) ?? new Response('no sandbox cluster answers there\n', { status: 502 }),
      onReport: (machine, event, detail) => {
        // Bring the simulation up to now first: what was due before the report happens before it.
        sandbox.kubernetes.tick();
        sandbox.kubernetes.simulation.report(machine, event, detail, sandbox.clock.now());
        if (event === 'bootstrap-exit' && Number(detail['code']) !== 0) {
          // What the machine's own logs say, as an operator would read them on its console.
          const m = world.machines.find((x) => x.id === machine);
          const log = (path: string) => (m ? tailOf(join(m.root, path), 6) : '');
          problems.push(
            `${machine}: bootstrap exited with code ` +
              `${String(detail['code'])}\n${log('var/log/kubeplane-bootstrap.log') || log('var/log/cloud-init-output.log')}`,
          );
        }
      },
      ...(options.baseDir ? { baseDir: options.baseDir } : {}),
      ...(options.settleTimeoutMs ? { settleTimeoutMs: options.settleTimeoutMs } : {}),
    });
    const machines = new NetnsSandbox(sandbox, world, problems);
    sandbox.kubernetes.simulation.useDriver({
      start: (vm) => machines.#track(world.boot(vm), `booting ${vm.cloud}/${vm.name}`),
      stop: (vm) => machines.#track(world.stop(vm), `stopping ${vm.cloud}/${vm.name}`),
    });
    return machines;
  }

  #track(work: Promise<void>, what: string): void {
    const p = work.catch((error: unknown) => {
      this.#problems.push(`${what}: ${error instanceof Error ? error.message : String(error)}`);
    });
    this.#pending.add(p);
    void p.finally(() => this.#pending.delete(p));
  }

  /** The mirror's signing key: renders must pin it (BootstrapVersions.kubernetesReleaseKeyFingerprint). */
  get mirrorKeyFingerprint(): string {
    return this.world.mirrorKeyFingerprint;
  }

  /** Problems a machine had that no step will see (a namespace that could not start, a bootstrap that failed). */
  problems(): string[] {
    return [...this.#problems];
  }

  /** Lets every machine finish what is due now: new machines boot, due sleepers and timers run, reports arrive. */
  async settle(): Promise<void> {
    for (let round = 0; round < 1000; round++) {
      this.sandbox.kubernetes.tick();
      if (this.#pending.size > 0) {
        await Promise.all([...this.#pending]);
        continue;
      }
      await this.world.settle();
      this.sandbox.kubernetes.tick();
      if (this.#pending.size === 0) return;
    }
    throw new Error('netns: machines kept starting and stopping for 1000 rounds of one settle');
  }

  nextWakeAt(): number | null {
    const world = this.world.nextWakeAt();
    const sim = this.sandbox.kubernetes.nextEventAt() ?? null;
    if (world === null) return sim;
    if (sim === null) return world;
    return Math.min(world, sim);
  }

  /** Lets virtual time pass by `ms` with everything due on the way (mesh sync timers, the simulation's events). */
  async pass(ms: number): Promise<void> {
    const until = this.sandbox.clock.now() + ms;
    await this.settle();
    for (let guard = 0; guard < 100_000; guard++) {
      const next = this.nextWakeAt();
      const to = next !== null && next > this.sandbox.clock.now() && next < until ? next : until;
      this.sandbox.clock.advanceTo(to);
      await this.settle();
      if (to >= until) return;
    }
  }

  /**
   * Handshakes per cluster (see NetnsWorld.handshakes), measured again for up to `withinMs` of real time while pairs
   * are missing: WireGuard retries a lost handshake initiation after 5 s (REKEY_TIMEOUT), and a loaded host delays
   * the first one.
   */
  async handshakes(withinMs = 20_000): Promise<HandshakeReport[]> {
    const until = Date.now() + withinMs;
    for (;;) {
      const reports = await this.world.handshakes();
      if (reports.every((r) => r.handshook === r.expected) || Date.now() >= until) return reports;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }

  /** Reboots a machine: its disk stays, its processes, /run and /tmp go; enabled units start again. */
  async reboot(vm: Pick<SandboxVm, 'cloud' | 'name'>): Promise<void> {
    await this.world.reboot(vm);
    await this.settle();
  }

  /**
   * Resident memory of every process in each machine's network namespace (wireguard-go, nginx, etcd, the stand-ins),
   * by machine id: what one machine costs this host. Peak figures come from sampling this while a run goes on.
   */
  async memory(): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    await Promise.all(
      this.world.machines.map(async (m) => {
        const pids = await promisify(execFile)('ip', ['netns', 'pids', m.namespace]).then(
          (r) => r.stdout.split(/\s+/).filter(Boolean),
          () => [] as string[],
        );
        let bytes = 0;
        for (const pid of pids) {
          const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
          const kb = /^VmRSS:\s+(\d+) kB/m.exec(status)?.[1];
          if (kb) bytes += Number(kb) * 1024;
        }
        out.set(m.id, bytes);
      }),
    );
    return out;
  }

  /**
   * Waits for the boots under way, then stops every machine and the world's host side (bridge, control socket). Call
   * it when done, before the sandbox's own `close()`.
   */
  async close(): Promise<void> {
    await Promise.allSettled([...this.#pending]);
    await this.world.close();
  }
}

function tailOf(path: string, lines: number): string {
  try {
    return readFileSync(path, 'utf8')
      .trimEnd()
      .split('\n')
      .slice(-lines)
      .map((l) => `    ${l}`)
      .join('\n');
  } catch {
    return '';
  }
}
