// StructuredQuery (google/firestore/v1/query.proto) over stored documents: from (a collection id, all descendants or
// not), where (field, composite and unary filters), order by with Firestore's implicit orders, cursors, offset, limit.
import { invalidArgument, type Json } from './api.js';
import { compareNames, compareValues, equalValues, getField, splitFieldPath, typeRank, type FsFields, type FsValue } from './firestore-values.js';

export interface StoredDoc {
  name: string;
  fields: FsFields;
}

interface Order {
  path: string;
  segs: string[];
  descending: boolean;
}

const NAME = '__name__';

function valueAt(doc: StoredDoc, order: Pick<Order, 'path' | 'segs'>): FsValue | undefined {
  return order.path === NAME ? { referenceValue: doc.name } : getField(doc.fields, order.segs);
}

function fieldPath(f: unknown): string {
  const path = (f as Json | undefined)?.fieldPath;
  if (typeof path !== 'string' || path === '') throw invalidArgument('A filter or order is missing its field path.');
  return path;
}

function matches(doc: StoredDoc, filter: Json): boolean {
  if (filter.compositeFilter) {
    const c = filter.compositeFilter as Json;
    const parts = (c.filters as Json[] | undefined) ?? [];
    return c.op === 'OR' ? parts.some((f) => matches(doc, f)) : parts.every((f) => matches(doc, f));
  }
  if (filter.unaryFilter) {
    const u = filter.unaryFilter as Json;
    const path = fieldPath(u.field);
    const v = path === NAME ? { referenceValue: doc.name } : getField(doc.fields, splitFieldPath(path));
    const isNan = v !== undefined && 'doubleValue' in v && Number.isNaN(Number(v.doubleValue));
    switch (u.op) {
      case 'IS_NULL':
        return v !== undefined && 'nullValue' in v;
      case 'IS_NOT_NULL':
        return v !== undefined && !('nullValue' in v);
      case 'IS_NAN':
        return isNan;
      case 'IS_NOT_NAN':
        return v !== undefined && !isNan && !('nullValue' in v);
      default:
        throw invalidArgument(`Unsupported unary filter operator ${String(u.op)}.`);
    }
  }
  if (filter.fieldFilter) {
    const f = filter.fieldFilter as Json;
    const path = fieldPath(f.field);
    const v = path === NAME ? { referenceValue: doc.name } : getField(doc.fields, splitFieldPath(path));
    const want = f.value as FsValue;
    // A document without the field never matches a field filter (https://firebase.google.com/docs/firestore/query-data/queries).
    if (v === undefined) return false;
    const list = (): FsValue[] => ((want.arrayValue as Json | undefined)?.values as FsValue[] | undefined) ?? [];
    const elements = (): FsValue[] => ('arrayValue' in v ? (((v.arrayValue as Json).values as FsValue[] | undefined) ?? []) : []);
    // Range and (in)equality filters only match values of the same type (numbers being one type).
    const sameType = typeRank(v) === typeRank(want);
    switch (f.op) {
      case 'EQUAL':
        return equalValues(v, want);
      case 'NOT_EQUAL':
        return !('nullValue' in v) && !equalValues(v, want);
      case 'LESS_THAN':
        return sameType && compareValues(v, want) < 0;
      case 'LESS_THAN_OR_EQUAL':
        return sameType && compareValues(v, want) <= 0;
      case 'GREATER_THAN':
        return sameType && compareValues(v, want) > 0;
      case 'GREATER_THAN_OR_EQUAL':
        return sameType && compareValues(v, want) >= 0;
      case 'IN':
        return list().some((w) => equalValues(v, w));
      case 'NOT_IN':
        return !('nullValue' in v) && !list().some((w) => equalValues(v, w));
      case 'ARRAY_CONTAINS':
        return elements().some((e) => equalValues(e, want));
      case 'ARRAY_CONTAINS_ANY':
        return elements().some((e) => list().some((w) => equalValues(e, w)));
      default:
        throw invalidArgument(`Unsupported field filter operator ${String(f.op)}.`);
    }
  }
  return true;
}

const INEQUALITIES = new Set(['LESS_THAN', 'LESS_THAN_OR_EQUAL', 'GREATER_THAN', 'GREATER_THAN_OR_EQUAL', 'NOT_EQUAL', 'NOT_IN']);

function inequalityFields(filter: Json | undefined, out: string[] = []): string[] {
  if (!filter) return out;
  if (filter.compositeFilter) for (const f of ((filter.compositeFilter as Json).filters as Json[] | undefined) ?? []) inequalityFields(f, out);
  if (filter.fieldFilter) {
    const f = filter.fieldFilter as Json;
    const path = fieldPath(f.field);
    if (INEQUALITIES.has(f.op as string) && !out.includes(path)) out.push(path);
  }
  return out;
}

/**
 * The query's total order: its orderBy, then fields of inequality filters not ordered (ascending, by name), then
 * __name__ in the direction of the last order (https://firebase.google.com/docs/firestore/query-data/order-limit-data).
 * A document lacking an ordered field is not in the result.
 */
function ordersOf(query: Json): Order[] {
  const orders: Order[] = ((query.orderBy as Json[] | undefined) ?? []).map((o) => {
    const path = fieldPath(o.field);
    return { path, segs: path === NAME ? [] : splitFieldPath(path), descending: o.direction === 'DESCENDING' };
  });
  for (const path of inequalityFields(query.where as Json | undefined).sort()) {
    if (!orders.some((o) => o.path === path)) orders.push({ path, segs: splitFieldPath(path), descending: false });
  }
  if (!orders.some((o) => o.path === NAME)) orders.push({ path: NAME, segs: [], descending: orders[orders.length - 1]?.descending ?? false });
  return orders;
}

function compareDocs(a: StoredDoc, b: StoredDoc, orders: Order[]): number {
  for (const o of orders) {
    const c = o.path === NAME ? compareNames(a.name, b.name) : compareValues(valueAt(a, o) as FsValue, valueAt(b, o) as FsValue);
    if (c !== 0) return o.descending ? -c : c;
  }
  return 0;
}

/** Where a document stands against a cursor's values: <0 before, 0 at, >0 after (in the query's order). */
function againstCursor(doc: StoredDoc, cursor: Json, orders: Order[]): number {
  const values = (cursor.values as FsValue[] | undefined) ?? [];
  for (let i = 0; i < values.length; i += 1) {
    const o = orders[i];
    if (!o) throw invalidArgument('Too many cursor values: a cursor has at most one value per order by.');
    const v = values[i] as FsValue;
    const c = o.path === NAME ? compareNames(doc.name, (v.referenceValue as string) ?? '') : compareValues(valueAt(doc, o) as FsValue, v);
    if (c !== 0) return o.descending ? -c : c;
  }
  return 0;
}

function limitOf(limit: unknown): number | undefined {
  if (limit === undefined || limit === null) return undefined;
  const n = typeof limit === 'object' ? (limit as Json).value : limit;
  return typeof n === 'number' ? n : Number(n);
}

/**
 * Runs `query` over `docs` (all documents of the database) for the parent `parent` (a database's `documents` or a
 * document's name).
 */
export function runStructuredQuery(parent: string, query: Json, docs: Iterable<StoredDoc>): StoredDoc[] {
  const from = (query.from as Json[] | undefined) ?? [];
  if (from.length !== 1) throw invalidArgument('A query must select exactly one collection (from).');
  const selector = from[0] as Json;
  const collectionId = selector.collectionId as string | undefined;
  const descendants = selector.allDescendants === true;
  const orders = ordersOf(query);
  const where = query.where as Json | undefined;
  const candidates: StoredDoc[] = [];
  for (const doc of docs) {
    if (!doc.name.startsWith(`${parent}/`)) continue;
    const rest = doc.name.slice(parent.length + 1).split('/');
    if (!descendants && rest.length !== 2) continue;
    if (collectionId !== undefined && collectionId !== '' && rest[rest.length - 2] !== collectionId) continue;
    if (orders.some((o) => o.path !== NAME && valueAt(doc, o) === undefined)) continue;
    if (where && !matches(doc, where)) continue;
    candidates.push(doc);
  }
  candidates.sort((a, b) => compareDocs(a, b, orders));
  let result = candidates;
  const startAt = query.startAt as Json | undefined;
  if (startAt) result = result.filter((d) => (startAt.before === true ? againstCursor(d, startAt, orders) >= 0 : againstCursor(d, startAt, orders) > 0));
  const endAt = query.endAt as Json | undefined;
  if (endAt) result = result.filter((d) => (endAt.before === true ? againstCursor(d, endAt, orders) < 0 : againstCursor(d, endAt, orders) <= 0));
  const offset = typeof query.offset === 'number' ? query.offset : 0;
  const limit = limitOf(query.limit);
  result = result.slice(offset, limit === undefined ? undefined : offset + limit);
  return result;
}
