// The disk a machine has when its boot script runs kubeadm, for the fast simulation: every file cloud-init wrote,
// plus what the script's place_certificates() installs before `kubeadm init|join` (single `install SRC DST` lines
// and `for f in LIST; do install "SRC/$f" "DST/$f"; done`). With it the simulated kubelets ask the same rule table
// as the netns kubeadm stand-in (kubeadm-rules.ts), e.g. joinPreflight(bootDiskView(config), ...).
import type { NodeView } from './kubeadm-rules.js';

/** Where containerd serves CRI (its default `grpc.address`, https://github.com/containerd/containerd/blob/main/docs/man/containerd-config.toml.5.md). */
const CONTAINERD_SOCKET = '/run/containerd/containerd.sock';
import type { NodeBootConfig } from './user-data.js';

function unquote(word: string): string {
  return word.replace(/^["']|["']$/g, '');
}

function expand(word: string, vars: Record<string, string>): string {
  return unquote(word).replace(/\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?/g, (_m, name: string) => vars[name] ?? '');
}

/** Pairs (source, destination) that place_certificates() installs, in order. */
export function placedFiles(script: string): Array<[string, string]> {
  const body = /^place_certificates\(\) \{\n([\s\S]*?)\n\}/m.exec(script)?.[1] ?? '';
  const out: Array<[string, string]> = [];
  const lines = body.split('\n').map((l) => l.trim());
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i] ?? '';
    const loop = /^for (\w+) in (.+); do$/.exec(line);
    if (loop) {
      const [, variable = '', list = ''] = loop;
      const inner: string[] = [];
      for (i += 1; i < lines.length && lines[i] !== 'done'; i += 1) inner.push(lines[i] ?? '');
      for (const item of list.split(/\s+/)) for (const l of inner) out.push(...installPairs(l, { [variable]: item }));
      continue;
    }
    out.push(...installPairs(line, {}));
  }
  return out;
}

function installPairs(line: string, vars: Record<string, string>): Array<[string, string]> {
  if (!line.startsWith('install ') || /\s-d\s/.test(` ${line} `)) return [];
  const words = line
    .split(/\s+/)
    .slice(1)
    .filter((w, i, all) => !w.startsWith('-') && !(i > 0 && all[i - 1] === '-m'));
  if (words.length < 2) return [];
  // The sdk renders STAGING_DIR literally; a script written with the variable gets the same directory.
  const all = { STAGING_DIR: '/etc/kubeplane', ...vars };
  const src = expand(words[words.length - 2] ?? '', all);
  const dst = expand(words[words.length - 1] ?? '', all);
  return [[src, dst]];
}

/**
 * What `kubeadm reset --force` empties (cmd/kubeadm/app/cmd/phases/reset/cleanupnode.go and removeetcdmember.go): the
 * kubelet's and etcd's data, the static pod manifests, the certificates directory and kubeadm's kubeconfig files.
 */
const RESET_CLEANS = [
  /^\/var\/lib\/kubelet\//,
  /^\/var\/lib\/etcd\//,
  /^\/var\/run\/kubernetes\//,
  /^\/etc\/kubernetes\/manifests\//,
  /^\/etc\/kubernetes\/pki\//,
  /^\/etc\/kubernetes\/(admin|super-admin|kubelet|bootstrap-kubelet|controller-manager|scheduler)\.conf$/,
];

/**
 * The machine's disk when kubeadm starts: user-data's files and the certificates the script placed. `afterReset`: the
 * disk of a later attempt, after the script's `kubeadm reset --force` (kubeadm_once) and place_certificates again.
 */
export function bootDiskView(config: Pick<NodeBootConfig, 'files'>, script: string, options: { afterReset?: boolean } = {}): NodeView {
  const files = new Map(options.afterReset ? [...config.files].filter(([p]) => !RESET_CLEANS.some((r) => r.test(p))) : config.files);
  for (const [src, dst] of placedFiles(script)) {
    const content = files.get(src);
    if (content !== undefined) files.set(dst, content);
  }
  const paths = [...files.keys()];
  return {
    exists: (path) => files.has(path) || paths.some((p) => p.startsWith(`${path}/`)),
    read: (path) => files.get(path),
    entries: (path) => {
      const names = paths.filter((p) => p.startsWith(`${path}/`)).map((p) => p.slice(path.length + 1).split('/')[0] ?? '');
      return names.length > 0 ? [...new Set(names)] : undefined;
    },
    // The script installs and restarts containerd before kubeadm runs: its CRI socket is the one that listens.
    runtimeListens: (path) => path === CONTAINERD_SOCKET,
    // A machine's sysctl.d sets it before kubeadm runs (prepare_host: sysctl --system).
    ...(/net\.ipv4\.ip_forward\s*=\s*1/.test(
      [...files.entries()]
        .filter(([p]) => p.startsWith('/etc/sysctl.d/'))
        .map(([, c]) => c)
        .join('\n'),
    )
      ? { ipForward: '1\n' }
      : { ipForward: '0\n' }),
  };
}
