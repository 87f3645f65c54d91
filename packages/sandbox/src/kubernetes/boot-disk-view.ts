// The disk a machine has when its boot script runs kubeadm, for the fast simulation: every file cloud-init wrote,
// plus what the script's place_certificates() installs before `kubeadm init|join` (single `install SRC DST` lines
// and `for f in LIST; do install "SRC/$f" "DST/$f"; done`). With it the simulated kubelets ask the same rule table
// as the netns kubeadm stand-in (kubeadm-rules.ts), e.g. joinPreflight(bootDiskView(config), ...).
import type { NodeView } from './kubeadm-rules.js';
import { CONTAINERD_CONFIG, CONTAINERD_DEFAULT_CONFIG } from './runtime-rules.js';

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

/** The script's `readonly NAME='value'` settings. */
function scriptVariables(script: string): Record<string, string> {
  return Object.fromEntries([...script.matchAll(/^readonly (\w+)='([^']*)'$/gm)].map((m) => [m[1] ?? '', m[2] ?? '']));
}

/** A POSIX (basic or extended) regular expression of sed's as a JavaScript one, for the forms node scripts use. */
function sedPattern(pattern: string, extended: boolean): RegExp {
  let p = pattern
    .replace(/\[\[:space:\]\]/g, '\\s')
    .replace(/\[:space:\]/g, '\\s')
    .replace(/\[:digit:\]/g, '0-9');
  if (!extended)
    p = p
      .replace(/\\([(){}+?|])/g, '\u0000$1')
      .replace(/(?<!\u0000)([(){}+?|])/g, '\\$1')
      .replace(/\u0000/g, '');
  return new RegExp(p);
}

/**
 * containerd's configuration as the script leaves it: `containerd config default > /etc/containerd/config.toml`, then
 * each `sed -i [-E] 's<d>pattern<d>replacement<d>[g]' /etc/containerd/config.toml` in order (configure_containerd).
 * Undefined when the script does not write one (containerd then runs on its built-in defaults).
 */
export function scriptedContainerdConfig(script: string): string | undefined {
  const lines = script.split('\n').map((l) => l.trim());
  const start = lines.findIndex((l) => new RegExp(`^containerd config default\\s*>\\s*${CONTAINERD_CONFIG}$`).test(l));
  if (start < 0) return undefined;
  const vars = scriptVariables(script);
  let text = CONTAINERD_DEFAULT_CONFIG;
  for (const line of lines.slice(start + 1)) {
    const sed = /^sed -i (-E )?(['"])s(.)(.*)\2 (\S+)$/.exec(line);
    if (!sed || sed[5] !== CONTAINERD_CONFIG) continue;
    const [, extended, quote, d = '/', body = ''] = sed;
    const parts = body.split(d);
    if (parts.length < 3) continue;
    const unquoted = (t: string): string => (quote === '"' ? t.replace(/\\(["\\$`])/g, '$1') : t);
    const expand = (t: string): string => (quote === '"' ? t.replace(/\$\{?(\w+)\}?/g, (_m, n: string) => vars[n] ?? '') : t);
    const pattern = sedPattern(expand(unquoted(parts[0] ?? '')), extended !== undefined);
    const replacement = expand(unquoted(parts[1] ?? ''))
      .replace(/\$/g, '$$$$')
      .replace(/\\(\d)/g, '$$$1')
      .replace(/&/g, '$$&');
    // sed edits line by line: the first match of each line, every match with the g flag.
    const each = new RegExp(pattern.source, (parts[2] ?? '').includes('g') ? 'g' : '');
    text = text
      .split('\n')
      .map((l) => l.replace(each, replacement))
      .join('\n');
  }
  return text;
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
  const containerd = scriptedContainerdConfig(script);
  if (containerd !== undefined) files.set(CONTAINERD_CONFIG, containerd);
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
