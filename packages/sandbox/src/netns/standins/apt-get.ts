// `apt-get` in a sandbox machine. update: every `deb [signed-by=K] URL /` in /etc/apt/sources.list.d must be
// signed by a key in K; the only repositories reachable are pkgs.k8s.io's, served by the sandbox mirror whose
// per-run key signs them. install: Debian packages present on the host count as installed (recorded only);
// kubelet/kubeadm/kubectl/kubernetes-cni/cri-tools come only from the configured pkgs.k8s.io minor, held packages
// do not change without --allow-change-held-packages. Messages are apt 2.6's (apt-pkg/cachefile.cc,
// apt-private/private-install.cc, apt-pkg/acquire-item.cc in salsa.debian.org/apt-team/apt).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { INSTALLED_DIR } from './installed.js';
import { ENABLED_DIR } from './records.js';
import { ENV, main, StandinFailure, virtualSleep } from './control-client.js';
import { KUBERNETES_PACKAGES, kubernetesPackageVersionError, kubernetesRepoMinor, readAptState, STANDIN_DEBIAN_PACKAGES, writeAptState } from './apt-state.js';

/**
 * The virtual time one `apt-get install` takes. The bootstrap script installs twice (base packages, then the
 * Kubernetes packages), so two installs add up to the latency model's OS preparation (timings.ts osPreparationMs, 60 s).
 */
export const APT_INSTALL_SECONDS = 30;
/** apt-get's exit status on errors (apt-private: `return 100`). */
const APT_ERROR = 100;

interface Source {
  url: string;
  signedBy?: string;
  file: string;
}

function sources(): Source[] {
  const dir = '/etc/apt/sources.list.d';
  if (!existsSync(dir)) return [];
  const out: Source[] = [];
  for (const name of readdirSync(dir)
    .filter((n) => n.endsWith('.list'))
    .sort()) {
    for (const raw of readFileSync(`${dir}/${name}`, 'utf8').split('\n')) {
      const line = raw.replace(/#.*/, '').trim();
      const m = /^deb\s+(?:\[([^\]]*)\]\s+)?(\S+)\s+(\S+)/.exec(line);
      if (!m) continue;
      const signedBy = /(?:^|\s)signed-by=(\S+)/.exec(m[1] ?? '')?.[1];
      out.push({ url: m[2] ?? '', file: `${dir}/${name}`, ...(signedBy ? { signedBy } : {}) });
    }
  }
  return out;
}

function mirrorDir(): string {
  const dir = process.env[ENV.mirror];
  if (!dir) throw new StandinFailure(`sandbox: ${ENV.mirror} is not set`, 1);
  return dir;
}

/** apt trusts a signed-by file holding the signing key: binary (gpg --dearmor) or, for *.asc, armored. */
function keyringTrusted(path: string): boolean {
  if (!existsSync(path)) return false;
  const bytes = readFileSync(path);
  return bytes.equals(readFileSync(`${mirrorDir()}/keyring.gpg`)) || bytes.equals(readFileSync(`${mirrorDir()}/Release.key`));
}

function update(): number {
  const state = readAptState();
  const fingerprint = readFileSync(`${mirrorDir()}/fingerprint`, 'utf8').trim();
  const repos: Array<{ url: string; minor: string }> = [];
  const errors: string[] = [];
  let n = 0;
  for (const source of sources()) {
    n += 1;
    const minor = kubernetesRepoMinor(source.url);
    const where = `${source.url.replace(/\/?$/, '/')} InRelease`;
    if (minor === undefined) {
      // Nothing outside the sandbox is reachable: a third-party repository fails to fetch as with no network.
      const host = /^\w+:\/\/([^/]+)/.exec(source.url)?.[1] ?? source.url;
      process.stdout.write(`Err:${n} ${where}\n  Could not resolve '${host}'\n`);
      errors.push(`W: Failed to fetch ${source.url.replace(/\/?$/, '/')}InRelease  Could not resolve '${host}'`);
      continue;
    }
    if (!source.signedBy || !keyringTrusted(source.signedBy)) {
      // apt verifies InRelease with the keyring named by signed-by (sources.list(5)); a missing or foreign key
      // is NO_PUBKEY <long key id> and the repository is refused as unsigned.
      const keyId = fingerprint.slice(-16);
      const why = `The following signatures couldn't be verified because the public key is not available: NO_PUBKEY ${keyId}`;
      process.stdout.write(`Err:${n} ${where}\n  ${why}\n`);
      errors.push(`W: GPG error: ${where}: ${why}`, `E: The repository '${where}' is not signed.`);
      continue;
    }
    process.stdout.write(`Hit:${n} ${where}\n`);
    repos.push({ url: source.url, minor });
  }
  process.stdout.write('Reading package lists...\n');
  state.repos = repos;
  writeAptState(state);
  for (const e of errors) process.stderr.write(`${e}\n`);
  // apt-get update exits 100 when an index failed to download or a repository was refused.
  return errors.length > 0 ? APT_ERROR : 0;
}

function debianInstalledVersion(pkg: string): string | undefined {
  try {
    const out = execFileSync('dpkg-query', ['-W', '-f=${Status}\t${Version}', pkg], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    const [status, version] = out.split('\t');
    return status?.endsWith('installed') && status.startsWith('install') ? version : undefined;
  } catch {
    return undefined;
  }
}

async function install(args: string[]): Promise<number> {
  const yes = args.some((a) => a === '-y' || a === '--yes' || a === '--assume-yes' || /^-[a-z]*y[a-z]*$/.test(a));
  const allowHeld = args.includes('--allow-change-held-packages');
  const requests = args.filter((a) => !a.startsWith('-'));
  const state = readAptState();
  const plan: Array<{ pkg: string; version: string }> = [];
  process.stdout.write('Reading package lists...\nBuilding dependency tree...\nReading state information...\n');
  for (const request of requests) {
    const [pkg = '', wanted] = request.split('=');
    if (KUBERNETES_PACKAGES.has(pkg)) {
      const repo = state.repos[0];
      if (!repo) throw new StandinFailure(`E: Unable to locate package ${pkg}`, APT_ERROR);
      // pkgs.k8s.io serves one minor per repository: X.Y.Z-1.1 exists only in the vX.Y repository.
      const refused = wanted === undefined ? undefined : kubernetesPackageVersionError(repo.minor, pkg, wanted);
      if (refused) throw new StandinFailure(refused, APT_ERROR);
      plan.push({ pkg, version: wanted ?? `${repo.minor}.0-1.1` });
      continue;
    }
    const hostVersion = debianInstalledVersion(pkg);
    if (hostVersion === undefined && !STANDIN_DEBIAN_PACKAGES.has(pkg)) throw new StandinFailure(`E: Unable to locate package ${pkg}`, APT_ERROR);
    if (wanted !== undefined && hostVersion !== undefined && wanted !== hostVersion)
      throw new StandinFailure(`E: Version '${wanted}' for '${pkg}' was not found`, APT_ERROR);
    plan.push({ pkg, version: hostVersion ?? 'sandbox' });
  }
  const changes = plan.filter((p) => state.installed[p.pkg] !== p.version);
  const heldChanges = changes.filter((p) => state.held.includes(p.pkg) && state.installed[p.pkg] !== undefined);
  if (heldChanges.length > 0 && !allowHeld) {
    process.stdout.write(`The following held packages will be changed:\n  ${heldChanges.map((p) => p.pkg).join(' ')}\n`);
    throw new StandinFailure('E: Held packages were changed and -y was used without --allow-change-held-packages.', APT_ERROR);
  }
  for (const p of plan.filter((x) => !changes.includes(x))) process.stdout.write(`${p.pkg} is already the newest version (${p.version}).\n`);
  if (changes.length > 0 && !yes) {
    process.stdout.write('Do you want to continue? [Y/n] Abort.\n');
    return 1;
  }
  if (changes.length > 0) await virtualSleep(APT_INSTALL_SECONDS);
  for (const p of changes) {
    process.stdout.write(`Setting up ${p.pkg} (${p.version}) ...\n`);
    state.installed[p.pkg] = p.version;
    // What the Kubernetes stand-ins check before they run (installed.ts): a program whose package is absent does not exist.
    mkdirSync(INSTALLED_DIR, { recursive: true });
    writeFileSync(`${INSTALLED_DIR}/${p.pkg}`, `${p.version}\n`);
    // The kubelet package enables kubelet.service in its postinst (deb-systemd-helper), so it starts at every boot.
    if (p.pkg === 'kubelet' && !existsSync(`${ENABLED_DIR}/kubelet.service`)) {
      mkdirSync(ENABLED_DIR, { recursive: true });
      symlinkSync('/dev/null', `${ENABLED_DIR}/kubelet.service`);
    }
  }
  writeAptState(state);
  return 0;
}

main(async (args) => {
  const command = args.find((a) => !a.startsWith('-'));
  if (command === 'update') return update();
  if (command === 'install') return install(args.slice(args.indexOf('install') + 1));
  throw new StandinFailure(`E: sandbox apt-get: the command ${command ?? '(none)'} is not modelled`, APT_ERROR);
});
