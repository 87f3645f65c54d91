// The control-plane static pods as daemons of the machine. kubeadm writes /etc/kubernetes/manifests/<pod>.yaml and
// the kubelet runs what they say (pkg/kubelet/config/file.go watches the directory; a removed manifest stops its
// pod). Here etcd runs as the real Debian etcd and kube-apiserver as the stand-in; kube-controller-manager and
// kube-scheduler have manifests (preflight and reset look at them) but no process: the sandbox's simulation does
// their work. Daemons are tracked by pid files under /run (gone at reboot, like the processes).
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { MANIFESTS_DIR } from '../../kubernetes/kubeadm-rules.js';

export const PID_DIR = '/run/kubeplane-standin';
export const LOG_DIR = '/var/log/kubeplane-standin';
/**
 * Written by the kubelet when it refuses every pod (runtime-rules.ts), removed when kubeadm writes a new kubelet
 * configuration: nothing of the control plane will start in real time, so kubeadm's waits need not pace real time.
 */
export const PODS_REFUSED_FILE = `${PID_DIR}/kubelet-pods-refused`;

export const STATIC_POD_BINARIES: Record<string, { command: string; args: string[] } | undefined> = {
  etcd: { command: '/usr/bin/etcd', args: [] },
  'kube-apiserver': { command: process.execPath, args: [fileURLToPath(new URL('./kube-apiserver.js', import.meta.url))] },
};

function pidFile(name: string): string {
  return `${PID_DIR}/${name}.pid`;
}

/** Whether a process runs: it exists and is not a zombie (one that exited and holds no ports, waiting to be reaped). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    // /proc/<pid>/stat: "pid (comm) state ..."; comm may hold spaces and parentheses, the state follows the last ')'.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true;
  }
}

export function daemonPid(name: string): number | undefined {
  let pid: number;
  try {
    pid = Number(readFileSync(pidFile(name), 'utf8').trim());
  } catch {
    return undefined;
  }
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  return alive(pid) ? pid : undefined;
}

/**
 * Starts a daemon unless it runs already; its output goes to /var/log/kubeplane-standin/<name>.log. Two starters at
 * once (a kubelet's sync and another's, or a kubelet restarted mid-sync) must not both spawn it: the second would find
 * the port taken and exit, its pid file would name a dead process, and the first would run on untracked, so that
 * `kubeadm reset` could not stop it (seen as "Port 6443 is in use" on every later join). A lock file made with O_EXCL
 * lets one starter through; one left by a starter that was killed holding it is taken over after a few seconds.
 */
export function startDaemon(name: string, command: string, args: string[]): number | undefined {
  const running = daemonPid(name);
  if (running !== undefined) return running;
  mkdirSync(PID_DIR, { recursive: true });
  mkdirSync(LOG_DIR, { recursive: true });
  const lock = `${pidFile(name)}.lock`;
  let fd: number;
  try {
    fd = openSync(lock, 'wx');
  } catch {
    // Another starter is at work (its daemon is ours too), unless its lock is stale.
    try {
      if (Date.now() - statSync(lock).mtimeMs > STALE_START_LOCK_MS) rmSync(lock, { force: true });
    } catch {
      // gone meanwhile
    }
    return daemonPid(name);
  }
  try {
    const again = daemonPid(name);
    if (again !== undefined) return again;
    const log = openSync(`${LOG_DIR}/${name}.log`, 'a');
    const child = spawn(command, args, { detached: true, stdio: ['ignore', log, log], env: process.env });
    closeSync(log);
    if (child.pid === undefined) throw new Error(`could not start ${name} (${command})`);
    child.unref();
    writeFileSync(pidFile(name), `${child.pid}\n`);
    return child.pid;
  } finally {
    closeSync(fd);
    rmSync(lock, { force: true });
  }
}

/** A start lock older than this was left by a starter that died holding it. */
const STALE_START_LOCK_MS = 5_000;

/**
 * The processes of this machine (its network namespace) that run `name`'s binary with the same script: what the
 * pid file names, and any copy it lost track of. Machines share the host's pid namespace, so the network namespace
 * tells this machine's processes from another's.
 */
function daemonProcesses(name: string): number[] {
  const binary = STATIC_POD_BINARIES[name];
  if (!binary) return [];
  const marker = binary.args[0] ?? binary.command;
  let ownNet: string;
  try {
    ownNet = readlinkSync('/proc/self/ns/net');
  } catch {
    return [];
  }
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      if (readlinkSync(`/proc/${pid}/ns/net`) !== ownNet) continue;
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (argv[0] === binary.command && argv.includes(marker)) found.push(pid);
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}

/** Stops a daemon, and any untracked copy of it on this machine, waiting until each has exited (its ports are free). */
export async function stopDaemon(name: string): Promise<void> {
  const tracked = daemonPid(name);
  rmSync(pidFile(name), { force: true });
  const pids = new Set([...(tracked !== undefined ? [tracked] : []), ...daemonProcesses(name)]);
  await Promise.all([...pids].map((pid) => stopProcess(pid)));
}

/** SIGTERM, five seconds to exit, then SIGKILL and up to five more seconds for the kernel to reap it. */
async function stopProcess(pid: number): Promise<void> {
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return;
  }
  for (let i = 0; i < 50; i += 1) {
    await new Promise((r) => setTimeout(r, 100));
    if (!alive(pid)) return;
  }
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    return;
  }
  for (let i = 0; i < 50 && alive(pid); i += 1) await new Promise((r) => setTimeout(r, 100));
}

/** The container command of a static pod manifest, or undefined when the file is not one. */
export function manifestCommand(path: string): string[] | undefined {
  try {
    const doc = parse(readFileSync(path, 'utf8')) as { spec?: { containers?: Array<{ command?: unknown }> } } | null;
    const command = doc?.spec?.containers?.[0]?.command;
    return Array.isArray(command) && command.every((c) => typeof c === 'string') ? (command as string[]) : undefined;
  } catch {
    return undefined;
  }
}

/** What the kubelet's file source does: run every manifest's pod that has a process here, stop those removed. */
export async function syncStaticPods(): Promise<string[]> {
  let files: string[] = [];
  try {
    files = readdirSync(MANIFESTS_DIR).filter((f) => f.endsWith('.yaml'));
  } catch {
    files = [];
  }
  const wanted = new Set<string>();
  for (const file of files) {
    const name = file.replace(/\.yaml$/, '');
    const binary = STATIC_POD_BINARIES[name];
    const command = manifestCommand(`${MANIFESTS_DIR}/${file}`);
    if (!binary || !command) continue;
    wanted.add(name);
    startDaemon(name, binary.command, [...binary.args, ...command.slice(1)]);
  }
  for (const name of Object.keys(STATIC_POD_BINARIES)) if (!wanted.has(name)) await stopDaemon(name);
  return [...wanted];
}

/** A static pod manifest as kubeadm writes it (the fields the kubelet here reads, plus enough to look right). */
export function renderStaticPod(name: string, image: string, command: string[]): string {
  const lines = [
    'apiVersion: v1',
    'kind: Pod',
    'metadata:',
    `  name: ${name}`,
    '  namespace: kube-system',
    `  labels: {component: ${name}, tier: control-plane}`,
    'spec:',
    '  hostNetwork: true',
    '  priorityClassName: system-node-critical',
    '  containers:',
    `  - name: ${name}`,
    `    image: ${image}`,
    '    command:',
    ...command.map((c) => `    - ${JSON.stringify(c)}`),
    '',
  ];
  return lines.join('\n');
}
