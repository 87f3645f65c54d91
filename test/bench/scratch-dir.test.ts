import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { benchScratchDir } from './scratch-dir.js';

const roots: string[] = [];
afterEach(async () => {
  for (const root of roots.splice(0)) await rm(root, { recursive: true, force: true });
});

describe("a benchmark's scratch folder", () => {
  it('is made on a fresh clone, whose node_modules has no .cache folder yet', async () => {
    const root = await mkdtemp(join(tmpdir(), 'kubeplane-fresh-clone-'));
    roots.push(root);
    const dir = await benchScratchDir(root, 'kubeplane-validate-only-');
    expect((await stat(dir)).isDirectory()).toBe(true);
    expect(dirname(dir)).toBe(join(root, 'node_modules', '.cache'));
    expect(dir).toMatch(/kubeplane-validate-only-\w{6}$/);
  });

  it('is a new folder each time beside those made before', async () => {
    const root = await mkdtemp(join(tmpdir(), 'kubeplane-fresh-clone-'));
    roots.push(root);
    const a = await benchScratchDir(root, 'bench-');
    const b = await benchScratchDir(root, 'bench-');
    expect(a).not.toBe(b);
  });
});
