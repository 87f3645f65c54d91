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
// The read is usually already done: the engine writes a key on the revision it just read, so the store remembers,
// per key, the version it last read or wrote (revision, fence, update time) and commits on that without reading again.
// Should the document have changed since, the precondition fails as it would after a fresh read, and only then is the
// document read (to say whether the refusal is a revision conflict or a fence).
import { gunzipSync, gzipSync } from 'node:zlib';
import { FieldValue, type DocumentSnapshot, type Firestore, type Precondition, type Timestamp } from '@google-cloud/firestore';
import { checkKey, fenced, revisionConflict } from '@kubeplane/sdk/internal';
import { KubeplaneError, type PutOptions, type StateStore, type Versioned } from '@kubeplane/sdk';
import { firestoreClient, googleStatus, type GoogleClientOptions } from './google-clients.js';

const COMPRESS_ABOVE = 256 * 1024;
/** Firestore's largest document is 1 MiB (1,048,576 bytes) including field names and the name; keep a margin. */
const MAX_STORED_BYTES = 1_000_000;

/** The Firestore collection (or client) an adapter uses, with the Google client options. */
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
/** A state key from its Firestore document id. */
export const decodeDocumentId = (id: string): string => id.replaceAll('%2F', '/');

/** A document's version as this store last saw it: enough for a compare-and-swap without reading it again. */
interface Seen {
  /** Undefined: no document (its first write creates it). */
  updateTime: Timestamp | undefined;
  rev: number;
  fence: number | undefined;
  deleted: boolean;
}

/** Keys remembered at most (an instance serves many clusters over its life); the oldest are forgotten first. */
const SEEN_KEYS = 1000;

/** The engine's StateStore port on Firestore, every write a compare-and-swap on the stored revision. */
export class FirestoreStateStore implements StateStore {
  readonly firestore: Firestore;
  readonly collection: string;
  readonly #pageSize: number;
  readonly #seen = new Map<string, Seen>();

  constructor(options: FirestoreOptions & { listPageSize?: number }) {
    this.firestore = options.firestore ?? firestoreClient(options);
    this.collection = options.collection ?? 'kubeplane-state';
    this.#pageSize = options.listPageSize ?? 500;
  }

  #ref(key: string) {
    return this.firestore.collection(this.collection).doc(encodeDocumentId(key));
  }

  /** The value stored under a key with its revision, or null when there is none. */
  async get<T>(key: string): Promise<Versioned<T> | null> {
    checkKey(key);
    const snap = await this.#ref(key).get();
    const data = snap.data() as StateDoc | undefined;
    this.#remember(key, seenOf(snap));
    if (!data || data.deleted) return null;
    return { value: decode(data) as T, revision: data.rev };
  }

  #remember(key: string, seen: Seen): void {
    this.#seen.delete(key);
    this.#seen.set(key, seen);
    if (this.#seen.size > SEEN_KEYS) this.#seen.delete(this.#seen.keys().next().value as string);
  }

  /** The document's version: the one remembered when it is at the revision the writer expects, else read now. */
  async #current(key: string, expectedRevision: number): Promise<Seen> {
    const seen = this.#seen.get(key);
    if (seen && (seen.deleted ? 0 : seen.rev) === expectedRevision) return seen;
    const read = seenOf(await this.#ref(key).get());
    this.#remember(key, read);
    return read;
  }

  async put<T>(key: string, value: T, expectedRevision: number, options: PutOptions = {}): Promise<number> {
    checkKey(key);
    const body = encode(key, value);
    const stored = await this.#current(key, expectedRevision);
    const live = stored.deleted ? 0 : stored.rev;
    if (live !== expectedRevision) throw this.#refusal(key, expectedRevision, options.fence, stored);
    if (options.fence !== undefined && stored.fence !== undefined && stored.fence > options.fence) throw fenced(key, options.fence, stored.fence);
    const rev = stored.rev + 1; // a tombstone's revision continues
    const fence = options.fence ?? stored.fence;
    const next: Record<string, unknown> = {
      key,
      rev,
      deleted: false,
      ...body,
      ...(body.doc !== undefined ? { docz: FieldValue.delete() } : { doc: FieldValue.delete() }),
    };
    if (fence !== undefined) next.fence = fence;
    await this.#commit(key, stored, next, expectedRevision, options.fence, { rev, fence, deleted: false });
    return rev;
  }

  async delete(key: string, expectedRevision: number, options: PutOptions = {}): Promise<void> {
    checkKey(key);
    const stored = await this.#current(key, expectedRevision);
    const live = stored.deleted ? 0 : stored.rev;
    if (live !== expectedRevision) throw this.#refusal(key, expectedRevision, options.fence, stored);
    if (expectedRevision === 0) return; // missing, and meant to be
    if (options.fence !== undefined && stored.fence !== undefined && stored.fence > options.fence) throw fenced(key, options.fence, stored.fence);
    const fence = options.fence ?? stored.fence;
    // The tombstone: revision and fence stay, the body goes (a deleted cluster's state must not linger).
    const next: Record<string, unknown> = { key, rev: stored.rev, deleted: true, doc: FieldValue.delete(), docz: FieldValue.delete() };
    if (fence !== undefined) next.fence = fence;
    await this.#commit(key, stored, next, expectedRevision, options.fence, { rev: stored.rev, fence, deleted: true });
  }

  /**
   * Writes `next` only if the document is still at the version `seen` (its update time, or absent); a change in between
   * is the caller's conflict. On success the written version is remembered (`written`, at the write's update time).
   */
  async #commit(
    key: string,
    seen: Seen,
    next: Record<string, unknown>,
    expectedRevision: number,
    fence: number | undefined,
    written: Omit<Seen, 'updateTime'>,
  ): Promise<void> {
    const ref = this.#ref(key);
    try {
      // exists: false — of concurrent first writers, one creates and the rest get ALREADY_EXISTS.
      const result =
        seen.updateTime === undefined
          ? await ref.create(Object.fromEntries(Object.entries(next).filter(([, v]) => !(v instanceof FieldValue))))
          : await ref.update(next, { lastUpdateTime: seen.updateTime } satisfies Precondition);
      // A write's time is the document's new update time (WriteResult.update_time).
      this.#remember(key, { ...written, updateTime: result.writeTime });
    } catch (e) {
      this.#seen.delete(key);
      const code = googleStatus(e);
      if (code !== 'ALREADY_EXISTS' && code !== 'FAILED_PRECONDITION') throw e;
      const now = seenOf(await ref.get());
      this.#remember(key, now);
      throw this.#refusal(key, expectedRevision, fence, now);
    }
  }

  #refusal(key: string, expectedRevision: number, fence: number | undefined, stored: Seen): Error {
    if (fence !== undefined && stored.fence !== undefined && stored.fence > fence) return fenced(key, fence, stored.fence);
    return revisionConflict(key, expectedRevision, stored.deleted ? 0 : stored.rev);
  }

  /**
   * Keys starting with `prefix`, sorted: a range query on the `key` field (automatically indexed), tombstones left out
   * here rather than by a second filter, which would need a composite index.
   */
  async list(prefix: string): Promise<string[]> {
    const keys: string[] = [];
    const pageSize = this.#pageSize;
    let query = this.firestore.collection(this.collection).where('key', '>=', prefix).orderBy('key').limit(pageSize);
    if (prefix !== '')
      query = this.firestore.collection(this.collection).where('key', '>=', prefix).where('key', '<', `${prefix}\uf8ff`).orderBy('key').limit(pageSize);
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

function seenOf(snap: DocumentSnapshot): Seen {
  const data = snap.data() as StateDoc | undefined;
  if (!snap.exists || !data) return { updateTime: undefined, rev: 0, fence: undefined, deleted: true };
  return { updateTime: snap.updateTime, rev: data.rev, fence: data.fence, deleted: data.deleted === true };
}

function encode(key: string, value: unknown): { doc: string; docz?: never } | { docz: Buffer; doc?: never } {
  const json = JSON.stringify(value);
  if (Buffer.byteLength(json) <= COMPRESS_ABOVE) return { doc: json };
  const docz = gzipSync(json);
  if (docz.length > MAX_STORED_BYTES) {
    throw new KubeplaneError('invalid', `state "${key}" is ${docz.length} bytes even compressed, more than a Firestore document holds (1 MiB)`, {
      resource: key,
      code: 'TooLarge',
    });
  }
  return { docz };
}

function decode(data: StateDoc): unknown {
  if (data.docz) return JSON.parse(gunzipSync(data.docz).toString('utf8'));
  return JSON.parse(data.doc ?? 'null');
}
