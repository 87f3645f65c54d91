// The sandbox package mirror, made once per run: a fresh gpg signing key (its armored public key is what
// https://pkgs.k8s.io/core:/stable:/vX.Y/deb/Release.key returns inside machines, its dearmored keyring what apt
// trusts), and the cilium-cli release tarballs (with .sha256sum, as GitHub releases carry) holding the cilium stand-in.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from './host.js';

export interface PackageMirror {
  dir: string;
  /** The signing key's fingerprint (40 hex digits, upper case), as `gpg --with-colons` prints it. */
  fingerprint: string;
}

export async function createPackageMirror(dir: string, ciliumShim: string): Promise<PackageMirror> {
  mkdirSync(dir, { recursive: true });
  const home = join(dir, 'gnupg');
  mkdirSync(home, { recursive: true, mode: 0o700 });
  const gpg = (...args: string[]): Promise<string> => run('gpg', ['--homedir', home, '--batch', '--yes', ...args]);
  await gpg('--passphrase', '', '--quick-generate-key', 'kubeplane sandbox package mirror <mirror@sandbox.invalid>', 'ed25519', 'sign', 'never');
  const colons = await gpg('--with-colons', '--list-keys');
  const fingerprint = /^fpr:+([0-9A-F]{40}):/m.exec(colons)?.[1];
  if (!fingerprint) throw new Error(`gpg made no key fingerprint: ${colons}`);
  await gpg('--armor', '--output', join(dir, 'Release.key'), '--export', fingerprint);
  await gpg('--output', join(dir, 'keyring.gpg'), '--dearmor', join(dir, 'Release.key'));
  writeFileSync(join(dir, 'fingerprint'), `${fingerprint}\n`);
  // cilium-cli release assets: cilium-linux-<arch>.tar.gz with the `cilium` binary at the top, and a .sha256sum file
  // in sha256sum(1) format (https://github.com/cilium/cilium-cli/releases).
  const stage = join(dir, 'cilium-stage');
  mkdirSync(stage, { recursive: true });
  writeFileSync(join(stage, 'cilium'), ciliumShim, { mode: 0o755 });
  for (const arch of ['amd64', 'arm64']) {
    const name = `cilium-linux-${arch}.tar.gz`;
    await run('tar', ['-czf', join(dir, name), '-C', stage, 'cilium']);
    const hash = createHash('sha256')
      .update(readFileSync(join(dir, name)))
      .digest('hex');
    writeFileSync(join(dir, `${name}.sha256sum`), `${hash}  ${name}\n`);
  }
  rmSync(stage, { recursive: true, force: true });
  return { dir, fingerprint };
}
