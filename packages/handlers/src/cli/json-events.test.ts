// The events `--json` prints are the engine's, each documented in docs/cli.md's table: an event type added to the
// engine without a row there fails here (and fails to type-check, below), so the documentation cannot fall behind.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EngineEvent } from '@kubeplane/sdk';

const root = join(import.meta.dirname, '..', '..', '..', '..');

/**
 * Every type of line `--json` prints before its result: the engine's event types (a missing or extra key is a type
 * error, so this list is the union's) and the CLI's own `stage` (sandbox lifecycle).
 */
const PRINTED = {
  'phase-started': 'engine',
  'step-done': 'engine',
  'resource-created': 'engine',
  'resource-deleted': 'engine',
  waiting: 'engine',
  error: 'engine',
  addon: 'engine',
  'pool-growth-refused': 'engine',
  'cluster-done': 'engine',
  stage: 'cli',
} as const satisfies Record<EngineEvent['type'] | 'stage', 'engine' | 'cli'>;

/** The event types named in the first column of docs/cli.md's table of events (`a`, `b` in one row counts both). */
function documentedEvents(): string[] {
  const text = readFileSync(join(root, 'docs', 'cli.md'), 'utf8');
  const start = text.indexOf('Events, as they happen');
  const table = text.slice(start, text.indexOf('\n\n', text.indexOf('| type |', start)));
  return table
    .split('\n')
    .filter((l) => l.startsWith('| `'))
    .flatMap((l) => [...(l.split('|')[1] ?? '').matchAll(/`([a-z-]+)`/g)].map((m) => m[1] ?? ''));
}

/** Every TypeScript source (not test) under `dir`. */
function sources(dir: string): string[] {
  return readdirSync(dir, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.endsWith('.d.ts'))
    .map((f) => readFileSync(join(dir, f), 'utf8'));
}

describe('the --json events', () => {
  it('are each documented in docs/cli.md, and the table names no event that is not printed', () => {
    expect(documentedEvents().sort()).toEqual(Object.keys(PRINTED).sort());
  });

  it('are each emitted somewhere: by a step or the engine (sdk), or by the CLI (stage)', () => {
    const sdk = sources(join(root, 'packages', 'sdk', 'src')).join('\n');
    const cli = sources(join(root, 'packages', 'handlers', 'src', 'cli')).join('\n');
    // The declaration of the union is in events.ts; an emission is `type: '<kind>'` anywhere else.
    const declared = readFileSync(join(root, 'packages', 'sdk', 'src', 'engine', 'events.ts'), 'utf8');
    for (const [kind, by] of Object.entries(PRINTED)) {
      const written = `type: '${kind}'`;
      const count = (text: string) => text.split(written).length - 1;
      if (by === 'engine') expect(count(sdk) - count(declared), `${kind}: no emission in packages/sdk`).toBeGreaterThan(0);
      else expect(count(cli), `${kind}: no emission in the CLI`).toBeGreaterThan(0);
    }
  });
});
