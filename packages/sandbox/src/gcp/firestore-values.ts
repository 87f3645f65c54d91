// Firestore's values (google/firestore/v1/document.proto's Value) as JSON: their total order, field paths, and the
// storage size Firestore bills and limits documents by.
import { invalidArgument, type Json } from './api.js';

/** A Value in its proto3 JSON form: exactly one of nullValue, booleanValue, integerValue (string), doubleValue, ... */
export type FsValue = Json;
export type FsFields = Record<string, FsValue>;

/**
 * The order of value types in queries and sorting (https://firebase.google.com/docs/firestore/manage-data/data-types#value_type_ordering):
 * null < booleans < numbers (integers and doubles together, NaN first) < timestamps < strings < bytes < references <
 * geo points < arrays < vectors < maps.
 */
export function typeRank(v: FsValue): number {
  if ('nullValue' in v) return 0;
  if ('booleanValue' in v) return 1;
  if ('integerValue' in v || 'doubleValue' in v) return 2;
  if ('timestampValue' in v) return 3;
  if ('stringValue' in v) return 4;
  if ('bytesValue' in v) return 5;
  if ('referenceValue' in v) return 6;
  if ('geoPointValue' in v) return 7;
  if ('arrayValue' in v) return 8;
  if ('mapValue' in v) return 10;
  return 11;
}

function numberOf(v: FsValue): number {
  return 'integerValue' in v ? Number(v.integerValue) : Number(v.doubleValue);
}

function timeKey(text: string): [number, number] {
  const m = /\.(\d+)Z$/i.exec(text);
  return [Date.parse(text.replace(/\.\d+Z$/i, 'Z')), m ? Number((m[1] as string).padEnd(9, '0').slice(0, 9)) : 0];
}

const cmp = (a: number | string, b: number | string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Compares two Values in Firestore's order. */
export function compareValues(a: FsValue, b: FsValue): number {
  const ra = typeRank(a);
  const rb = typeRank(b);
  if (ra !== rb) return ra - rb;
  switch (ra) {
    case 1:
      return cmp(Number(a.booleanValue), Number(b.booleanValue));
    case 2: {
      const x = numberOf(a);
      const y = numberOf(b);
      if (Number.isNaN(x)) return Number.isNaN(y) ? 0 : -1;
      if (Number.isNaN(y)) return 1;
      if ('integerValue' in a && 'integerValue' in b) {
        const bx = BigInt(a.integerValue as string);
        const by = BigInt(b.integerValue as string);
        return bx < by ? -1 : bx > by ? 1 : 0;
      }
      return cmp(x, y);
    }
    case 3: {
      const [sa, na] = timeKey(a.timestampValue as string);
      const [sb, nb] = timeKey(b.timestampValue as string);
      return cmp(sa, sb) || cmp(na, nb);
    }
    case 4:
      return Buffer.compare(Buffer.from(a.stringValue as string), Buffer.from(b.stringValue as string));
    case 5:
      return Buffer.compare(Buffer.from(a.bytesValue as string, 'base64'), Buffer.from(b.bytesValue as string, 'base64'));
    case 6:
      return compareNames(a.referenceValue as string, b.referenceValue as string);
    case 7: {
      const ga = a.geoPointValue as { latitude?: number; longitude?: number };
      const gb = b.geoPointValue as { latitude?: number; longitude?: number };
      return cmp(ga.latitude ?? 0, gb.latitude ?? 0) || cmp(ga.longitude ?? 0, gb.longitude ?? 0);
    }
    case 8: {
      const xa = ((a.arrayValue as Json).values as FsValue[] | undefined) ?? [];
      const xb = ((b.arrayValue as Json).values as FsValue[] | undefined) ?? [];
      for (let i = 0; i < Math.min(xa.length, xb.length); i += 1) {
        const c = compareValues(xa[i] as FsValue, xb[i] as FsValue);
        if (c !== 0) return c;
      }
      return xa.length - xb.length;
    }
    case 10: {
      const fa = ((a.mapValue as Json).fields as FsFields | undefined) ?? {};
      const fb = ((b.mapValue as Json).fields as FsFields | undefined) ?? {};
      const ka = Object.keys(fa).sort();
      const kb = Object.keys(fb).sort();
      for (let i = 0; i < Math.min(ka.length, kb.length); i += 1) {
        const c = cmp(ka[i] as string, kb[i] as string) || compareValues(fa[ka[i] as string] as FsValue, fb[kb[i] as string] as FsValue);
        if (c !== 0) return c;
      }
      return ka.length - kb.length;
    }
    default:
      return 0;
  }
}

/** Document names compare segment by segment. */
export function compareNames(a: string, b: string): number {
  const sa = a.split('/');
  const sb = b.split('/');
  for (let i = 0; i < Math.min(sa.length, sb.length); i += 1) {
    const c = Buffer.compare(Buffer.from(sa[i] as string), Buffer.from(sb[i] as string));
    if (c !== 0) return c;
  }
  return sa.length - sb.length;
}

export function equalValues(a: FsValue, b: FsValue): boolean {
  return typeRank(a) === typeRank(b) && compareValues(a, b) === 0;
}

/** A field path's segments: dot-separated, a segment in backquotes may hold any character (`a.\`b.c\``). */
export function splitFieldPath(path: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i <= path.length) {
    if (path[i] === '`') {
      let seg = '';
      i += 1;
      while (i < path.length && path[i] !== '`') {
        if (path[i] === '\\') i += 1;
        seg += path[i] ?? '';
        i += 1;
      }
      out.push(seg);
      i += 2;
    } else {
      const end = path.indexOf('.', i);
      out.push(path.slice(i, end === -1 ? path.length : end));
      i = end === -1 ? path.length + 1 : end + 1;
    }
  }
  if (out.some((s) => s === '')) throw invalidArgument(`Invalid field path: ${path}`);
  return out;
}

export function getField(fields: FsFields, path: string[]): FsValue | undefined {
  let at: FsFields | undefined = fields;
  for (let i = 0; i < path.length; i += 1) {
    const v: FsValue | undefined = at?.[path[i] as string];
    if (v === undefined) return undefined;
    if (i === path.length - 1) return v;
    at = 'mapValue' in v ? (((v.mapValue as Json).fields as FsFields | undefined) ?? {}) : undefined;
  }
  return undefined;
}

export function setField(fields: FsFields, path: string[], value: FsValue | undefined): void {
  let at = fields;
  for (const seg of path.slice(0, -1)) {
    let v = at[seg];
    if (!v || !('mapValue' in v)) {
      v = { mapValue: { fields: {} } };
      at[seg] = v;
    }
    const map = v.mapValue as Json;
    if (!map.fields) map.fields = {};
    at = map.fields as FsFields;
  }
  const last = path[path.length - 1] as string;
  if (value === undefined) delete at[last];
  else at[last] = value;
}

/**
 * A document's storage size (https://firebase.google.com/docs/firestore/storage-size): the name's size (each
 * segment's UTF-8 bytes + 1, + 16), its fields' (name + value), + 32; strings count UTF-8 bytes + 1, numbers,
 * timestamps and geo points 8 or 16, booleans and null 1, references their name's size.
 */
export function documentSize(name: string, fields: FsFields): number {
  const relative = name.replace(/^projects\/[^/]+\/databases\/[^/]+\/documents\//, '');
  return nameSize(relative) + fieldsSize(fields) + 32;
}

function nameSize(relative: string): number {
  return relative.split('/').reduce((n, s) => n + Buffer.byteLength(s) + 1, 0) + 16;
}

function fieldsSize(fields: FsFields): number {
  let n = 0;
  for (const [k, v] of Object.entries(fields)) n += Buffer.byteLength(k) + 1 + valueSize(v);
  return n;
}

function valueSize(v: FsValue): number {
  if ('stringValue' in v) return Buffer.byteLength(v.stringValue as string) + 1;
  if ('bytesValue' in v) return Buffer.from(v.bytesValue as string, 'base64').length;
  if ('integerValue' in v || 'doubleValue' in v || 'timestampValue' in v) return 8;
  if ('geoPointValue' in v) return 16;
  if ('referenceValue' in v) return nameSize((v.referenceValue as string).replace(/^projects\/[^/]+\/databases\/[^/]+\/documents\//, ''));
  if ('arrayValue' in v) return (((v.arrayValue as Json).values as FsValue[] | undefined) ?? []).reduce((n, x) => n + valueSize(x), 0);
  if ('mapValue' in v) return fieldsSize(((v.mapValue as Json).fields as FsFields | undefined) ?? {});
  return 1;
}

/** A deep copy (stored documents never share objects with requests or answers). */
export function copy<T>(value: T): T {
  return structuredClone(value);
}
