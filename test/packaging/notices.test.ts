import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// Every package ships the repository's LICENSE and NOTICE as they are (the packed-packages e2e test reads them from an
// install); a section added to one package's copy alone would reach a registry page before anyone noticed.
const root = join(import.meta.dirname, '..', '..');

describe('the LICENSE and NOTICE every package ships', () => {
  it('are the repository’s, word for word', async () => {
    const packages = (await readdir(join(root, 'packages'), { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name);
    expect(packages.length).toBeGreaterThan(3);
    for (const file of ['LICENSE', 'NOTICE']) {
      const want = await readFile(join(root, file), 'utf8');
      for (const p of packages) expect(await readFile(join(root, 'packages', p, file), 'utf8'), `packages/${p}/${file}`).toBe(want);
    }
  });
});
