// NetnsWorld: the sandbox's machines as real network namespaces on the sandbox's virtual clock. It boots a machine
// from its user-data (cloud-init), answers the machines' virtual sleeps and timers, tells the simulation what they
// report, and measures the WireGuard mesh they built. Invariant: virtual time moves only when the runner moves it;
// settle() returns once every tracked process is either finished or blocked in a virtual sleep.
import { mkdirSync, writeFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { VirtualClock } from '@kubeplane/sdk/provider';
import type { SandboxVm } from '../kubernetes/vm-source.js';
import { NetnsHost } from './host.js';
import { DATA_DISK_DIR, machineDir, NetnsMachine, projectRoot, volatileHostPaths, type ExecResult } from './machine.js';
import { CloudConfigInvalid, parseCloudConfig, renderFirstBootScript, type CloudConfig } from './cloud-init.js';
import { ControlServer, KubeBridge, type KubeResponder, type SleepRequest, type TimerRequest } from './control.js';
import { createPackageMirror } from './mirror.js';
import { STANDINS } from './standins/table.js';
import { ENV } from './standins/control-client.js';
import { DISK_DIR_ENV, DISKS_ENV } from './standins/disks.js';
import { findUnitFile, oneshotScript, readUnitFile } from './standins/unit-file.js';

export type ReportListener = (machine: string, event: string, detail: Record<string, unknown>) => void;

export interface NetnsWorldOptions {
  clock: VirtualClock;
  /** The sandbox's DNS: the public addresses a name resolves to (stand-ins ask it instead of real DNS). */
  resolve?: (name: string) => string[];
  /** Answers Kubernetes API requests arriving on the bridge socket (`sandboxResponder(sandbox)`). */
  kubeResponder?: KubeResponder;
  onReport?: ReportListener;
  /** Default /dev/shm/kubeplane-netns. */
  baseDir?: string;
  /** Compiled stand-ins (default: dist/netns/standins next to this module's build). */
  standinsDir?: string;
  /** Real-time guard for settle() (default 120 s). */
  settleTimeoutMs?: number;
}

/** One pair of machines of a cluster that should share a WireGuard handshake. */
export type MachinePair = [string, string];

/** For one cluster: how many of the machine pairs that should have a WireGuard handshake have one, and which do not. */
export interface HandshakeReport {
  /** The cluster id from the cloud-config comment, else `overlay <network>` from wg0.conf's Address. */
  cluster: string;
  handshook: number;
  expected: number;
  missing: MachinePair[];
}

interface TrackedRun {
  id: string;
  machine: string;
  /** What it runs, for the settle() guard's message. */
  label: string;
  /** Outstanding virtual sleeps of the run's processes: > 0 means blocked, not busy. */
  sleeping: number;
}

interface Sleeper {
  machine: string;
  run?: string;
  dueMs: number;
  wake: () => void;
}

interface Timer {
  machine: string;
  /** The .service the timer activates. */
  unit: string;
  everySec: number | null;
  nextDueMs: number | null;
  running: boolean;
}

interface Booted {
  vm: SandboxVm;
  machine: NetnsMachine;
  config?: CloudConfig;
}

function defaultStandinsDir(): string {
  const here = fileURLToPath(new URL('./standins/', import.meta.url));
  // Under vitest this module runs from src/ (the `@kubeplane/source` condition); the stand-ins always run compiled.
  return here.replace(/\/src\/netns\/standins\/$/, '/dist/netns/standins/').replace(/\/$/, '');
}

function shim(standinsDir: string, module: string, command: string): string {
  const entry = `${standinsDir}/${module}.js`;
  return `#!/bin/sh
# kubeplane netns stand-in for ${command}
if [ ! -f '${entry}' ]; then
  echo "sandbox: the stand-in for ${command} is not built (${entry} is missing; run tsc -b)" >&2
  exit 127
fi
exec '${process.execPath}' '${entry}' "$@"
`;
}

const key = (vm: Pick<SandboxVm, 'cloud' | 'name'>): string => `${vm.cloud}/${vm.name}`;

export class NetnsWorld {
  readonly clock: VirtualClock;
  readonly host: NetnsHost;
  /** The per-run package mirror key (gpg fingerprint): what `apt-get update` accepts in signed-by keyrings. */
  readonly mirrorKeyFingerprint: string;
  readonly controlSocket: string;
  readonly kubeSocket: string;
  readonly binDir: string;
  readonly standinsDir: string;
  /** Host paths under /tmp or /run the machines must still see (see NetnsMachineOptions.hostPaths). */
  readonly #hostPaths: string[];
  readonly #options: NetnsWorldOptions;
  readonly #control: ControlServer;
  readonly #bridge: KubeBridge;
  readonly #mirrorDir: string;
  readonly #machines = new Map<string, Booted>();
  readonly #runs = new Map<string, TrackedRun>();
  readonly #sleepers = new Set<Sleeper>();
  readonly #timers = new Map<string, Timer>();
  #nextIndex = 1;
  #nextRun = 1;
  #closed = false;

  private constructor(init: {
    options: NetnsWorldOptions;
    host: NetnsHost;
    control: ControlServer;
    bridge: KubeBridge;
    mirrorDir: string;
    fingerprint: string;
    binDir: string;
    standinsDir: string;
  }) {
    this.#options = init.options;
    this.clock = init.options.clock;
    this.host = init.host;
    this.#control = init.control;
    this.#bridge = init.bridge;
    this.controlSocket = init.control.path;
    this.kubeSocket = init.bridge.path;
    this.#mirrorDir = init.mirrorDir;
    this.mirrorKeyFingerprint = init.fingerprint;
    this.binDir = init.binDir;
    this.standinsDir = init.standinsDir;
    this.#hostPaths = volatileHostPaths([projectRoot(), init.standinsDir]);
  }

  /** Checks the host (NetnsUnavailable otherwise), cleans up dead runs, starts the sockets and the mirror. */
  static async open(options: NetnsWorldOptions): Promise<NetnsWorld> {
    const host = await NetnsHost.open(options.baseDir ? { baseDir: options.baseDir } : {});
    try {
      const standinsDir = options.standinsDir ?? defaultStandinsDir();
      const binDir = join(host.runDir, 'bin');
      mkdirSync(binDir, { recursive: true });
      for (const s of STANDINS) writeFileSync(join(binDir, s.command), shim(standinsDir, s.module, s.command), { mode: 0o755 });
      const cilium = STANDINS.find((s) => s.command === 'cilium');
      const mirror = await createPackageMirror(join(host.runDir, 'mirror'), shim(standinsDir, cilium?.module ?? 'cilium', 'cilium'));
      let world: NetnsWorld | undefined;
      const control = await ControlServer.listen(join(host.runDir, 'control.sock'), {
        sleep: (request, cancelled) => (world ? world.#sleep(request, cancelled) : Promise.resolve()),
        report: (machine, event, detail) => (world ? world.#report(machine, event, detail) : undefined),
        timer: (request) => (world ? world.#timer(request) : undefined),
        now: () => options.clock.now(),
        resolve: (name) => options.resolve?.(name) ?? [],
      });
      const responder: KubeResponder =
        options.kubeResponder ?? (async () => new Response('no Kubernetes responder is configured for this netns world\n', { status: 503 }));
      const bridge = await KubeBridge.listen(join(host.runDir, 'kube.sock'), responder);
      world = new NetnsWorld({ options, host, control, bridge, mirrorDir: mirror.dir, fingerprint: mirror.fingerprint, binDir, standinsDir });
      return world;
    } catch (error) {
      await host.close();
      throw error;
    }
  }

  #env(id: string): Record<string, string> {
    return {
      PATH: `${this.binDir}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin`,
      HOME: '/root',
      LANG: 'C.UTF-8',
      [ENV.control]: this.controlSocket,
      [ENV.kube]: this.kubeSocket,
      [ENV.machine]: id,
      [ENV.mirror]: this.#mirrorDir,
      [ENV.standins]: this.standinsDir,
      [ENV.node]: process.execPath,
    };
  }

  machine(vm: Pick<SandboxVm, 'cloud' | 'name'>): NetnsMachine | undefined {
    return this.#machines.get(key(vm))?.machine;
  }

  get machines(): NetnsMachine[] {
    return [...this.#machines.values()].map((b) => b.machine);
  }

  /** Starts a machine from its user-data: first boot runs cloud-init; a disk that booted before starts its enabled units. */
  async boot(vm: SandboxVm): Promise<void> {
    const id = key(vm);
    if (this.#machines.has(id)) throw new Error(`netns: machine ${id} is already running`);
    if (!vm.publicIPv4) throw new Error(`netns: machine ${id} has no public IPv4 (expected one in 198.18.0.0/15)`);
    let config: CloudConfig | undefined;
    let configError: string | undefined;
    try {
      config = parseCloudConfig(vm.userData);
    } catch (error) {
      if (!(error instanceof CloudConfigInvalid)) throw error;
      configError = error.message;
    }
    const index = this.#nextIndex++;
    const machine = new NetnsMachine({
      host: this.host,
      id,
      index,
      hostname: config?.hostname ?? vm.name,
      publicIPv4: vm.publicIPv4,
      env: {
        ...this.#env(id),
        // The disks its cloud attached (an EBS volume, a Hetzner volume): what lsblk and the other disk stand-ins show.
        [DISKS_ENV]: JSON.stringify(vm.dataDisks ?? []),
        [DISK_DIR_ENV]: join(machineDir(this.host, index), DATA_DISK_DIR),
      },
      hostPaths: this.#hostPaths,
    });
    this.#machines.set(id, { vm, machine, ...(config ? { config } : {}) });
    try {
      await machine.start();
    } catch (error) {
      this.#machines.delete(id);
      throw error;
    }
    machine.bootedAtMs = this.clock.now();
    if (configError !== undefined) {
      this.#report(id, 'bootstrap-exit', { code: 1, reason: configError });
      return;
    }
    this.#afterBoot(id, machine, config);
  }

  #afterBoot(id: string, machine: NetnsMachine, config: CloudConfig | undefined): void {
    const firstBoot = !existsSync(join(machine.root, 'var/lib/cloud/instance/boot-finished'));
    if (firstBoot && config) {
      this.#track(id, machine, 'cloud-init (write_files, runcmd)', renderFirstBootScript(config), (code) => this.#report(id, 'bootstrap-exit', { code }));
    } else {
      // Later boots: cloud-init's per-instance modules do not run again; systemd starts the enabled units.
      this.#track(
        id,
        machine,
        'boot: enabled units',
        'mkdir -p /var/log/kubeplane-netns; exec >>/var/log/kubeplane-netns/boot.log 2>&1; exec systemctl --boot',
        () => undefined,
      );
    }
  }

  /** Starts a tracked process (busy until it exits or blocks in a virtual sleep). */
  #track(id: string, machine: NetnsMachine, label: string, script: string, onExit: (code: number) => void, capture = false): Promise<ExecResult> {
    const run: TrackedRun = { id: `r${this.#nextRun++}`, machine: id, label, sleeping: 0 };
    this.#runs.set(run.id, run);
    const child = machine.spawn(['sh', '-c', script], { [ENV.run]: run.id }, capture ? 'pipe' : 'ignore');
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
    return new Promise((resolve) => {
      let done = false;
      const finish = (code: number): void => {
        if (done) return;
        done = true;
        this.#runs.delete(run.id);
        onExit(code);
        resolve({ code, stdout, stderr });
      };
      child.once('error', (error) => {
        stderr += error.message;
        finish(127);
      });
      // 'exit', not 'close': a daemon started by the run (wireguard-go) may keep its output open for ever.
      child.once('exit', (code, signal) => {
        const status = code ?? (signal ? 128 : 1);
        if (!capture) return finish(status);
        const timer = setTimeout(() => finish(status), 200);
        child.once('close', () => {
          clearTimeout(timer);
          finish(status);
        });
      });
    });
  }

  /** Runs a command in a machine as a tracked process (busy while it runs) and returns its output. */
  exec(vm: Pick<SandboxVm, 'cloud' | 'name'>, script: string): Promise<ExecResult> {
    const booted = this.#machines.get(key(vm));
    if (!booted) throw new Error(`netns: no machine ${key(vm)}`);
    return this.#track(key(vm), booted.machine, script, script, () => undefined, true);
  }

  /** Powers a machine off for good: its processes, namespace and timers go; its disk stays until close(). */
  async stop(vm: Pick<SandboxVm, 'cloud' | 'name'>): Promise<void> {
    const id = key(vm);
    const booted = this.#machines.get(id);
    if (!booted) return;
    this.#forget(id);
    this.#machines.delete(id);
    await booted.machine.stop();
  }

  /** Power cycle: processes, /run and /tmp are lost, the disk is kept, the enabled units start again. */
  async reboot(vm: Pick<SandboxVm, 'cloud' | 'name'>): Promise<void> {
    const id = key(vm);
    const booted = this.#machines.get(id);
    if (!booted) throw new Error(`netns: no machine ${id} to reboot`);
    this.#forget(id);
    await booted.machine.reboot();
    booted.machine.bootedAtMs = this.clock.now();
    this.#afterBoot(id, booted.machine, booted.config);
  }

  #forget(id: string): void {
    for (const [k, t] of this.#timers) if (t.machine === id) this.#timers.delete(k);
    for (const s of this.#sleepers) if (s.machine === id) this.#sleepers.delete(s);
    for (const [k, r] of this.#runs) if (r.machine === id) this.#runs.delete(k);
  }

  #report(machine: string, event: string, detail: Record<string, unknown>): void {
    this.#options.onReport?.(machine, event, detail);
  }

  #sleep(request: SleepRequest, cancelled: AbortSignal): Promise<void> {
    const dueMs = this.clock.now() + Math.round(request.seconds * 1000);
    if (dueMs <= this.clock.now()) return Promise.resolve();
    return new Promise((resolve) => {
      const run = request.run ? this.#runs.get(request.run) : undefined;
      const sleeper: Sleeper = {
        machine: request.machine,
        dueMs,
        ...(run ? { run: run.id } : {}),
        wake: () => {
          if (!this.#sleepers.delete(sleeper)) return;
          if (run) run.sleeping -= 1;
          resolve();
        },
      };
      if (run) run.sleeping += 1;
      this.#sleepers.add(sleeper);
      cancelled.addEventListener('abort', () => sleeper.wake());
    });
  }

  #timer(request: TimerRequest): void {
    const id = `${request.machine}|${request.unit}`;
    const booted = this.#machines.get(request.machine);
    if (!booted || (request.onBootSec === null && request.everySec === null)) {
      this.#timers.delete(id);
      return;
    }
    // systemd.timer(5): OnBootSec= counts from boot and elapses at once if already past; OnUnitActiveSec= counts from
    // the unit's last activation, so alone (never activated) it never elapses.
    const nextDueMs = request.onBootSec !== null ? Math.max(this.clock.now(), booted.machine.bootedAtMs + request.onBootSec * 1000) : null;
    this.#timers.set(id, { machine: request.machine, unit: request.unit, everySec: request.everySec, nextDueMs, running: false });
  }

  /** Wakes the sleepers that are due and starts the timers that are due (at the current virtual time). */
  #wakeDue(): void {
    const now = this.clock.now();
    for (const s of [...this.#sleepers]) if (s.dueMs <= now) s.wake();
    for (const [id, t] of this.#timers) {
      if (t.running || t.nextDueMs === null || t.nextDueMs > now) continue;
      const booted = this.#machines.get(t.machine);
      if (!booted) continue;
      t.running = true;
      const activatedAt = now;
      // systemd starts a timer's service itself: a oneshot service's commands run as they are (one process fewer per
      // machine and virtual minute than `systemctl start`, the netns mode's largest cost); other types through systemctl.
      const path = findUnitFile(t.unit, booted.machine.root);
      const start = (path && oneshotScript(readUnitFile(path))) ?? `exec systemctl start ${t.unit}`;
      const script = `mkdir -p /var/log/kubeplane-netns; exec >>/var/log/kubeplane-netns/${t.unit}.log 2>&1\n${start}`;
      void this.#track(t.machine, booted.machine, `timer ${t.unit}`, script, () => {
        if (this.#timers.get(id) !== t) return;
        t.running = false;
        t.nextDueMs = t.everySec === null ? null : activatedAt + t.everySec * 1000;
        if (t.nextDueMs === null) this.#timers.delete(id);
      });
    }
  }

  #busy(): TrackedRun[] {
    return [...this.#runs.values()].filter((r) => r.sleeping <= 0);
  }

  /** Wakes what is due at clock.now(), then resolves once no machine has a busy tracked process. */
  async settle(options: { timeoutMs?: number } = {}): Promise<void> {
    const limit = options.timeoutMs ?? this.#options.settleTimeoutMs ?? 120_000;
    const deadline = Date.now() + limit;
    for (;;) {
      this.#wakeDue();
      const busy = this.#busy();
      if (busy.length === 0) {
        // A woken process needs a moment to show it is busy again; a second look after a tick closes that gap.
        await new Promise((r) => setTimeout(r, 15));
        this.#wakeDue();
        if (this.#busy().length === 0) return;
        continue;
      }
      if (Date.now() > deadline) {
        const what = busy
          .map((r) => `machine ${r.machine} is still running ${JSON.stringify(r.label.length > 200 ? `${r.label.slice(0, 200)}…` : r.label)}`)
          .join('; ');
        throw new Error(`netns settle(): busy for more than ${Math.round(limit / 1000)} s of real time: ${what}`);
      }
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  /** The earliest virtual time a sleeper or a timer is due, or null. */
  nextWakeAt(): number | null {
    let next: number | null = null;
    for (const s of this.#sleepers) if (next === null || s.dueMs < next) next = s.dueMs;
    for (const t of this.#timers.values()) if (!t.running && t.nextDueMs !== null && (next === null || t.nextDueMs < next)) next = t.nextDueMs;
    return next;
  }

  /**
   * Per cluster, every pair of live machines with a wg0: a probe from each to the other's overlay address (TCP to the
   * discard port, 1 s: a refusal is an answer, so the packet went there and back over the tunnel; a timeout is not),
   * then `wg show wg0 latest-handshakes` on both sides. A pair counts when both sides have handshaken and both probes
   * were answered: a handshake alone proves the keys and endpoints, not that AllowedIPs route the addresses.
   */
  async handshakes(): Promise<HandshakeReport[]> {
    interface Member {
      id: string;
      machine: NetnsMachine;
      overlayIp: string;
      publicKey: string;
      cluster: string;
    }
    const members: Member[] = [];
    for (const [id, b] of this.#machines) {
      if (!b.machine.running) continue;
      const confPath = join(b.machine.root, 'etc/wireguard/wg0.conf');
      if (!existsSync(confPath)) continue;
      const address = /^\s*Address\s*=\s*([0-9.]+)\/(\d+)/m.exec(readFileSync(confPath, 'utf8'));
      if (!address) continue;
      const pub = await b.machine.exec(['wg', 'show', 'wg0', 'public-key']);
      const clusterId = b.config?.kubeplane?.clusterId;
      const cluster = clusterId ?? `overlay ${overlayNetwork(address[1] ?? '', Number(address[2]))}`;
      members.push({ id, machine: b.machine, overlayIp: address[1] ?? '', publicKey: pub.code === 0 ? pub.stdout.trim() : '', cluster });
    }
    const byCluster = new Map<string, Member[]>();
    for (const m of members) byCluster.set(m.cluster, [...(byCluster.get(m.cluster) ?? []), m]);
    const pairs: Array<[Member, Member]> = [];
    for (const group of byCluster.values())
      for (let i = 0; i < group.length; i++) for (let j = i + 1; j < group.length; j++) pairs.push([group[i] as Member, group[j] as Member]);
    const probe = (from: Member, to: Member): Promise<ExecResult> => from.machine.exec(['timeout', '1', 'bash', '-c', `: </dev/tcp/${to.overlayIp}/9`]);
    // A first round makes WireGuard handshake; the second, once sessions exist, tells answered from lost probes
    // (timeout(1) exits 124 when a probe got no answer at all).
    await Promise.all(pairs.flatMap(([a, b]) => [probe(a, b), probe(b, a)]));
    const answered = new Set<string>();
    await Promise.all(
      pairs.flatMap(([a, b]) => [
        probe(a, b).then((r) => void (r.code !== 124 && answered.add(`${a.id}>${b.id}`))),
        probe(b, a).then((r) => void (r.code !== 124 && answered.add(`${b.id}>${a.id}`))),
      ]),
    );
    const latest = new Map<string, Map<string, number>>();
    await Promise.all(
      members.map(async (m) => {
        const out = await m.machine.exec(['wg', 'show', 'wg0', 'latest-handshakes']);
        const table = new Map<string, number>();
        for (const line of out.stdout.split('\n')) {
          const [peer, when] = line.trim().split(/\s+/);
          if (peer && when) table.set(peer, Number(when));
        }
        latest.set(m.id, table);
      }),
    );
    const reports: HandshakeReport[] = [];
    for (const [cluster, group] of byCluster) {
      const report: HandshakeReport = { cluster, handshook: 0, expected: 0, missing: [] };
      for (const [a, b] of pairs.filter(([x]) => group.includes(x))) {
        report.expected += 1;
        const ab = latest.get(a.id)?.get(b.publicKey) ?? 0;
        const ba = latest.get(b.id)?.get(a.publicKey) ?? 0;
        if (ab > 0 && ba > 0 && answered.has(`${a.id}>${b.id}`) && answered.has(`${b.id}>${a.id}`)) report.handshook += 1;
        else report.missing.push([a.id, b.id]);
      }
      reports.push(report);
    }
    return reports;
  }

  /** Stops every machine, closes the sockets, removes namespaces, links, processes and the run directory. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const s of [...this.#sleepers]) s.wake();
    const machines = [...this.#machines.values()];
    this.#machines.clear();
    this.#runs.clear();
    this.#timers.clear();
    try {
      await Promise.all(machines.map((b) => b.machine.stop()));
      await Promise.all([this.#control.close(), this.#bridge.close()]);
    } finally {
      await this.host.close();
    }
  }
}

function overlayNetwork(ip: string, prefix: number): string {
  const n = ip.split('.').reduce((acc, o) => acc * 256 + Number(o), 0);
  const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
  const net = (n & mask) >>> 0;
  return `${[24, 16, 8, 0].map((s) => (net >>> s) & 255).join('.')}/${prefix}`;
}
