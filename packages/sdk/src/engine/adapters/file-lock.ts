// A lock file for a state directory: exclusive creation (O_EXCL) with the holder's pid, taken over when the
// holder is gone or the lock is older than its lifetime, so a crashed process never needs a manual unlock.
import { open, readFile, rename, rm, writeFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { randomBytes } from 'node:crypto';
import { KubeplaneError } from '../../errors.js';

const STALE_MS = 30_000;

export async function withFileLock<T>(lockPath: string, fn: () => Promise<T>, timeoutMs = 20_000): Promise<T> {
  const started = Date.now();
  await mkdir(dirname(lockPath), { recursive: true });
  for (let attempt = 0; ; attempt++) {
    try {
      const handle = await open(lockPath, 'wx', 0o600);
      await handle.writeFile(JSON.stringify({ pid: process.pid, at: Date.now() }));
      await handle.close();
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      if (await isStale(lockPath)) {
        await rm(lockPath, { force: true });
        continue;
      }
      if (Date.now() - started > timeoutMs) {
        const holder = await readFile(lockPath, 'utf8').catch(() => '?');
        throw new KubeplaneError('conflict', `${lockPath} is held by another kubeplane process (${holder}); wait for it to finish`, { resource: lockPath });
      }
      await new Promise((r) => setTimeout(r, Math.min(50, 2 + attempt)));
    }
  }
  try {
    return await fn();
  } finally {
    await rm(lockPath, { force: true });
  }
}

async function isStale(lockPath: string): Promise<boolean> {
  try {
    const { pid, at } = JSON.parse(await readFile(lockPath, 'utf8')) as { pid: number; at: number };
    if (Date.now() - at > STALE_MS) return true;
    try {
      process.kill(pid, 0);
      return false;
    } catch (e) {
      return (e as NodeJS.ErrnoException).code === 'ESRCH';
    }
  } catch {
    // Being written right now, or unreadable: not stale yet unless it stays that way (the timeout decides).
    return false;
  }
}

/** Writes a file so readers see the old content or the new one, never half of it. */
export async function writeFileAtomic(path: string, data: string, mode = 0o644): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: mode === 0o600 ? 0o700 : 0o755 });
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(tmp, data, { mode });
  await rename(tmp, path);
}
