// Firestore v1 (firestore.googleapis.com) in Native mode, any database of any project: documents with update times
// unique and increasing in microseconds, preconditions, writes with transforms, transactions (locking what they
// read, see firestore-locks.ts), structured queries, and the billed counts
// (https://cloud.google.com/firestore/pricing). Routes come from google/firestore/v1/firestore.proto's HTTP rules.
import { randomBytes } from 'node:crypto';
import type { HttpHandler } from 'msw';
import type { VirtualClock } from '@kubeplane/sdk/provider';
import { alreadyExists, failedPrecondition, GoogleRestService, invalidArgument, notFound, page, parseMicros, rfc3339Micros, type Json } from './api.js';
import { runStructuredQuery } from './firestore-query.js';
import { aborted, DocumentLocks, type LockOwner } from './firestore-locks.js';
import { compareValues, copy, documentSize, getField, setField, splitFieldPath, typeRank, type FsFields, type FsValue } from './firestore-values.js';

export const FIRESTORE_HOST = 'firestore.googleapis.com';

/** "Maximum size for a document: 1 MiB (1,048,576 bytes)" (https://firebase.google.com/docs/firestore/quotas). */
const MAX_DOCUMENT_BYTES = 1_048_576;
/** "Maximum number of writes that can be passed to a Commit operation ... 500" was lifted; the request size (10 MiB) bounds it. */
const MAX_REQUEST_BYTES = 10 * 1_048_576;

interface Doc {
  name: string;
  fields: FsFields;
  createMicros: number;
  updateMicros: number;
}

interface Transaction extends LockOwner {
  database: string;
  beganMs: number;
  lastActiveMs: number;
  readOnly: boolean;
  /** Documents read in the transaction and their update time then (0: did not exist). */
  reads: Map<string, number>;
}

export interface FirestoreCounts {
  requests: number;
  /** Documents read as Firestore bills them: each document returned, a missing document looked up, a query at least one. */
  reads: number;
  writes: number;
  deletes: number;
}

/** Document and collection names: `projects/p/databases/d/documents/c/id(/c/id)*`. */
const DOC_NAME = /^(projects\/[^/]+\/databases\/[^/]+)\/documents\/((?:[^/]+\/[^/]+)(?:\/[^/]+\/[^/]+)*)$/;

function databaseOf(name: string): string {
  const m = DOC_NAME.exec(name);
  if (!m) throw invalidArgument(`Document name "${name}" lacks the format projects/{project}/databases/{database}/documents/{collection}/{document}.`);
  return m[1] as string;
}

/** Segments after `documents/`, to tell a document (even) from a collection (odd). */
function depth(path: string): number {
  const rest = path.split('/documents')[1] ?? '';
  return rest === '' ? 0 : rest.slice(1).split('/').length;
}

/**
 * Firestore v1 in Native mode (firestore.googleapis.com, REST from the vendored protos), any project and database:
 * documents with preconditions, transforms, transactions that lock what they read, structured queries, and billed
 * counts.
 */
export class FirestoreEmulator {
  readonly #docs = new Map<string, Doc>();
  readonly #transactions = new Map<string, Transaction>();
  readonly #clock: VirtualClock;
  readonly #counts: FirestoreCounts = { requests: 0, reads: 0, writes: 0, deletes: 0 };
  #lastMicros = 0;
  #transactionSeq = 0;
  readonly #locks: DocumentLocks;
  readonly #service: GoogleRestService;

  /** `lockWaitMs`: how long (wall time) a request waits for another transaction's lock before ABORTED (default 10 s). */
  constructor(options: { clock: VirtualClock; lockWaitMs?: number }) {
    this.#clock = options.clock;
    // "Transactions time out after 270 seconds or after 60 seconds of idle expiration time"
    // (https://firebase.google.com/docs/firestore/quotas#time_limits), on the sandbox's clock.
    this.#locks = new DocumentLocks(options.lockWaitMs ?? 10_000, (owner) => {
      const tx = this.#transactions.get(owner.id);
      const now = this.#clock.now();
      return !tx || now - tx.beganMs > 270_000 || now - tx.lastActiveMs > 60_000;
    });
    this.#service = new GoogleRestService(
      FIRESTORE_HOST,
      'google.firestore.v1.Firestore',
      {
        GetDocument: (r) => this.#getDocument(r),
        ListDocuments: (r) => this.#listDocuments(r),
        CreateDocument: (r) => this.#createDocument(r),
        UpdateDocument: (r) => this.#updateDocument(r),
        DeleteDocument: (r) => this.#deleteDocument(r),
        BatchGetDocuments: (r) => this.#batchGet(r),
        BeginTransaction: (r) => ({ transaction: this.#begin(r.database as string, (r.options as Json | undefined)?.readOnly !== undefined) }),
        Commit: (r) => this.#commit(r),
        Rollback: (r) => this.#rollback(r),
        RunQuery: (r) => this.#runQuery(r),
      },
      () => {
        this.#counts.requests += 1;
      },
      (method, vars) => {
        // The document and collection templates overlap (`documents/*/**`); the segment count tells them apart.
        if (method === 'GetDocument' || method === 'DeleteDocument') return depth(vars.name ?? '') % 2 === 0;
        if (method === 'UpdateDocument') return depth(vars['document.name'] ?? '') % 2 === 0;
        if (method === 'ListDocuments' || method === 'CreateDocument') return depth(vars.parent ?? '') % 2 === 0;
        return true;
      },
    );
  }

  /** The msw handler serving firestore.googleapis.com. */
  handler(): HttpHandler {
    return this.#service.handler();
  }

  /** Answers one request as firestore.googleapis.com would (what the msw handler calls). */
  handle(request: Request): Promise<Response> {
    return this.#service.handle(request);
  }

  /** Requests and billed document reads, writes and deletes so far. */
  counts(): FirestoreCounts {
    return { ...this.#counts };
  }

  /** A stored document's fields (a copy), for assertions; undefined when absent. */
  document(name: string): FsFields | undefined {
    const doc = this.#docs.get(name);
    return doc ? copy(doc.fields) : undefined;
  }

  /** Names of the stored documents under a prefix (a collection's name, say), sorted. */
  documentNames(prefix = ''): string[] {
    return [...this.#docs.keys()].filter((n) => n.startsWith(prefix)).sort();
  }

  /** A new update time: the clock's, in microseconds, after every earlier one (update times are unique per database). */
  #tick(): number {
    this.#lastMicros = Math.max(this.#clock.now() * 1000, this.#lastMicros + 1);
    return this.#lastMicros;
  }

  #view(doc: Doc, mask?: Json): Json {
    let fields = copy(doc.fields);
    const paths = (mask?.fieldPaths as string[] | undefined) ?? undefined;
    if (paths) {
      const picked: FsFields = {};
      for (const p of paths) {
        const segs = splitFieldPath(p);
        const v = getField(doc.fields, segs);
        if (v !== undefined) setField(picked, segs, copy(v));
      }
      fields = picked;
    }
    return { name: doc.name, fields, createTime: rfc3339Micros(doc.createMicros), updateTime: rfc3339Micros(doc.updateMicros) };
  }

  #transaction(id: unknown): Transaction {
    const tx = typeof id === 'string' ? this.#transactions.get(id) : undefined;
    if (!tx) throw invalidArgument('The referenced transaction has expired or is no longer valid.');
    if (tx.wounded) throw aborted();
    tx.lastActiveMs = this.#clock.now();
    return tx;
  }

  #begin(database: string, readOnly: boolean): string {
    const id = randomBytes(16).toString('base64');
    this.#transactionSeq += 1;
    const now = this.#clock.now();
    this.#transactions.set(id, { id, age: this.#transactionSeq, wounded: false, database, readOnly, reads: new Map(), beganMs: now, lastActiveMs: now });
    return id;
  }

  /** The transaction a read runs in (given, or begun by `newTransaction`), recording what it read. */
  #readTx(r: Json, database: string): { tx?: Transaction; begun?: string } {
    if (r.newTransaction !== undefined) {
      const begun = this.#begin(database, ((r.newTransaction as Json).readOnly ?? undefined) !== undefined);
      return { tx: this.#transactions.get(begun) as Transaction, begun };
    }
    if (r.transaction !== undefined) return { tx: this.#transaction(r.transaction) };
    return {};
  }

  /** Locks `names` for `tx`; a transaction that cannot get them is over (ABORTED), its other locks released. */
  async #lock(tx: Transaction, names: string[]): Promise<void> {
    try {
      for (const name of names) await this.#locks.acquire(tx, name);
    } catch (error) {
      this.#transactions.delete(tx.id);
      this.#locks.release(tx);
      throw error;
    }
  }

  async #getDocument(r: Json): Promise<Json> {
    const name = r.name as string;
    const tx = r.transaction !== undefined ? this.#transaction(r.transaction) : undefined;
    if (tx && !tx.readOnly) await this.#lock(tx, [name]);
    const doc = this.#docs.get(name);
    this.#counts.reads += 1;
    tx?.reads.set(name, doc?.updateMicros ?? 0);
    if (!doc) throw notFound(`Document "${name}" not found.`);
    return this.#view(doc, r.mask as Json | undefined);
  }

  #listDocuments(r: Json): Json {
    const prefix = `${r.parent as string}/${r.collectionId as string}/`;
    const all = [...this.#docs.values()]
      .filter((d) => d.name.startsWith(prefix) && !d.name.slice(prefix.length).includes('/'))
      .sort((a, b) => (a.name < b.name ? -1 : 1));
    const { items, nextPageToken } = page(all, r.pageSize, r.pageToken, 300);
    this.#counts.reads += Math.max(1, items.length);
    return { documents: items.map((d) => this.#view(d, r.mask as Json | undefined)), ...(nextPageToken ? { nextPageToken } : {}) };
  }

  #createDocument(r: Json): Json {
    const id = (r.documentId as string | undefined) || randomBytes(15).toString('base64url').slice(0, 20);
    const name = `${r.parent as string}/${r.collectionId as string}/${id}`;
    const document = (r.document as Json | undefined) ?? {};
    this.#apply(databaseOf(name), [{ update: { ...document, name }, currentDocument: { exists: false } }]);
    return this.#view(this.#docs.get(name) as Doc, r.mask as Json | undefined);
  }

  #updateDocument(r: Json): Json {
    const document = r.document as Json;
    const name = document.name as string;
    const write: Json = {
      update: document,
      ...(r.updateMask ? { updateMask: r.updateMask } : {}),
      ...(r.currentDocument ? { currentDocument: r.currentDocument } : {}),
    };
    this.#apply(databaseOf(name), [write]);
    return this.#view(this.#docs.get(name) as Doc, r.mask as Json | undefined);
  }

  #deleteDocument(r: Json): Json {
    const name = r.name as string;
    this.#apply(databaseOf(name), [{ delete: name, ...(r.currentDocument ? { currentDocument: r.currentDocument } : {}) }]);
    return {};
  }

  async #batchGet(r: Json): Promise<Json[]> {
    const database = r.database as string;
    const { tx, begun } = this.#readTx(r, database);
    if (tx && !tx.readOnly) await this.#lock(tx, (r.documents as string[] | undefined) ?? []);
    const readTime = rfc3339Micros(Math.max(this.#clock.now() * 1000, this.#lastMicros));
    const out: Json[] = [];
    for (const name of (r.documents as string[] | undefined) ?? []) {
      databaseOf(name);
      const doc = this.#docs.get(name);
      this.#counts.reads += 1;
      tx?.reads.set(name, doc?.updateMicros ?? 0);
      out.push(doc ? { found: this.#view(doc, r.mask as Json | undefined), readTime } : { missing: name, readTime });
    }
    // With newTransaction, the first response carries the transaction begun (BatchGetDocumentsResponse.transaction).
    if (begun !== undefined) out.unshift({ transaction: begun, readTime });
    return out;
  }

  async #runQuery(r: Json): Promise<Json[]> {
    const parent = r.parent as string;
    const database = parent.split('/documents')[0] as string;
    const query = r.structuredQuery as Json | undefined;
    if (!query) throw invalidArgument('RunQueryRequest.structured_query is required.');
    const { tx, begun } = this.#readTx(r, database);
    let found = runStructuredQuery(parent, query, this.#docs.values()) as Doc[];
    if (tx && !tx.readOnly && found.length > 0) {
      // Locks the documents the query returned (not the range: a document inserted into it is not blocked).
      await this.#lock(
        tx,
        found.map((d) => d.name),
      );
      found = runStructuredQuery(parent, query, this.#docs.values()) as Doc[];
    }
    // "There is a minimum charge of one document read for each query that you perform, even if the query returns no results."
    this.#counts.reads += Math.max(1, found.length);
    for (const d of found) tx?.reads.set(d.name, d.updateMicros);
    const readTime = rfc3339Micros(Math.max(this.#clock.now() * 1000, this.#lastMicros));
    const select = query.select as Json | undefined;
    const mask = select?.fields ? { fieldPaths: (select.fields as Json[]).map((f) => f.fieldPath as string).filter((p) => p !== '__name__') } : undefined;
    const out: Json[] = found.map((d, i) => ({ document: this.#view(d, mask), readTime, ...(i === 0 && begun !== undefined ? { transaction: begun } : {}) }));
    if (out.length === 0) out.push({ readTime, ...(begun !== undefined ? { transaction: begun } : {}) });
    return out;
  }

  #rollback(r: Json): Json {
    const tx = typeof r.transaction === 'string' ? this.#transactions.get(r.transaction) : undefined;
    if (!tx) throw invalidArgument('The referenced transaction has expired or is no longer valid.');
    this.#transactions.delete(tx.id);
    this.#locks.release(tx);
    return {};
  }

  async #commit(r: Json): Promise<Json> {
    const database = r.database as string;
    const writes = (r.writes as Json[] | undefined) ?? [];
    if (JSON.stringify(writes).length > MAX_REQUEST_BYTES) throw invalidArgument('Request payload size exceeds the limit: 10485760 bytes.');
    const tx = r.transaction !== undefined ? this.#transaction(r.transaction) : undefined;
    try {
      if (tx?.readOnly && writes.length > 0) throw invalidArgument('Cannot modify entities in a read-only transaction.');
      // A write waits for other transactions' locks on its documents (a transaction's own writes take them).
      for (const name of writes.map(writeTarget)) {
        if (tx) await this.#locks.acquire(tx, name);
        else await this.#locks.awaitFree(name);
      }
      if (tx) {
        this.#transaction(tx.id);
        for (const [name, seen] of tx.reads) {
          // What the transaction read is locked, so it cannot have changed; should it have (a lock taken over by an
          // older transaction), the commit aborts and the client retries.
          if ((this.#docs.get(name)?.updateMicros ?? 0) !== seen) throw aborted();
        }
      }
      const results = this.#apply(database, writes);
      return { writeResults: results, commitTime: rfc3339Micros(this.#lastMicros) };
    } finally {
      if (tx) {
        this.#transactions.delete(tx.id);
        this.#locks.release(tx);
      }
    }
  }

  /** Applies writes atomically (all checked first, then applied at one commit time). */
  #apply(database: string, writes: Json[]): Json[] {
    const staged = new Map<string, Doc | null>();
    const current = (name: string): Doc | undefined => (staged.has(name) ? (staged.get(name) ?? undefined) : this.#docs.get(name));
    const commitMicros = this.#tick();
    const results: Json[] = [];
    let written = 0;
    let deleted = 0;
    for (const write of writes) {
      const name = writeTarget(write);
      if (databaseOf(name) !== database) throw invalidArgument(`Document "${name}" is not in database "${database}".`);
      const before = current(name);
      checkPrecondition(name, before, write.currentDocument as Json | undefined);
      if (write.delete !== undefined) {
        staged.set(name, null);
        deleted += 1;
        results.push({ updateTime: rfc3339Micros(commitMicros) });
        continue;
      }
      let fields: FsFields = before ? copy(before.fields) : {};
      if (write.update) {
        const update = write.update as Json;
        const given = (update.fields as FsFields | undefined) ?? {};
        const mask = (write.updateMask as Json | undefined)?.fieldPaths as string[] | undefined;
        if (mask === undefined) fields = copy(given);
        else
          for (const p of mask) {
            const segs = splitFieldPath(p);
            const v = getField(given, segs);
            setField(fields, segs, v === undefined ? undefined : copy(v));
          }
      }
      const transformResults: FsValue[] = [];
      const transforms = [
        ...((write.updateTransforms as Json[] | undefined) ?? []),
        ...(((write.transform as Json | undefined)?.fieldTransforms as Json[] | undefined) ?? []),
      ];
      for (const t of transforms) {
        const segs = splitFieldPath(t.fieldPath as string);
        const v = transform(t, getField(fields, segs), commitMicros);
        setField(fields, segs, v);
        transformResults.push(copy(v));
      }
      const size = documentSize(name, fields);
      if (size > MAX_DOCUMENT_BYTES) {
        throw invalidArgument(`Document '${name}' cannot be written because its size (${size} bytes) exceeds the maximum allowed size of 1,048,576 bytes.`);
      }
      staged.set(name, { name, fields, createMicros: before?.createMicros ?? commitMicros, updateMicros: commitMicros });
      written += 1;
      results.push({ updateTime: rfc3339Micros(commitMicros), ...(transformResults.length > 0 ? { transformResults } : {}) });
    }
    for (const [name, doc] of staged) {
      if (doc) this.#docs.set(name, doc);
      else this.#docs.delete(name);
    }
    this.#counts.writes += written;
    this.#counts.deletes += deleted;
    return results;
  }
}

/** The document a Write changes. */
function writeTarget(write: Json): string {
  const name = write.update ? (write.update as Json).name : (write.delete ?? (write.transform as Json | undefined)?.document);
  if (typeof name !== 'string') throw invalidArgument('A write must name its document (update.name, delete or transform.document).');
  return name;
}

/**
 * Precondition (google/firestore/v1/common.proto): `exists` or `updateTime`. What Firestore answers when one fails:
 * a create over a document ALREADY_EXISTS, an update of none NOT_FOUND, another update time FAILED_PRECONDITION.
 */
function checkPrecondition(name: string, doc: Doc | undefined, pre: Json | undefined): void {
  if (!pre) return;
  if (pre.exists === false && doc) throw alreadyExists(`Document already exists: ${name}`);
  if (pre.exists === true && !doc) throw notFound(`No document to update: ${name}`);
  if (typeof pre.updateTime === 'string') {
    const want = parseMicros(pre.updateTime);
    const have = doc?.updateMicros ?? 0;
    if (want !== have) throw failedPrecondition(`the stored version (${have}) does not match the required base version (${want})`);
  }
}

function isNumber(v: FsValue | undefined): v is FsValue {
  return v !== undefined && ('integerValue' in v || 'doubleValue' in v);
}

/** A FieldTransform (google/firestore/v1/write.proto) applied to the field's current value. */
function transform(t: Json, current: FsValue | undefined, commitMicros: number): FsValue {
  if (t.setToServerValue !== undefined) return { timestampValue: rfc3339Micros(commitMicros) };
  const operand = (t.increment ?? t.maximum ?? t.minimum) as FsValue | undefined;
  if (operand !== undefined) {
    if (!isNumber(operand))
      throw invalidArgument(`The ${t.increment ? 'increment' : t.maximum ? 'maximum' : 'minimum'} transform of ${String(t.fieldPath)} needs a number.`);
    if (!isNumber(current)) return copy(operand);
    if (t.increment !== undefined) {
      // Integer + integer stays an integer (saturating at int64's bounds); anything with a double is a double.
      if ('integerValue' in current && 'integerValue' in operand) {
        const sum = BigInt(current.integerValue as string) + BigInt(operand.integerValue as string);
        const clamped = sum > 9223372036854775807n ? 9223372036854775807n : sum < -9223372036854775808n ? -9223372036854775808n : sum;
        return { integerValue: clamped.toString() };
      }
      return { doubleValue: Number(current.integerValue ?? current.doubleValue) + Number(operand.integerValue ?? operand.doubleValue) };
    }
    const c = compareValues(current, operand);
    return t.maximum !== undefined ? (c >= 0 ? current : operand) : c <= 0 ? current : operand;
  }
  const elements = (v: FsValue | undefined): FsValue[] => (v && 'arrayValue' in v ? (((v.arrayValue as Json).values as FsValue[] | undefined) ?? []) : []);
  if (t.appendMissingElements !== undefined) {
    const have = elements(current);
    for (const e of ((t.appendMissingElements as Json).values as FsValue[] | undefined) ?? []) {
      if (!have.some((h) => typeRank(h) === typeRank(e) && compareValues(h, e) === 0)) have.push(copy(e));
    }
    return { arrayValue: { values: have } };
  }
  if (t.removeAllFromArray !== undefined) {
    const drop = ((t.removeAllFromArray as Json).values as FsValue[] | undefined) ?? [];
    return { arrayValue: { values: elements(current).filter((h) => !drop.some((e) => typeRank(h) === typeRank(e) && compareValues(h, e) === 0)) } };
  }
  throw invalidArgument(`Unsupported field transform on ${String(t.fieldPath)}.`);
}
