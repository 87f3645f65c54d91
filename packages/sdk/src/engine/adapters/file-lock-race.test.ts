// A lock of an older kubeplane is a file; the lock that replaces it after a takeover is a folder. A process that saw
// the file (stat) and reads it just after another process took it over finds a folder in its place (EISDIR): that is
// a lock changing hands, to be looked at again, not an error ending the command. Seen in CI as a contender that never
// came back (stale-lock.e2e.test.ts); made deterministic here by doing the other process's takeover inside that read.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';

const race = vi.hoisted(() => ({ path: '', live: 0 }));

vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>();
  const readFile = (async (path: unknown, ...rest: unknown[]) => {
    if (race.path !== '' && path === race.path) {
      race.path = '';
      // Another process takes the dead holder's file over and puts its own lock folder where the file was.
      await real.rename(path, `${path}.stale-legacy`);
      await real.mkdir(path);
      await real.writeFile(join(path, 'owner.json'), JSON.stringify({ pid: race.live, host: hostname(), nonce: 'live0000', since: new Date().toISOString() }));
    }
    return (real.readFile as (...a: unknown[]) => Promise<unknown>)(path, ...rest);
  }) as typeof real.readFile;
  return { ...real, readFile };
});

// The fast tier shares one module graph between the files a worker runs (isolate: false): file-lock.js may already be
// loaded there with the real fs. Loaded afresh here, it sees the mock; the next file loads it afresh without.
vi.resetModules();
const { tryLock } = await import('./file-lock.js');

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  vi.doUnmock('node:fs/promises');
  vi.resetModules();
});

describe('a stale lock file taken over between our look and our read', () => {
  it('names the new holder instead of failing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kubeplane-lock-race-'));
    dirs.push(dir);
    const path = join(dir, 'state.lock');
    // An older kubeplane's lock file whose process is gone (pid 2^22 + 1 is above Linux's pid_max ceiling).
    await writeFile(path, JSON.stringify({ pid: 4_194_305, command: 'apply (killed)', at: Date.now() }));
    race.path = path;
    race.live = process.ppid;
    const result = await tryLock(path);
    expect(result).toEqual({ holder: expect.objectContaining({ pid: process.ppid, nonce: 'live0000' }) });
    expect(race.path).toBe('');
  });
});
