// One of the user's machines in the sandbox as a real OpenSSH server (Debian's /usr/sbin/sshd) on a loopback port,
// in its own mount, PID and UTS namespaces with overlays on its trees, so what kubeplane's scripts write stays out of
// this host and can be read back from the overlays' upper dirs (the machine's disk as the host sees it).
//
// What is real: sshd (its key exchange, public-key authentication, session), the login shell, sudo for a non-root
// user, and every file the scripts write and remove. What is not: the programs listed in MACHINE_STANDINS, which
// would reach past the machine (the network namespace, the kernel, the package mirrors and systemd are this host's)
// or do not exist here (kubeadm, the kubelet); each is a shell script that only logs its arguments (`standins.log` in
// the machine's directory) and succeeds, but curl, which fails as it does offline. So the first boot runs for real up
// to its first download and then waits in its retries, as on a machine without network; the simulated kubelet, fed
// the user-data the machine was handed, stands in for the join.
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { shQuote } from '@kubeplane/sdk/internal';
import { hostPathMounts } from '../netns/machine.js';

export const SSHD = '/usr/sbin/sshd';
const SSH_KEYGEN = '/usr/bin/ssh-keygen';
const SUDO = '/usr/bin/sudo';

/** The trees the machine writes, each an overlay whose upper dir is its disk; /run and /tmp are its own tmpfs. */
export const MACHINE_TREES = ['/etc', '/var', '/usr', '/root', '/home'] as const;

/** Written by the machine itself, not by what it was sent: sshd's login records (wtmp, lastlog; utmp lives in /run). */
const MACHINE_RECORDS = new Set(['/var/log/wtmp', '/var/log/btmp', '/var/log/lastlog', '/var/log/faillog']);

/**
 * The programs the machine lacks or must not run for real, and why. kubeadm and the kubelet stand for themselves in
 * the sandbox's simulated kubelets (packages/sandbox/src/kubernetes), which read the user-data the machine
 * was handed; here they only log.
 */
export const MACHINE_STANDINS: Readonly<Record<string, string>> = {
  kubeadm: 'not installable here (no pkgs.k8s.io); the simulated kubelet joins the node from its user-data',
  kubelet: 'as kubeadm',
  kubectl: 'as kubeadm',
  cilium: 'as kubeadm',
  containerd: 'not installable here; nothing runs containers',
  'apt-get': "no package mirror is reachable, and the host's package database must not change",
  'apt-mark': 'as apt-get',
  curl: 'no network: it fails as curl does without one (exit 6, "Could not resolve host"; https://curl.se/libcurl/c/libcurl-errors.html)',
  systemctl: "the machine has no systemd (its PID 1 is the sandbox's shell); a unit would start on this host",
  sysctl: "kernel parameters are this host's (the machine shares its kernel and network namespace)",
  modprobe: "kernel modules are this host's",
  swapoff: "swap is this host's",
  ip: "the network namespace is this host's (the machine listens on its loopback)",
  iptables: 'as ip',
  wg: 'as ip',
  'wg-quick': 'as ip',
  nginx: "as systemctl: a daemon would run on this host's network",
};

/**
 * How an OpenSshMachine starts: who may log in with which key, its hostname, and where it is kept between processes.
 */
export interface OpenSshMachineOptions {
  /** The public key (an OpenSSH `authorized_keys` line) that may log in as root or as any of `users`. */
  authorizedKey: string;
  /** Users besides root who log in: created in the machine with password-less sudo, as a cloud image's default user. */
  users?: readonly string[];
  /**
   * Only these users may log in (sshd's `AllowUsers`), root included only if listed: a machine whose one user is
   * `ubuntu` refuses `root`, as a cloud image does. Default: root and `users`.
   */
  allowUsers?: readonly string[];
  /** Its hostname (its own UTS namespace). */
  hostname?: string;
  /**
   * A directory the machine is kept in between processes: its host key, its disk (the overlays' upper dirs, copied
   * with `cp -a`, whiteouts included) and what setting it up wrote. Restored from at start when it holds a machine,
   * saved to at stop: a later process (`kubeplane destroy --sandbox` after `apply --sandbox`) starts the same machine,
   * offering the same host key, with what kubeplane's scripts left on it. The running machine itself lives in a
   * temporary directory, traversable by its users (a state directory is not).
   */
  keep?: string;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as AddressInfo).port;
      s.close(() => resolve(port));
    });
    s.once('error', reject);
  });
}

async function accepting(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** sshd's version (`OpenSSH_9.2`), from `sshd -V` (older releases print it in their usage text, also on stderr). */
function sshdVersion(): string {
  const run = spawnSync(SSHD, ['-V'], { stdio: ['ignore', 'pipe', 'pipe'] });
  return `${run.stdout?.toString() ?? ''}${run.stderr?.toString() ?? ''}`;
}

/** Whether real sshd machines can run on this host (with sshd's version), or the reason they cannot. */
export type OpenSshAvailability = { ok: true; version: string } | { ok: false; reason: string };

let availability: Promise<OpenSshAvailability> | undefined;

/**
 * Whether real sshd machines can run here: sshd, ssh-keygen and sudo installed (Debian openssh-server, sudo), root,
 * and mount and PID namespaces with overlayfs usable (tried once with a throwaway overlay). Cached per process.
 */
export function openSshAvailability(): Promise<OpenSshAvailability> {
  availability ??= (async (): Promise<OpenSshAvailability> => {
    for (const [path, pkg] of [
      [SSHD, 'openssh-server'],
      [SSH_KEYGEN, 'openssh-client'],
      [SUDO, 'sudo'],
    ] as const) {
      if (!existsSync(path)) return { ok: false, reason: `${pkg} not found (${path})` };
    }
    if (process.getuid?.() !== 0) return { ok: false, reason: 'not running as root (sshd needs it, and so do mount namespaces)' };
    const dir = mkdtempSync(join(tmpdir(), 'kp-sshd-probe-'));
    try {
      mkdirSync(join(dir, 'up'));
      mkdirSync(join(dir, 'work'));
      execFileSync(
        'unshare',
        [
          '--mount',
          '--propagation',
          'private',
          '--pid',
          '--fork',
          '--mount-proc',
          '--uts',
          'sh',
          '-c',
          `mount -t overlay overlay -o lowerdir=/etc,upperdir=${dir}/up,workdir=${dir}/work /etc && mount -t tmpfs tmpfs /run`,
        ],
        { stdio: ['ignore', 'ignore', 'pipe'] },
      );
    } catch (e) {
      const stderr = String((e as { stderr?: Buffer }).stderr ?? '').trim();
      return { ok: false, reason: `mount namespaces with overlayfs are not available here${stderr ? ` (${stderr.split('\n')[0]})` : ''}` };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const version = /OpenSSH_[0-9][^ ,]*/.exec(sshdVersion())?.[0] ?? 'OpenSSH';
    return { ok: true, version };
  })();
  return availability;
}

/** The shell that sets the machine up inside its new namespaces, starts sshd and then holds the namespaces. */
function machineScript(dir: string, options: OpenSshMachineOptions): string {
  const lines = ['set -e'];
  for (const tree of MACHINE_TREES) {
    if (!existsSync(tree)) continue;
    const key = tree.slice(1);
    lines.push(`mkdir -p ${shQuote(join(dir, 'disk', key))} ${shQuote(join(dir, 'work', key))}`);
    lines.push(`mount -t overlay overlay -o ${shQuote(`lowerdir=${tree},upperdir=${join(dir, 'disk', key)},workdir=${join(dir, 'work', key)}`)} ${tree}`);
  }
  // Its own /run and /tmp (tmpfs), with this machine's directory kept visible at its own path (config, stand-ins).
  const keep = hostPathMounts('/run/kubeplane-host', [dir]);
  // Its name resolves, as on an installed Debian (127.0.1.1 in /etc/hosts), or sudo complains on every call.
  if (options.hostname) lines.push(`hostname ${shQuote(options.hostname)}`, `printf '127.0.1.1 %s\\n' ${shQuote(options.hostname)} >>/etc/hosts`);
  lines.push('mount -t tmpfs -o mode=0755 tmpfs /run', ...keep.before, 'mount -t tmpfs -o mode=1777 tmpfs /tmp', ...keep.after, 'mkdir -p /run/sshd');
  const standinPath = `${join(dir, 'standins')}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin`;
  // sudo sets its own PATH (secure_path): the stand-ins must come first there too.
  lines.push(`printf '%s\\n' ${shQuote(`Defaults secure_path="${standinPath}"`)} >/etc/sudoers.d/kubeplane-sandbox`);
  for (const user of options.users ?? []) {
    if (user === 'root') continue;
    // `*` (no password), not `!` (locked): sshd without PAM refuses a locked account even for key logins.
    lines.push(`id -u ${shQuote(user)} >/dev/null 2>&1 || useradd -m -p '*' -s /bin/sh ${shQuote(user)}`);
    lines.push(`printf '%s\\n' ${shQuote(`${user} ALL=(ALL) NOPASSWD:ALL`)} >>/etc/sudoers.d/kubeplane-sandbox`);
  }
  lines.push('chmod 0440 /etc/sudoers.d/kubeplane-sandbox');
  // PID 1 of the namespace: when this process's stdin closes (the sandbox closed it, or the process running the
  // sandbox died however it died) PID 1 exits, and the kernel kills sshd and every session; the mounts go with them.
  lines.push(`${SSHD} -D -e -f ${shQuote(join(dir, 'sshd_config'))} &`, 'echo started', 'cat >/dev/null || true');
  return lines.join('\n');
}

function standinScript(name: string, why: string, log: string): string {
  const offline =
    name === 'curl'
      ? [
          'for a in "$@"; do case "$a" in http*://*) host=${a#*://}; host=${host%%[/:]*};; esac; done',
          'echo "curl: (6) Could not resolve host: ${host:-}" >&2',
          'exit 6',
        ]
      : ['exit 0'];
  return [
    '#!/bin/sh',
    `# Sandbox stand-in for ${name}: ${why}. It logs its arguments.`,
    `printf '%s %s\\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" ${shQuote(name)}" $*" >>${shQuote(log)}`,
    ...offline,
    '',
  ].join('\n');
}

/** Machines of this process not yet stopped: ended however the process ends (see `track`). */
const live = new Set<OpenSshMachine>();

function endAll(): void {
  for (const m of [...live]) m.stopSync();
}

/**
 * On the way out the machines go with their directories: at exit (also `process.exit`), and on SIGINT or SIGTERM when
 * nothing else handles the signal (then the signal is raised again, so the process ends as it would have). Were the
 * process killed outright, the namespaces still end (their PID 1 sees its stdin close); only the directories stay.
 */
function onSignal(signal: NodeJS.Signals): void {
  if (process.listenerCount(signal) > 1) return;
  endAll();
  untrack();
  process.kill(process.pid, signal);
}
const onSigint = (): void => onSignal('SIGINT');
const onSigterm = (): void => onSignal('SIGTERM');

function track(machine: OpenSshMachine): void {
  if (live.size === 0) {
    process.on('exit', endAll);
    process.on('SIGINT', onSigint);
    process.on('SIGTERM', onSigterm);
  }
  live.add(machine);
}

function untrack(machine?: OpenSshMachine): void {
  if (machine) live.delete(machine);
  if (live.size > 0 && machine) return;
  process.off('exit', endAll);
  process.off('SIGINT', onSigint);
  process.off('SIGTERM', onSigterm);
}

/** A running machine; `stop()` (or `stopSync()` on the way out of a process) ends it and removes its directory. */
export class OpenSshMachine {
  readonly dir: string;
  readonly options: OpenSshMachineOptions;
  port = 0;
  /** `SHA256:...`, as `ssh-keygen -l` prints it. */
  hostKeyFingerprint = '';
  #process: ChildProcess | undefined;
  #log = '';
  #baseline = new Set<string>();

  private constructor(dir: string, options: OpenSshMachineOptions) {
    this.dir = dir;
    this.options = options;
  }

  /** Every stand-in call the machine made, one line each (`<time> <command> <args>`). */
  get standinsLog(): string {
    return existsSync(join(this.dir, 'standins.log')) ? readFileSync(join(this.dir, 'standins.log'), 'utf8') : '';
  }

  /**
   * Starts a machine: sshd on a free loopback port (`port`) in its own namespaces, restored from `options.keep` when
   * that holds one. Call `stop()` when done; a failed start cleans up after itself.
   */
  static async start(options: OpenSshMachineOptions): Promise<OpenSshMachine> {
    const dir = mkdtempSync(join(tmpdir(), 'kp-sshd-'));
    // Traversable: sshd reads authorized_keys as the user logging in.
    chmodSync(dir, 0o755);
    const machine = new OpenSshMachine(dir, options);
    track(machine);
    try {
      writeFileSync(join(dir, 'authorized_keys'), `${options.authorizedKey.trim()}\n`, { mode: 0o644 });
      mkdirSync(join(dir, 'standins'), { mode: 0o755 });
      for (const [name, why] of Object.entries(MACHINE_STANDINS))
        writeFileSync(join(dir, 'standins', name), standinScript(name, why, join(dir, 'standins.log')), { mode: 0o755 });
      const kept = machine.#restore();
      await machine.#boot(!kept);
      machine.#save();
      return machine;
    } catch (error) {
      machine.stopSync();
      throw error;
    }
  }

  /** The machine's disk for `tree` (one of MACHINE_TREES) as the host sees it: what was written there. */
  upper(tree: (typeof MACHINE_TREES)[number]): string {
    return join(this.dir, 'disk', tree.slice(1));
  }

  /** A file of the machine, read from its disk (the overlay's upper dir); undefined if no script wrote it. */
  readWritten(path: string): Buffer | undefined {
    const tree = MACHINE_TREES.find((t) => path.startsWith(`${t}/`));
    if (!tree) return undefined;
    const file = join(this.upper(tree), path.slice(tree.length + 1));
    try {
      const st = lstatSync(file);
      return st.isFile() ? readFileSync(file) : undefined;
    } catch {
      return undefined;
    }
  }

  /** Whether `path` exists on the machine's disk as written by a script (a directory or a file). */
  wrote(path: string): boolean {
    const tree = MACHINE_TREES.find((t) => path.startsWith(`${t}/`));
    if (!tree) return false;
    try {
      return !lstatSync(join(this.upper(tree), path.slice(tree.length + 1))).isCharacterDevice();
    } catch {
      return false;
    }
  }

  /**
   * What was written on the machine since it started and is still there, as absolute paths: files, links and
   * directories that the host's trees do not have, and files whose content differs from the host's. Removals of the
   * host's files (overlay whiteouts) and the machine's own login records are not listed.
   */
  written(): string[] {
    const out: string[] = [];
    const walk = (tree: string, upper: string, rel: string): void => {
      let names: string[];
      try {
        names = readdirSync(join(upper, rel));
      } catch {
        return;
      }
      for (const name of names.sort()) {
        const r = rel ? `${rel}/${name}` : name;
        const path = `${tree}/${r}`;
        const st = lstatSync(join(upper, r));
        if (st.isCharacterDevice()) continue;
        const lower = `${tree}/${r}`;
        if (st.isDirectory()) {
          if (!this.#baseline.has(path) && !isDirectory(lower)) out.push(path);
          walk(tree, upper, r);
          continue;
        }
        if (this.#baseline.has(path) || MACHINE_RECORDS.has(path)) continue;
        if (!sameFile(join(upper, r), lower)) out.push(path);
      }
    };
    for (const tree of MACHINE_TREES) walk(tree, this.upper(tree), '');
    return out;
  }

  /** A new host key (the machine was reinstalled, to test the pin); its disk is kept. */
  async rekey(): Promise<void> {
    this.#end();
    await this.#boot(true);
    this.#save();
  }

  /** Ends sshd and its namespaces, saves the machine to `keep` (if set) and removes its temporary directory. */
  async stop(): Promise<void> {
    const child = this.#process;
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      this.#end();
      await exited;
    }
    this.#save(true);
    rmSync(this.dir, { recursive: true, force: true });
    untrack(this);
  }

  /** For a process on its way out (exit, signals): kills the namespace's PID 1, saves it (see keep) and removes the directory at once. */
  stopSync(): void {
    this.#end();
    this.#save(true);
    rmSync(this.dir, { recursive: true, force: true });
    untrack(this);
  }

  /** Takes the host key, disk and baseline from `keep` when it holds a machine; true if it did. */
  #restore(): boolean {
    const keep = this.options.keep;
    if (!keep || !existsSync(join(keep, 'host'))) return false;
    copyFileSync(join(keep, 'host'), join(this.dir, 'host'));
    chmodSync(join(this.dir, 'host'), 0o600);
    writeFileSync(join(this.dir, 'host.pub'), execFileSync(SSH_KEYGEN, ['-y', '-f', join(this.dir, 'host')]));
    this.hostKeyFingerprint =
      execFileSync(SSH_KEYGEN, ['-l', '-f', join(this.dir, 'host.pub')])
        .toString()
        .split(' ')[1] ?? '';
    if (existsSync(join(keep, 'disk'))) execFileSync('cp', ['-a', join(keep, 'disk'), join(this.dir, 'disk')]);
    if (existsSync(join(keep, 'baseline.json'))) this.#baseline = new Set(JSON.parse(readFileSync(join(keep, 'baseline.json'), 'utf8')) as string[]);
    return true;
  }

  /** Writes the host key (and, `withDisk`, the disk) to `keep`; the disk only while no script runs on it. */
  #save(withDisk = false): void {
    const keep = this.options.keep;
    if (!keep || !existsSync(join(this.dir, 'host'))) return;
    mkdirSync(keep, { recursive: true, mode: 0o700 });
    copyFileSync(join(this.dir, 'host'), join(keep, 'host'));
    chmodSync(join(keep, 'host'), 0o600);
    writeFileSync(join(keep, 'baseline.json'), JSON.stringify([...this.#baseline]));
    if (!withDisk || !existsSync(join(this.dir, 'disk'))) return;
    rmSync(join(keep, 'disk.new'), { recursive: true, force: true });
    execFileSync('cp', ['-a', join(this.dir, 'disk'), join(keep, 'disk.new')]);
    rmSync(join(keep, 'disk'), { recursive: true, force: true });
    renameSync(join(keep, 'disk.new'), join(keep, 'disk'));
  }

  #end(): void {
    const child = this.#process;
    this.#process = undefined;
    if (!child?.pid || child.exitCode !== null || child.signalCode !== null) return;
    // unshare --fork waits for its child (the namespace's PID 1); killing that child ends the namespace.
    try {
      for (const pid of readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean))
        process.kill(Number(pid), 'SIGKILL');
    } catch {
      // Gone already.
    }
    child.stdin?.destroy();
    child.kill('SIGKILL');
  }

  async #boot(newHostKey: boolean): Promise<void> {
    const dir = this.dir;
    if (newHostKey) {
      rmSync(join(dir, 'host'), { force: true });
      rmSync(join(dir, 'host.pub'), { force: true });
      execFileSync(SSH_KEYGEN, ['-q', '-t', 'ed25519', '-N', '', '-C', 'kubeplane-sandbox-machine', '-f', join(dir, 'host')]);
      this.hostKeyFingerprint =
        execFileSync(SSH_KEYGEN, ['-l', '-f', join(dir, 'host.pub')])
          .toString()
          .split(' ')[1] ?? '';
    }
    // A port taken between choosing it and sshd binding it is tried again with another.
    for (let attempt = 1; ; attempt++) {
      this.port = await freePort();
      writeFileSync(
        join(dir, 'sshd_config'),
        `${[
          `Port ${this.port}`,
          'ListenAddress 127.0.0.1',
          `HostKey ${join(dir, 'host')}`,
          `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
          'PermitRootLogin prohibit-password',
          ...(this.options.allowUsers ? [`AllowUsers ${this.options.allowUsers.join(' ')}`] : []),
          'PasswordAuthentication no',
          'KbdInteractiveAuthentication no',
          'UsePAM no',
          'StrictModes no',
          'PrintMotd no',
          `PidFile ${join(dir, 'sshd.pid')}`,
          // The stand-ins first (see MACHINE_STANDINS); for root and the other users alike.
          `SetEnv PATH=${join(dir, 'standins')}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin`,
        ].join('\n')}\n`,
      );
      const child = spawn(
        'unshare',
        [
          '--mount',
          '--propagation',
          'private',
          '--pid',
          '--fork',
          '--mount-proc',
          '--uts',
          '--kill-child=SIGKILL',
          'sh',
          '-c',
          machineScript(dir, this.options),
        ],
        { stdio: ['pipe', 'pipe', 'pipe'] },
      );
      this.#process = child;
      this.#log = '';
      child.stderr.on('data', (c: Buffer) => (this.#log = (this.#log + c.toString()).slice(-4000)));
      child.stdout.resume();
      child.stdin.on('error', () => undefined);
      let up = false;
      for (let i = 0; i < 400 && child.exitCode === null && child.signalCode === null; i++) {
        if ((up = await accepting(this.port))) break;
        await new Promise((r) => setTimeout(r, 25));
      }
      if (up) break;
      this.#end();
      if (attempt >= 3 || !/Address already in use/.test(this.#log)) throw new Error(`sshd did not start: ${this.#log.trim() || 'no output'}`);
    }
    // What setting the machine up wrote (users, sudoers) is the machine's, not its scripts'.
    if (this.#baseline.size === 0) {
      const before = new Set<string>();
      const walk = (tree: string, upper: string, rel: string): void => {
        for (const name of existsSync(join(upper, rel)) ? readdirSync(join(upper, rel)) : []) {
          const r = rel ? `${rel}/${name}` : name;
          before.add(`${tree}/${r}`);
          if (lstatSync(join(upper, r)).isDirectory()) walk(tree, upper, r);
        }
      };
      for (const tree of MACHINE_TREES) walk(tree, this.upper(tree), '');
      this.#baseline = before;
    }
  }
}

function isDirectory(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

function sameFile(a: string, b: string): boolean {
  try {
    const sa = lstatSync(a);
    const sb = lstatSync(b);
    if (sa.isSymbolicLink() || sb.isSymbolicLink() || !sa.isFile() || !sb.isFile()) return false;
    return sa.size === sb.size && readFileSync(a).equals(readFileSync(b));
  } catch {
    return false;
  }
}
