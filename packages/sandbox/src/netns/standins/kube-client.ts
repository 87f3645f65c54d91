// HTTPS to a Kubernetes API endpoint from inside a machine, as client-go does it: the server verified against the
// kubeconfig's CA and its name, a client certificate or bearer token. Names resolve through the sandbox's DNS
// (control-client resolve), so an endpoint that is a load balancer's name reaches the load balancer.
import { request } from 'node:https';
import { isIP } from 'node:net';
import { resolve as sandboxResolve } from './control-client.js';

export interface KubeRequest {
  server: string;
  /** Verify the server against this CA; undefined = insecure (kubeadm's discovery before it trusts the CA). */
  caPem?: string;
  certPem?: string;
  keyPem?: string;
  token?: string;
  method?: string;
  path: string;
  body?: unknown;
  contentType?: string;
  timeoutMs?: number;
}

export interface KubeResponse {
  status: number;
  text: string;
  json(): unknown;
}

async function addressOf(host: string): Promise<string> {
  if (isIP(host)) return host;
  if (!process.env['KUBEPLANE_NETNS_CONTROL']) return host;
  const addresses = await sandboxResolve(host);
  const first = addresses[0];
  if (!first) throw new Error(`dial tcp: lookup ${host}: no such host`);
  return first;
}

export async function kubeRequest(input: KubeRequest): Promise<KubeResponse> {
  const url = new URL(input.path, input.server);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const address = await addressOf(host);
  const payload = input.body === undefined ? undefined : typeof input.body === 'string' ? input.body : JSON.stringify(input.body);
  const headers: Record<string, string> = { accept: 'application/json' };
  if (payload !== undefined) headers['content-type'] = input.contentType ?? 'application/json';
  if (input.token) headers['authorization'] = `Bearer ${input.token}`;
  return new Promise((resolvePromise, reject) => {
    const req = request(
      {
        host: address,
        port: Number(url.port || 443),
        path: `${url.pathname}${url.search}`,
        method: input.method ?? 'GET',
        headers: { ...headers, host: url.host },
        ...(isIP(host) ? {} : { servername: host }),
        ...(input.caPem ? { ca: input.caPem, rejectUnauthorized: true } : { rejectUnauthorized: false }),
        ...(input.certPem && input.keyPem ? { cert: input.certPem, key: input.keyPem } : {}),
        timeout: input.timeoutMs ?? 10_000,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolvePromise({ status: res.statusCode ?? 0, text, json: () => JSON.parse(text) as unknown });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`Get "${url.href}": net/http: request canceled (Client.Timeout exceeded while awaiting headers)`)));
    req.on('error', reject);
    req.end(payload);
  });
}
