// The cluster's SSH key in OpenSSH's own formats: the `ssh-ed25519 AAAA… comment` public line and the unencrypted
// openssh-key-v1 private key (`-----BEGIN OPENSSH PRIVATE KEY-----`), which `ssh -i` and `ssh-keygen -y` read and
// PKCS#8 PEM is not (OpenSSH 9.2 calls a PKCS#8 Ed25519 file "invalid format"). Layout: OpenSSH's PROTOCOL.key.
import { createHash, createPrivateKey, type KeyObject } from 'node:crypto';
import { KubeplaneError } from '../errors.js';

const MAGIC = Buffer.from('openssh-key-v1\0', 'latin1');
const BEGIN = '-----BEGIN OPENSSH PRIVATE KEY-----';
const END = '-----END OPENSSH PRIVATE KEY-----';

/** An SSH wire `string` (RFC 4251 §5): a uint32 length, then the bytes. */
function sshString(b: Buffer | string): Buffer {
  const bytes = typeof b === 'string' ? Buffer.from(b, 'utf8') : b;
  const length = Buffer.alloc(4);
  length.writeUInt32BE(bytes.length);
  return Buffer.concat([length, bytes]);
}

function uint32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
}

/** The raw 32-byte seed and public key of an Ed25519 key (node exports them through JWK: `d` and `x`). */
function ed25519Raw(key: KeyObject): { seed: Buffer; publicKey: Buffer } {
  if (key.asymmetricKeyType !== 'ed25519')
    throw new KubeplaneError('invalid', `the SSH key is ${key.asymmetricKeyType ?? 'not an asymmetric key'}, not Ed25519`);
  const jwk = key.export({ format: 'jwk' });
  const seed = Buffer.from(jwk.d ?? '', 'base64url');
  const publicKey = Buffer.from(jwk.x ?? '', 'base64url');
  if (seed.length !== 32 || publicKey.length !== 32) throw new KubeplaneError('invalid', 'the SSH key is not a whole Ed25519 private key');
  return { seed, publicKey };
}

/** The public key blob: string "ssh-ed25519", string key (RFC 8709 §4). */
function publicBlob(publicKey: Buffer): Buffer {
  return Buffer.concat([sshString('ssh-ed25519'), sshString(publicKey)]);
}

/** `ssh-ed25519 <base64 blob> <comment>`, as in authorized_keys and `ssh-keygen -y`. */
export function sshPublicKeyLine(key: KeyObject, comment: string): string {
  const raw = key.type === 'private' ? ed25519Raw(key).publicKey : Buffer.from(key.export({ format: 'jwk' }).x ?? '', 'base64url');
  return `ssh-ed25519 ${publicBlob(raw).toString('base64')}${comment ? ` ${comment}` : ''}`;
}

/**
 * An Ed25519 private key as an unencrypted openssh-key-v1 file: cipher and KDF `none`, one key; the private section
 * holds two equal check integers, the public key, the 64-byte secret (seed, then public key), the comment, and
 * padding 1, 2, 3… to the 8-byte block of cipher `none`. The check integer is taken from the public key, not drawn at
 * random, so the same key always reads out as the same file.
 */
export function openSshPrivateKey(key: KeyObject, comment: string): string {
  const { seed, publicKey } = ed25519Raw(key);
  const check = createHash('sha256').update(publicKey).digest().readUInt32BE(0);
  const section = Buffer.concat([
    uint32(check),
    uint32(check),
    sshString('ssh-ed25519'),
    sshString(publicKey),
    sshString(Buffer.concat([seed, publicKey])),
    sshString(comment),
  ]);
  const padding = Buffer.from(Array.from({ length: (8 - (section.length % 8)) % 8 }, (_, i) => i + 1));
  const body = Buffer.concat([
    MAGIC,
    sshString('none'),
    sshString('none'),
    sshString(''),
    uint32(1),
    sshString(publicBlob(publicKey)),
    sshString(Buffer.concat([section, padding])),
  ]);
  const lines = body.toString('base64').match(/.{1,70}/g) ?? [];
  return `${BEGIN}\n${lines.join('\n')}\n${END}\n`;
}

/**
 * The private key in OpenSSH's format, whatever format it was stored in: clusters made before kubeplane wrote OpenSSH
 * keys hold PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`), converted here with the comment of their public line. A key
 * already in OpenSSH's format is returned as it is.
 */
export function asOpenSshPrivateKey(stored: string, comment: string): string {
  if (stored.trimStart().startsWith(BEGIN)) return stored;
  let key: KeyObject;
  try {
    key = createPrivateKey(stored);
  } catch (e) {
    // The message never carries the key: node's error names the format only.
    throw new KubeplaneError('invalid', `the stored SSH private key cannot be read (${(e as Error).message})`, {}, { cause: e });
  }
  return openSshPrivateKey(key, comment);
}

/** The comment of an OpenSSH public key line (`ssh-ed25519 AAAA… kubeplane-hybrid-7m4zsnr`), or ''. */
export function publicKeyComment(line: string): string {
  return line.trim().split(/\s+/).slice(2).join(' ');
}
