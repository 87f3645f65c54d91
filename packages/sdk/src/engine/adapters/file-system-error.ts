// What a failed file operation means to a person. Node's own messages often name no file at all (`ENOSPC: no space
// left on device, write`), so the file adapters turn them into a KubeplaneError naming the file and what to do.
import { KubeplaneError, type ErrorKind } from '../../errors.js';

interface Meaning {
  /** Permanent failures are `invalid`: a `retryable` one would have the engine try the same write again and again. */
  kind: ErrorKind;
  /** Why, of the file concerned ("it"). */
  reason: string;
  /** What a person does about it. */
  fix: string;
}

const FULL = 'free space and run the command again; everything written before is kept';
const DENIED = 'run as the user who owns the state directory, or fix its permissions';

/** The error codes (errno(3)) a person can act on, by what they mean for a file kubeplane reads or writes. */
const MEANINGS: Readonly<Record<string, Meaning>> = {
  ENOSPC: { kind: 'invalid', reason: 'the disk holding it is full', fix: FULL },
  EDQUOT: { kind: 'invalid', reason: 'the disk quota of its owner is used up', fix: FULL },
  EROFS: {
    kind: 'invalid',
    reason: 'it is on a read-only file system',
    fix: 'remount that file system read-write, or use a state directory on a writable one',
  },
  EACCES: { kind: 'invalid', reason: 'permission denied', fix: DENIED },
  EPERM: { kind: 'invalid', reason: 'operation not permitted', fix: DENIED },
  EISDIR: { kind: 'invalid', reason: 'it is a folder where kubeplane keeps a file', fix: 'move that folder away' },
  ENOTDIR: { kind: 'invalid', reason: 'a part of its path is a file where kubeplane keeps a folder', fix: 'move that file away' },
  EIO: { kind: 'invalid', reason: 'the disk reported an input/output error', fix: 'check the disk (dmesg), then run the command again' },
  ENOENT: { kind: 'not-found', reason: 'it does not exist, or a folder on its path does not', fix: 'check the path' },
  // Too many open files passes when others close: worth the engine's few bounded retries.
  EMFILE: { kind: 'retryable', reason: 'this process has too many files open', fix: 'raise the limit (ulimit -n) and run the command again' },
  ENFILE: {
    kind: 'retryable',
    reason: 'the system has too many files open',
    fix: "close other programs, or raise the system's limit, and run the command again",
  },
};

/** The code of a Node file system error (`ENOSPC`), if `e` is one. */
export function fileSystemErrorCode(e: unknown): string | undefined {
  const code = (e as { code?: unknown } | null)?.code;
  return e instanceof Error && typeof code === 'string' && /^E[A-Z]+$/.test(code) ? code : undefined;
}

/** The fix for a file system error code, for messages that give their own reason (makeDirectory). */
export function fileSystemFix(code: string): string | undefined {
  return MEANINGS[code]?.fix;
}

/**
 * The error to throw for `e`, raised while doing `action` ("write", "read", "take the lock") on `path`: a
 * KubeplaneError naming `path` and the fix when `e` is a file system error a person can act on, else `e` itself.
 */
export function fileSystemError(e: unknown, path: string, action: string): unknown {
  if (e instanceof KubeplaneError) return e;
  const code = fileSystemErrorCode(e);
  const meaning = code ? MEANINGS[code] : undefined;
  if (!code || !meaning) return e;
  return new KubeplaneError(meaning.kind, `cannot ${action} ${path}: ${meaning.reason} (${code}); ${meaning.fix}`, { resource: path, code }, { cause: e });
}
