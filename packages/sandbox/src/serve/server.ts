// The sandbox as local servers real clients talk to: one HTTP port for AWS (EC2 in every region, Route 53), one
// each for the Hetzner Cloud, Crusoe Cloud and Cloudflare APIs, and one HTTPS port per cluster with the cluster's
// own certificates, all on 127.0.0.1 only. Virtual time follows real time times `speed`; the world is saved shortly
// after requests and periodically.
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Sandbox } from '../sandbox.js';
import { type SandboxResponder, sandboxResponder } from '../respond.js';
import { clusterTls, type ClusterTls, type ClusterTlsProblem } from './cluster-tls.js';
import { BodyTooLarge, readBody, toFetchRequest, writeFetchResponse, writePlain } from './http-bridge.js';
import { apiTarget, awsTarget, CLOUDFLARE, CRUSOE, HETZNER, type ServedApi, type Target } from './routes.js';

/** Loopback only: the sandbox's credentials are published constants, so nothing else may reach it. */
export const SERVE_HOST = '127.0.0.1';

export interface SandboxServerOptions {
  /** First port (AWS), then Hetzner, Crusoe, Cloudflare, then one per cluster in endpoint order; 0 = every port ephemeral. */
  portBase: number;
  /** Virtual milliseconds per real millisecond (0 stops time). */
  speed: number;
  /** Writes the world back (LocalRuntime.save). */
  save: () => Promise<void>;
  /** Real ms after a request before the world is saved (requests in between share the save). */
  saveDelayMs?: number;
  /** Real ms between saves while only time passes. */
  saveEveryMs?: number;
  /** Real ms between clock advances. */
  tickMs?: number;
  /** Problems that do not stop the server (a failed save, a request that threw). Never given secrets. */
  onProblem?: (message: string) => void;
}

export interface ServedCluster {
  name: string;
  /** `host:port` the cluster is known at in the sandbox (and in its kubeconfig). */
  endpoint: string;
  /** The name its serving certificate is checked against: `tls-server-name` in a served kubeconfig. */
  tlsServerName: string;
  url: string;
}

export interface ServedEndpoints {
  /** EC2 (every sandbox region) and Route 53. */
  aws: string;
  /** The Hetzner Cloud API base (`…/v1`). */
  hetzner: string;
  /** The Crusoe Cloud API base (`…/v1`): clients sign the path with its `/v1`, as against the real API. */
  crusoe: string;
  /** The Cloudflare API base (`…/client/v4`). */
  cloudflare: string;
  ec2Regions: string[];
  clusters: ServedCluster[];
  /** Clusters in the world that are not served, and why. */
  notServed: ClusterTlsProblem[];
}

type Route = (req: IncomingMessage) => Target;

export class SandboxServer {
  readonly #sandbox: Sandbox;
  readonly #options: Required<Omit<SandboxServerOptions, 'onProblem'>> & Pick<SandboxServerOptions, 'onProblem'>;
  readonly #respond: SandboxResponder;
  readonly #servers: Server[] = [];
  readonly #timers: Array<ReturnType<typeof setInterval>> = [];
  #saveTimer: ReturnType<typeof setTimeout> | undefined;
  #saving: Promise<void> = Promise.resolve();
  #realStart = performance.now();
  #virtualStart: number;
  #closed = false;
  endpoints: ServedEndpoints = { aws: '', hetzner: '', crusoe: '', cloudflare: '', ec2Regions: [], clusters: [], notServed: [] };

  private constructor(sandbox: Sandbox, options: SandboxServerOptions) {
    this.#sandbox = sandbox;
    this.#options = { saveDelayMs: 1000, saveEveryMs: 30_000, tickMs: 100, ...options };
    this.#respond = sandboxResponder(sandbox);
    this.#virtualStart = sandbox.clock.now();
    // Real Crusoe clients sign with the machine's clock, not the world's.
    sandbox.crusoe.checkTimestampsAgainst({ now: () => Date.now() });
  }

  static async start(sandbox: Sandbox, options: SandboxServerOptions): Promise<SandboxServer> {
    if (!(options.speed >= 0) || !Number.isFinite(options.speed)) throw new RangeError(`speed must be a number >= 0, not ${options.speed}`);
    if (!Number.isInteger(options.portBase) || options.portBase < 0 || options.portBase > 65535)
      throw new RangeError(`the port base must be 0..65535, not ${options.portBase}`);
    const server = new SandboxServer(sandbox, options);
    try {
      await server.#listen();
    } catch (e) {
      await server.close({ save: false });
      throw e;
    }
    return server;
  }

  async #listen(): Promise<void> {
    const regions = [...this.#sandbox.ec2Regions.keys()];
    const port = (offset: number) => (this.#options.portBase === 0 ? 0 : this.#options.portBase + offset);
    const aws = await this.#bind(createHttpServer(this.#handler((req) => awsTarget(req.url ?? '/', req.headers.authorization, regions))), port(0));
    // Each API keeps its real path prefix on its port, so a client's base URL is the served origin plus that prefix.
    const api = async (served: ServedApi, offset: number) => {
      const bound = await this.#bind(createHttpServer(this.#handler((req) => apiTarget(served, req.url ?? '/'))), port(offset));
      return `http://${SERVE_HOST}:${bound}${new URL(served.base).pathname}`;
    };
    const hetzner = await api(HETZNER, 1);
    const crusoe = await api(CRUSOE, 2);
    const cloudflare = await api(CLOUDFLARE, 3);
    const { clusters, problems } = clusterTls(this.#sandbox);
    const served: ServedCluster[] = [];
    for (const [i, cluster] of clusters.entries()) {
      const p = await this.#bind(this.#clusterServer(cluster), port(4 + i));
      served.push({ name: cluster.name, endpoint: cluster.endpoint, tlsServerName: cluster.host, url: `https://${SERVE_HOST}:${p}` });
    }
    this.endpoints = { aws: `http://${SERVE_HOST}:${aws}`, hetzner, crusoe, cloudflare, ec2Regions: regions, clusters: served, notServed: problems };
    this.#timers.push(setInterval(() => this.#advance(), this.#options.tickMs));
    this.#timers.push(setInterval(() => this.#scheduleSave(0), this.#options.saveEveryMs));
  }

  #clusterServer(cluster: ClusterTls): Server {
    const endpoint = cluster.endpoint;
    const handler = this.#handler(
      (req) => ({ url: `https://${endpoint}${req.url ?? '/'}` }),
      (_req, res) => {
        if (!this.#sandbox.kubernetes.simulation.reachable(endpoint)) {
          // The control plane went away (stopped, replaced): like a dead address, the connection drops.
          res.destroy();
          return true;
        }
        // Discovery too is the emulator's: it knows the cluster's CRDs.
        return false;
      },
    );
    // The client must present a certificate signed by this cluster's CA; nothing else gets past the handshake.
    return createHttpsServer(
      { key: cluster.keyPem.reveal(), cert: cluster.certPem, ca: cluster.caPem, requestCert: true, rejectUnauthorized: true, minVersion: 'TLSv1.2' },
      handler,
    );
  }

  #handler(route: Route, before?: (req: IncomingMessage, res: ServerResponse) => boolean): (req: IncomingMessage, res: ServerResponse) => void {
    return (req, res) => {
      void this.#serve(req, res, route, before);
    };
  }

  async #serve(req: IncomingMessage, res: ServerResponse, route: Route, before?: (req: IncomingMessage, res: ServerResponse) => boolean): Promise<void> {
    try {
      this.#advance();
      const body = await readBody(req);
      if (before?.(req, res)) return;
      const target = route(req);
      if (!('url' in target)) {
        writePlain(res, target.status, target.contentType, target.body);
        return;
      }
      const response = await this.#respond(toFetchRequest(req, target.url, body));
      this.#scheduleSave(this.#options.saveDelayMs);
      if (!response) {
        writePlain(res, 404, 'text/plain; charset=utf-8', `the sandbox has nothing at ${req.method ?? 'GET'} ${req.url ?? '/'}\n`);
        return;
      }
      await writeFetchResponse(res, response);
    } catch (e) {
      if (e instanceof BodyTooLarge) {
        writePlain(res, 413, 'text/plain; charset=utf-8', `${e.message}\n`);
        return;
      }
      this.#options.onProblem?.(`request ${req.method ?? 'GET'} ${(req.url ?? '/').split('?')[0] ?? ''} failed: ${e instanceof Error ? e.message : String(e)}`);
      if (!res.headersSent) writePlain(res, 500, 'text/plain; charset=utf-8', 'the sandbox server failed to answer this request\n');
      else res.destroy();
    }
  }

  async #bind(server: Server, port: number): Promise<number> {
    this.#servers.push(server);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, SERVE_HOST, () => {
        server.off('error', reject);
        resolve();
      });
    });
    return (server.address() as AddressInfo).port;
  }

  /** Virtual time: where it was when serving started, plus real time since then times the speed. */
  #advance(): void {
    this.#sandbox.clock.advanceTo(this.#virtualStart + Math.floor((performance.now() - this.#realStart) * this.#options.speed));
  }

  #scheduleSave(delayMs: number): void {
    if (this.#closed || this.#saveTimer !== undefined) return;
    this.#saveTimer = setTimeout(() => {
      this.#saveTimer = undefined;
      void this.flush().catch((e: unknown) => this.#options.onProblem?.(`saving the world failed: ${e instanceof Error ? e.message : String(e)}`));
    }, delayMs);
  }

  /** Writes the world now (after any save in progress): saves never overlap. */
  flush(): Promise<void> {
    const next = this.#saving
      .catch(() => undefined)
      .then(() => {
        this.#advance();
        return this.#options.save();
      });
    this.#saving = next;
    return next;
  }

  /** Stops serving (open connections are cut), then writes the world a last time. */
  async close(options: { save?: boolean } = {}): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const t of this.#timers) clearInterval(t);
    if (this.#saveTimer !== undefined) clearTimeout(this.#saveTimer);
    this.#saveTimer = undefined;
    await Promise.all(
      this.#servers.map(
        (s) =>
          new Promise<void>((resolve) => {
            if (!s.listening) return resolve();
            s.close(() => resolve());
            s.closeAllConnections();
          }),
      ),
    );
    if (options.save ?? true) await this.flush();
  }
}
