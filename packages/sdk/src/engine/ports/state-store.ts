// StateStore: JSON documents by key with a revision; every write is compare-and-swap on it, so two steps
// that race on one cluster cannot both win, and a step that crashed before its write changes nothing.
import { KubeplaneError } from '../../errors.js';

/** A stored value with its revision, for conditional writes. */
export interface Versioned<T> {
  value: T;
  /**
   * 1 for the first write of a key never written before, +1 for each later one. Revisions keep counting across a
   * deletion: a key made again starts above the revision it was deleted at, so a revision read in an earlier life
   * of the key never matches a later one (no ABA: a writer that read revision 5 before a destroy cannot land its
   * write when the re-created key happens to reach revision 5 again).
   */
  revision: number;
}

/** The conditions of a write: the revision expected, the fence token of the lease held. */
export interface PutOptions {
  /**
   * A lease grant's fencing token. The store keeps the highest fence written for the key beside its revision: a put
   * carrying a smaller one than stored fails with a `conflict` (details.code `Fenced`) and writes nothing, so a
   * holder whose lease ran out and was taken over cannot overwrite its successor's work. On success the stored
   * fence becomes the larger of the two; a put without a fence leaves it as it is and is checked by revision only.
   */
  fence?: number;
}

/** The port of state: versioned records written only when the expected revision and fence still hold. */
export interface StateStore {
  /** The value stored under a key with its revision, or null when there is none. */
  get<T>(key: string): Promise<Versioned<T> | null>;
  /**
   * Writes `value` if the stored revision is `expectedRevision` (0: the key must not exist yet) and returns the
   * new revision; otherwise throws a `conflict` KubeplaneError and writes nothing. See PutOptions for fencing.
   */
  put<T>(key: string, value: T, expectedRevision: number, options?: PutOptions): Promise<number>;
  /**
   * Deletes when the revision matches (and, with a fence, when no newer lease holder wrote the key); deleting a
   * missing key with expectedRevision 0 is fine. The key's last revision and fence outlive the deletion (see
   * Versioned and PutOptions).
   */
  delete(key: string, expectedRevision: number, options?: PutOptions): Promise<void>;
  /** Keys starting with `prefix`, sorted. */
  list(prefix: string): Promise<string[]>;
  /** Where a key is kept, for messages a person acts on (a file's path, a table and its key). */
  where?(key: string): string;
}

/** The error a write gets when the stored revision is not the expected one. */
export function revisionConflict(key: string, expected: number, actual: number): KubeplaneError {
  return new KubeplaneError('conflict', `state "${key}" is at revision ${actual}, not ${expected}: another step changed it first; re-read and retry`, {
    resource: key,
    code: 'RevisionConflict',
  });
}

/** The error a write gets when a newer lease holder has written since. */
export function fenced(key: string, fence: number, stored: number): KubeplaneError {
  return new KubeplaneError(
    'conflict',
    `state "${key}" was written under lease token ${stored}, newer than this writer's ${fence}: its lease ran out and another step took over`,
    {
      resource: key,
      code: 'Fenced',
    },
  );
}

/** Keys are paths of safe segments: `clusters/prod-abc1234`, so every adapter can store them as files. */
export function checkKey(key: string): void {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*)*$/.test(key)) {
    throw new KubeplaneError('invalid', `"${key}" is not a valid state key (letters, digits, '.', '_', '-', separated by '/')`);
  }
}

/** What a deleted key leaves behind: its last revision and fence, so a later life of the key continues both. */
export interface Tombstone {
  revision: number;
  fence?: number;
}

/** The fence to store after a put carrying `fence` (see PutOptions); throws `Fenced` when the stored one is newer. */
export function nextFence(key: string, stored: number | undefined, fence: number | undefined): number | undefined {
  if (fence === undefined) return stored;
  if (stored !== undefined && stored > fence) throw fenced(key, fence, stored);
  return Math.max(stored ?? fence, fence);
}
