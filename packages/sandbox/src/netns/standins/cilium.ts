// cilium CLI stand-in (installed by the node script from the cilium-cli release tarball the sandbox's mirror
// serves). `install` and `upgrade` need a kubeconfig (KUBECONFIG or ~/.kube/config) and a reachable API, as the real
// CLI (a Helm client) does; `install` refuses a release that exists (Helm: "cannot re-use a name that is still in
// use"), which is why the script falls back to `upgrade`. The settings are recorded and reported as cilium-ok.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { report } from './control-client.js';
import { STANDIN_STATE_DIR } from './installed.js';
import { kubeRequest } from './kube-client.js';
import { readKubeconfig } from './kubeconfig.js';

const RELEASE = `${STANDIN_STATE_DIR}/cilium-release.json`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === 'version') {
    process.stdout.write('cilium-cli: v0.16.24 (kubeplane sandbox stand-in)\n');
    return 0;
  }
  if (command !== 'install' && command !== 'upgrade') {
    process.stderr.write(`Error: unknown command "${command ?? ''}" for "cilium"\n`);
    return 1;
  }
  let version = '';
  const settings: Record<string, string> = {};
  for (let i = 0; i < rest.length; i += 1) {
    const a = rest[i] ?? '';
    if (a === '--version') version = rest[(i += 1)] ?? '';
    else if (a.startsWith('--version=')) version = a.slice(10);
    else if (a === '--set' || a.startsWith('--set=')) {
      const kv = a === '--set' ? (rest[(i += 1)] ?? '') : a.slice(6);
      const eq = kv.indexOf('=');
      if (eq > 0) settings[kv.slice(0, eq)] = kv.slice(eq + 1);
    }
  }
  const kubeconfigPath = process.env['KUBECONFIG'] ?? `${homedir()}/.kube/config`;
  let creds;
  try {
    creds = readKubeconfig(kubeconfigPath);
  } catch {
    process.stderr.write(`Error: Unable to create Kubernetes client: stat ${kubeconfigPath}: no such file or directory\n`);
    return 1;
  }
  try {
    const res = await kubeRequest({ ...creds, path: '/version', timeoutMs: 10_000 });
    if (res.status !== 200) throw new Error(`${res.status} ${res.text.trim()}`);
  } catch (error) {
    process.stderr.write(`Error: Unable to ${command} Cilium: Kubernetes cluster unreachable: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
  if (command === 'install' && existsSync(RELEASE)) {
    process.stderr.write('Error: Unable to install Cilium: cannot re-use a name that is still in use\n');
    return 1;
  }
  if (command === 'upgrade' && !existsSync(RELEASE)) {
    process.stderr.write('Error: Unable to upgrade Cilium: "cilium" has no deployed releases\n');
    return 1;
  }
  const previous = existsSync(RELEASE) ? (JSON.parse(readFileSync(RELEASE, 'utf8')) as { settings?: Record<string, string> }) : {};
  const recorded = { version, settings: { ...(command === 'upgrade' ? (previous.settings ?? {}) : {}), ...settings } };
  mkdirSync(STANDIN_STATE_DIR, { recursive: true });
  writeFileSync(RELEASE, JSON.stringify(recorded));
  process.stdout.write(`🔮 Auto-detected Kubernetes kind: kubeadm\nℹ️  Using Cilium version ${version}\n`);
  await report('cilium-ok', recorded);
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
