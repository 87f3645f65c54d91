// The catalog snapshots' common frame: every file under catalogs/<cloud>/ opens with where its data come from and when
// they were taken, and is read from src/ (beside these modules) or, built, from the package's shipped src/catalogs/.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** What every snapshot file opens with (catalogs/README.md). */
export interface SnapshotHeader {
  /** Public https URLs of the pages the data come from. */
  source: string[];
  /** The day the data describe (YYYY-MM-DD). */
  date: string;
  /** The choices made where the sources left a gap, and what could not be sourced. */
  notes: string[];
}

/** The clouds with snapshots, each a folder of catalogs/. */
export type SnapshotCloud = 'aws' | 'hetzner' | 'crusoe' | 'cloudflare';

/**
 * The path of `file` of `cloud`'s snapshots: beside this module when it runs from src/, and the package's
 * src/catalogs/<cloud>/ when it runs from dist/ (tsc does not copy JSON; the package's `files` ship src/catalogs).
 */
export function snapshotPath(cloud: SnapshotCloud, file: string): string {
  const here = fileURLToPath(new URL(`./${cloud}/${file}`, import.meta.url));
  if (existsSync(here)) return here;
  return fileURLToPath(new URL(`../../src/catalogs/${cloud}/${file}`, import.meta.url));
}

/** The problem with a snapshot's header, or undefined when it names its sources, its date and its notes. */
export function snapshotHeaderProblem(data: unknown): string | undefined {
  const doc = (typeof data === 'object' && data !== null ? data : {}) as Record<string, unknown>;
  const keys = Object.keys(doc).slice(0, 3);
  if (keys.join() !== 'source,date,notes')
    return `must open with "source", "date" and "notes" (it opens with ${keys.map((k) => `"${k}"`).join(', ') || 'nothing'})`;
  const source = doc['source'];
  if (!Array.isArray(source) || source.length === 0 || !source.every((s) => typeof s === 'string' && /^https:\/\/[a-z0-9.-]+\.[a-z]{2,}\/\S*/.test(s)))
    return '"source" must list the public https URLs the data come from';
  const date = doc['date'];
  if (typeof date !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(date) || Number.isNaN(Date.parse(date)))
    return '"date" must be the day the data describe, as YYYY-MM-DD';
  const notes = doc['notes'];
  if (!Array.isArray(notes) || notes.length === 0 || !notes.every((n) => typeof n === 'string' && n.length > 0))
    return '"notes" must say, one string each, the choices made and what could not be sourced';
  return undefined;
}

/** Reads one snapshot file; one that is not JSON or lacks its header fails at once, naming the file. */
export function readSnapshot<T extends SnapshotHeader>(cloud: SnapshotCloud, file: string): T {
  const path = snapshotPath(cloud, file);
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new Error(`${path}: not a readable JSON snapshot (${(e as Error).message})`);
  }
  const problem = snapshotHeaderProblem(data);
  if (problem) throw new Error(`${path}: ${problem}`);
  return data as T;
}
