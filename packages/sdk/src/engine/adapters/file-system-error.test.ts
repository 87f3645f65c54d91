// The file adapters' errors as a person reads them: the file, what happened and what to do, with a kind; never
// Node's `ENOSPC: no space left on device, write` that names no file. Full and read-only disks are real small tmpfs
// mounts (root only: CI runs as root); permission denied is injected, since root is never denied.
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeplaneError } from '../../errors.js';
import { FileQueue, FileStateStore } from './file.js';
import { writeFileAtomic } from './file-lock.js';
import { fileSystemError } from './file-system-error.js';

const root = process.getuid?.() === 0;
const dirs: string[] = [];
const mounts: string[] = [];
const fresh = async () => {
  const dir = await mkdtemp(join(tmpdir(), 'kubeplane-fs-errors-'));
  dirs.push(dir);
  return dir;
};
/** A tmpfs of its own at a fresh folder: `ro` or a size in bytes. */
const mountTmpfs = async (options: string): Promise<string> => {
  const dir = await fresh();
  execFileSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', dir]);
  mounts.push(dir);
  return dir;
};
afterAll(async () => {
  for (const dir of mounts) execFileSync('umount', [dir]);
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** A Node file system error as the fs calls raise them; a write's names no path. */
function nodeError(code: string, message: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: ${message}`), { code, errno: -1, syscall: 'write' });
}

describe('fileSystemError', () => {
  it('names the file and says what to do when permission is denied', () => {
    const error = fileSystemError(nodeError('EACCES', 'permission denied, open'), '/srv/kp/state/p.json', 'write');
    expect(error).toBeInstanceOf(KubeplaneError);
    expect(error).toMatchObject({
      kind: 'invalid',
      message: 'cannot write /srv/kp/state/p.json: permission denied (EACCES); run as the user who owns the state directory, or fix its permissions',
      details: { resource: '/srv/kp/state/p.json', code: 'EACCES' },
    });
  });

  it('makes too many open files worth a retry, and every other known code final', () => {
    expect(fileSystemError(nodeError('EMFILE', 'too many open files'), '/x', 'read')).toMatchObject({ kind: 'retryable' });
    for (const code of ['ENOSPC', 'EROFS', 'EACCES', 'EPERM', 'EISDIR', 'ENOTDIR', 'EDQUOT', 'EIO']) {
      expect(fileSystemError(nodeError(code, 'x'), '/x', 'read'), code).toMatchObject({ kind: 'invalid' });
    }
  });

  it('leaves errors it has nothing to add to as they are', () => {
    const kubeplane = new KubeplaneError('conflict', 'held');
    const other = nodeError('EXDEV', 'cross-device link not permitted');
    const bug = new TypeError('x is undefined');
    expect(fileSystemError(kubeplane, '/x', 'read')).toBe(kubeplane);
    expect(fileSystemError(other, '/x', 'read')).toBe(other);
    expect(fileSystemError(bug, '/x', 'read')).toBe(bug);
  });
});

describe('file adapters on a disk that fails', () => {
  it('name a folder standing where a state file goes (EISDIR), reading it or writing it', async () => {
    const dir = await fresh();
    const path = join(dir, 'state', 'projects', 'p.json');
    await mkdir(path, { recursive: true });
    const store = new FileStateStore(dir);
    const fix = 'it is a folder where kubeplane keeps a file (EISDIR); move that folder away';
    await expect(store.get('projects/p')).rejects.toThrow(`cannot read ${path}: ${fix}`);
    await expect(writeFileAtomic(path, '{}')).rejects.toThrow(`cannot write ${path}: ${fix}`);
  });

  it.skipIf(root)('name the file when permission is denied (as a user other than root)', async () => {
    const dir = await fresh();
    await chmod(dir, 0o500);
    await expect(writeFileAtomic(join(dir, 'mode'), 'cloud\n')).rejects.toThrow(
      `cannot write ${join(dir, 'mode')}: permission denied (EACCES); run as the user who owns the state directory`,
    );
  });

  describe.skipIf(!root)('mounted for the test (root)', () => {
    let full = '';
    let readOnly = '';
    beforeAll(async () => {
      full = await mountTmpfs('size=64k');
      readOnly = await mountTmpfs('ro,size=1m');
    });

    it('name the file on a full disk and keep what was written before (ENOSPC)', async () => {
      const store = new FileStateStore(full);
      await store.put('projects/p', { generation: 1 }, 0);
      // Fill the disk, then free two pages: room for the lock's owner file, not for the state file's 8 KiB and more.
      const filler = join(full, 'filler');
      await writeFile(filler, Buffer.alloc(128 * 1024)).catch((e: NodeJS.ErrnoException) => expect(e.code).toBe('ENOSPC'));
      await truncate(filler, (await stat(filler)).size - 8192);
      const path = join(full, 'state', 'projects', 'p.json');
      const error = await store.put('projects/p', { generation: 2, padding: 'x'.repeat(8192) }, 1).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(KubeplaneError);
      expect(error).toMatchObject({ kind: 'invalid', details: { resource: path, code: 'ENOSPC' } });
      expect((error as Error).message).toBe(
        `cannot write ${path}: the disk holding it is full (ENOSPC); free space and run the command again; everything written before is kept`,
      );
      expect(JSON.parse(await readFile(path, 'utf8'))).toMatchObject({ revision: 1, value: { generation: 1 } });
      await expect(store.get('projects/p')).resolves.toEqual({ value: { generation: 1 }, revision: 1 });
    });

    it('name the file on a read-only file system (EROFS)', async () => {
      const path = join(readOnly, 'mode');
      await expect(writeFileAtomic(path, 'cloud\n')).rejects.toThrow(
        `cannot write ${path}: it is on a read-only file system (EROFS); remount that file system read-write, or use a state directory on a writable one`,
      );
      const error = await new FileQueue(readOnly).send({ n: 1 }, { groupId: 'g' }).catch((e: unknown) => e);
      expect(error).toMatchObject({ kind: 'invalid', details: { code: 'EROFS' } });
      expect((error as Error).message).toContain(join(readOnly, 'queues'));
    });
  });
});
