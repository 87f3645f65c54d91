// The kubeadm rule table's NodeView over this machine's real disk, ports and (per network namespace) sysctls.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { IPV4_FORWARD, PREFLIGHT_PORTS, type NodeView } from '../../kubernetes/kubeadm-rules.js';

function portInUse(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(true));
    server.listen({ port, host: '0.0.0.0', exclusive: true }, () => server.close(() => resolve(false)));
  });
}

export async function diskView(): Promise<NodeView> {
  const inUse = new Set<number>();
  for (const port of PREFLIGHT_PORTS) if (await portInUse(port)) inUse.add(port);
  let ipForward: string | undefined;
  try {
    ipForward = readFileSync(IPV4_FORWARD, 'utf8');
  } catch {
    ipForward = undefined;
  }
  return {
    exists: (path) => existsSync(path),
    read: (path) => {
      try {
        return readFileSync(path, 'utf8');
      } catch {
        return undefined;
      }
    },
    entries: (path) => {
      try {
        return readdirSync(path);
      } catch {
        return undefined;
      }
    },
    portsInUse: inUse,
    runtimeListens: (path) => existsSync(path),
    ...(ipForward === undefined ? {} : { ipForward }),
  };
}
