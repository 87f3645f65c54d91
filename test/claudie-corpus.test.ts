// Claudie's own manifests (its end-to-end test sets and docs, copied under test/fixtures/claudie with their source
// and commit in a header) validate with no errors, as Claudie accepts them, and plan. Warnings are allowed: they
// carry kubeplane's stricter advice and say why.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildDesiredState, emptyState, plan, validateManifestFile } from '@kubeplane/sdk';

const root = join(import.meta.dirname, 'fixtures', 'claudie');
const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.yaml')).sort();

describe("Claudie's own manifests are accepted as Claudie accepts them", () => {
  it('has a corpus', () => {
    expect(files.length).toBeGreaterThanOrEqual(3);
  });

  it.each(files)('%s validates with no errors and plans', async (file) => {
    const r = await validateManifestFile(join(root, file), { file });
    expect(r.errors).toEqual([]);
    expect(r.manifests.length).toBeGreaterThan(0);
    for (const m of r.manifests) {
      expect(m.source).toBe('claudie');
      const planned = plan(buildDesiredState(m), emptyState(m.name));
      expect(planned.ok).toBe(true);
    }
  });
});
