// Randomness as an input: rendering draws every token, serial number and key from a RandomSource, so the
// same seed renders the same bytes (tests, golden files, replays) and production passes the system CSPRNG.
import { createHash, randomBytes } from 'node:crypto';

/** A source of random bytes, passed in so rendering can be replayed with a seeded one. */
export interface RandomSource {
  /** `length` uniformly random bytes. */
  bytes(length: number): Uint8Array;
}

/** The operating system's CSPRNG; what production uses. */
export function systemRandomSource(): RandomSource {
  return { bytes: (length) => new Uint8Array(randomBytes(length)) };
}

/**
 * A deterministic stream: SHA-256(seed || counter) blocks. For tests and reproducible renders only; anyone
 * who knows the seed knows every secret drawn from it.
 */
export function seededRandomSource(seed: string | Uint8Array): RandomSource {
  const seedBytes = typeof seed === 'string' ? new TextEncoder().encode(seed) : seed;
  let counter = 0n;
  let pool = new Uint8Array(0);
  const refill = (): void => {
    const counterBytes = new Uint8Array(8);
    new DataView(counterBytes.buffer).setBigUint64(0, counter);
    counter += 1n;
    const block = createHash('sha256').update(seedBytes).update(counterBytes).digest();
    const next = new Uint8Array(pool.length + block.length);
    next.set(pool);
    next.set(block, pool.length);
    pool = next;
  };
  return {
    bytes(length) {
      while (pool.length < length) refill();
      const out = pool.slice(0, length);
      pool = pool.slice(length);
      return out;
    },
  };
}

const LOWER_ALNUM = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** `length` characters from [a-z0-9], without modulo bias (bytes >= 252 are redrawn). */
export function randomLowerAlnum(random: RandomSource, length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of random.bytes(length - out.length)) {
      if (byte < 252) out += LOWER_ALNUM[byte % 36];
      if (out.length === length) break;
    }
  }
  return out;
}

/** A positive, non-zero 128-bit certificate serial number as hex (RFC 5280 allows up to 20 octets). */
export function randomSerialNumber(random: RandomSource): string {
  const bytes = random.bytes(16);
  bytes[0] = ((bytes[0] ?? 0) & 0x7f) | 0x40;
  return Buffer.from(bytes).toString('hex');
}
