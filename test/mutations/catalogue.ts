// The catalogue of bootstrap defects (test/mutations/defects/*.ts), and how one is tried: `kubeplane sandbox
// lifecycle <example> --user-data-transform <defect>` in the fast mode or with --netns. A defect is caught when the
// create does not end DONE with every overlay pair handshaking, and the output carries its family of message.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';
import type { Defect } from './defect.js';

export const ROOT = join(import.meta.dirname, '..', '..');
const DIR = join(import.meta.dirname, 'defects');

/** Every defect, by id (the file's name). */
export async function catalogue(): Promise<Defect[]> {
  const files = readdirSync(DIR)
    .filter((f) => f.endsWith('.ts'))
    .sort();
  return Promise.all(files.map(async (f) => ((await import(join(DIR, f))) as { defect: Defect }).defect));
}

export interface Trial {
  defect: string;
  mode: 'fast' | 'netns';
  /** The create stage's result (DONE, ERROR …). */
  create: string;
  /** Overlay handshakes after the create (netns), `-` in the fast mode. */
  handshakes: string;
  caught: boolean;
  /** Whether the output carries the defect's family of message. */
  worded: boolean;
  /** Whether every overlay pair handshook after the create (always, in the fast mode, which has no such check). */
  meshWhole: boolean;
  output: string;
}

/** The command line that tries `defect` (what a replay line prints). */
export function commandOf(defect: Defect, mode: 'fast' | 'netns'): string[] {
  return [
    'sandbox',
    'lifecycle',
    `examples/${defect.example ?? 'minimal.yaml'}`,
    '--user-data-transform',
    `test/mutations/defects/${defect.id}.ts`,
    ...(mode === 'netns' ? ['--netns'] : []),
  ];
}

export async function tryDefect(defect: Defect, mode: 'fast' | 'netns'): Promise<Trial> {
  const run = await runCli(commandOf(defect, mode), { cwd: ROOT });
  const output = `${run.stdout}\n${run.stderr}`;
  const row = /^\s+create\s{2,}(\S+)\s{2,}.*\s(\S+)\s*$/m.exec(run.stdout);
  const create = row?.[1] ?? '?';
  const handshakes = row?.[2] ?? '?';
  const [x, y] = handshakes.split('/').map(Number);
  const meshWhole = mode === 'fast' || (x !== undefined && y !== undefined && x === y && y > 0);
  return { defect: defect.id, mode, create, handshakes, caught: create !== 'DONE' || !meshWhole, worded: defect.message.test(output), meshWhole, output };
}

/**
 * The defects a tier tries this run: those `KUBEPLANE_DEFECTS` names (a replay), else `size` of `candidates` drawn
 * with a seed that changes each run (printed with the line that replays the draw).
 */
export function sampleOf(candidates: Defect[], size: number, file: string, always: readonly string[] = []): Defect[] {
  const named = process.env['KUBEPLANE_DEFECTS']?.split(',').filter((s) => s.length > 0);
  const fixed = candidates.filter((d) => always.includes(d.id));
  const chosen = named
    ? candidates.filter((d) => named.includes(d.id))
    : (() => {
        const seed = Number(process.env['KUBEPLANE_DEFECT_SEED'] ?? Date.now() % 100_000);
        let x = seed;
        const next = (): number => {
          x = (x * 1_103_515_245 + 12_345) % 2_147_483_648;
          return x / 2_147_483_648;
        };
        const pool = candidates.filter((d) => !always.includes(d.id));
        const out: Defect[] = [...fixed];
        while (out.length < size && pool.length > 0) out.push(...pool.splice(Math.floor(next() * pool.length), 1));
        return out;
      })();
  console.log(`defects tried: ${chosen.map((d) => d.id).join(', ')}\nreplay: KUBEPLANE_DEFECTS=${chosen.map((d) => d.id).join(',')} npx vitest run ${file}`);
  return chosen;
}

/** The rows of docs/netns.md's defect table: id, and what each mode did (`caught`, `healed`, `missed`). */
export function documentedRows(markdown: string): Map<string, { fast: string; netns: string }> {
  const section = markdown.slice(markdown.indexOf('## The defect catalogue'));
  const rows = new Map<string, { fast: string; netns: string }>();
  for (const m of section.matchAll(/^\| `([a-z0-9-]+)` \| ([a-z]+) \| ([a-z]+) \|/gm)) rows.set(m[1] ?? '', { fast: m[2] ?? '', netns: m[3] ?? '' });
  return rows;
}

/** What a trial shows, in the table's words. */
export function outcomeOf(trial: Trial, defect: Defect): string {
  if (defect.caughtBy.length === 0) return trial.caught ? 'refused' : 'healed';
  return trial.caught && trial.worded ? 'caught' : trial.caught ? 'unworded' : 'missed';
}

/** What the catalogue requires of a mode. */
export function expectedOf(defect: Defect, mode: 'fast' | 'netns'): string {
  if (defect.caughtBy.length === 0) return 'healed';
  return defect.caughtBy.includes(mode) ? 'caught' : 'missed';
}
