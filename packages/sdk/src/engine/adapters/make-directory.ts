// Creates a folder and whatever of its path is missing, one folder at a time. Node 20's mkdir({recursive: true})
// loops for ever where mkdir fails with ENOENT under a parent that exists (/proc, /proc/self): it takes the ENOENT
// for a missing parent, makes the parent (EEXIST), and tries again. Here each missing folder is made once.
import { mkdir, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { Stats } from 'node:fs';
import { KubeplaneError } from '../../errors.js';
import { fileSystemErrorCode, fileSystemFix } from './file-system-error.js';

/** How a directory is made: its mode, and how to name it and the fix in the error when it cannot be. */
export interface MakeDirectoryOptions {
  /** The mode of every folder made (before the umask); default 0o777. */
  mode?: number;
  /** What the folder is, for the message: `the state directory`. Default `the folder`. */
  what?: string;
  /** What a person should do when it cannot be made (`pass another --state-dir`); default: the fix for the error. */
  instead?: string;
}

/** Makes `path` (and its missing parents) unless it is a folder already; throws a KubeplaneError naming it if it cannot. */
export async function makeDirectory(path: string, options: MakeDirectoryOptions = {}): Promise<void> {
  const fail = (reason: string, code: string, cause?: unknown): never => {
    const fix = options.instead ?? fileSystemFix(code) ?? 'choose another place';
    throw new KubeplaneError('invalid', `cannot create ${options.what ?? 'the folder'} ${path}: ${reason}; ${fix}`, { resource: path, code }, { cause });
  };
  // Upwards to the nearest thing that exists: every path has fewer parents than characters, so this ends.
  const missing: string[] = [];
  for (let at = resolve(path); ; ) {
    let info: Stats | undefined;
    try {
      info = await stat(at);
    } catch (e) {
      const code = fileSystemErrorCode(e);
      // ENOTDIR: a file stands somewhere above; going on up finds it.
      if (code !== 'ENOENT' && code !== 'ENOTDIR') return fail(`${at} cannot be looked at (${code ?? (e as Error).message})`, code ?? 'EIO', e);
    }
    if (info) {
      if (!info.isDirectory()) return fail(`${at} is a file, not a folder`, 'ENOTDIR');
      break;
    }
    missing.unshift(at);
    const parent = dirname(at);
    if (parent === at) return fail(`${at} does not exist`, 'ENOENT');
    at = parent;
  }
  for (const dir of missing) {
    try {
      await mkdir(dir, options.mode === undefined ? {} : { mode: options.mode });
    } catch (e) {
      const code = fileSystemErrorCode(e) ?? 'EIO';
      // Made meanwhile by another process: fine if it is a folder.
      if (code === 'EEXIST' && (await stat(dir).catch(() => undefined))?.isDirectory()) continue;
      return fail(whyNot(code, dir, e), code, e);
    }
  }
}

/** Why `dir` could not be made in its parent, which exists and is a folder. */
function whyNot(code: string, dir: string, e: unknown): string {
  const parent = dirname(dir);
  switch (code) {
    case 'ENOENT':
      // A parent that exists but answers ENOENT: a virtual file system (procfs) that allows no new folders.
      return `${parent} does not allow new folders (ENOENT)`;
    case 'EACCES':
    case 'EPERM':
      return `permission denied to create folders in ${parent} (${code})`;
    case 'EROFS':
      return `${parent} is on a read-only file system (EROFS)`;
    case 'ENOSPC':
    case 'EDQUOT':
      return `the disk holding ${parent} is full (${code})`;
    case 'EEXIST':
      return `${dir} is a file, not a folder`;
    default:
      return `${dir}: ${(e as Error).message}`;
  }
}
