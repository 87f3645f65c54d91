// File-backed adapters: the embedded default under `.kubeplane/`. Every mutation happens under the
// directory's lock file and lands with an atomic rename; secrets live in a 0700 folder as 0600 files.
import { createHash, randomUUID } from 'node:crypto';
import { readdir, readFile, rm } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import type { Clock } from '../../provider/clock.js';
import { systemClock } from '../../provider/clock.js';
import { Redacted } from '../../redacted.js';
import type { Lease, LeaseGrant } from '../ports/lease.js';
import type { Queue, ReceivedMessage, SendOptions } from '../ports/queue.js';
import { labelsMatch, type SecretEntry, type SecretStore } from '../ports/secret-store.js';
import { deliver, nextDeliveryAt, type StoredMessage } from './queue-rules.js';
import { KubeplaneError } from '../../errors.js';
import { checkKey, nextFence, revisionConflict, type PutOptions, type StateStore, type Tombstone, type Versioned } from '../ports/state-store.js';
import { createFileAtomic, withFileLock, writeFileAtomic } from './file-lock.js';
import { fileSystemError } from './file-system-error.js';

async function readJson<T>(path: string): Promise<T | null> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw fileSystemError(e, path, 'read');
  }
  try {
    return JSON.parse(text) as T;
  } catch (e) {
    // A file cut short (a full disk, a copy interrupted) or edited by hand: say which, so a person can act on it.
    throw new KubeplaneError(
      'invalid',
      `${path} is not valid JSON (${(e as Error).message}); it may have been cut short or ` +
        `edited by hand: restore it from a backup, or remove it if what it held can be lost`,
      {
        resource: path,
        code: 'CorruptFile',
      },
    );
  }
}

/** Removes a file if it is there. */
async function remove(path: string): Promise<void> {
  try {
    await rm(path, { force: true });
  } catch (e) {
    throw fileSystemError(e, path, 'remove');
  }
}

/**
 * A file name takes 255 bytes, and an atomic write adds a temporary suffix of up to 30: a key segment longer than
 * this is stored under a shortened name with its hash (after `~`, which keys never contain), and the file keeps
 * the key itself, so every valid name (a manifest name may be 253 characters) can be stored and listed.
 */
const MAX_SEGMENT = 200;

/** The path of a key under `root`, each segment a file or folder name that fits. */
function keyPath(root: string, key: string): string {
  checkKey(key);
  const segments = key
    .split('/')
    .map((segment) =>
      segment.length <= MAX_SEGMENT ? segment : `${segment.slice(0, 100)}~${createHash('sha256').update(segment).digest('hex').slice(0, 40)}`,
    );
  return join(root, ...segments.slice(0, -1), `${segments.at(-1) ?? ''}.json`);
}

/** The key a file under `root` holds: from its path, or from the file where the path was shortened (keyPath). */
async function keyOf(root: string, path: string): Promise<string | null> {
  const fromPath = relative(root, path)
    .split(sep)
    .join('/')
    .replace(/\.json$/, '');
  if (!fromPath.includes('~')) return fromPath;
  return (await readJson<{ key?: string }>(path))?.key ?? null;
}

async function walk(dir: string): Promise<string[]> {
  const out: string[] = [];
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return out;
    throw fileSystemError(e, dir, 'list');
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await walk(path)));
    else if (entry.name.endsWith('.json')) out.push(path);
  }
  return out;
}

/** A StateStore in files under a directory, for the CLI and single-machine use. */
export class FileStateStore implements StateStore {
  constructor(private readonly dir: string) {}

  #path(key: string): string {
    return keyPath(join(this.dir, 'state'), key);
  }

  #lock<T>(fn: () => Promise<T>): Promise<T> {
    return withFileLock(join(this.dir, 'state.lock'), fn);
  }

  where(key: string): string {
    return this.#path(key);
  }

  /** The value stored under a key with its revision, or null when there is none. */
  async get<T>(key: string): Promise<Versioned<T> | null> {
    const path = this.#path(key);
    const stored = await readJson<StateFile<T>>(path).catch((e: unknown) => {
      throw e instanceof KubeplaneError && e.details.code === 'CorruptFile' ? corruptState(path, key, e.message.split(';')[0] ?? '') : e;
    });
    if (stored && (typeof stored !== 'object' || typeof stored.revision !== 'number' || !('value' in stored)))
      throw corruptState(path, key, `${path} is not a state file (it has no \`revision\` and \`value\`)`);
    return stored ? { value: stored.value, revision: stored.revision } : null;
  }

  async put<T>(key: string, value: T, expectedRevision: number, options: PutOptions = {}): Promise<number> {
    const path = this.#path(key);
    return this.#lock(async () => {
      const stored = await readJson<StateFile<T>>(path);
      const actual = stored?.revision ?? 0;
      if (actual !== expectedRevision) throw revisionConflict(key, expectedRevision, actual);
      const before = stored ?? (await readTombstone(path));
      const fence = nextFence(key, before?.fence, options.fence);
      const revision = (before?.revision ?? 0) + 1;
      const next: StateFile<T> = { key, revision, ...(fence !== undefined ? { fence } : {}), value };
      await writeFileAtomic(path, JSON.stringify(next, null, 1));
      if (!stored) await Promise.all([remove(tombstonePath(path)), remove(legacyFencePath(path))]);
      return revision;
    });
  }

  async delete(key: string, expectedRevision: number, options: PutOptions = {}): Promise<void> {
    const path = this.#path(key);
    await this.#lock(async () => {
      const stored = await readJson<StateFile<unknown>>(path);
      const actual = stored?.revision ?? 0;
      if (actual !== expectedRevision) throw revisionConflict(key, expectedRevision, actual);
      if (!stored) return;
      const fence = nextFence(key, stored.fence, options.fence);
      // The key's revision and fence outlive its deletion (see Versioned, PutOptions): kept beside it, in a file
      // list() does not see. Written before the removal, so a crash between the two loses nothing.
      const tombstone: Tombstone = { revision: stored.revision, ...(fence !== undefined ? { fence } : {}) };
      await writeFileAtomic(tombstonePath(path), JSON.stringify(tombstone));
      await remove(path);
    });
  }

  async list(prefix: string): Promise<string[]> {
    const root = join(this.dir, 'state');
    const keys: string[] = [];
    for (const path of await walk(root)) {
      const key = await keyOf(root, path);
      if (key?.startsWith(prefix)) keys.push(key);
    }
    return keys.sort();
  }
}

/**
 * A state file that cannot be read, with the repair that loses nothing in the clouds: a cluster's file may be moved
 * away, for destroy of its project sweeps the cluster by its tag from what the project's record kept; a project's
 * file leaves only destroy with the manifest file, which sweeps by tag from the manifest.
 */
function corruptState(path: string, key: string, what: string): KubeplaneError {
  const project = key.startsWith('projects/') ? key.slice('projects/'.length) : undefined;
  const fix = key.startsWith('clusters/')
    ? 'restore it from a backup; or move it away and run `kubeplane destroy <project>` (or `kubeplane ' +
      'destroy <manifest file>`), which deletes the cluster by sweeping its resources by their tag'
    : project !== undefined
      ? `restore it from a backup; or move it away and run \`kubeplane destroy <manifest file ` +
        `of ${project}>\`, which deletes its clusters by sweeping their resources by their tag`
      : 'restore it from a backup, or move it away';
  return new KubeplaneError('invalid', `${what}; it may have been cut short or edited by hand: ${fix}`, { resource: path, code: 'CorruptFile' });
}

/** Where a deleted key's tombstone is kept: `<key>.deleted` beside the `<key>.json` it had. */
function tombstonePath(path: string): string {
  return path.replace(/\.json$/, '.deleted');
}

/** Earlier versions kept only a deleted key's fence, as a number in `<key>.fence`. */
function legacyFencePath(path: string): string {
  return path.replace(/\.json$/, '.fence');
}

async function readTombstone(path: string): Promise<Tombstone | undefined> {
  const tombstone = await readJson<Tombstone>(tombstonePath(path));
  if (tombstone) return tombstone;
  try {
    const fence = Number((await readFile(legacyFencePath(path), 'utf8')).trim());
    return Number.isFinite(fence) ? { revision: 0, fence } : undefined;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw fileSystemError(e, legacyFencePath(path), 'read');
  }
}

/** A state file: the key (for names shortened by keyPath), its revision, the highest lease token written, the value. */
interface StateFile<T> {
  key?: string;
  revision: number;
  fence?: number;
  value: T;
}

/** A SecretStore in files under a directory, readable only by the owner. */
export class FileSecretStore implements SecretStore {
  constructor(private readonly dir: string) {}

  #path(name: string): string {
    return keyPath(join(this.dir, 'secrets'), name);
  }

  async put(name: string, value: Redacted<string>, labels: Record<string, string> = {}): Promise<void> {
    await writeFileAtomic(this.#path(name), JSON.stringify({ key: name, labels, value: value.reveal() }), 0o600);
  }

  create(name: string, value: Redacted<string>, labels: Record<string, string> = {}): Promise<boolean> {
    return createFileAtomic(this.#path(name), JSON.stringify({ key: name, labels, value: value.reveal() }), 0o600);
  }

  /** The value of a secret, or null when there is none. */
  async get(name: string): Promise<Redacted<string> | null> {
    const entry = await readJson<{ value: string }>(this.#path(name));
    return entry ? Redacted.of(entry.value) : null;
  }

  async delete(name: string): Promise<void> {
    await remove(this.#path(name));
  }

  async list(labels?: Record<string, string>): Promise<SecretEntry[]> {
    const root = join(this.dir, 'secrets');
    const out: SecretEntry[] = [];
    for (const path of await walk(root)) {
      const entry = await readJson<{ labels: Record<string, string> }>(path);
      if (!entry || !labelsMatch(entry.labels, labels)) continue;
      const name = await keyOf(root, path);
      if (name !== null) out.push({ name, labels: entry.labels });
    }
    return out.sort((a, b) => a.name.localeCompare(b.name));
  }
}

interface QueueFile<T> {
  seq: number;
  messages: Array<StoredMessage<T>>;
  dedup: Record<string, number>;
}

/** A durable local queue: one JSON file, rewritten atomically under the lock on every change. */
export class FileQueue<T> implements Queue<T> {
  readonly #path: string;
  readonly #clock: Clock;
  readonly #visibilityMs: number;

  constructor(dir: string, name = 'steps', options: { clock?: Clock; visibilityTimeoutSeconds?: number } = {}) {
    checkKey(name);
    this.#path = join(dir, 'queues', `${name}.json`);
    this.#clock = options.clock ?? systemClock;
    this.#visibilityMs = (options.visibilityTimeoutSeconds ?? 30) * 1000;
  }

  async #update<R>(fn: (q: QueueFile<T>) => R): Promise<R> {
    return withFileLock(`${this.#path}.lock`, async () => {
      const q = (await readJson<QueueFile<T>>(this.#path)) ?? { seq: 0, messages: [], dedup: {} };
      const result = fn(q);
      await writeFileAtomic(this.#path, JSON.stringify(q));
      return result;
    });
  }

  /** Sends a message, to be delivered after its delay. */
  async send(body: T, options: SendOptions): Promise<void> {
    const now = this.#clock.now();
    await this.#update((q) => {
      if (options.deduplicationId !== undefined) {
        const key = `${options.groupId}/${options.deduplicationId}`;
        for (const [k, at] of Object.entries(q.dedup)) if (now - at >= 300_000) delete q.dedup[k];
        if (q.dedup[key] !== undefined) return;
        q.dedup[key] = now;
      }
      q.messages.push({
        id: randomUUID(),
        body,
        groupId: options.groupId,
        seq: q.seq++,
        visibleAt: now + Math.max(0, options.delaySeconds ?? 0) * 1000,
        receiveCount: 0,
      });
    });
  }

  async receive(max: number): Promise<Array<ReceivedMessage<T>>> {
    const now = this.#clock.now();
    return this.#update((q) => {
      return deliver(q.messages, now, max, this.#visibilityMs);
    });
  }

  async ack(receipt: string): Promise<void> {
    await this.#update((q) => {
      q.messages = q.messages.filter((m) => m.receipt !== receipt);
    });
  }

  async release(receipt: string, delaySeconds = 0): Promise<void> {
    const now = this.#clock.now();
    await this.#update((q) => {
      const m = q.messages.find((x) => x.receipt === receipt);
      if (!m) return;
      delete m.receipt;
      m.visibleAt = now + delaySeconds * 1000;
    });
  }

  async nextVisibleAt(): Promise<number | null> {
    const q = await readJson<QueueFile<T>>(this.#path);
    return q ? nextDeliveryAt(q.messages, this.#clock.now()) : null;
  }

  async size(): Promise<number> {
    return (await readJson<QueueFile<T>>(this.#path))?.messages.length ?? 0;
  }

  /**
   * Makes every message in flight deliverable again at once, as if its visibility timeout had run out; returns how
   * many. Only for a caller that knows no receiver is alive (the CLI, holding its state directory's writer lock,
   * after a crashed predecessor), which would otherwise wait out the timeout.
   */
  async reclaimInFlight(): Promise<number> {
    const now = this.#clock.now();
    return this.#update((q) => {
      let n = 0;
      for (const m of q.messages) {
        if (m.receipt === undefined) continue;
        delete m.receipt;
        m.visibleAt = Math.min(m.visibleAt, now);
        n++;
      }
      return n;
    });
  }

  /** The bodies of every message held, due or not, in flight or not (the watchdog asks whether a step is queued). */
  async bodies(): Promise<T[]> {
    return ((await readJson<QueueFile<T>>(this.#path))?.messages ?? []).map((m) => m.body);
  }
}

/** A Lease held through lock files, for processes on one machine. */
export class FileLease implements Lease {
  constructor(
    private readonly dir: string,
    private readonly clock: Clock = systemClock,
  ) {}

  #path(key: string): string {
    return keyPath(join(this.dir, 'leases'), key);
  }

  #lock<T>(fn: () => Promise<T>): Promise<T> {
    return withFileLock(join(this.dir, 'leases.lock'), fn);
  }

  async acquire(key: string, owner: string, ttlSeconds: number): Promise<LeaseGrant | null> {
    const path = this.#path(key);
    return this.#lock(async () => {
      const now = this.clock.now();
      const held = await readJson<LeaseGrant & { lastToken?: number }>(path);
      if (held && held.expiresAt > now && held.owner !== owner) return null;
      const token = held && held.owner === owner && held.expiresAt > now ? held.token : (held?.token ?? 0) + 1;
      const grant: LeaseGrant = { key, owner, token, expiresAt: now + ttlSeconds * 1000 };
      await writeFileAtomic(path, JSON.stringify(grant));
      return grant;
    });
  }

  async renew(grant: LeaseGrant, ttlSeconds: number): Promise<LeaseGrant | null> {
    const path = this.#path(grant.key);
    return this.#lock(async () => {
      const held = await readJson<LeaseGrant>(path);
      const now = this.clock.now();
      if (!held || held.token !== grant.token || held.owner !== grant.owner || held.expiresAt <= now) return null;
      const next = { ...held, expiresAt: now + ttlSeconds * 1000 };
      await writeFileAtomic(path, JSON.stringify(next));
      return next;
    });
  }

  async release(grant: LeaseGrant): Promise<void> {
    const path = this.#path(grant.key);
    await this.#lock(async () => {
      const held = await readJson<LeaseGrant>(path);
      // Keep the token (expired) so the next grant's fencing token still grows.
      if (held && held.token === grant.token && held.owner === grant.owner) await writeFileAtomic(path, JSON.stringify({ ...held, owner: '', expiresAt: 0 }));
    });
  }

  /**
   * Ends every lease held, keeping each fencing token (so the next grant's still grows); returns how many. Only for
   * a caller that knows no holder is alive (the CLI, holding its state directory's writer lock, after a crash).
   */
  async releaseAll(): Promise<number> {
    return this.#lock(async () => {
      let n = 0;
      for (const path of await walk(join(this.dir, 'leases'))) {
        const held = await readJson<LeaseGrant>(path);
        if (!held || held.expiresAt <= this.clock.now() || held.owner === '') continue;
        await writeFileAtomic(path, JSON.stringify({ ...held, owner: '', expiresAt: 0 }));
        n++;
      }
      return n;
    });
  }
}
