// createKubeplane and createSandboxKubeplane, as a service calls them: one writer per state directory, relative
// directories resolved against the given cwd, real providers built only when a step needs them.
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isKubeplaneError, validateManifestText, type Manifest } from '@kubeplane/sdk';
import { createKubeplane, createSandboxKubeplane } from './embed.js';

const minimal = (): Manifest => {
  const r = validateManifestText(readFileSync(join(import.meta.dirname, '..', '..', '..', '..', 'examples', 'minimal.yaml'), 'utf8'));
  return r.manifests[0] as Manifest;
};

describe('createKubeplane', () => {
  it('opens a state directory under cwd, plans without credentials, and lets one writer in at a time', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'kubeplane-embed-'));
    const first = await createKubeplane({ cwd, stateDir: 'state', env: {} });
    try {
      expect(first.stateDir).toBe(join(cwd, 'state'));
      const planned = await first.kubeplane.plan(minimal());
      expect(planned.ok && planned.plan.operations.length).toBeGreaterThan(0);
      const second = await createKubeplane({ cwd, stateDir: 'state', env: {} }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(isKubeplaneError(second) && second.kind).toBe('conflict');
    } finally {
      await first.close();
    }
    // Closed: the directory is free again.
    const again = await createKubeplane({ cwd, stateDir: 'state', env: {} });
    await again.close();
  });

  it('says which variable is missing when a step first needs the provider, not before', async () => {
    const local = await createKubeplane({ memory: true, env: {} });
    try {
      const failure = await local.kubeplane.preflight(minimal()).then(
        () => null,
        (e: unknown) => e,
      );
      expect(isKubeplaneError(failure) && failure.message).toBe(
        'secret not found: environment variable HCLOUD_TOKEN is not set; export it or point secretRef elsewhere',
      );
    } finally {
      await local.close();
    }
  });
});

describe('createSandboxKubeplane', () => {
  it('keeps its world in memory unless given a directory, and in that directory when given one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubeplane-embed-sandbox-'));
    const inMemory = await createSandboxKubeplane();
    expect(inMemory.sandbox.clock).toBe(inMemory.clock);
    await inMemory.close();
    const kept = await createSandboxKubeplane({ stateDir: dir, seed: 3 });
    await kept.kubeplane.apply(minimal());
    await kept.kubeplane.run();
    expect((await kept.kubeplane.status('minimal')).state).toBe('DONE');
    await kept.close();
    expect(existsSync(join(dir, 'sandbox', 'world.json'))).toBe(true);
    const reopened = await createSandboxKubeplane({ stateDir: dir });
    try {
      expect((await reopened.kubeplane.status('minimal')).state).toBe('DONE');
      expect(reopened.sandbox.liveMachines().length).toBeGreaterThan(0);
    } finally {
      await reopened.close();
    }
  });
});
