// WireGuard key pairs (X25519), drawn from a RandomSource so a seeded render is reproducible, and encoded the
// way `wg genkey` / `wg pubkey` print them: standard base64 of the raw 32-byte keys.
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { Redacted } from '../redacted.js';
import type { RandomSource } from './random.js';

/** A WireGuard key pair: the private key (redacted) and its public key, both base64. */
export interface WireguardKeyPair {
  publicKey: string;
  privateKey: Redacted<string>;
}

// PKCS#8 and SPKI DER prefixes for X25519 (RFC 8410); the raw key follows them.
const PKCS8_X25519_PREFIX = Buffer.from('302e020100300506032b656e04220420', 'hex');
const SPKI_X25519_PREFIX_LENGTH = 12;

/** The public key `wg pubkey` would print for a base64 private key. */
export function wireguardPublicKey(privateKeyBase64: string): string {
  const raw = Buffer.from(privateKeyBase64, 'base64');
  if (raw.length !== 32) throw new Error(`a WireGuard private key is 32 bytes; got ${raw.length}`);
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_X25519_PREFIX, raw]), format: 'der', type: 'pkcs8' });
  const spki = createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
  return spki.subarray(SPKI_X25519_PREFIX_LENGTH).toString('base64');
}

/** A key pair from 32 random bytes, clamped as `wg genkey` clamps them. */
export function generateWireguardKeyPair(random: RandomSource): WireguardKeyPair {
  const raw = Buffer.from(random.bytes(32));
  raw[0] = (raw[0] ?? 0) & 248;
  raw[31] = ((raw[31] ?? 0) & 127) | 64;
  const privateKey = raw.toString('base64');
  return { publicKey: wireguardPublicKey(privateKey), privateKey: Redacted.of(privateKey) };
}
