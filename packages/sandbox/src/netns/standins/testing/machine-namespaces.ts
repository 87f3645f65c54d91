// Test support for the stand-ins: per machine a network namespace (eth0 on a bridge in the world's hub namespace,
// the machine's overlay addresses on it, as wg0 would carry them) and a mount namespace held by a keeper process
// (overlays over /etc and /var, tmpfs over /run and /tmp), as the harness's machines have; a fake control socket
// (sleeps return at once and are summed, reports recorded, names resolved from a table) and a fake API bridge (a
// handler the test gives). Needs root and real namespaces: when they are missing, `TestWorld.create` throws saying
// what is missing — the test fails, it does not skip.
import { hostPathMounts, projectRoot, volatileHostPaths } from '../../machine.js';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface Report {
  machine: string;
  event: string;
  detail: unknown;
}

export interface BridgeRequest {
  method: string;
  path: string;
  endpoint: string;
  body: string;
}

export type BridgeHandler = (request: BridgeRequest) => { status: number; body: unknown };

/** dist/netns/standins, where the compiled stand-ins are (tests run after `tsc -b`). */
export const STANDINS_DIST = fileURLToPath(new URL('../../../../dist/netns/standins/', import.meta.url));

const SHIMS = ['kubeadm', 'kubelet', 'kubectl', 'containerd', 'cilium'];

function missingPrerequisites(): string[] {
  const missing: string[] = [];
  if (process.getuid?.() !== 0) missing.push('root (the tests create network and mount namespaces)');
  for (const tool of ['ip', 'unshare', 'nsenter', 'openssl', 'etcd', 'etcdctl']) {
    try {
      execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
    } catch {
      missing.push(tool);
    }
  }
  if (!existsSync(join(STANDINS_DIST, 'kubeadm.js'))) missing.push(`the compiled stand-ins in ${STANDINS_DIST} (run npx tsc -b)`);
  return missing;
}

async function listen(server: Server, path: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve());
  });
}

async function body(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

export class TestMachine {
  constructor(
    readonly world: TestWorld,
    readonly name: string,
    readonly dir: string,
    readonly keeper: ChildProcess,
  ) {}

  /** Runs a command inside the machine (its mount namespace and the world's network namespace). */
  run(command: string, args: string[] = [], options: { timeoutMs?: number } = {}): Promise<RunResult> {
    const env = {
      PATH: `${this.world.binDir}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin`,
      HOME: '/root',
      KUBEPLANE_NETNS_CONTROL: this.world.controlSocket,
      KUBEPLANE_NETNS_KUBE: this.world.kubeSocket,
      KUBEPLANE_NETNS_MACHINE: this.name,
    };
    return new Promise((resolve, reject) => {
      const child = spawn('nsenter', ['-t', String(this.keeper.pid), '-m', '-n', '-u', '--', command, ...args], {
        env,
        cwd: '/',
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
      child.on('error', reject);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code: code ?? -1, stdout, stderr });
      });
    });
  }

  /** Runs a shell snippet inside the machine. */
  sh(script: string): Promise<RunResult> {
    return this.run('sh', ['-c', script]);
  }
}

export class TestWorld {
  readonly reports: Report[] = [];
  readonly bridgeRequests: BridgeRequest[] = [];
  readonly sleeps = new Map<string, number>();
  readonly names = new Map<string, string[]>();
  bridge: BridgeHandler = () => ({
    status: 404,
    body: { kind: 'Status', code: 404, reason: 'NotFound', message: 'the server could not find the requested resource' },
  });
  readonly #servers: Server[] = [];
  readonly #machines: TestMachine[] = [];
  readonly #namespaces: string[] = [];

  private constructor(
    readonly dir: string,
    readonly netns: string,
  ) {}

  get controlSocket(): string {
    return join(this.dir, 'control.sock');
  }

  get kubeSocket(): string {
    return join(this.dir, 'kube.sock');
  }

  get binDir(): string {
    return join(this.dir, 'bin');
  }

  static async create(): Promise<TestWorld> {
    const missing = missingPrerequisites();
    if (missing.length > 0) throw new Error(`netns stand-in tests cannot run here; missing: ${missing.join(', ')}`);
    const id = randomBytes(4).toString('hex');
    // /dev/shm: not under the overlays nor the tmpfs mounts, so the sockets and upper dirs stay reachable inside.
    const world = new TestWorld(`/dev/shm/kubeplane-standin-test-${id}`, `kpst-${id}`);
    mkdirSync(world.binDir, { recursive: true });
    for (const name of SHIMS)
      writeFileSync(join(world.binDir, name), `#!/bin/sh\nexec ${process.execPath} ${join(STANDINS_DIST, `${name}.js`)} "$@"\n`, { mode: 0o755 });
    // kubeadm (re)starts the kubelet through systemctl. The harness's systemctl is not part of these tests; this one
    // only runs the kubelet unit: stop it (waiting until it is gone), start it in the background.
    writeFileSync(
      join(world.binDir, 'systemctl'),
      [
        '#!/bin/sh',
        'echo "$@" >> /var/log/systemctl-calls.log',
        'pidfile=/run/kubeplane-standin/kubelet.pid',
        'stop() { [ -f $pidfile ] || return 0; pid=$(cat $pidfile); kill $pid 2>/dev/null; ' +
          'while kill -0 $pid 2>/dev/null; do /bin/sleep 0.1; done; rm -f $pidfile; }',
        'case "$1 ${2%.service}" in',
        '  "stop kubelet") stop ;;',
        '  "start kubelet"|"restart kubelet") stop; kubelet </dev/null >>/var/log/kubelet.log 2>&1 & ;;',
        'esac',
        '',
      ].join('\n'),
      { mode: 0o755 },
    );
    execFileSync('ip', ['netns', 'add', world.netns]);
    world.#namespaces.push(world.netns);
    execFileSync('ip', ['netns', 'exec', world.netns, 'ip', 'link', 'add', 'br0', 'type', 'bridge']);
    execFileSync('ip', ['netns', 'exec', world.netns, 'ip', 'link', 'set', 'br0', 'up']);
    const control = createServer((req, res) => void world.#control(req, res));
    const kube = createServer((req, res) => void world.#kube(req, res));
    world.#servers.push(control, kube);
    await listen(control, world.controlSocket);
    await listen(kube, world.kubeSocket);
    return world;
  }

  async #control(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://control');
    const text = await body(req);
    const json = (status: number, value: unknown): void => void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    if (req.method === 'POST' && url.pathname === '/sleep') {
      const { machine, seconds } = JSON.parse(text) as { machine: string; seconds: number };
      this.sleeps.set(machine, (this.sleeps.get(machine) ?? 0) + seconds);
      return json(200, {});
    }
    if (req.method === 'POST' && url.pathname === '/report') {
      this.reports.push(JSON.parse(text) as Report);
      return json(200, {});
    }
    if (req.method === 'GET' && url.pathname === '/resolve') {
      const name = url.searchParams.get('name') ?? '';
      return json(200, { addresses: this.names.get(name) ?? (/^\d+\.\d+\.\d+\.\d+$/.test(name) ? [name] : []) });
    }
    if (req.method === 'GET' && url.pathname === '/now') return json(200, { ms: 0 });
    json(404, { error: 'unknown control path' });
  }

  async #kube(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const request: BridgeRequest = {
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      endpoint: String(req.headers['x-kubeplane-endpoint'] ?? ''),
      body: await body(req),
    };
    this.bridgeRequests.push(request);
    const answer = this.bridge(request);
    res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
  }

  /**
   * A machine with `files` on its disk (written into the overlay's upper dirs before it starts), packages recorded
   * as installed, and `addresses` on its loopback (the overlay address it would have on wg0).
   */
  async machine(
    name: string,
    options: { files?: Record<string, string>; installed?: Record<string, string>; addresses?: string[] } = {},
  ): Promise<TestMachine> {
    const dir = join(this.dir, 'machines', name);
    const tops: Array<[string, string]> = [
      ['etc', '/etc'],
      ['var', '/var'],
      ['usr-local', '/usr/local'],
    ];
    for (const [top] of tops) for (const d of ['upper', 'work']) mkdirSync(join(dir, `${top}.${d}`), { recursive: true });
    const files: Record<string, string> = { ...options.files };
    for (const [pkg, version] of Object.entries(options.installed ?? {})) files[`/var/lib/kubeplane-standin/installed/${pkg}`] = `${version}\n`;
    for (const [path, content] of Object.entries(files)) {
      const top = tops.find(([, mount]) => path.startsWith(`${mount}/`));
      if (!top) throw new Error(`test machines only hold files under /etc, /var and /usr/local, not ${path}`);
      const target = join(dir, `${top[0]}.upper`, path.slice(top[1].length + 1));
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, content, { mode: path.includes('/pki/') || path.endsWith('.conf') ? 0o600 : 0o644 });
    }
    const index = this.#namespaces.length;
    const netns = `${this.netns}-m${index}`;
    execFileSync('ip', ['netns', 'add', netns]);
    this.#namespaces.push(netns);
    const inside = (...cmd: string[]): void => void execFileSync('ip', ['netns', 'exec', netns, ...cmd]);
    inside('ip', 'link', 'set', 'lo', 'up');
    // What the sysctl stand-in applies from /etc/sysctl.d on a real boot.
    inside('sysctl', '-qw', 'net.ipv4.ip_forward=1');
    const veth = `${this.netns.slice(5, 11)}v${index}`;
    execFileSync('ip', ['link', 'add', 'name', veth, 'netns', this.netns, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', netns]);
    execFileSync('ip', ['netns', 'exec', this.netns, 'ip', 'link', 'set', veth, 'master', 'br0', 'up']);
    inside('ip', 'link', 'set', 'eth0', 'up');
    for (const [i, address] of (options.addresses ?? []).entries()) inside('ip', 'addr', 'add', `${address}/${i === 0 ? 24 : 32}`, 'dev', 'eth0');
    // A checkout under /tmp (a CI clone) stays visible: the stand-ins run from it.
    const keep = hostPathMounts(dir, volatileHostPaths([projectRoot()]));
    const mounts = [
      ...tops.map(([top, mount]) => `mount -t overlay overlay -o lowerdir=${mount},upperdir=${dir}/${top}.upper,workdir=${dir}/${top}.work ${mount}`),
      ...keep.before,
      'mount -t tmpfs tmpfs /run',
      'mount -t tmpfs tmpfs /tmp',
      // A node's script starts containerd before kubeadm; a test machine runs no script, so its CRI socket is there
      // as containerd would leave it (kubeadm's preflight checks that it exists).
      'mkdir -p /run/containerd',
      ': > /run/containerd/containerd.sock',
      ...keep.after,
      `hostname ${name}`,
      'echo ready',
      'exec sleep infinity',
    ].join(' && ');
    const keeper = spawn('ip', ['netns', 'exec', netns, 'unshare', '--mount', '--uts', '--propagation', 'private', 'sh', '-c', mounts], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    await new Promise<void>((resolve, reject) => {
      let err = '';
      keeper.stderr?.on('data', (c: Buffer) => (err += c.toString()));
      keeper.stdout?.on('data', (c: Buffer) => c.toString().includes('ready') && resolve());
      keeper.on('exit', (code) => reject(new Error(`machine ${name}: its mount namespace did not come up (exit ${code}): ${err}`)));
    });
    const machine = new TestMachine(this, name, dir, keeper);
    this.#machines.push(machine);
    return machine;
  }

  reportsOf(machine: string): Report[] {
    return this.reports.filter((r) => r.machine === machine);
  }

  /** Kills every process in the world's network namespaces (keepers, etcd, apiservers: all started by the test). */
  async close(): Promise<void> {
    for (const netns of this.#namespaces) {
      let pids: number[] = [];
      try {
        pids = execFileSync('ip', ['netns', 'pids', netns], { encoding: 'utf8' })
          .split('\n')
          .filter((p) => /^\d+$/.test(p))
          .map(Number);
      } catch {
        pids = [];
      }
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }
    for (const m of this.#machines) m.keeper.kill('SIGKILL');
    await new Promise((r) => setTimeout(r, 200));
    for (const netns of [...this.#namespaces].reverse()) {
      try {
        execFileSync('ip', ['netns', 'del', netns], { stdio: 'ignore' });
      } catch {
        // never created
      }
    }
    for (const s of this.#servers) s.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
