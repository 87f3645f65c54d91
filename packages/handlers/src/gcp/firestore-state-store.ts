// The engine's StateStore port on Firestore: one document per key in the `<prefix>-state` collection, every write a
// compare-and-swap on the stored revision (and, for a fenced write, the highest lease token written so far).
// Records above 256 KiB are gzipped (a document may hold 1 MiB); a deleted key stays as a tombstone with its last
// revision and fence, so the key's next life continues both (see Versioned and PutOptions in the sdk).
//
// Why update-time preconditions and not transactions: a write reads the document, checks revision and fence here,
// then commits with `currentDocument.updateTime` equal to what it read (or `exists: false` for a document never
// written). Any write in between changes the update time, so the commit fails with FAILED_PRECONDITION and nothing is
// written — a compare-and-swap in one read and one commit. A Firestore transaction would do the same with two more
// round trips (BeginTransaction, and a rollback on failure) and, on the server libraries, pessimistic locks that make
// racing steps wait on each other instead of failing fast, which is what the engine wants (it re-reads and retries).
// https://firebase.google.com/docs/firestore/reference/rest/v1/Precondition
import { gunzipSync, gzipSync } from 'node:zlib';
import { FieldValue, type DocumentSnapshot, type Firestore, type Precondition } from '@google-cloud/firestore';
import { checkKey, fenced, KubeplaneError, revisionConflict, type PutOptions, type StateStore, type Versioned } from '@kubeplane/sdk';
import { firestoreClient, googleStatus, type GoogleClientOptions } from './google-clients.js';

const COMPRESS_ABOVE = 256 * 1024;
/** Firestore's largest document is 1 MiB (1,048,576 bytes) including field names and the name; keep a margin. */
const MAX_STORED_BYTES = 1_000_000;

export interface FirestoreOptions extends GoogleClientOptions {
  /** The collection (default `kubeplane-state`). */
  collection?: string;
  /** A client made elsewhere (shared by the adapters of one runtime). */
  firestore?: Firestore;
}

/** The fields of a state document. A tombstone has `deleted: true` and no body. */
interface StateDoc {
  key: string;
  rev: number;
  fence?: number;
  deleted?: boolean;
  doc?: string;
  docz?: Buffer;
}

/**
 * A key as a document id, reversibly: `/` separates path segments in Firestore names, so it is percent-encoded
 * (`clusters%2Fprod`); keys hold no `%` (checkKey), so decoding is exact. Ids may not be `.`, `..` or `__.*__`, which a
 * valid key never is. https://firebase.google.com/docs/firestore/quotas#collections_documents_and_fields
 */
export const encodeDocumentId = (key: string): string => key.replaceAll('/', '%2F');
export const decodeDocumentId = (id: string): string => id.replaceAll('%2F', '/');

export class FirestoreStateStore implements StateStore {
  readonly firestore: Firestore;
  readonly collection: string;

  constructor(options: FirestoreOptions) {
    this.firestore = options.firestore ?? firestoreClient(options);
    this.collection = options.collection ?? 'kubeplane-state';
  }

  #ref(key: string) {
    return this.firestore.collection(this.collection).doc(encodeDocumentId(key));
  }

  async get<T>(key: string): Promise<Versioned<T> | null> {
    checkKey(key);
    const snap = await this.#ref(key).get();
    const data = snap.data() as StateDoc | undefined;
    if (!data || data.deleted) return null;
    return { value: decode(data) as T, revision: data.rev };
  }

  async put<T>(key: string, value: T, expectedRevision: number, options: PutOptions = {}): Promise<number> {
    checkKey(key);
    const body = encode(key, value);
    const snap = await this.#ref(key).get();
    const stored = snap.data() as StateDoc | undefined;
    const live = stored && !stored.deleted ? stored.rev : 0;
    if (live !== expectedRevision) throw this.#refusal(key, expectedRevision, options.fence, stored);
    if (options.fence !== undefined && stored?.fence !== undefined && stored.fence > options.fence) throw fenced(key, options.fence, stored.fence);
    const rev = (stored?.rev ?? 0) + 1; // a tombstone's revision continues
    const fence = options.fence ?? stored?.fence;
    const next: Record<string, unknown> = { key, rev, deleted: false, ...body, ...(body.doc !== undefined ? { docz: FieldValue.delete() } : { doc: FieldValue.delete() }) };
    if (fence !== undefined) next.fence = fence;
    await this.#commit(key, snap, next, expectedRevision, options.fence);
    return rev;
  }

  async delete(key: string, expectedRevision: number, options: PutOptions = {}): Promise<void> {
    checkKey(key);
    const snap = await this.#ref(key).get();
    const stored = snap.data() as StateDoc | undefined;
    const live = stored && !stored.deleted ? stored.rev : 0;
    if (live !== expectedRevision) throw this.#refusal(key, expectedRevision, options.fence, stored);
    if (expectedRevision === 0) return; // missing, and meant to be
    if (options.fence !== undefined && stored?.fence !== undefined && stored.fence > options.fence) throw fenced(key, options.fence, stored.fence);
    const fence = options.fence ?? stored?.fence;
    // The tombstone: revision and fence stay, the body goes (a deleted cluster's state must not linger).
    const next: Record<string, unknown> = { key, rev: stored?.rev ?? 0, deleted: true, doc: FieldValue.delete(), docz: FieldValue.delete() };
    if (fence !== undefined) next.fence = fence;
    await this.#commit(key, snap, next, expectedRevision, options.fence);
  }

  /** Writes `next` only if the document is still as `snap` saw it; a change in between is the caller's conflict. */
  async #commit(key: string, snap: DocumentSnapshot, next: Record<string, unknown>, expectedRevision: number, fence: number | undefined): Promise<void> {
    const ref = this.#ref(key);
    try {
      if (!snap.exists) {
        // exists: false — of concurrent first writers, one creates and the rest get ALREADY_EXISTS.
        await ref.create(Object.fromEntries(Object.entries(next).filter(([, v]) => !(v instanceof FieldValue))));
      } else {
        const precondition: Precondition = { lastUpdateTime: snap.updateTime! };
        await ref.update(next, precondition);
      }
    } catch (e) {
      const code = googleStatus(e);
      if (code !== 'ALREADY_EXISTS' && code !== 'FAILED_PRECONDITION') throw e;
      const now = (await ref.get()).data() as StateDoc | undefined;
      throw this.#refusal(key, expectedRevision, fence, now);
    }
  }

  #refusal(key: string, expectedRevision: number, fence: number | undefined, stored: StateDoc | undefined): Error {
    if (fence !== undefined && stored?.fence !== undefined && stored.fence > fence) return fenced(key, fence, stored.fence);
    return revisionConflict(key, expectedRevision, stored && !stored.deleted ? stored.rev : 0);
  }

  /**
   * Keys starting with `prefix`, sorted: a range query on the `key` field (automatically indexed), tombstones left out
   * here rather than by a second filter, which would need a composite index.
   */
  async list(prefix: string): Promise<string[]> {
    const keys: string[] = [];
    const pageSize = 500;
    let query = this.firestore.collection(this.collection).where('key', '>=', prefix).orderBy('key').limit(pageSize);
    if (prefix !== '') query = this.firestore.collection(this.collection).where('key', '>=', prefix).where('key', '<', `${prefix}\uf8ff`).orderBy('key').limit(pageSize);
    for (;;) {
      const page = await query.select('key', 'deleted').get();
      for (const d of page.docs) {
        const data = d.data() as Pick<StateDoc, 'key' | 'deleted'>;
        if (!data.deleted) keys.push(data.key ?? decodeDocumentId(d.id));
      }
      if (page.size < pageSize) break;
      query = query.startAfter(page.docs[page.docs.length - 1]!);
    }
    return keys.sort();
  }
}

function encode(key: string, value: unknown): { doc: string; docz?: never } | { docz: Buffer; doc?: never } {
  const json = JSON.stringify(value);
  if (Buffer.byteLength(json) <= COMPRESS_ABOVE) return { doc: json };
  const docz = gzipSync(json);
  if (docz.length > MAX_STORED_BYTES) {
    throw new KubeplaneError('invalid', `state "${key}" is ${docz.length} bytes even compressed, more than a Firestore document holds (1 MiB)`, { resource: key, code: 'TooLarge' });
  }
  return { docz };
}

function decode(data: StateDoc): unknown {
  if (data.docz) return JSON.parse(gunzipSync(data.docz).toString('utf8'));
  return JSON.parse(data.doc ?? 'null');
}
