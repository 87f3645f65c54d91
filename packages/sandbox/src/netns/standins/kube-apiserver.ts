// kube-apiserver stand-in, run by the kubelet stand-in from kubeadm's static pod manifest. It is the machine's real
// TLS endpoint on :6443 (serving certificate /etc/kubernetes/pki/apiserver.crt; client certificates verified against
// the cluster CA), healthy only while its etcd answers over TLS with the apiserver-etcd-client certificate, and it
// does the few things the cluster's controllers would do for kubeadm: sign cluster-info for every signing bootstrap
// token (pkg/controller/bootstrap/bootstrapsigner.go) and approve and sign kubelet client CSRs (pkg/controller/
// certificates/approver/sarapprove.go, signer/signer.go). Everything else goes to the sandbox's Kubernetes emulator
// through the API bridge socket (KUBEPLANE_NETNS_KUBE), which is where the cluster's objects live.
// Upstream: cmd/kube-apiserver; authentication order x509 → bootstrap token → anonymous (pkg/kubeapiserver/authenticator).
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer, request as httpsRequest } from 'node:https';
import type { TLSSocket } from 'node:tls';
import { authenticateBootstrapToken, computeDetachedJws, JWS_KEY_PREFIX, signingTokens, type BootstrapTokenSecret } from '../../kubernetes/token-discovery.js';
import { csrSubject, signCsr } from './openssl.js';
import { virtualNow } from './control-client.js';

type Json = Record<string, unknown>;

function flags(argv: string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const arg of argv) {
    const m = /^--([^=]+)=(.*)$/.exec(arg);
    if (m?.[1]) out.set(m[1], m[2] ?? '');
  }
  return out;
}

const args = flags(process.argv.slice(2));
function flag(name: string): string {
  const v = args.get(name);
  if (v === undefined || v === '') {
    process.stderr.write(`Error: --${name} is required\n`);
    process.exit(1);
  }
  return v;
}

const port = Number(args.get('secure-port') ?? '6443');
const bindAddress = args.get('bind-address') ?? '0.0.0.0';
const endpoint = flag('kubeplane-endpoint');
const clientCa = readFileSync(flag('client-ca-file'), 'utf8');
const signer = {
  cert: args.get('cluster-signing-cert-file') ?? '/etc/kubernetes/pki/ca.crt',
  key: args.get('cluster-signing-key-file') ?? '/etc/kubernetes/pki/ca.key',
};
const etcdServer = flag('etcd-servers').split(',')[0] ?? '';
const etcdTls = {
  ca: readFileSync(flag('etcd-cafile'), 'utf8'),
  cert: readFileSync(flag('etcd-certfile'), 'utf8'),
  key: readFileSync(flag('etcd-keyfile'), 'utf8'),
};
const bridge = process.env['KUBEPLANE_NETNS_KUBE'];

// ---- etcd -------------------------------------------------------------------------------------------------------

let etcdState: { at: number; ok: boolean; reason: string } = { at: 0, ok: false, reason: 'not checked yet' };

function checkEtcd(): Promise<{ ok: boolean; reason: string }> {
  if (Date.now() - etcdState.at < 1000) return Promise.resolve(etcdState);
  const url = new URL('/health', etcdServer);
  return new Promise((resolve) => {
    const done = (ok: boolean, reason: string): void => {
      etcdState = { at: Date.now(), ok, reason };
      resolve(etcdState);
    };
    const req = httpsRequest(
      {
        host: url.hostname,
        port: Number(url.port || 2379),
        path: url.pathname,
        method: 'GET',
        ca: etcdTls.ca,
        cert: etcdTls.cert,
        key: etcdTls.key,
        servername: url.hostname,
        timeout: 2000,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          done(res.statusCode === 200 && /"health"\s*:\s*"true"/.test(body), body);
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('context deadline exceeded')));
    req.on('error', (e) => done(false, e.message));
    req.end();
  });
}

// ---- the API bridge ---------------------------------------------------------------------------------------------

interface BridgeAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

function viaBridge(method: string, path: string, headers: Record<string, string>, body?: Buffer): Promise<BridgeAnswer> {
  if (!bridge) return Promise.resolve({ status: 503, headers: {}, body: Buffer.from('KUBEPLANE_NETNS_KUBE is not set') });
  return new Promise((resolve, reject) => {
    const req = httpRequest({ socketPath: bridge, method, path, headers: { ...headers, 'x-kubeplane-endpoint': endpoint } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const out: Record<string, string> = {};
        for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') out[k] = v;
        resolve({ status: res.statusCode ?? 502, headers: out, body: Buffer.concat(chunks) });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function tokenSecrets(): Promise<BootstrapTokenSecret[]> {
  const answer = await viaBridge('GET', '/api/v1/namespaces/kube-system/secrets', { accept: 'application/json' });
  if (answer.status !== 200) return [];
  const list = JSON.parse(answer.body.toString('utf8')) as { items?: BootstrapTokenSecret[] };
  return list.items ?? [];
}

// ---- authentication and the little authorization kubeadm's RBAC gives ----------------------------------------------

interface User {
  name: string;
  groups: string[];
}

async function authenticate(req: IncomingMessage): Promise<User | 'unauthorized'> {
  const socket = req.socket as TLSSocket;
  const peer = socket.getPeerCertificate();
  if (peer && Object.keys(peer).length > 0) {
    if (!socket.authorized) return 'unauthorized';
    const subject = peer.subject as unknown as Record<string, string | string[] | undefined>;
    const cn = subject['CN'];
    const o = subject['O'];
    return { name: Array.isArray(cn) ? (cn[0] ?? '') : (cn ?? ''), groups: [...(Array.isArray(o) ? o : o ? [o] : []), 'system:authenticated'] };
  }
  const auth = req.headers['authorization'];
  if (typeof auth === 'string' && auth.startsWith('Bearer ')) {
    const user = authenticateBootstrapToken(auth.slice(7).trim(), await tokenSecrets(), await virtualNow());
    return user ? { name: user.user, groups: [...user.groups, 'system:authenticated'] } : 'unauthorized';
  }
  return { name: 'system:anonymous', groups: ['system:unauthenticated'] };
}

const CLUSTER_INFO = '/api/v1/namespaces/kube-public/configmaps/cluster-info';
const CSRS = '/apis/certificates.k8s.io/v1/certificatesigningrequests';

function allowed(user: User, method: string, path: string): boolean {
  if (user.groups.includes('system:unauthenticated'))
    return method === 'GET' && (path === CLUSTER_INFO || ['/healthz', '/livez', '/readyz', '/version'].includes(path));
  if (user.groups.includes('system:bootstrappers')) {
    // kubeadm's RBAC for bootstrappers: create CSRs (system:node-bootstrapper), read cluster-info, kubeadm-config,
    // kubelet-config and Nodes (kubeadm:get-nodes).
    return (
      path.startsWith(CSRS) ||
      (method === 'GET' &&
        (path === CLUSTER_INFO || path.startsWith('/api/v1/nodes') || path.startsWith('/api/v1/namespaces/kube-system/configmaps/') || path === '/version'))
    );
  }
  return true;
}

function status(res: ServerResponse, code: number, reason: string, message: string): void {
  res.writeHead(code, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code }));
}

function json(res: ServerResponse, code: number, body: unknown): void {
  res.writeHead(code, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

// ---- kubelet client certificates --------------------------------------------------------------------------------

const csrs = new Map<string, Json>();

async function createCsr(user: User, body: Json, res: ServerResponse): Promise<void> {
  const meta = (body['metadata'] ?? {}) as Json;
  const spec = (body['spec'] ?? {}) as Json;
  const name =
    typeof meta['name'] === 'string'
      ? meta['name']
      : `${typeof meta['generateName'] === 'string' ? meta['generateName'] : 'csr-'}${randomBytes(3).toString('hex')}`;
  if (csrs.has(name)) return status(res, 409, 'AlreadyExists', `certificatesigningrequests.certificates.k8s.io "${name}" already exists`);
  const requestB64 = spec['request'];
  if (typeof requestB64 !== 'string')
    return status(res, 422, 'Invalid', 'CertificateSigningRequest.certificates.k8s.io is invalid: spec.request: Required value');
  const pem = Buffer.from(requestB64, 'base64').toString('utf8');
  let subject: { cn: string; o: string[] };
  try {
    subject = csrSubject(pem);
  } catch {
    return status(
      res,
      422,
      'Invalid',
      'CertificateSigningRequest.certificates.k8s.io is invalid: spec.request: Invalid value: []byte{...}: PEM block type must be CERTIFICATE REQUEST',
    );
  }
  const csr: Json = {
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { ...meta, name, creationTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z') },
    spec: { ...spec, username: user.name, groups: user.groups },
    status: {},
  };
  // The approver approves a kubelet client certificate (signer kube-apiserver-client-kubelet, O=system:nodes,
  // CN=system:node:<name>) for a bootstrapper (nodeclient) or for the node itself (selfnodeclient). Anything else
  // stays pending, as it would without an admin.
  const isNodeClient =
    spec['signerName'] === 'kubernetes.io/kube-apiserver-client-kubelet' &&
    subject.o.length === 1 &&
    subject.o[0] === 'system:nodes' &&
    subject.cn.startsWith('system:node:');
  const mayApprove = user.groups.includes('system:bootstrappers') || user.name === subject.cn;
  if (isNodeClient && mayApprove) {
    const certificate = signCsr(pem, signer, { usages: ['client'] });
    csr['status'] = {
      conditions: [
        { type: 'Approved', status: 'True', reason: 'AutoApproved', message: 'Auto approving kubelet client certificate after SubjectAccessReview.' },
      ],
      certificate: Buffer.from(certificate).toString('base64'),
    };
  }
  csrs.set(name, csr);
  json(res, 201, csr);
}

// ---- serving ------------------------------------------------------------------------------------------------------

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'https://localhost');
  const path = url.pathname;
  const method = req.method ?? 'GET';
  if (path === '/livez') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  const etcd = await checkEtcd();
  if (path === '/healthz' || path === '/readyz') {
    if (etcd.ok) return void res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    return void res.writeHead(500, { 'content-type': 'text/plain' }).end(`[-]etcd failed: reason withheld\n${path.slice(1)} check failed\n`);
  }
  const user = await authenticate(req);
  if (user === 'unauthorized') return status(res, 401, 'Unauthorized', 'Unauthorized');
  if (!allowed(user, method, path)) return status(res, 403, 'Forbidden', `forbidden: User "${user.name}" cannot ${method.toLowerCase()} path "${path}"`);
  if (!etcd.ok) return status(res, 503, 'ServiceUnavailable', `etcdserver: request timed out (${etcd.reason})`);
  const body = await readBody(req);
  if (path === CSRS && method === 'POST') return createCsr(user, JSON.parse(body.toString('utf8') || '{}') as Json, res);
  if (path.startsWith(`${CSRS}/`) && method === 'GET') {
    const csr = csrs.get(path.slice(CSRS.length + 1));
    return csr
      ? json(res, 200, csr)
      : status(res, 404, 'NotFound', `certificatesigningrequests.certificates.k8s.io "${path.slice(CSRS.length + 1)}" not found`);
  }
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers))
    if (typeof v === 'string' && k !== 'host' && k !== 'authorization' && k !== 'content-length') headers[k] = v;
  const answer = await viaBridge(method, `${path}${url.search}`, headers, body.length > 0 ? body : undefined);
  if (path === CLUSTER_INFO && method === 'GET' && answer.status === 200) {
    const cm = JSON.parse(answer.body.toString('utf8')) as Json & { data?: Record<string, string> };
    const data = { ...(cm.data ?? {}) };
    const kubeconfig = data['kubeconfig'];
    if (kubeconfig !== undefined) {
      for (const key of Object.keys(data)) if (key.startsWith(JWS_KEY_PREFIX)) delete data[key];
      for (const t of signingTokens(await tokenSecrets(), await virtualNow()))
        data[`${JWS_KEY_PREFIX}${t.id}`] = computeDetachedJws(kubeconfig, t.id, t.secret);
    }
    return json(res, 200, { ...cm, data });
  }
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(answer.headers)) if (k === 'content-type') out[k] = v;
  res.writeHead(answer.status, out);
  res.end(answer.body);
}

const server = createServer(
  { cert: readFileSync(flag('tls-cert-file')), key: readFileSync(flag('tls-private-key-file')), ca: clientCa, requestCert: true, rejectUnauthorized: false },
  (req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent)
        status(
          res,
          500,
          'InternalError',
          `an error on the server ("${error instanceof Error ? error.message : String(error)}") has prevented the request from succeeding`,
        );
      else res.end();
    });
  },
);
server.listen(port, bindAddress, () =>
  process.stdout.write(`kube-apiserver stand-in: serving on ${bindAddress}:${port} for ${endpoint}, etcd ${etcdServer}\n`),
);
const stop = (): void => {
  server.close();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
