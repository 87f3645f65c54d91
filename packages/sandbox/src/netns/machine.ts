// One sandbox machine as a Linux network namespace: eth0 with its public address on the run's bridge, its own mount
// and UTS namespaces (held by a keeper process) with a persistent disk over /etc, /var, /usr/local and /root and
// fresh tmpfs over /run and /tmp at every boot. Commands enter it with nsenter; stop() and reboot() kill everything.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { shQuote } from '@kubeplane/sdk/internal';
import { deleteNamespace, run, type NetnsHost } from './host.js';

/** The trees a machine writes that survive its reboot: overlays whose upper dirs are the machine's disk. */
export const DISK_TREES = ['/etc', '/var', '/usr/local', '/root'] as const;
/** Under a machine's folder: its data disks (standins/disks.ts), each a folder named by its by-id name. */
export const DATA_DISK_DIR = 'data-disks';
/** Lost at every reboot, as on a real machine (tmpfs): wireguard-go's socket, nginx's pid, /tmp downloads. */
export const VOLATILE_TREES = ['/run', '/tmp'] as const;

/** A machine's folder on the host: its disk, overlay work dirs and data disks. */
export function machineDir(host: Pick<NetnsHost, 'runDir'>, index: number): string {
  return join(host.runDir, 'machines', String(index));
}

export interface NetnsMachineOptions {
  host: NetnsHost;
  /** `cloud/name` */
  id: string;
  /** Small integer unique in the run: names the namespace (`kp<run>m<index>`) and the veth. */
  index: number;
  hostname: string;
  /** Public IPv4 in 198.18.0.0/15. */
  publicIPv4: string;
  /** Environment every process of the machine gets (PATH with the stand-ins first, control sockets). */
  env: Record<string, string>;
  /**
   * Host directories under /tmp or /run that must stay visible at their own path inside the machine, whose /tmp and
   * /run are its own: the project the stand-ins run from when it was checked out there (a CI clone in /tmp).
   */
  hostPaths?: string[];
}

export interface ExecResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Shell commands that keep host directories visible at their own paths in a mount namespace whose /tmp and /run are
 * replaced: `before` binds each aside (under `dir`, which must not be under them), `after` binds it back.
 */
export function hostPathMounts(dir: string, paths: readonly string[]): { before: string[]; after: string[] } {
  const aside = (i: number) => shQuote(join(dir, `host-${i}`));
  return {
    before: paths.flatMap((path, i) => [`mkdir -p ${aside(i)}`, `mount --bind ${shQuote(path)} ${aside(i)}`]),
    after: paths.flatMap((path, i) => [`mkdir -p ${shQuote(path)}`, `mount --bind ${aside(i)} ${shQuote(path)}`]),
  };
}

/** The checkout this module runs from (the nearest directory up holding package-lock.json, with its node_modules). */
export function projectRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (dir !== '/' && !existsSync(join(dir, 'package-lock.json'))) dir = dirname(dir);
  return dir;
}

/** Of `paths`, those under /tmp or /run (which every machine replaces with its own), without nested duplicates. */
export function volatileHostPaths(paths: string[]): string[] {
  const volatile = paths.filter((p) => /^\/(tmp|run)\//.test(p)).sort();
  return volatile.filter((p, i) => !volatile.slice(0, i).some((q) => p.startsWith(`${q}/`)));
}

/** The keeper: mounts the machine's trees inside its fresh mount namespace, says `ready`, then holds the namespace. */
function keeperScript(dir: string, hostname: string, hostPaths: readonly string[] = []): string {
  const lines = ['set -e', `hostname ${shQuote(hostname)}`];
  const keep = hostPathMounts(dir, hostPaths);
  lines.push(...keep.before);
  for (const tree of DISK_TREES) {
    const key = tree.slice(1).replace(/\//g, '-');
    const upper = join(dir, 'disk', key);
    const work = join(dir, 'overlay-work', key);
    lines.push(`mkdir -p ${shQuote(upper)} ${shQuote(work)}`);
    lines.push(`mount -t overlay overlay -o ${shQuote(`lowerdir=${tree},upperdir=${upper},workdir=${work}`)} ${tree}`);
  }
  for (const tree of VOLATILE_TREES) lines.push(`mount -t tmpfs -o mode=${tree === '/tmp' ? '1777' : '0755'} tmpfs ${tree}`);
  lines.push(...keep.after);
  // systemd mounts /etc/fstab's filesystems at boot: a data disk formatted before (standins/disks.ts) is mounted again.
  const disks = shQuote(join(dir, DATA_DISK_DIR));
  lines.push(
    `for d in ${disks}/*/; do`,
    '  [ -f "$d/fs.json" ] || continue',
    `  uuid=$(sed -n 's/.*"uuid":"\\([^"]*\\)".*/\\1/p' "$d/fs.json")`,
    `  target=$(awk -v u="UUID=$uuid" '$1 == u { print $2 }' /etc/fstab 2>/dev/null || true)`,
    '  if [ -n "$target" ]; then mkdir -p "$target" && mount --bind "$d/data" "$target"; fi',
    'done',
  );
  lines.push('mkdir -p /run/lock /run/kubeplane-netns', 'echo ready', 'exec sleep infinity');
  return lines.join('\n');
}

export class NetnsMachine {
  readonly id: string;
  readonly namespace: string;
  readonly dir: string;
  readonly publicIPv4: string;
  readonly hostname: string;
  readonly #host: NetnsHost;
  readonly #veth: string;
  readonly #env: Record<string, string>;
  readonly #hostPaths: string[];
  #keeper: ChildProcess | undefined;
  #keeperPid = 0;
  /** Virtual ms of the current boot (systemd.timer OnBootSec counts from it). */
  bootedAtMs = 0;

  constructor(options: NetnsMachineOptions) {
    this.#host = options.host;
    this.id = options.id;
    this.namespace = `${options.host.prefix}m${options.index}`;
    this.#veth = `${options.host.prefix}v${options.index}`;
    this.dir = machineDir(options.host, options.index);
    this.publicIPv4 = options.publicIPv4;
    this.hostname = options.hostname;
    this.#env = options.env;
    this.#hostPaths = options.hostPaths ?? [];
  }

  get running(): boolean {
    return this.#keeperPid !== 0;
  }

  /** The machine's root as the host sees it (through the keeper's mount namespace). */
  get root(): string {
    if (!this.running) throw new Error(`machine ${this.id} is not running`);
    return `/proc/${this.#keeperPid}/root`;
  }

  /** Creates the namespace and its eth0, mounts the disk and volatile trees, and waits for the keeper. */
  async start(): Promise<void> {
    mkdirSync(join(this.dir, 'disk'), { recursive: true });
    const ns = this.namespace;
    await run('ip', ['netns', 'add', ns]);
    try {
      const peer = `${this.#veth}p`;
      await run('ip', ['link', 'add', this.#veth, 'type', 'veth', 'peer', 'name', peer]);
      await run('ip', ['link', 'set', this.#veth, 'master', this.#host.bridge, 'up']);
      await run('ip', ['link', 'set', peer, 'netns', ns]);
      await run('ip', ['-n', ns, 'link', 'set', peer, 'name', 'eth0']);
      await run('ip', ['-n', ns, 'link', 'set', 'lo', 'up']);
      await run('ip', ['-n', ns, 'addr', 'add', `${this.publicIPv4}/32`, 'dev', 'eth0']);
      await run('ip', ['-n', ns, 'link', 'set', 'eth0', 'up']);
      // On-link default route: every other machine's /32 is ARPed for directly on the bridge (no router, no NAT).
      await run('ip', ['-n', ns, 'route', 'add', 'default', 'dev', 'eth0']);
      await this.#startKeeper();
    } catch (error) {
      await this.stop();
      throw error;
    }
  }

  async #startKeeper(): Promise<void> {
    const child = spawn(
      'ip',
      [
        'netns',
        'exec',
        this.namespace,
        'unshare',
        '--mount',
        '--uts',
        '--propagation',
        'private',
        'sh',
        '-c',
        keeperScript(this.dir, this.hostname, this.#hostPaths),
      ],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    this.#keeper = child;
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await new Promise<void>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('ready')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`machine ${this.id}: its mount namespace did not come up (exit ${code}): ${stderr.trim()}`)));
      child.once('error', reject);
    });
    // `ip netns exec`, unshare and sh all exec in place, so the child's pid is the keeper holding the namespaces.
    this.#keeperPid = child.pid ?? 0;
    child.removeAllListeners('exit');
    child.once('exit', () => {
      if (this.#keeper === child) this.#keeperPid = 0;
    });
  }

  /** Starts a process inside the machine (its mount, UTS and network namespaces) with the machine's environment. */
  spawn(argv: string[], env: Record<string, string> = {}, stdio: 'pipe' | 'ignore' = 'pipe'): ChildProcess {
    if (!this.running) throw new Error(`machine ${this.id} is not running`);
    return spawn('nsenter', ['-t', String(this.#keeperPid), '-m', '-u', '-n', '--wd=/', '--', ...argv], {
      env: { ...this.#env, ...env },
      stdio: ['ignore', stdio, stdio],
    });
  }

  /** Runs a command to completion inside the machine (for probes; not tracked as busy). */
  exec(argv: string[], env: Record<string, string> = {}): Promise<ExecResult> {
    const child = this.spawn(argv, env);
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
    return new Promise((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
    });
  }

  /** Kills every process of the machine (keeper included, which drops its mounts) and removes the namespace. */
  async stop(): Promise<void> {
    this.#keeperPid = 0;
    this.#keeper = undefined;
    await deleteNamespace(this.namespace);
    await run('ip', ['link', 'delete', this.#veth]).catch(() => undefined);
  }

  /** Power cycle: processes, /run and /tmp are lost; the disk (/etc, /var, /usr/local, /root) is kept. */
  async reboot(): Promise<void> {
    await this.stop();
    await this.start();
  }
}
