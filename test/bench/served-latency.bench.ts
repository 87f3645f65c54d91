// The served sandbox's cost per request, as real clients meet it: the request `kubectl get nodes` makes (a Table
// list over mutual TLS to a served cluster) and the one `hcloud server list` makes (GET /v1/servers?per_page=50,
// page by page, 500 servers), each next to the same request answered by a bare node:http(s) server that sends a
// precomputed body of the same size, in the same run. `kubeplane sandbox serve` runs as its own process, as users run it.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { Agent as HttpAgent, createServer as createHttpServer, request as httpRequest, type Server } from 'node:http';
import { Agent as HttpsAgent, createServer as createHttpsServer, request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkServerIdentity, type PeerCertificate } from 'node:tls';
import { promisify } from 'node:util';
import { parseKubeconfig, type KubeConnection } from '@kubeplane/providers';
import { SANDBOX_CREDENTIALS } from '@kubeplane/sandbox';
import { Redacted } from '@kubeplane/sdk';
import { ServedWorld } from '../../packages/handlers/src/cli/served-sandbox/test-support/served-world.js';
import type { BenchResult } from './types.js';

const SERVERS = 500;
const WARMUP = 20;
const SAMPLES = 200;
/** What kubectl 1.32 asks for on `get nodes`: a server-side Table, else a plain list. */
const KUBECTL_ACCEPT = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';

interface Reply {
  status: number;
  bytes: number;
  body: Buffer;
}

type Send = (path: string) => Promise<Reply>;

function collect(resolve: (r: Reply) => void) {
  return (res: import('node:http').IncomingMessage) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => {
      const body = Buffer.concat(chunks);
      resolve({ status: res.statusCode ?? 0, bytes: body.length, body });
    });
  };
}

/** Plain HTTP on one kept-alive connection, as hcloud's Go client keeps it. */
function httpSender(base: string, headers: Record<string, string>): Send {
  const agent = new HttpAgent({ keepAlive: true, maxSockets: 1 });
  const url = new URL(base);
  return (path) =>
    new Promise((resolve, reject) => {
      const req = httpRequest({ host: url.hostname, port: url.port, path: `${url.pathname}${path}`, headers, agent }, collect(resolve));
      req.on('error', reject);
      req.end();
    });
}

/** Mutual TLS on one kept-alive connection, as kubectl's client keeps it. */
function httpsSender(conn: KubeConnection, server: string, headers: Record<string, string>, serverName?: string): Send {
  const url = new URL(server);
  const agent = new HttpsAgent({ keepAlive: true, maxSockets: 1 });
  return (path) =>
    new Promise((resolve, reject) => {
      const req = httpsRequest(
        {
          host: url.hostname,
          port: url.port,
          path,
          headers,
          agent,
          ca: conn.caPem,
          cert: conn.clientCertificatePem,
          key: conn.clientKeyPem?.reveal(),
          rejectUnauthorized: true,
          checkServerIdentity: (_host: string, cert: PeerCertificate) => checkServerIdentity(serverName ?? url.hostname, cert),
        },
        collect(resolve),
      );
      req.on('error', reject);
      req.end();
    });
}

/** Median milliseconds of `paths` requested in turn, SAMPLES times in all, after WARMUP. */
async function median(send: Send, paths: string[]): Promise<{ ms: number; bytes: number }> {
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i < WARMUP + SAMPLES; i++) {
    const t0 = performance.now();
    const reply = await send(paths[i % paths.length] ?? '/');
    const ms = performance.now() - t0;
    if (reply.status !== 200) throw new Error(`${paths[i % paths.length] ?? ''} answered ${reply.status}: ${reply.body.toString('utf8').slice(0, 300)}`);
    if (i >= WARMUP) times.push(ms);
    bytes = reply.bytes;
  }
  times.sort((a, b) => a - b);
  return { ms: times[Math.floor(times.length / 2)] ?? 0, bytes };
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** A bare server answering each path with the bytes recorded for it. */
function bareHandler(bodies: Map<string, Buffer>) {
  return (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => {
    const body = bodies.get(req.url ?? '') ?? Buffer.alloc(0);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
    res.end(body);
  };
}

/** A throwaway self-signed key and certificate for the bare HTTPS server (openssl, as Debian ships it). */
async function selfSigned(dir: string): Promise<{ key: string; cert: string }> {
  const key = join(dir, 'bare.key');
  const cert = join(dir, 'bare.crt');
  await promisify(execFile)('openssl', [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-keyout',
    key,
    '-out',
    cert,
    '-days',
    '1',
    '-subj',
    '/CN=127.0.0.1',
    '-addext',
    'subjectAltName=IP:127.0.0.1',
  ]);
  return { key: await readFile(key, 'utf8'), cert: await readFile(cert, 'utf8') };
}

async function createServers(hetzner: string): Promise<void> {
  const agent = new HttpAgent({ keepAlive: true, maxSockets: 1 });
  const url = new URL(hetzner);
  for (let i = 0; i < SERVERS; i++) {
    const body = JSON.stringify({ name: `bench-${String(i).padStart(3, '0')}`, server_type: 'cpx22', image: 'ubuntu-24.04', location: 'fsn1' });
    const reply = await new Promise<Reply>((resolve, reject) => {
      const req = httpRequest(
        {
          host: url.hostname,
          port: url.port,
          path: `${url.pathname}/servers`,
          method: 'POST',
          agent,
          headers: { authorization: `Bearer ${SANDBOX_CREDENTIALS.hetznerToken}`, 'content-type': 'application/json' },
        },
        collect(resolve),
      );
      req.on('error', reject);
      req.end(body);
    });
    if (reply.status !== 201) throw new Error(`creating server ${i} answered ${reply.status}: ${reply.body.toString('utf8').slice(0, 300)}`);
  }
  agent.destroy();
}

export async function run(): Promise<BenchResult[]> {
  // Time stopped (speed 0): the world does not change under the requests, so every sample answers the same thing.
  const world = await ServedWorld.start({ manifests: ['examples/minimal.yaml'], speed: 0 });
  const scratch = await mkdtemp(join(tmpdir(), 'kubeplane-bench-'));
  const bare: Server[] = [];
  try {
    const served = world.served;
    await createServers(served.hetzner);

    // hcloud server list: every page of 50, in turn.
    const pages = Array.from({ length: Math.ceil(SERVERS / 50) }, (_, i) => `/servers?page=${i + 1}&per_page=50`);
    const hcloudHeaders = { authorization: `Bearer ${SANDBOX_CREDENTIALS.hetznerToken}`, 'user-agent': 'hcloud-cli/1.30.0' };
    const hetznerSend = httpSender(served.hetzner, hcloudHeaders);
    const pageBodies = new Map<string, Buffer>();
    for (const p of pages) pageBodies.set(`/v1${p}`, (await hetznerSend(p)).body);
    const hetznerServed = await median(hetznerSend, pages);
    const bareHttp = createHttpServer(bareHandler(pageBodies));
    bare.push(bareHttp);
    const bareHttpPort = await listen(bareHttp);
    const hetznerBare = await median(httpSender(`http://127.0.0.1:${bareHttpPort}/v1`, hcloudHeaders), pages);

    // kubectl get nodes: the Table list over mutual TLS with the served kubeconfig's credentials.
    const cluster = world.served.clusters[0];
    if (!cluster) throw new Error(`no cluster is served: ${JSON.stringify(world.served.notServed)}`);
    const conn = parseKubeconfig(Redacted.of(await readFile(await world.kubeconfigFile(cluster.name), 'utf8')));
    const nodesPath = '/api/v1/nodes?limit=500';
    const kubeHeaders = { accept: KUBECTL_ACCEPT, 'user-agent': 'kubectl/v1.32.0 (linux/amd64) kubernetes/70d3cc9' };
    const kubeSend = httpsSender(conn, cluster.url, kubeHeaders, conn.tlsServerName ?? cluster.tlsServerName);
    const nodesBody = (await kubeSend(nodesPath)).body;
    const kubeServed = await median(kubeSend, [nodesPath]);
    const { key, cert } = await selfSigned(scratch);
    // The bare server asks for the client certificate too, so both sides do the same TLS work.
    const bareHttps = createHttpsServer({ key, cert, requestCert: true, rejectUnauthorized: false }, bareHandler(new Map([[nodesPath, nodesBody]])));
    bare.push(bareHttps);
    const bareHttpsPort = await listen(bareHttps);
    const kubeBare = await median(httpsSender({ ...conn, caPem: cert }, `https://127.0.0.1:${bareHttpsPort}`, kubeHeaders, '127.0.0.1'), [nodesPath]);

    const note = (b: { ms: number }, s: { ms: number; bytes: number }) =>
      `bare node server ${b.ms.toFixed(2)} ms in this run (${(s.ms / b.ms).toFixed(1)}x); ${s.bytes} bytes; median of ${SAMPLES}`;
    return [
      {
        name: `served sandbox: kubectl get nodes (GET /api/v1/nodes as Table, mTLS, ${cluster.name})`,
        value: kubeServed.ms,
        unit: 'ms/request',
        note: note(kubeBare, kubeServed),
      },
      { name: 'bare node:https, same request, same body size', value: kubeBare.ms, unit: 'ms/request' },
      {
        name: `served sandbox: hcloud server list page (GET /v1/servers?per_page=50, ${SERVERS} servers)`,
        value: hetznerServed.ms,
        unit: 'ms/request',
        note: note(hetznerBare, hetznerServed),
      },
      { name: 'bare node:http, same requests, same body sizes', value: hetznerBare.ms, unit: 'ms/request' },
    ];
  } finally {
    for (const s of bare) s.close();
    await world.dispose();
    await rm(scratch, { recursive: true, force: true });
  }
}
