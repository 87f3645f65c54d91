import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DOC, renderTable, withTable } from './table.js';
import { SWEEPS } from './sweeps.js';

describe('the client sweep table in docs/sandbox.md', () => {
  it('is rendered from the operation lists (npx tsx packages/handlers/src/cli/served-sandbox/sweep/table.ts --write)', () => {
    const doc = readFileSync(DOC, 'utf8');
    expect(withTable(doc, renderTable())).toBe(doc);
  });

  it('names each operation once per client, and every refusal says what it must match', () => {
    for (const s of SWEEPS) {
      const names = s.ops.map((o) => `${o.api} ${o.operation}`);
      expect(
        names.filter((n, i) => names.indexOf(n) !== i),
        s.client,
      ).toEqual([]);
      for (const o of s.ops) if (o.outcome === 'refused') expect(o.refusal.source.length, o.operation).toBeGreaterThan(3);
    }
  });
});
