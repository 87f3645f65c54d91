// JSON patch (RFC 6902), as the API server applies `application/json-patch+json` bodies (it uses
// evanphx/json-patch: apimachinery's endpoints/handlers/patch.go, jsonPatcher). A failing operation fails the
// whole patch and leaves the object as it was.
import { ApiError, clone, obj } from './store.js';

type Doc = unknown;

function unescapePointerToken(token: string): string {
  // RFC 6901 §4: `~1` is `/`, then `~0` is `~` (in that order).
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}

function tokens(pointer: unknown, op: string): string[] {
  if (typeof pointer !== 'string') throw failed(`${op} operation does not apply: doc is missing path: ""`);
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw failed(`${op} operation does not apply: doc is missing path: "${pointer}"`);
  return pointer.slice(1).split('/').map(unescapePointerToken);
}

function failed(_why: string): ApiError {
  // A patch that does not apply is a generic 422 Invalid (handlers/patch.go: errors.NewGenericServerResponse(
  // http.StatusUnprocessableEntity, ...)), which keeps the patch library's message out of the Status: clients see
  // only "the server rejected our request due to an error in our request". `_why` says what failed, for readers.
  return new ApiError(422, 'Invalid', 'the server rejected our request due to an error in our request');
}

function arrayIndex(token: string, length: number, forInsert: boolean, op: string, path: string): number {
  if (forInsert && token === '-') return length;
  if (!/^(0|[1-9][0-9]*)$/.test(token)) throw failed(`${op} operation does not apply: doc is missing path: "${path}": invalid index`);
  const i = Number(token);
  if (i > length || (!forInsert && i === length)) throw failed(`${op} operation does not apply: doc is missing path: "${path}": index out of bounds`);
  return i;
}

/** The container holding the last token of `path` and that token; throws when a parent is missing. */
function parentOf(doc: Doc, parts: string[], op: string, path: string): { parent: Json | unknown[]; key: string } {
  let cur: unknown = doc;
  for (const t of parts.slice(0, -1)) {
    if (Array.isArray(cur)) cur = cur[arrayIndex(t, cur.length, false, op, path)];
    else if (obj(cur) && Object.hasOwn(obj(cur) as Json, t)) cur = (cur as Json)[t];
    else throw failed(`${op} operation does not apply: doc is missing path: "${path}"`);
  }
  if (!Array.isArray(cur) && !obj(cur)) throw failed(`${op} operation does not apply: doc is missing path: "${path}"`);
  return { parent: cur as Json | unknown[], key: parts[parts.length - 1] ?? '' };
}

type Json = Record<string, unknown>;

function getAt(doc: Doc, path: string, op: string): unknown {
  let cur: unknown = doc;
  const parts = tokens(path, op);
  for (const t of parts) {
    if (Array.isArray(cur)) cur = cur[arrayIndex(t, cur.length, false, op, path)];
    else if (obj(cur) && Object.hasOwn(obj(cur) as Json, t)) cur = (cur as Json)[t];
    else throw failed(`${op} operation does not apply: doc is missing path: "${path}"`);
  }
  return cur;
}

function add(doc: Doc, path: string, value: unknown, op = 'add'): Doc {
  const parts = tokens(path, op);
  if (parts.length === 0) return clone(value);
  const { parent, key } = parentOf(doc, parts, op, path);
  if (Array.isArray(parent)) parent.splice(arrayIndex(key, parent.length, true, op, path), 0, clone(value));
  else parent[key] = clone(value);
  return doc;
}

function remove(doc: Doc, path: string, op = 'remove'): Doc {
  const parts = tokens(path, op);
  if (parts.length === 0) throw failed(`${op} operation does not apply: cannot remove the whole document`);
  const { parent, key } = parentOf(doc, parts, op, path);
  if (Array.isArray(parent)) parent.splice(arrayIndex(key, parent.length, false, op, path), 1);
  else {
    if (!Object.hasOwn(parent, key)) throw failed(`${op} operation does not apply: doc is missing key: ${path}`);
    delete parent[key];
  }
  return doc;
}

/** RFC 6902 §4.6: JSON values are equal when of the same type and equal by value (object member order aside). */
function equal(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) || Array.isArray(b)) return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => equal(x, b[i]));
  const oa = obj(a);
  const ob = obj(b);
  if (oa || ob) {
    if (!oa || !ob) return false;
    const ka = Object.keys(oa);
    return ka.length === Object.keys(ob).length && ka.every((k) => Object.hasOwn(ob, k) && equal(oa[k], ob[k]));
  }
  return a === b;
}

/** Applies the RFC 6902 operations in `patch` to a copy of `target`. */
export function jsonPatch(target: unknown, patch: unknown): unknown {
  if (!Array.isArray(patch)) throw new ApiError(400, 'BadRequest', 'the JSON patch body must be an array of operations');
  let doc: Doc = clone(target);
  for (const raw of patch) {
    const o = obj(raw);
    const op = typeof o?.['op'] === 'string' ? o['op'] : '';
    const path = o?.['path'];
    switch (op) {
      case 'add':
        if (!o || !Object.hasOwn(o, 'value')) throw failed('add operation does not apply: missing value');
        doc = add(doc, String(path), o['value']);
        break;
      case 'remove':
        doc = remove(doc, String(path));
        break;
      case 'replace': {
        if (!o || !Object.hasOwn(o, 'value')) throw failed('replace operation does not apply: missing value');
        getAt(doc, String(path), 'replace');
        const parts = tokens(path, 'replace');
        if (parts.length === 0) doc = clone(o['value']);
        else {
          const { parent, key } = parentOf(doc, parts, 'replace', String(path));
          if (Array.isArray(parent)) parent[arrayIndex(key, parent.length, false, 'replace', String(path))] = clone(o['value']);
          else parent[key] = clone(o['value']);
        }
        break;
      }
      case 'move': {
        const from = String(o?.['from']);
        // RFC 6902 §4.4: a location cannot be moved into one of its children.
        if (String(path).startsWith(`${from}/`)) throw failed(`move operation does not apply: cannot move "${from}" into its own child "${String(path)}"`);
        const value = getAt(doc, from, 'move');
        doc = remove(doc, from, 'move');
        doc = add(doc, String(path), value, 'move');
        break;
      }
      case 'copy':
        doc = add(doc, String(path), getAt(doc, String(o?.['from']), 'copy'), 'copy');
        break;
      case 'test':
        if (!equal(getAt(doc, String(path), 'test'), o?.['value'])) throw failed(`testing value ${String(path)} failed: test failed`);
        break;
      default:
        throw failed(`Unexpected kind: ${op}`);
    }
  }
  return doc;
}
