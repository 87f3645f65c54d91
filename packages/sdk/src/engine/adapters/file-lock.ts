// Locks on a local folder, for a state directory's writer and for each file's read-modify-write, whose takeover of
// a crashed holder's lock is atomic: of any number of processes that find the same dead holder, exactly one wins.
//
// Why not a library: proper-lockfile (the usual choice) removes a stale lock with rmdir and then mkdirs its own, so a
// process that judged the old lock stale can remove the lock another process has just taken, and both hold it
// (moxystudio/node-proper-lockfile#121, and npm/lockfile#4 for the same race); it also knows a dead holder only by
// an old mtime, so every crash costs its whole stale period. Kernel locks (flock/fcntl through fs-ext or os-lock) are
// atomic by construction but are native addons, which the sdk, bundled into Lambda functions, cannot carry.
//
// How it is atomic, with nothing but rename(2), which replaces neither a non-empty folder nor a folder by a file:
// - A lock is a folder `<path>` holding `owner.json` ({pid, host, nonce, ...}). It is made as a temporary folder
//   with its owner file inside and renamed to `<path>`: it appears whole or not at all, and the rename fails when
//   `<path>` exists.
// - A holder whose process is gone (same host, no such pid, or our own pid written by an earlier process with that
//   pid) is stale. A lock of this very process (same `instance`) is never stale: if we no longer hold it, it was
//   released after we read it, and the lock now at `<path>` may be a live one of ours; we look again.
//   It is taken over by renaming `<path>` to `<path>.stale-<its nonce>`. Only the first such rename can succeed:
//   after it that name is a non-empty folder, so a late process that judged the same holder stale and now renames
//   whatever lock stands at `<path>` (perhaps a live one) onto it fails, and looks again. Tombstones, and what a
//   process killed mid-way left (half-made or half-released locks), are swept after an hour, long after any process
//   could still act on what it read.
// - Release renames the holder's own folder away before removing it, so `<path>` is never half-removed.
import { link, mkdir, open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { KubeplaneError } from '../../errors.js';
import { fileSystemError } from './file-system-error.js';
import { makeDirectory } from './make-directory.js';

/** Who holds a lock: written inside it, read by whoever finds it taken. */
export interface LockOwner {
  pid: number;
  host: string;
  nonce: string;
  /** Random per process: tells this process's locks from those of an earlier process that had the same pid. */
  instance?: string;
  /** ISO time the lock was taken. */
  since: string;
  /** What the holder is doing, for the message that names it (`apply examples/minimal.yaml`). */
  command?: string;
}

/** A file lock this process holds, and how to release it. */
export interface HeldLock {
  readonly owner: LockOwner;
  /** Gives the lock up; a second call does nothing. */
  release(): Promise<void>;
}

/** The outcome of trying to take a file lock: held, or the current holder. */
export type TryLockResult = { held: HeldLock } | { holder: LockOwner | null };

/** Nonces of the locks this process holds right now: a lock with our pid and another nonce is a former process's. */
const heldHere = new Set<string>();
const INSTANCE = randomBytes(8).toString('hex');
const TOMBSTONE_MS = 60 * 60 * 1000;

/** Takes the lock if it is free or its holder is gone; otherwise says who holds it (null: being released). */
export async function tryLock(path: string, command?: string): Promise<TryLockResult> {
  try {
    return await lockOnce(path, command);
  } catch (e) {
    throw fileSystemError(e, path, 'take the lock');
  }
}

async function lockOnce(path: string, command?: string): Promise<TryLockResult> {
  await makeDirectory(dirname(path), { mode: 0o700 });
  for (let attempt = 0; attempt < 10; attempt++) {
    const owner: LockOwner = {
      pid: process.pid,
      host: hostname(),
      nonce: randomBytes(8).toString('hex'),
      instance: INSTANCE,
      since: new Date().toISOString(),
      ...(command ? { command } : {}),
    };
    const tmp = `${path}.${owner.nonce}.tmp`;
    await mkdir(tmp, { mode: 0o700 });
    await writeWhole(join(tmp, 'owner.json'), JSON.stringify(owner), 0o600, false);
    heldHere.add(owner.nonce);
    try {
      await rename(tmp, path);
      if (!swept.has(path)) await sweepLeftovers(path);
      return { held: heldLock(path, owner) };
    } catch (e) {
      heldHere.delete(owner.nonce);
      await rm(tmp, { recursive: true, force: true });
      if (!isTaken(e)) throw e;
    }
    const holder = await readOwner(path);
    if (holder === 'gone' || (holder !== null && releasedHere(holder))) continue;
    if (holder === null || !isStale(holder)) return { holder };
    if (await takeOver(path, holder)) continue;
    // Someone else took it over first; look again at whoever holds it now.
  }
  return { holder: null };
}

/**
 * Waits for the lock (polling, up to `timeoutMs`), runs `fn` holding it, and releases it. For short critical
 * sections: a read-modify-write of one file.
 */
export async function withFileLock<T>(lockPath: string, fn: () => Promise<T>, timeoutMs = 20_000): Promise<T> {
  const started = Date.now();
  let lock: HeldLock | undefined;
  for (let attempt = 0; !lock; attempt++) {
    const result = await tryLock(lockPath);
    if ('held' in result) {
      lock = result.held;
      break;
    }
    if (Date.now() - started > timeoutMs) {
      const h = result.holder;
      throw new KubeplaneError(
        'conflict',
        `${lockPath} is held by another kubeplane process (${h ? `pid ${h.pid} on ${h.host} since ${h.since}` : 'being released'}); wait for it to finish`,
        { resource: lockPath },
      );
    }
    await new Promise((r) => setTimeout(r, Math.min(50, 2 + attempt)));
  }
  try {
    return await fn();
  } finally {
    await lock.release();
  }
}

function heldLock(path: string, owner: LockOwner): HeldLock {
  let released = false;
  return {
    owner,
    async release() {
      if (released) return;
      released = true;
      // Only we remove our lock, and nobody takes over a live holder's: what stands at `path` is ours.
      const gone = `${path}.released-${owner.nonce}`;
      try {
        await rename(path, gone);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw fileSystemError(e, path, 'release the lock');
        return;
      } finally {
        heldHere.delete(owner.nonce);
      }
      await rm(gone, { recursive: true, force: true }).catch((e: unknown) => {
        throw fileSystemError(e, gone, 'remove the released lock');
      });
    },
  };
}

function isTaken(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException).code;
  // ENOTEMPTY/EEXIST: a lock folder stands there; ENOTDIR/EISDIR: a lock file of an older kubeplane does.
  return code === 'ENOTEMPTY' || code === 'EEXIST' || code === 'ENOTDIR' || code === 'EISDIR';
}

/** The holder of the lock at `path`; 'gone' if there is none any more; null if it cannot be told (yet). */
async function readOwner(path: string): Promise<LockOwner | 'gone' | null> {
  let text: string;
  try {
    const info = await stat(path);
    text = await readFile(info.isDirectory() ? join(path, 'owner.json') : path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    // ENOTDIR/EISDIR: what we looked at changed kind before we read it (an older kubeplane's lock file taken over
    // and replaced by a lock folder, or the reverse): the lock we saw is gone; look at the new one.
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR') return 'gone';
    throw e;
  }
  try {
    const o = JSON.parse(text) as Partial<LockOwner> & { at?: number };
    if (typeof o.pid !== 'number') return null;
    // A lock file of an older kubeplane: no host or nonce; its pid and time stand in for them.
    return {
      pid: o.pid,
      host: o.host ?? hostname(),
      nonce: o.nonce ?? `legacy-${o.pid}-${o.since ?? o.at ?? 0}`,
      ...(o.instance ? { instance: o.instance } : {}),
      since: o.since ?? new Date(o.at ?? 0).toISOString(),
      ...(o.command ? { command: o.command } : {}),
    };
  } catch {
    // A lock file of an older kubeplane, half-written: its process either finishes it or is gone; look again.
    return null;
  }
}

/** A lock this process took and has released since it was read: not a holder at all; look again. */
function releasedHere(owner: LockOwner): boolean {
  return owner.host === hostname() && owner.pid === process.pid && owner.instance === INSTANCE && !heldHere.has(owner.nonce);
}

function isStale(owner: LockOwner): boolean {
  // Another machine's process (a shared folder) cannot be checked: never taken over.
  if (owner.host !== hostname()) return false;
  // Our pid: stale only if an earlier process with this pid wrote it (ours are either held or released here).
  if (owner.pid === process.pid) return owner.instance !== INSTANCE;
  return !alive(owner.pid);
}

/** Moves a stale holder's lock aside; true if this call did it (the lock is then free to compete for). */
async function takeOver(path: string, stale: LockOwner): Promise<boolean> {
  const tomb = `${path}.stale-${stale.nonce}`;
  try {
    await rename(path, tomb);
  } catch (e) {
    if (isTaken(e) || (e as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw e;
  }
  // The holder read may have released and exited just before we judged it dead, and a live lock taken its place:
  // then what we moved is that live lock. Put it back (a rename of microseconds after the first; the window left is
  // a third process taking the free path between the two, after a holder exited between our read and our check).
  const moved = await readOwner(tomb).catch(() => null);
  if (moved !== null && moved !== 'gone' && moved.nonce !== stale.nonce) {
    await rename(tomb, path).catch(() => undefined);
    return false;
  }
  await sweepLeftovers(path);
  return true;
}

/** Lock paths whose leftovers this process has swept once (see sweepLeftovers). */
const swept = new Set<string>();

/**
 * Removes what processes killed mid-way left beside the lock at `path`, once an hour old: tombstones of taken-over
 * locks (`.stale-`), locks killed between their release's rename and removal (`.released-`) and half-made locks
 * killed before their rename (`.<nonce>.tmp`). Done at each takeover, and at the first lock of a path in a process.
 */
async function sweepLeftovers(path: string): Promise<void> {
  swept.add(path);
  const dir = dirname(path);
  const base = basename(path);
  const leftover = (name: string) =>
    name.startsWith(`${base}.stale-`) || name.startsWith(`${base}.released-`) || /^[0-9a-f]{16}\.tmp$/.test(name.slice(base.length + 1));
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    if (!name.startsWith(`${base}.`) || !leftover(name)) continue;
    const info = await stat(join(dir, name)).catch(() => null);
    if (info && Date.now() - info.mtimeMs > TOMBSTONE_MS) await rm(join(dir, name), { recursive: true, force: true });
  }
}

/** Whether a process with this id exists (one we may not signal still counts). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Writes a file so readers see the old content or the new one, never half of it, and so it survives a power cut
 * once this resolves: the data is flushed before the rename, and the folder (which holds the name) after it.
 */
export async function writeFileAtomic(path: string, data: string, mode = 0o644): Promise<void> {
  const dir = dirname(path);
  await makeDirectory(dir, { mode: mode === 0o600 ? 0o700 : 0o755 });
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    try {
      await writeWhole(tmp, data, mode, true);
      await rename(tmp, path);
    } catch (e) {
      // The write's own error is the one to report, not a failure to tidy up after it.
      await rm(tmp, { force: true }).catch(() => undefined);
      throw e;
    }
    await syncFolder(dir);
  } catch (e) {
    throw fileSystemError(e, path, 'write');
  }
}

/**
 * Writes `path` whole unless it exists; true if this call wrote it. link(2) fails with EEXIST when the name is
 * taken, so of two concurrent creators (processes or not) exactly one wins and nobody sees a partial file.
 */
export async function createFileAtomic(path: string, data: string, mode = 0o644): Promise<boolean> {
  const dir = dirname(path);
  await makeDirectory(dir, { mode: mode === 0o600 ? 0o700 : 0o755 });
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  let created = false;
  try {
    try {
      await writeWhole(tmp, data, mode, true);
      await link(tmp, path);
      created = true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    } finally {
      await rm(tmp, { force: true });
    }
    await syncFolder(dir);
  } catch (e) {
    throw fileSystemError(e, path, 'write');
  }
  return created;
}

/** Flushes a folder, which holds the names of its files, so a rename or link in it survives a power cut. */
async function syncFolder(dir: string): Promise<void> {
  const folder = await open(dir, 'r');
  try {
    await folder.sync();
  } finally {
    await folder.close();
  }
}

async function writeWhole(path: string, data: string, mode: number, sync: boolean): Promise<void> {
  const handle = await open(path, 'wx', mode);
  try {
    await handle.writeFile(data);
    if (sync) await handle.sync();
  } finally {
    await handle.close();
  }
}
