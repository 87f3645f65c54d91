// Just enough of the Kubernetes protobuf encoding to read a small request body: the `k8s\0` envelope around a
// runtime.Unknown (typeMeta, raw), and the protobuf wire format's fields
// (https://kubernetes.io/docs/reference/using-api/api-concepts/#protobuf-encoding,
// https://protobuf.dev/programming-guides/encoding/). Used where a client sends protobuf and cannot fall back.
import { ApiError } from './store.js';

const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/** Length-delimited and varint fields of one message, by field number, in order (repeated fields repeat). */
export type ProtoFields = Map<number, Array<Buffer | bigint>>;

function malformed(): ApiError {
  return new ApiError(400, 'BadRequest', 'the protobuf body could not be decoded');
}

function varint(buf: Buffer, at: number): [bigint, number] {
  let value = 0n;
  for (let shift = 0n, i = at; i < buf.length && shift < 70n; shift += 7n, i++) {
    const b = buf[i] ?? 0;
    value |= BigInt(b & 0x7f) << shift;
    if ((b & 0x80) === 0) return [value, i + 1];
  }
  throw malformed();
}

export function decodeMessage(buf: Buffer): ProtoFields {
  const out: ProtoFields = new Map();
  let at = 0;
  while (at < buf.length) {
    const [tag, next] = varint(buf, at);
    at = next;
    const field = Number(tag >> 3n);
    const wire = Number(tag & 7n);
    let value: Buffer | bigint;
    if (wire === 0) [value, at] = varint(buf, at);
    else if (wire === 2) {
      const [len, start] = varint(buf, at);
      const end = start + Number(len);
      if (end > buf.length) throw malformed();
      value = buf.subarray(start, end);
      at = end;
    } else if (wire === 1) [value, at] = [buf.subarray(at, at + 8), at + 8];
    else if (wire === 5) [value, at] = [buf.subarray(at, at + 4), at + 4];
    else throw malformed();
    out.set(field, [...(out.get(field) ?? []), value]);
  }
  return out;
}

/** The string in field `n`, if any. */
export function str(fields: ProtoFields | undefined, n: number): string | undefined {
  const v = fields?.get(n)?.[0];
  return Buffer.isBuffer(v) ? v.toString('utf8') : undefined;
}

/** The embedded message in field `n`, if any. */
export function message(fields: ProtoFields | undefined, n: number): ProtoFields | undefined {
  const v = fields?.get(n)?.[0];
  return Buffer.isBuffer(v) ? decodeMessage(v) : undefined;
}

/** The envelope's apiVersion, kind and the object's own message. */
export function decodeEnvelope(body: Buffer): { apiVersion: string; kind: string; object: ProtoFields } {
  if (body.length < 4 || !body.subarray(0, 4).equals(MAGIC)) throw malformed();
  const unknown = decodeMessage(body.subarray(4));
  const typeMeta = message(unknown, 1);
  const raw = unknown.get(2)?.[0];
  return { apiVersion: str(typeMeta, 1) ?? '', kind: str(typeMeta, 2) ?? '', object: decodeMessage(Buffer.isBuffer(raw) ? raw : Buffer.alloc(0)) };
}
