// The fallback for the user's machines in the sandbox where real sshd machines cannot run (no openssh-server, not
// root, no mount namespaces): one ssh2 Server per endpoint on loopback, so the engine's real ssh2 adapter still speaks
// real SSH, but the machine interprets kubeplane's scripts by their shape (packages/sdk/src/bootstrap/static-machine.ts)
// instead of running them in a shell: the bootstrap hands its user-data over, the reset takes it back.
import type { AddressInfo } from 'node:net';
import { timingSafeEqual } from 'node:crypto';
// ssh2 is CommonJS: its classes come from the default export (Node's ESM loader cannot see its named exports).
import ssh2, { type Connection } from 'ssh2';
const { Server, utils } = ssh2;
type Server = InstanceType<typeof Server>;
import { STATIC_BOOTSTRAP_HEADER, STATIC_RESET_HEADER, STATIC_STATE_DIR, parseCloudConfig, type Clock } from '@kubeplane/sdk';
import type { SandboxVm } from '../kubernetes/vm-source.js';
import type { StaticMachineBackend } from './backend.js';

interface StaticHost {
  endpoint: string;
  port: number;
  server: Server;
  listening: Promise<number>;
  /** The node its bootstrap made of it, while it is one. */
  node?: string;
  userData?: string;
  runningSinceMs?: number;
  stoppedAtMs?: number;
  /** kubeplane's files on the machine (those its bootstrap wrote, and its state directory). */
  files: Set<string>;
}

export class Ssh2Machines implements StaticMachineBackend {
  readonly kind = 'in-process';
  readonly #clock: Clock;
  readonly #hosts = new Map<string, StaticHost>();
  readonly #clientPublicKey: string;
  readonly #clientPublic: Buffer;
  readonly #hostKey: () => string;

  /** `clientPublicKey`: the one key allowed in (OpenSSH line); `hostKey` draws a private host key per machine. */
  constructor(clock: Clock, clientPublicKey: string, hostKey: () => string) {
    this.#clock = clock;
    this.#clientPublicKey = clientPublicKey;
    this.#hostKey = hostKey;
    const parsed = utils.parseKey(clientPublicKey);
    if (parsed instanceof Error) throw parsed;
    this.#clientPublic = parsed.getPublicSSH();
  }

  async dial(endpoint: string, port: number): Promise<{ host: string; port: number }> {
    return { host: '127.0.0.1', port: await this.#host(endpoint, port).listening };
  }

  observe(): void {
    // The machine's state changes as it runs the scripts (see #run); nothing to read back.
  }

  async reinstall(endpoint: string, port: number): Promise<void> {
    const host = this.#hosts.get(`${endpoint}:${port}`);
    if (!host) throw new Error(`no sandbox machine at ${endpoint}:${port}`);
    host.server.close();
    this.#hosts.delete(`${endpoint}:${port}`);
    await this.#host(endpoint, port).listening;
  }

  leftovers(endpoint: string): string[] {
    return [...this.#hosts.values()].filter((h) => h.endpoint === endpoint).flatMap((h) => [...h.files].sort());
  }

  async listening(): Promise<Array<{ endpoint: string; port: number; local: number }>> {
    return Promise.all([...this.#hosts.values()].map(async (h) => ({ endpoint: h.endpoint, port: h.port, local: await h.listening })));
  }

  listVms(): SandboxVm[] {
    return [...this.#hosts.values()].flatMap((h): SandboxVm[] =>
      h.node && h.userData !== undefined && h.runningSinceMs !== undefined
        ? [{ cloud: 'static', name: h.node, id: `${h.endpoint}:${h.port}`, state: h.stoppedAtMs === undefined ? 'running' : 'terminated', runningSinceMs: h.runningSinceMs, ...(h.stoppedAtMs !== undefined ? { stoppedAtMs: h.stoppedAtMs } : {}), userData: h.userData, publicIPv4: h.endpoint }]
        : [],
    );
  }

  async close(): Promise<void> {
    for (const h of this.#hosts.values()) h.server.close();
    this.#hosts.clear();
  }

  #host(endpoint: string, port: number): StaticHost {
    const key = `${endpoint}:${port}`;
    const known = this.#hosts.get(key);
    if (known) return known;
    const server = new Server({ hostKeys: [this.#hostKey()] }, (client) => this.#serve(host, client));
    const host: StaticHost = {
      endpoint,
      port,
      server,
      files: new Set(),
      listening: new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port))),
    };
    this.#hosts.set(key, host);
    return host;
  }

  #serve(host: StaticHost, client: Connection): void {
    client.on('authentication', (ctx) => {
      // The sandbox's key only, with its signature checked (ssh2's documented server example).
      if (ctx.method !== 'publickey') return ctx.reject(['publickey']);
      const same = ctx.key.data.length === this.#clientPublic.length && timingSafeEqual(ctx.key.data, this.#clientPublic);
      if (!same) return ctx.reject(['publickey']);
      if (!ctx.signature) return ctx.accept();
      const parsed = utils.parseKey(this.#clientPublicKey);
      if (!(parsed instanceof Error) && ctx.blob && parsed.verify(ctx.blob, ctx.signature, ctx.hashAlgo) === true) return ctx.accept();
      return ctx.reject(['publickey']);
    });
    client.on('error', () => undefined);
    client.on('ready', () => {
      client.on('session', (accept) => {
        accept().on('exec', (acceptExec, _reject, info) => {
          const stream = acceptExec();
          let script = '';
          stream.on('data', (chunk: Buffer) => (script += chunk.toString('utf8')));
          stream.on('end', () => {
            const { code, output } = info.command === 'sh -s' || info.command === 'sudo -n sh -s' ? this.#run(host, script) : { code: 127, output: `${info.command}: not found` };
            stream.write(`${output}\n`);
            stream.exit(code);
            stream.end();
          });
        });
      });
    });
  }

  /** What the machine does with kubeplane's scripts (their shape: static-machine.ts); anything else is refused. */
  #run(host: StaticHost, script: string): { code: number; output: string } {
    const first = script.split('\n', 1)[0] ?? '';
    if (first.startsWith(`${STATIC_BOOTSTRAP_HEADER} `)) {
      const node = first.slice(STATIC_BOOTSTRAP_HEADER.length + 1).trim();
      if (host.files.has(`${STATIC_STATE_DIR}/started`)) return { code: 0, output: `kubeplane: the bootstrap of ${node} was started before` };
      const m = /^USER_DATA='([A-Za-z0-9+/=]*)'$/m.exec(script);
      if (!m) return { code: 2, output: 'the bootstrap carries no user-data' };
      const userData = Buffer.from(m[1] ?? '', 'base64').toString('utf8');
      const config = parseCloudConfig(userData);
      host.node = node;
      host.userData = userData;
      host.runningSinceMs = this.#clock.now();
      delete host.stoppedAtMs;
      for (const f of config.files) host.files.add(f.path);
      for (const f of ['started', 'node', 'user-data', 'files', 'first-boot.sh']) host.files.add(`${STATIC_STATE_DIR}/${f}`);
      return { code: 0, output: `kubeplane: the bootstrap of ${node} started` };
    }
    if (first.startsWith(`${STATIC_RESET_HEADER} `)) {
      // The kubelet stops with the reset (kubeadm reset stops it first); the machine keeps running, as the user's.
      if (host.runningSinceMs !== undefined && host.stoppedAtMs === undefined) host.stoppedAtMs = this.#clock.now();
      host.files.clear();
      return { code: 0, output: `kubeplane: ${first.slice(STATIC_RESET_HEADER.length + 1)} reset` };
    }
    return { code: 127, output: 'the sandbox machine runs only kubeplane bootstrap and reset scripts' };
  }
}
