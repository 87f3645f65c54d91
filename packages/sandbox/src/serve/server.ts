// The sandbox as local servers real clients talk to: one HTTP port per served cloud API (each cloud's descriptor,
// `serve`: AWS for EC2 in every region, Route 53 and STS; the Hetzner Cloud, Crusoe Cloud and Cloudflare APIs), and
// one HTTPS port per cluster with the cluster's own certificates, all on 127.0.0.1 only. Virtual time follows real
// time times `speed`; the world is saved shortly after requests and periodically.
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Sandbox } from '../sandbox.js';
import { type SandboxResponder, sandboxResponder } from '../respond.js';
import { clusterTls, type ClusterTls, type ClusterTlsProblem } from './cluster-tls.js';
import { BodyTooLarge, readBody, toFetchRequest, writeFetchResponse, writePlain } from './http-bridge.js';
import { servedClouds, type ServedApiKey } from '../clouds/index.js';
import type { Target } from './routes.js';

/** Loopback only: the sandbox's credentials are published constants, so nothing else may reach it. */
export const SERVE_HOST = '127.0.0.1';

/** How a SandboxServer serves: its ports, how fast virtual time runs, and how and how often it saves the world. */
export interface SandboxServerOptions {
  /**
   * The first port: each served cloud API at its offset from it (AWS, then Hetzner, Crusoe, Cloudflare), then one per
   * cluster in endpoint order; 0 = every port ephemeral.
   */
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

/** A cluster's API as served: its name, its endpoint in the sandbox, the TLS name to check, and the local HTTPS URL. */
export interface ServedCluster {
  name: string;
  /** `host:port` the cluster is known at in the sandbox (and in its kubeconfig). */
  endpoint: string;
  /** The name its serving certificate is checked against: `tls-server-name` in a served kubeconfig. */
  tlsServerName: string;
  url: string;
}

/** A cloud API as served: what the printout calls it and the base URL its clients take. */
export interface ServedApiEndpoint {
  key: ServedApiKey;
  title: string;
  url: string;
}

/**
 * What the server serves: each cloud API's base URL by its descriptor's `serve.key` (AWS: EC2 in every sandbox region,
 * Route 53 and STS; Hetzner and Crusoe, `…/v1`, whose path clients sign with; Cloudflare, `…/client/v4`), the same in
 * port order with their titles, and the clusters.
 */
export type ServedEndpoints = { [K in ServedApiKey]: string } & {
  apis: ServedApiEndpoint[];
  clusters: ServedCluster[];
  /** Clusters in the world that are not served, and why. */
  notServed: ClusterTlsProblem[];
};

type Route = (req: IncomingMessage) => Target;

/**
 * The sandbox as local servers for real clients (`kubeplane sandbox serve`): an HTTP port per cloud API and an HTTPS
 * port per cluster with its own certificates, all on 127.0.0.1; virtual time follows real time times `speed`, and the
 * world is saved after requests and periodically.
 */
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
  endpoints: ServedEndpoints = SandboxServer.#noEndpoints();

  private constructor(sandbox: Sandbox, options: SandboxServerOptions) {
    this.#sandbox = sandbox;
    this.#options = { saveDelayMs: 1000, saveEveryMs: 30_000, tickMs: 100, ...options };
    this.#respond = sandboxResponder(sandbox);
    this.#virtualStart = sandbox.clock.now();
    for (const cloud of servedClouds()) cloud.serve.start?.(this.#sandbox.emulatorOf(cloud));
  }

  static #noEndpoints(): ServedEndpoints {
    const urls = Object.fromEntries(servedClouds().map((c) => [c.serve.key, ''])) as { [K in ServedApiKey]: string };
    return { ...urls, apis: [], clusters: [], notServed: [] };
  }

  /**
   * Binds every port and starts the clock; `endpoints` then lists the URLs. The sandbox need not `listen()`: requests
   * are answered from its handlers directly. Call `close()` when done.
   */
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
    const port = (offset: number) => (this.#options.portBase === 0 ? 0 : this.#options.portBase + offset);
    const endpoints = SandboxServer.#noEndpoints();
    const clouds = servedClouds();
    for (const cloud of clouds) {
      const emulator = this.#sandbox.emulatorOf(cloud);
      const route = (req: IncomingMessage) => cloud.serve.route(emulator, { url: req.url ?? '/', authorization: req.headers.authorization });
      const bound = await this.#bind(createHttpServer(this.#handler(route)), port(cloud.serve.port));
      // Each API keeps its real path prefix on its port, so a client's base URL is the served origin plus that prefix.
      const api: ServedApiEndpoint = {
        key: cloud.serve.key as ServedApiKey,
        title: cloud.serve.title(emulator),
        url: `http://${SERVE_HOST}:${bound}${cloud.serve.path}`,
      };
      endpoints[api.key] = api.url;
      endpoints.apis.push(api);
    }
    const { clusters, problems } = clusterTls(this.#sandbox);
    const first = Math.max(-1, ...clouds.map((c) => c.serve.port)) + 1;
    for (const [i, cluster] of clusters.entries()) {
      const p = await this.#bind(this.#clusterServer(cluster), port(first + i));
      endpoints.clusters.push({ name: cluster.name, endpoint: cluster.endpoint, tlsServerName: cluster.host, url: `https://${SERVE_HOST}:${p}` });
    }
    endpoints.notServed = problems;
    this.endpoints = endpoints;
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
