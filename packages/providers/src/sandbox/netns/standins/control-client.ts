// The machine's side of the harness's control socket (HTTP over the unix socket in KUBEPLANE_NETNS_CONTROL):
// virtual sleeps, reports to the world, and the sandbox's DNS. Minimal on purpose; the harness owns the server.
import { request } from 'node:http';

export function machineId(): string {
  return process.env['KUBEPLANE_NETNS_MACHINE'] ?? '';
}

function call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
  const socketPath = process.env['KUBEPLANE_NETNS_CONTROL'];
  if (!socketPath) return Promise.reject(new Error('KUBEPLANE_NETNS_CONTROL is not set: not running inside a sandbox machine'));
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, method, path, headers: payload ? { 'content-type': 'application/json' } : {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if ((res.statusCode ?? 500) >= 300) return reject(new Error(`control ${method} ${path}: ${res.statusCode} ${text}`));
        try {
          resolve(text ? (JSON.parse(text) as unknown) : undefined);
        } catch {
          resolve(text);
        }
      });
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** Returns when the sandbox's virtual clock has moved `seconds` on. */
export async function virtualSleep(seconds: number): Promise<void> {
  await call('POST', '/sleep', { machine: machineId(), seconds });
}

export async function report(event: string, detail: unknown): Promise<void> {
  await call('POST', '/report', { machine: machineId(), event, detail });
}

/** The sandbox's DNS: the addresses of a name (an address resolves to itself). */
export async function resolve(name: string): Promise<string[]> {
  const answer = (await call('GET', `/resolve?name=${encodeURIComponent(name)}`)) as { addresses?: unknown } | undefined;
  return Array.isArray(answer?.addresses) ? answer.addresses.filter((a): a is string => typeof a === 'string') : [];
}
