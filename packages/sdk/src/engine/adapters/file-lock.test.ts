import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { withFileLock } from './file-lock.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe('withFileLock in one process', () => {
  // A lock this process has just released is not a dead holder's: judging it so let a late contender move the next
  // holder's lock aside, and two critical sections ran at once (seen as 11 grants from a 10-token budget in CI).
  it('never lets two callers inside at once, however their turns interleave', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kubeplane-lock-'));
    dirs.push(dir);
    const lock = join(dir, 'x.lock');
    let inside = 0;
    let most = 0;
    let entries = 0;
    const worker = async () => {
      for (let i = 0; i < 150; i++) {
        await withFileLock(lock, async () => {
          inside++;
          most = Math.max(most, inside);
          entries++;
          await new Promise((r) => setImmediate(r));
          inside--;
        });
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    expect(entries).toBe(1200);
    expect(most).toBe(1);
  }, 60_000);
});

describe('what a killed process leaves beside a lock', () => {
  it('is swept at the next lock of that path once an hour old, and a young leftover is kept', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kubeplane-lock-'));
    dirs.push(dir);
    const lock = join(dir, 'y.lock');
    const hourAgo = new Date(Date.now() - 2 * 60 * 60 * 1000);
    // Killed before its rename (a half-made lock), between its release's rename and removal, and a takeover's tombstone.
    const old = [`y.lock.0123456789abcdef.tmp`, 'y.lock.released-0123456789abcdef', 'y.lock.stale-0123456789abcdef'];
    for (const name of old) {
      await mkdir(join(dir, name));
      await writeFile(join(dir, name, 'owner.json'), '{}');
      await utimes(join(dir, name), hourAgo, hourAgo);
    }
    await mkdir(join(dir, 'y.lock.fedcba9876543210.tmp'));
    await writeFile(join(dir, 'other.json'), '{}');
    await utimes(join(dir, 'other.json'), hourAgo, hourAgo);
    await withFileLock(lock, async () => undefined);
    expect((await readdir(dir)).sort()).toEqual(['other.json', 'y.lock.fedcba9876543210.tmp']);
  });
});
