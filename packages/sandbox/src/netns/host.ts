// The host side of netns mode: checks that this machine can run sandbox machines as network namespaces, owns the
// bridge they share, and removes everything a run (or an earlier run whose owner died) left behind, by name prefix.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** Every name this harness creates starts with it: namespaces `kp<run>m<n>`, the bridge `kp<run>br`, veths `kp<run>v<n>`. */
export const NETNS_PREFIX = 'kp';
/** Machine disks, sockets and the mirror live here: not under /tmp, /run, /etc, /var, /usr/local or /root, which each machine mounts its own over. */
export const DEFAULT_NETNS_BASE_DIR = '/dev/shm/kubeplane-netns';

/** This host cannot run netns mode; the message lists everything missing. Tests fail with it, never skip. */
export class NetnsUnavailable extends Error {
  constructor(readonly missing: string[]) {
    super(`netns mode is unavailable on this host: ${missing.join('; ')}`);
    this.name = 'NetnsUnavailable';
  }
}

/** A command failed; the message carries its arguments and its stderr. */
export class NetnsCommandFailed extends Error {
  constructor(
    readonly command: string[],
    readonly stderr: string,
  ) {
    super(`${command.join(' ')} failed: ${stderr.trim() || 'no output'}`);
    this.name = 'NetnsCommandFailed';
  }
}

export async function run(command: string, args: string[], options: { input?: string } = {}): Promise<string> {
  try {
    const { stdout } = await execFileAsync(command, args, { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024, ...options });
    return stdout;
  } catch (error) {
    const stderr = (error as { stderr?: unknown }).stderr;
    throw new NetnsCommandFailed([command, ...args], typeof stderr === 'string' ? stderr : String(error));
  }
}

async function succeeds(command: string, args: string[]): Promise<boolean> {
  try {
    await execFileAsync(command, args, { encoding: 'utf8' });
    return true;
  } catch {
    return false;
  }
}

function onPath(binary: string): boolean {
  return (process.env['PATH'] ?? '/usr/sbin:/usr/bin:/sbin:/bin').split(':').some((dir) => dir !== '' && existsSync(join(dir, binary)));
}

/** Lists what this host lacks for netns mode (empty: all there). */
export async function missingPrerequisites(): Promise<string[]> {
  const missing: string[] = [];
  if (process.platform !== 'linux') return [`Linux is required (this is ${process.platform})`];
  if (process.getuid?.() !== 0) missing.push('root is required (network namespaces, bridges and mounts)');
  if (!existsSync('/dev/net/tun')) missing.push('/dev/net/tun is missing (wireguard-go needs a TUN device)');
  const tools: Array<[string, string]> = [
    ['ip', 'iproute2'],
    ['wireguard-go', 'wireguard-go'],
    ['wg-quick', 'wireguard-tools'],
    ['wg', 'wireguard-tools'],
    ['nginx', 'nginx'],
    ['etcd', 'etcd-server'],
    ['unshare', 'util-linux'],
    ['nsenter', 'util-linux'],
    ['gpg', 'gpg'],
    ['curl', 'curl'],
  ];
  for (const [tool, pkg] of tools) if (!onPath(tool)) missing.push(`${tool} is not installed (Debian package ${pkg})`);
  if (missing.length > 0) return missing;
  if (!(await succeeds('ip', ['netns', 'list']))) missing.push('`ip netns list` fails: network namespaces are not usable');
  if (!readFileSync('/proc/filesystems', 'utf8').includes('overlay')) missing.push('the kernel has no overlayfs (machine disks need it)');
  else if (!(await succeeds('unshare', ['--mount', '--propagation', 'private', 'true']))) missing.push('`unshare --mount` fails: no mount namespaces');
  return missing;
}

export async function assertNetnsAvailable(): Promise<void> {
  const missing = await missingPrerequisites();
  if (missing.length > 0) throw new NetnsUnavailable(missing);
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Kills every process in a network namespace (`ip netns pids`), then deletes it. */
export async function deleteNamespace(ns: string): Promise<void> {
  for (let round = 0; round < 20; round++) {
    const pids = (await run('ip', ['netns', 'pids', ns]).catch(() => ''))
      .split(/\s+/)
      .filter((p) => /^\d+$/.test(p))
      .map(Number);
    if (pids.length === 0) break;
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  await run('ip', ['netns', 'delete', ns]).catch(() => undefined);
}

async function namespacesWithPrefix(prefix: string): Promise<string[]> {
  const out = await run('ip', ['netns', 'list']).catch(() => '');
  return out
    .split('\n')
    .map((line) => line.split(' ')[0] ?? '')
    .filter((name) => name.startsWith(prefix));
}

/** Removes a run's namespaces (and their processes), bridge and links, and its directory. */
export async function removeRun(baseDir: string, runId: string): Promise<void> {
  const prefix = `${NETNS_PREFIX}${runId}`;
  for (const ns of await namespacesWithPrefix(prefix)) await deleteNamespace(ns);
  const links = (await run('ip', ['-o', 'link', 'show']).catch(() => ''))
    .split('\n')
    .map((line) => /^\d+:\s+([^:@]+)/.exec(line)?.[1] ?? '')
    .filter((name) => name.startsWith(prefix));
  for (const link of links) await run('ip', ['link', 'delete', link]).catch(() => undefined);
  const dir = join(baseDir, runId);
  // Overlays and tmpfs live in the machines' mount namespaces, which died with their keepers; nothing is mounted here.
  rmSync(dir, { recursive: true, force: true });
}

export interface NetnsHostOptions {
  baseDir?: string;
}

/** One run's share of the host: its id and name prefix, its directory, its bridge. */
export class NetnsHost {
  readonly runId: string;
  readonly prefix: string;
  readonly baseDir: string;
  readonly runDir: string;
  readonly bridge: string;
  #closed = false;

  private constructor(baseDir: string, runId: string) {
    this.baseDir = baseDir;
    this.runId = runId;
    this.prefix = `${NETNS_PREFIX}${runId}`;
    this.runDir = join(baseDir, runId);
    this.bridge = `${this.prefix}br`;
  }

  /** Checks the prerequisites, removes runs whose owner process is dead, and creates this run's bridge. */
  static async open(options: NetnsHostOptions = {}): Promise<NetnsHost> {
    await assertNetnsAvailable();
    const baseDir = options.baseDir ?? DEFAULT_NETNS_BASE_DIR;
    mkdirSync(baseDir, { recursive: true });
    await NetnsHost.removeStaleRuns(baseDir);
    // 5 base-36 characters keep every interface name within IFNAMSIZ (15): `kp` + 5 + `v` + up to 7 digits.
    const runId = Math.floor(Math.random() * 36 ** 5)
      .toString(36)
      .padStart(5, '0');
    const host = new NetnsHost(baseDir, runId);
    mkdirSync(host.runDir, { recursive: true });
    writeFileSync(join(host.runDir, 'owner.pid'), `${process.pid}\n`);
    try {
      await run('ip', ['link', 'add', host.bridge, 'type', 'bridge']);
      // No address on the bridge and no uplink: the machines reach each other and nothing else (no traffic leaves).
      await run('ip', ['link', 'set', host.bridge, 'up']);
    } catch (error) {
      await removeRun(baseDir, runId);
      throw error;
    }
    return host;
  }

  /** Removes runs under baseDir whose owner pid is dead (a crashed test or CLI). */
  static async removeStaleRuns(baseDir: string): Promise<string[]> {
    if (!existsSync(baseDir)) return [];
    const removed: string[] = [];
    for (const runId of readdirSync(baseDir)) {
      let owner = NaN;
      try {
        owner = Number(readFileSync(join(baseDir, runId, 'owner.pid'), 'utf8').trim());
      } catch {
        // no owner file: a run that died while starting
      }
      if (Number.isInteger(owner) && owner > 0 && pidAlive(owner)) continue;
      await removeRun(baseDir, runId);
      removed.push(runId);
    }
    return removed;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await removeRun(this.baseDir, this.runId);
  }
}
