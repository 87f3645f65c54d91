// The DER (ITU-T X.690) that kubeplane's certificates need, and no more: the few universal types of an RFC 5280
// certificate, context tags, and reading the top-level elements of a SEQUENCE. Keys, their SubjectPublicKeyInfo and
// signatures come from node:crypto; this only lays out the bytes around them.

/** A tag-length-value: the tag byte, then the length in DER's shortest form (X.690 8.1.3), then the contents. */
export function tlv(tag: number, contents: Uint8Array): Buffer {
  const n = contents.length;
  let length: number[];
  if (n < 0x80) length = [n];
  else {
    const bytes: number[] = [];
    for (let rest = n; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
    length = [0x80 | bytes.length, ...bytes];
  }
  return Buffer.concat([Buffer.from([tag, ...length]), contents]);
}

export const sequence = (...items: Uint8Array[]): Buffer => tlv(0x30, Buffer.concat(items));
export const set = (...items: Uint8Array[]): Buffer => tlv(0x31, Buffer.concat(items));
export const octetString = (bytes: Uint8Array): Buffer => tlv(0x04, bytes);
export const nullValue = (): Buffer => tlv(0x05, new Uint8Array());
export const booleanTrue = (): Buffer => tlv(0x01, Buffer.from([0xff]));
/** `[n] EXPLICIT`: the element wrapped in a constructed context tag. */
export const explicit = (n: number, inner: Uint8Array): Buffer => tlv(0xa0 | n, inner);
/** `[n] IMPLICIT` of a primitive type: the contents under a primitive context tag. */
export const implicit = (n: number, contents: Uint8Array): Buffer => tlv(0x80 | n, contents);

/** An INTEGER from unsigned big-endian bytes: leading zeros dropped, one put back where the top bit would read as a sign. */
export function unsignedInteger(bytes: Uint8Array): Buffer {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  const value = Buffer.from(bytes.subarray(start));
  return tlv(0x02, (value[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.from([0]), value]) : value);
}

export function smallInteger(value: number): Buffer {
  if (!Number.isInteger(value) || value < 0 || value > 127) throw new RangeError(`smallInteger: ${value} is not in 0..127`);
  return tlv(0x02, Buffer.from([value]));
}

/** An OBJECT IDENTIFIER from its dotted form (X.690 8.19: the first two arcs in one byte, then base 128). */
export function oid(dotted: string): Buffer {
  const arcs = dotted.split('.').map(Number);
  const [first = 0, second = 0, ...rest] = arcs;
  const out: number[] = [first * 40 + second];
  for (const arc of rest) {
    const groups: number[] = [arc & 0x7f];
    for (let v = Math.floor(arc / 128); v > 0; v = Math.floor(v / 128)) groups.unshift(0x80 | (v & 0x7f));
    out.push(...groups);
  }
  return tlv(0x06, Buffer.from(out));
}

/** A BIT STRING of whole bytes (a signature, a public key): no unused bits. */
export const bitString = (bytes: Uint8Array): Buffer => tlv(0x03, Buffer.concat([Buffer.from([0]), bytes]));

/**
 * A named BIT STRING (KeyUsage) from the numbers of its set bits, bit 0 first: DER drops trailing zero bits and says
 * how many of the last byte's bits are unused (X.690 11.2.2).
 */
export function namedBits(bits: readonly number[]): Buffer {
  const top = Math.max(...bits);
  const bytes = Buffer.alloc(Math.floor(top / 8) + 1);
  for (const b of bits) bytes[Math.floor(b / 8)] = (bytes[Math.floor(b / 8)] ?? 0) | (0x80 >> (b % 8));
  return tlv(0x03, Buffer.concat([Buffer.from([7 - (top % 8)]), bytes]));
}

/** PrintableString when every character is in its set (X.680 41.4), UTF8String otherwise. */
export function directoryString(value: string): Buffer {
  return /^[A-Za-z0-9 '()+,\-./:=?]*$/.test(value) ? tlv(0x13, Buffer.from(value, 'ascii')) : tlv(0x0c, Buffer.from(value, 'utf8'));
}

/** RFC 5280 4.1.2.5: UTCTime through 2049, GeneralizedTime from 2050; to the second, in UTC. */
export function time(date: Date): Buffer {
  const iso = date.toISOString(); // YYYY-MM-DDTHH:MM:SS.sssZ
  const digits = `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}Z`;
  const year = date.getUTCFullYear();
  return year < 2050 ? tlv(0x17, Buffer.from(digits.slice(2), 'ascii')) : tlv(0x18, Buffer.from(digits, 'ascii'));
}

export interface Element {
  tag: number;
  /** The whole element, header included. */
  der: Buffer;
  contents: Buffer;
}

/** The elements one after another in `bytes` (the contents of a SEQUENCE or SET). */
export function elements(bytes: Buffer): Element[] {
  const out: Element[] = [];
  let at = 0;
  while (at < bytes.length) {
    const tag = bytes[at] ?? 0;
    let length = bytes[at + 1] ?? 0;
    let header = 2;
    if (length & 0x80) {
      const count = length & 0x7f;
      if (count === 0 || count > 4) throw new Error('DER: unsupported length form');
      length = 0;
      for (let i = 0; i < count; i++) length = length * 256 + (bytes[at + 2 + i] ?? 0);
      header += count;
    }
    if (at + header + length > bytes.length) throw new Error('DER: an element runs past its container');
    out.push({ tag, der: bytes.subarray(at, at + header + length), contents: bytes.subarray(at + header, at + header + length) });
    at += header + length;
  }
  return out;
}

/** The one element `bytes` holds, checked to be of `tag`. */
export function only(bytes: Buffer, tag: number): Element {
  const [first, ...rest] = elements(bytes);
  if (!first || rest.length > 0 || first.tag !== tag) throw new Error(`DER: expected one element of tag 0x${tag.toString(16)}`);
  return first;
}
