// What one request costs each sandbox emulator in real time: the frame's pipeline, routing, the vendor dialect and
// the handler, answered in-process (sandboxResponder, no HTTP interception) with the clock standing still. Run in
// two trees back to back to compare emulator implementations on the same machine. Measures; never asserts.
import { createHmac } from 'node:crypto';
import { Sandbox, SANDBOX_CREDENTIALS, sandboxResponder } from '@kubeplane/sandbox';
import type { BenchResult } from './types.js';

const ROUNDS = 7;
const PER_ROUND = 400;
const UNLIMITED = { capacity: 1e12, refillPerSecond: 1e9 };

/** Crusoe's request signature, version 1.0 (HMAC-SHA256 of path, query, method and timestamp). */
function crusoeAuthorization(method: string, path: string, timestamp: string): string {
  const key = Buffer.from(SANDBOX_CREDENTIALS.crusoeSecretKey, 'base64url');
  const mac = createHmac('sha256', key).update(`${path}\n\n${method}\n${timestamp}\n`).digest('base64url');
  return `Bearer 1.0:${SANDBOX_CREDENTIALS.crusoeAccessKeyId}:${mac}`;
}

async function perRequestMs(send: () => Promise<Response | undefined>): Promise<number> {
  const rounds: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const start = performance.now();
    for (let i = 0; i < PER_ROUND; i++) {
      const response = await send();
      if (!response || response.status >= 400) throw new Error(`the emulator answered ${response?.status ?? 'nothing'}`);
      await response.arrayBuffer();
    }
    rounds.push((performance.now() - start) / PER_ROUND);
  }
  rounds.sort((a, b) => a - b);
  return rounds[Math.floor(ROUNDS / 2)] ?? Number.NaN;
}

export async function run(): Promise<BenchResult[]> {
  const sandbox = new Sandbox({ seed: 1, hetzner: { rateLimit: UNLIMITED }, cloudflare: { rateLimit: UNLIMITED } });
  const respond = sandboxResponder(sandbox);
  const hetzner = (path: string) =>
    respond(new Request(`https://api.hetzner.cloud/v1${path}`, { headers: { authorization: `Bearer ${SANDBOX_CREDENTIALS.hetznerToken}` } }));
  const cloudflare = (path: string) =>
    respond(new Request(`https://api.cloudflare.com/client/v4${path}`, { headers: { authorization: `Bearer ${SANDBOX_CREDENTIALS.cloudflareApiToken}` } }));
  const crusoe = (path: string) => {
    const full = `/v1${path}`;
    const timestamp = new Date(sandbox.clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
    return respond(
      new Request(`https://api.cloud.crusoe.ai${full}`, {
        headers: { authorization: crusoeAuthorization('GET', full, timestamp), 'x-crusoe-timestamp': timestamp },
      }),
    );
  };
  const project = `/projects/${SANDBOX_CREDENTIALS.crusoeProjectId}`;
  const cases: Array<[string, () => Promise<Response | undefined>]> = [
    ['Hetzner GET /servers/{id} (404)', () => hetzner('/servers/1').then((r) => (r?.status === 404 ? new Response('') : r))],
    ['Hetzner GET /server_types', () => hetzner('/server_types')],
    ['Hetzner GET /servers', () => hetzner('/servers')],
    ['Crusoe GET /compute/vms/instances', () => crusoe(`${project}/compute/vms/instances`)],
    ['Crusoe GET /locations', () => crusoe('/locations')],
    ['Cloudflare GET /zones', () => cloudflare('/zones')],
  ];
  const results: BenchResult[] = [];
  try {
    for (const [name, send] of cases) {
      results.push({
        name: `${name}, one request in-process (median of ${ROUNDS} rounds of ${PER_ROUND})`,
        value: Number((await perRequestMs(send)).toFixed(4)),
        unit: 'ms',
        note: 'compare trees back to back on one machine',
      });
    }
  } finally {
    await sandbox.close();
  }
  return results;
}
