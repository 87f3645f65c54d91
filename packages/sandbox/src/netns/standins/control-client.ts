// What every stand-in needs from the harness, over the control socket: virtual sleeps, reports to the simulation,
// the sandbox's DNS, and which machine it runs on. Environment set by the world in every machine process.
import { request } from 'node:http';

export const ENV = {
  control: 'KUBEPLANE_NETNS_CONTROL',
  kube: 'KUBEPLANE_NETNS_KUBE',
  machine: 'KUBEPLANE_NETNS_MACHINE',
  /** The tracked run (cloud-init, a timer's service run, a harness command) this process belongs to; absent in daemons. */
  run: 'KUBEPLANE_NETNS_RUN',
  /** The sandbox package mirror's directory (Release.key, fingerprint, cilium tarballs). */
  mirror: 'KUBEPLANE_NETNS_MIRROR',
  /** dist/netns/standins: where the daemon entries live. */
  standins: 'KUBEPLANE_NETNS_STANDINS',
  /** The node binary the shims run. */
  node: 'KUBEPLANE_NETNS_NODE',
} as const;

export class StandinFailure extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
    this.name = 'StandinFailure';
  }
}

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new StandinFailure(`sandbox: ${name} is not set; this stand-in runs only inside a netns sandbox machine`, 1);
  return value;
}

export function machineId(): string {
  return env(ENV.machine);
}

function call(method: 'GET' | 'POST', path: string, payload?: unknown): Promise<unknown> {
  const socketPath = env(ENV.control);
  const data = payload === undefined ? undefined : JSON.stringify(payload);
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, method, path, headers: data ? { 'content-type': 'application/json' } : {} }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => {
        if ((res.statusCode ?? 500) >= 300) return reject(new StandinFailure(`sandbox control ${path}: ${res.statusCode ?? ''} ${text}`, 1));
        try {
          resolve(text === '' ? {} : JSON.parse(text));
        } catch (error) {
          reject(error);
        }
      });
    });
    req.on('error', reject);
    if (data) req.write(data);
    req.end();
  });
}

/** Waits `seconds` of virtual time (the harness answers when the sandbox clock gets there). */
export async function virtualSleep(seconds: number): Promise<void> {
  const run = process.env[ENV.run];
  await call('POST', '/sleep', { machine: machineId(), seconds, ...(run ? { run } : {}) });
}

/** Tells the simulation something happened on this machine (kubeadm-init-ok, kubelet-started, ...). */
export async function report(event: string, detail: Record<string, unknown> = {}): Promise<void> {
  await call('POST', '/report', { machine: machineId(), event, detail });
}

/** The sandbox's DNS: the addresses `name` resolves to (empty when it does not resolve). */
export async function resolve(name: string): Promise<string[]> {
  const out = (await call('GET', `/resolve?name=${encodeURIComponent(name)}`)) as { addresses?: unknown };
  return Array.isArray(out.addresses) ? out.addresses.filter((a): a is string => typeof a === 'string') : [];
}

/** Virtual time in ms. */
export async function virtualNow(): Promise<number> {
  const out = (await call('GET', '/now')) as { ms?: unknown };
  return typeof out.ms === 'number' ? out.ms : 0;
}

export async function registerTimer(unit: string, onBootSec: number | null, everySec: number | null): Promise<void> {
  await call('POST', '/timer', { machine: machineId(), unit, onBootSec, everySec });
}

/** Runs a stand-in's main: a StandinFailure prints its message and exits with its code, as the real tool would. */
export function main(fn: (args: string[]) => Promise<number | void>): void {
  fn(process.argv.slice(2)).then(
    (code) => process.exit(code ?? 0),
    (error: unknown) => {
      if (error instanceof StandinFailure) {
        if (error.message) process.stderr.write(`${error.message}\n`);
        process.exit(error.exitCode);
      }
      process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exit(1);
    },
  );
}
