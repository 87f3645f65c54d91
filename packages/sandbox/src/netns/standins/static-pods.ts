// The control-plane static pods as daemons of the machine. kubeadm writes /etc/kubernetes/manifests/<pod>.yaml and
// the kubelet runs what they say (pkg/kubelet/config/file.go watches the directory; a removed manifest stops its
// pod). Here etcd runs as the real Debian etcd and kube-apiserver as the stand-in; kube-controller-manager and
// kube-scheduler have manifests (preflight and reset look at them) but no process: the sandbox's simulation does
// their work. Daemons are tracked by pid files under /run (gone at reboot, like the processes).
import { spawn } from 'node:child_process';
import { mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { MANIFESTS_DIR } from '../../kubernetes/kubeadm-rules.js';

export const PID_DIR = '/run/kubeplane-standin';
export const LOG_DIR = '/var/log/kubeplane-standin';

export const STATIC_POD_BINARIES: Record<string, { command: string; args: string[] } | undefined> = {
  etcd: { command: '/usr/bin/etcd', args: [] },
  'kube-apiserver': { command: process.execPath, args: [fileURLToPath(new URL('./kube-apiserver.js', import.meta.url))] },
};

function pidFile(name: string): string {
  return `${PID_DIR}/${name}.pid`;
}

export function daemonPid(name: string): number | undefined {
  let pid: number;
  try {
    pid = Number(readFileSync(pidFile(name), 'utf8').trim());
  } catch {
    return undefined;
  }
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  try {
    process.kill(pid, 0);
    return pid;
  } catch {
    return undefined;
  }
}

/** Starts a daemon unless it runs already; its output goes to /var/log/kubeplane-standin/<name>.log. */
export function startDaemon(name: string, command: string, args: string[]): number {
  const running = daemonPid(name);
  if (running !== undefined) return running;
  mkdirSync(PID_DIR, { recursive: true });
  mkdirSync(LOG_DIR, { recursive: true });
  const log = openSync(`${LOG_DIR}/${name}.log`, 'a');
  const child = spawn(command, args, { detached: true, stdio: ['ignore', log, log], env: process.env });
  if (child.pid === undefined) throw new Error(`could not start ${name} (${command})`);
  child.unref();
  writeFileSync(pidFile(name), `${child.pid}\n`);
  return child.pid;
}

export async function stopDaemon(name: string): Promise<void> {
  const pid = daemonPid(name);
  rmSync(pidFile(name), { force: true });
  if (pid === undefined) return;
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return;
  }
  for (let i = 0; i < 50; i += 1) {
    await new Promise((r) => setTimeout(r, 100));
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
  }
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // gone meanwhile
  }
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
