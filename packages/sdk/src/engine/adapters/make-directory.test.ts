import { statfsSync } from 'node:fs';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { KubeplaneError } from '../../errors.js';
import { makeDirectory } from './make-directory.js';

/** PROC_SUPER_MAGIC (statfs(2)): /proc is a procfs, where mkdir fails with ENOENT under folders that exist. */
const procfs = (() => {
  try {
    return statfsSync('/proc').type === 0x9fa0;
  } catch {
    return false;
  }
})();

const dirs: string[] = [];
const fresh = async () => {
  const dir = await mkdtemp(join(tmpdir(), 'kubeplane-mkdir-'));
  dirs.push(dir);
  return dir;
};
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe('makeDirectory', () => {
  it('makes every missing folder of the path, each with the mode asked for', async () => {
    const dir = await fresh();
    await makeDirectory(join(dir, 'a', 'b', 'c'), { mode: 0o700 });
    for (const path of [join(dir, 'a'), join(dir, 'a', 'b'), join(dir, 'a', 'b', 'c')]) expect((await stat(path)).mode & 0o777).toBe(0o700);
  });

  it('leaves a folder that is there as it is', async () => {
    const dir = await fresh();
    await makeDirectory(dir, { mode: 0o700 });
    await expect(makeDirectory(dir)).resolves.toBeUndefined();
  });

  it('refuses a path through a file, naming the file', async () => {
    const dir = await fresh();
    await writeFile(join(dir, 'file'), '');
    const error = await makeDirectory(join(dir, 'file', 'x', 'y'), { what: 'the state directory', instead: 'pass another --state-dir' }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(KubeplaneError);
    expect((error as KubeplaneError).message).toBe(
      `cannot create the state directory ${join(dir, 'file', 'x', 'y')}: ${join(dir, 'file')} is a file, not a folder; pass another --state-dir`,
    );
  });

  // Node 20's mkdir(path, {recursive: true}) never returns here: it takes the ENOENT for a missing parent forever.
  it.skipIf(!procfs)('gives up at once where the file system allows no new folders (/proc), naming the folder that refused', { timeout: 5_000 }, async () => {
    const path = `/proc/kubeplane-test-${process.pid}/x`;
    const error = await makeDirectory(path, { mode: 0o700, what: 'the state directory', instead: 'pass another --state-dir' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KubeplaneError);
    expect(error).toMatchObject({ kind: 'invalid', details: { resource: path, code: 'ENOENT' } });
    expect((error as KubeplaneError).message).toBe(
      `cannot create the state directory ${path}: /proc does not allow new folders (ENOENT); pass another --state-dir`,
    );
  });
});
