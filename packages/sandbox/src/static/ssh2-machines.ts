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
import { STATIC_BOOTSTRAP_HEADER, STATIC_RESET_HEADER, STATIC_STATE_DIR, parseCloudConfig } from '@kubeplane/sdk/internal';
import type { Clock } from '@kubeplane/sdk';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SandboxVm } from '../kubernetes/vm-source.js';
import type { StaticMachineBackend } from './backend.js';
import { vmOf, type SavedMachines } from './saved.js';

interface StaticHost {
  endpoint: string;
  port: number;
  /** The users who may log in (as sshd's AllowUsers); the first to come when the machine was saved without them. */
  users?: string[];
  /** Its server, once contacted. */
  server?: Server;
  listening?: Promise<number>;
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
  readonly #saved: SavedMachines | undefined;

  /**
   * `clientPublicKey`: the one key allowed in (OpenSSH line); `hostKey` draws a private host key per machine;
   * `saved`: where machines are kept between processes (their state and host key).
   */
  constructor(clock: Clock, clientPublicKey: string, hostKey: () => string, saved?: SavedMachines) {
    this.#clock = clock;
    this.#clientPublicKey = clientPublicKey;
    this.#hostKey = hostKey;
    this.#saved = saved;
    const parsed = utils.parseKey(clientPublicKey);
    if (parsed instanceof Error) throw parsed;
    this.#clientPublic = parsed.getPublicSSH();
    for (const h of saved?.list() ?? []) this.#hosts.set(`${h.endpoint}:${h.port}`, { ...h, files: new Set(h.files ?? []) });
  }

  async dial(endpoint: string, port: number, users: readonly string[]): Promise<{ host: string; port: number }> {
    const host = this.#host(endpoint, port);
    host.users ??= [...users];
    return { host: '127.0.0.1', port: await this.#listen(host) };
  }

  observe(): void {
    // The machine's state changes as it runs the scripts (see #run); nothing to read back.
  }

  async reinstall(endpoint: string, port: number): Promise<void> {
    const host = this.#hosts.get(`${endpoint}:${port}`);
    if (!host) throw new Error(`no sandbox machine at ${endpoint}:${port}`);
    host.server?.close();
    this.#hosts.delete(`${endpoint}:${port}`);
    if (this.#saved) writeFileSync(join(this.#saved.machineDir(endpoint, port), 'host'), this.#hostKey(), { mode: 0o600 });
    const again = this.#host(endpoint, port);
    Object.assign(again, {
      users: host.users,
      node: host.node,
      userData: host.userData,
      runningSinceMs: host.runningSinceMs,
      stoppedAtMs: host.stoppedAtMs,
      files: host.files,
    });
    await this.#listen(again);
  }

  leftovers(endpoint: string): string[] {
    return [...this.#hosts.values()].filter((h) => h.endpoint === endpoint).flatMap((h) => [...h.files].sort());
  }

  async listening(): Promise<Array<{ endpoint: string; port: number; local: number }>> {
    const started = [...this.#hosts.values()].filter((h) => h.listening);
    return Promise.all(started.map(async (h) => ({ endpoint: h.endpoint, port: h.port, local: await (h.listening as Promise<number>) })));
  }

  listVms(): SandboxVm[] {
    return [...this.#hosts.values()].flatMap(vmOf);
  }

  async close(): Promise<void> {
    for (const h of this.#hosts.values()) h.server?.close();
    this.#hosts.clear();
  }

  #host(endpoint: string, port: number): StaticHost {
    const key = `${endpoint}:${port}`;
    const known = this.#hosts.get(key);
    if (known) return known;
    const host: StaticHost = { endpoint, port, files: new Set() };
    this.#hosts.set(key, host);
    return host;
  }

  /** Starts the machine's server on first contact, with its kept host key (or a new one, kept from then on). */
  #listen(host: StaticHost): Promise<number> {
    if (host.listening) return host.listening;
    let hostKey: string;
    const file = this.#saved && join(this.#saved.machineDir(host.endpoint, host.port), 'host');
    if (file && existsSync(file)) hostKey = readFileSync(file, 'utf8');
    else {
      hostKey = this.#hostKey();
      if (file && this.#saved) {
        mkdirSync(this.#saved.machineDir(host.endpoint, host.port), { recursive: true, mode: 0o700 });
        writeFileSync(file, hostKey, { mode: 0o600 });
        this.#save(host);
      }
    }
    const server = new Server({ hostKeys: [hostKey] }, (client) => this.#serve(host, client));
    host.server = server;
    host.listening = new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
    return host.listening;
  }

  #save(h: StaticHost): void {
    this.#saved?.save({
      endpoint: h.endpoint,
      port: h.port,
      ...(h.users !== undefined ? { users: h.users } : {}),
      ...(h.node !== undefined ? { node: h.node } : {}),
      ...(h.userData !== undefined ? { userData: h.userData } : {}),
      ...(h.runningSinceMs !== undefined ? { runningSinceMs: h.runningSinceMs } : {}),
      ...(h.stoppedAtMs !== undefined ? { stoppedAtMs: h.stoppedAtMs } : {}),
      files: [...h.files],
    });
  }

  #serve(host: StaticHost, client: Connection): void {
    client.on('authentication', (ctx) => {
      // The sandbox's key only, with its signature checked (ssh2's documented server example).
      if (ctx.method !== 'publickey') return ctx.reject(['publickey']);
      // A user the machine does not have (or lets in) is refused whatever the key, as sshd's AllowUsers does.
      if (!host.users?.includes(ctx.username)) return ctx.reject(['publickey']);
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
            const { code, output } =
              info.command === 'sh -s' || info.command === 'sudo -n sh -s' ? this.#run(host, script) : { code: 127, output: `${info.command}: not found` };
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
      this.#save(host);
      return { code: 0, output: `kubeplane: the bootstrap of ${node} started` };
    }
    if (first.startsWith(`${STATIC_RESET_HEADER} `)) {
      // The kubelet stops with the reset (kubeadm reset stops it first); the machine keeps running, as the user's.
      if (host.runningSinceMs !== undefined && host.stoppedAtMs === undefined) host.stoppedAtMs = this.#clock.now();
      host.files.clear();
      this.#save(host);
      return { code: 0, output: `kubeplane: ${first.slice(STATIC_RESET_HEADER.length + 1)} reset` };
    }
    return { code: 127, output: 'the sandbox machine runs only kubeplane bootstrap and reset scripts' };
  }
}
