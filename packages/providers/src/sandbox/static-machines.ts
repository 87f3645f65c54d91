// The user's own machines in the sandbox (static pools): one SSH server per endpoint on loopback (ssh2's Server, so
// the engine's real ssh2 adapter speaks real SSH to it), each with its own host key, authorizing the sandbox's key.
// A machine runs only what kubeplane sends (packages/sdk/src/bootstrap/static-machine.ts): the bootstrap, which hands
// its user-data to the same simulated kubelet as a cloud machine's, and the reset, which takes it back and leaves
// nothing of kubeplane's. The sandbox ignores the nodes' secretRefs, as it ignores the providers' (sandbox keys).
import type { AddressInfo } from 'node:net';
import { timingSafeEqual } from 'node:crypto';
// ssh2 is CommonJS: its classes come from the default export (Node's ESM loader cannot see its named exports).
import ssh2, { type Connection } from 'ssh2';
const { Server, utils } = ssh2;
type Server = InstanceType<typeof Server>;
import { Redacted, STATIC_BOOTSTRAP_HEADER, STATIC_RESET_HEADER, STATIC_STATE_DIR, parseCloudConfig, type Clock, type MachineAccess } from '@kubeplane/sdk';
import { SshMachineAccess } from '../static/ssh-machine-access.js';
import type { SandboxVm, SandboxVmSource } from './kubernetes/vm-source.js';

interface StaticHost {
  endpoint: string;
  port: number;
  server: Server;
  listening: Promise<number>;
  hostKey: string;
  /** The node its bootstrap made of it, while it is one. */
  node?: string;
  userData?: string;
  runningSinceMs?: number;
  stoppedAtMs?: number;
  /** kubeplane's files on the machine (those its bootstrap wrote, and its state directory). */
  files: Set<string>;
}

export class SandboxStaticMachines implements SandboxVmSource {
  readonly #clock: Clock;
  readonly #hosts = new Map<string, StaticHost>();
  readonly #client = ed25519KeyPair();
  readonly #clientPublic: Buffer;

  constructor(clock: Clock) {
    this.#clock = clock;
    const parsed = utils.parseKey(this.#client.public);
    if (parsed instanceof Error) throw parsed;
    this.#clientPublic = parsed.getPublicSSH();
  }

  /** The engine's way in: the real ssh2 adapter, dialling these loopback servers with the sandbox's key. */
  access(): MachineAccess {
    return new SshMachineAccess({
      privateKey: async () => Redacted.of(this.#client.private),
      dial: async (target) => ({ host: '127.0.0.1', port: await this.#host(target.endpoint, target.port).listening }),
    });
  }

  /** The machine was reinstalled: it offers a new host key (to test the pin). */
  reinstall(endpoint: string, port = 22): void {
    const host = this.#hosts.get(`${endpoint}:${port}`);
    if (!host) throw new Error(`no sandbox machine at ${endpoint}:${port}`);
    host.server.close();
    this.#hosts.delete(`${endpoint}:${port}`);
    this.#host(endpoint, port);
  }

  /** kubeplane's files left on the machine at `endpoint` (empty: clean, or never touched). */
  leftovers(endpoint: string): string[] {
    return [...this.#hosts.values()].filter((h) => h.endpoint === endpoint).flatMap((h) => [...h.files].sort());
  }

  listVms(): SandboxVm[] {
    return [...this.#hosts.values()].flatMap((h): SandboxVm[] =>
      h.node && h.userData !== undefined && h.runningSinceMs !== undefined
        ? [{ cloud: 'static', name: h.node, id: `${h.endpoint}:${h.port}`, state: h.stoppedAtMs === undefined ? 'running' : 'terminated', runningSinceMs: h.runningSinceMs, ...(h.stoppedAtMs !== undefined ? { stoppedAtMs: h.stoppedAtMs } : {}), userData: h.userData, publicIPv4: h.endpoint }]
        : [],
    );
  }

  close(): void {
    for (const h of this.#hosts.values()) h.server.close();
    this.#hosts.clear();
  }

  #host(endpoint: string, port: number): StaticHost {
    const key = `${endpoint}:${port}`;
    const known = this.#hosts.get(key);
    if (known) return known;
    const hostKey = ed25519KeyPair().private;
    const server = new Server({ hostKeys: [hostKey] }, (client) => this.#serve(host, client));
    const host: StaticHost = {
      endpoint,
      port,
      server,
      hostKey,
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
      const parsed = utils.parseKey(this.#client.public);
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

/**
 * An Ed25519 key pair from ssh2. Its generator drops leading zero bytes of the public key (about 1 key in 200 comes
 * out 31 bytes long) and then refuses that key itself ("Malformed OpenSSH public key"); such a pair is drawn again.
 */
export function ed25519KeyPair(): { private: string; public: string } {
  for (;;) {
    const pair = utils.generateKeyPairSync('ed25519');
    if (!(utils.parseKey(pair.public) instanceof Error)) return pair;
  }
}
