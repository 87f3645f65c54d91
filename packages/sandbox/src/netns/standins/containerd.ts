// containerd stand-in. `containerd config default` prints containerd 1.7's default configuration (runtime-rules.ts).
// As a daemon it parses /etc/containerd/config.toml and exits on what it cannot load (TOML errors, a version other
// than 2), and listens on /run/containerd/containerd.sock (the CRI socket kubeadm's nodeRegistration.criSocket names).
// What the kubelet needs of its configuration (the runc cgroup driver) the kubelet stand-in reads from the same file.
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { CONTAINERD_CONFIG, CONTAINERD_DEFAULT_CONFIG, parseContainerdConfig } from '../../kubernetes/runtime-rules.js';

export const CONTAINERD_SOCKET = '/run/containerd/containerd.sock';

const argv = process.argv.slice(2);

if (argv[0] === 'config' && argv[1] === 'default') {
  process.stdout.write(CONTAINERD_DEFAULT_CONFIG);
} else if (argv[0] === '--version' || argv[0] === '-v') {
  process.stdout.write('containerd containerd.io 1.7.24\n');
} else {
  const parsed = existsSync(CONTAINERD_CONFIG) ? parseContainerdConfig(readFileSync(CONTAINERD_CONFIG, 'utf8')) : undefined;
  if (parsed && 'error' in parsed) {
    process.stderr.write(`containerd: ${parsed.error}\n`);
    process.exit(1);
  }
  mkdirSync('/run/containerd', { recursive: true });
  rmSync(CONTAINERD_SOCKET, { force: true });
  const server = createServer((socket) => socket.end());
  server.listen(CONTAINERD_SOCKET, () => process.stderr.write(`level=info msg="containerd successfully booted" address=${CONTAINERD_SOCKET}\n`));
  const stop = (): void => {
    server.close();
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
