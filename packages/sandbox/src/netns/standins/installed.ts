// Whether the apt-get stand-in installed a package: it records /var/lib/kubeplane-standin/installed/<package>
// holding the version (`1.34.2-1.1`). A program that is not installed does not exist: the shell says so, exit 127.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

export const STANDIN_STATE_DIR = '/var/lib/kubeplane-standin';
export const INSTALLED_DIR = `${STANDIN_STATE_DIR}/installed`;

/** The installed version of a package, or undefined. */
export function installedVersion(pkg: string): string | undefined {
  try {
    const text = readFileSync(`${INSTALLED_DIR}/${pkg}`, 'utf8').trim();
    return text.length > 0 ? text : undefined;
  } catch {
    return undefined;
  }
}

/** `v1.34.2` from a Debian package version `1.34.2-1.1`. */
export function upstreamVersion(packageVersion: string): string {
  const m = /^(?:\d+:)?v?(\d+\.\d+\.\d+)/.exec(packageVersion);
  return m ? `v${m[1]}` : packageVersion;
}

/** The program's version when its package is installed; otherwise what bash prints for a missing command, exit 127. */
export function requireInstalled(pkg: string, command = basename(process.argv[1] ?? pkg, '.js')): string {
  const version = installedVersion(pkg);
  if (version === undefined) {
    process.stderr.write(`bash: line 1: ${command}: command not found\n`);
    process.exit(127);
  }
  return upstreamVersion(version);
}
