// The cluster's SSH key as OpenSSH reads it: ssh-keygen (openssh-client, scripts/setup-test-machine.sh) derives the
// public key from the private file, signs with it, and reads keys converted from the PKCS#8 PEM older clusters hold.
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MemorySecretStore, Redacted } from '../index.js';
import { ClusterSecrets, generateSshKeyPair, secretName } from '../internal.js';
import { asOpenSshPrivateKey, sshPublicKeyLine } from './openssh-key.js';

const dir = mkdtempSync(join(tmpdir(), 'kubeplane-openssh-key-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
/** The key written 0600 (ssh-keygen refuses a private key others can read), and its path. */
function keyFile(privateKey: string): string {
  const file = join(dir, `key-${(files += 1)}`);
  writeFileSync(file, privateKey, { mode: 0o600 });
  return file;
}

const keygen = (args: string[], input?: string): string => execFileSync('ssh-keygen', args, { encoding: 'utf8', ...(input !== undefined ? { input } : {}) });

describe('the SSH key in OpenSSH format', () => {
  it('is an unencrypted openssh-key-v1 file whose public key ssh-keygen -y derives as the pair says', () => {
    const pair = generateSshKeyPair('kubeplane-demo-abc1234');
    const text = pair.privateKey.reveal();
    expect(text).toMatch(/^-----BEGIN OPENSSH PRIVATE KEY-----\n(?:[A-Za-z0-9+/=]{1,70}\n)+-----END OPENSSH PRIVATE KEY-----\n$/);
    expect(keygen(['-y', '-f', keyFile(text)]).trim()).toBe(pair.publicKey);
    // No passphrase asked for or needed: `-P ''` is accepted as the right one only for an unencrypted key.
    expect(keygen(['-y', '-P', '', '-f', keyFile(text)]).trim()).toBe(pair.publicKey);
  });

  it('signs with the secret that belongs to its public key: ssh-keygen -Y verify accepts the signature for that key', () => {
    const pair = generateSshKeyPair('kubeplane-demo-abc1234');
    const key = keyFile(pair.privateKey.reveal());
    const data = join(dir, 'signed-data');
    writeFileSync(data, 'kubeplane');
    keygen(['-Y', 'sign', '-q', '-f', key, '-n', 'file', data]);
    const allowed = join(dir, 'allowed-signers');
    writeFileSync(allowed, `ops@example.com ${pair.publicKey}\n`);
    expect(keygen(['-Y', 'verify', '-f', allowed, '-I', 'ops@example.com', '-n', 'file', '-s', `${data}.sig`], 'kubeplane')).toContain('Good "file" signature');
  });

  it('converts a PKCS#8 PEM key (what clusters made before held) to the same key in OpenSSH format, the same text every time', () => {
    const { privateKey } = generateKeyPairSync('ed25519');
    const pkcs8 = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    const line = sshPublicKeyLine(privateKey, 'kubeplane-old-1234567');
    // What ssh-keygen makes of the PEM itself, which is why the format changed.
    expect(() => execFileSync('ssh-keygen', ['-y', '-f', keyFile(pkcs8)], { stdio: 'pipe' })).toThrow(/invalid format/);
    const converted = asOpenSshPrivateKey(pkcs8, 'kubeplane-old-1234567');
    expect(converted).toMatch(/^-----BEGIN OPENSSH PRIVATE KEY-----\n/);
    expect(keygen(['-y', '-f', keyFile(converted)]).trim()).toBe(line);
    expect(asOpenSshPrivateKey(pkcs8, 'kubeplane-old-1234567')).toBe(converted);
    expect(asOpenSshPrivateKey(converted, 'ignored')).toBe(converted);
  });

  it('is read from a SecretStore holding a PKCS#8 key in OpenSSH format, with the public line as it was', async () => {
    const store = new MemorySecretStore();
    const { privateKey } = generateKeyPairSync('ed25519');
    const line = sshPublicKeyLine(privateKey, 'kubeplane-old-1234567');
    const stored = { publicKey: line, privateKey: { $secret: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString() } };
    await store.put(secretName('old-1234567', 'ssh'), Redacted.of(JSON.stringify(stored)), {});
    const ssh = await new ClusterSecrets(store, 'old-1234567', {}).ssh();
    expect(ssh?.publicKey).toBe(line);
    expect(keygen(['-y', '-f', keyFile(ssh?.privateKey.reveal() ?? '')]).trim()).toBe(line);
  });

  it('refuses a key that is not Ed25519 without quoting it', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    expect(() => asOpenSshPrivateKey(rsa, 'x')).toThrow('the SSH key is rsa, not Ed25519');
    expect(() => asOpenSshPrivateKey('-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n', 'x')).toThrow(
      /^the stored SSH private key cannot be read \((?!.*AAAA)/,
    );
  });
});
