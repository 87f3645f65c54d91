// The harness's two unix sockets, reachable from every machine because namespaces share the host's filesystem:
// the control socket (virtual sleeps, reports, timers, virtual time, the sandbox's DNS) and the Kubernetes API bridge.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { rmSync } from 'node:fs';

export interface SleepRequest {
  machine: string;
  seconds: number;
  /** The tracked run the sleeping process belongs to (KUBEPLANE_NETNS_RUN), absent for daemons. */
  run?: string;
}

export interface TimerRequest {
  machine: string;
  /** `kubeplane-mesh-sync.timer` */
  unit: string;
  onBootSec: number | null;
  everySec: number | null;
}

export interface ControlHandlers {
  /** Resolves when virtual time reaches the sleep's end; `cancelled` fires when the sleeping process went away. */
  sleep(request: SleepRequest, cancelled: AbortSignal): Promise<void>;
  report(machine: string, event: string, detail: Record<string, unknown>): void;
  timer(request: TimerRequest): void;
  now(): number;
  resolve(name: string): string[];
}

export type KubeResponder = (request: Request) => Promise<Response>;

/** The header naming the cluster endpoint (`host:port`) a bridged Kubernetes API request is for. */
export const KUBE_ENDPOINT_HEADER = 'x-kubeplane-endpoint';

async function body(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function json(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function num(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

async function listen(server: Server, path: string): Promise<void> {
  rmSync(path, { force: true });
  // Long virtual sleeps are long-held requests: no server-side timeouts.
  server.requestTimeout = 0;
  server.headersTimeout = 0;
  server.timeout = 0;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve());
  });
}

async function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

export class ControlServer {
  private constructor(
    readonly path: string,
    readonly server: Server,
  ) {}

  static async listen(path: string, handlers: ControlHandlers): Promise<ControlServer> {
    const server = createServer((req, res) => {
      void ControlServer.#handle(handlers, req, res).catch((error: unknown) => {
        if (!res.headersSent) json(res, 500, { error: error instanceof Error ? error.message : String(error) });
        else res.destroy();
      });
    });
    await listen(server, path);
    return new ControlServer(path, server);
  }

  static async #handle(h: ControlHandlers, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://control');
    if (req.method === 'GET' && url.pathname === '/now') return json(res, 200, { ms: h.now() });
    if (req.method === 'GET' && url.pathname === '/resolve') return json(res, 200, { addresses: h.resolve(url.searchParams.get('name') ?? '') });
    if (req.method !== 'POST') return json(res, 404, { error: `no ${req.method ?? ''} ${url.pathname}` });
    const raw = await body(req);
    let input: Record<string, unknown>;
    try {
      input = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
    } catch {
      return json(res, 400, { error: 'the body is not JSON' });
    }
    const machine = str(input['machine']);
    if (!machine) return json(res, 400, { error: 'machine is required' });
    if (url.pathname === '/sleep') {
      const seconds = num(input['seconds']);
      if (seconds === null || seconds < 0) return json(res, 400, { error: `invalid sleep ${JSON.stringify(input['seconds'])}` });
      const abort = new AbortController();
      res.on('close', () => abort.abort());
      const run = str(input['run']);
      await h.sleep({ machine, seconds, ...(run ? { run } : {}) }, abort.signal);
      if (!abort.signal.aborted) json(res, 200, { ms: h.now() });
      return;
    }
    if (url.pathname === '/report') {
      const event = str(input['event']);
      if (!event) return json(res, 400, { error: 'event is required' });
      const detail = input['detail'];
      h.report(machine, event, detail !== null && typeof detail === 'object' && !Array.isArray(detail) ? (detail as Record<string, unknown>) : {});
      return json(res, 200, {});
    }
    if (url.pathname === '/timer') {
      const unit = str(input['unit']);
      if (!unit) return json(res, 400, { error: 'unit is required' });
      h.timer({ machine, unit, onBootSec: num(input['onBootSec']), everySec: num(input['everySec']) });
      return json(res, 200, {});
    }
    return json(res, 404, { error: `no POST ${url.pathname}` });
  }

  close(): Promise<void> {
    return closeServer(this.server);
  }
}

/**
 * Plain HTTP in, the sandbox's responder behind: `X-Kubeplane-Endpoint: host:port` picks the cluster, the request
 * becomes `https://<endpoint><path>` as a fetch Request, and the responder's Response is written back.
 */
export class KubeBridge {
  private constructor(
    readonly path: string,
    readonly server: Server,
  ) {}

  static async listen(path: string, responder: KubeResponder): Promise<KubeBridge> {
    const server = createServer((req, res) => {
      void (async () => {
        const endpoint = req.headers[KUBE_ENDPOINT_HEADER];
        if (typeof endpoint !== 'string' || endpoint === '') {
          res.writeHead(400, { 'content-type': 'text/plain' });
          res.end(`the ${KUBE_ENDPOINT_HEADER} header (host:port of the cluster) is required\n`);
          return;
        }
        const headers = new Headers();
        for (const [name, value] of Object.entries(req.headers)) {
          if (name === KUBE_ENDPOINT_HEADER || name === 'host' || name === 'connection' || value === undefined) continue;
          headers.set(name, Array.isArray(value) ? value.join(', ') : value);
        }
        const method = req.method ?? 'GET';
        const payload = method === 'GET' || method === 'HEAD' ? undefined : await body(req);
        const request = new Request(`https://${endpoint}${req.url ?? '/'}`, { method, headers, ...(payload && payload.length > 0 ? { body: payload } : {}) });
        const response = await responder(request);
        const out: Record<string, string> = {};
        response.headers.forEach((value, name) => {
          if (name !== 'content-encoding' && name !== 'transfer-encoding' && name !== 'content-length') out[name] = value;
        });
        const bytes = Buffer.from(await response.arrayBuffer());
        res.writeHead(response.status, { ...out, 'content-length': String(bytes.length) });
        res.end(bytes);
      })().catch((error: unknown) => {
        if (!res.headersSent) {
          res.writeHead(502, { 'content-type': 'text/plain' });
          res.end(`kubeplane netns bridge: ${error instanceof Error ? error.message : String(error)}\n`);
        } else res.destroy();
      });
    });
    await listen(server, path);
    return new KubeBridge(path, server);
  }

  close(): Promise<void> {
    return closeServer(this.server);
  }
}
