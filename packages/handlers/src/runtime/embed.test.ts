// createKubeplane and createSandboxKubeplane, as a service calls them: one writer per state directory, relative
// directories resolved against the given cwd, real providers built only when a step needs them.
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isKubeplaneError, validateManifestObject, validateManifestText, type Manifest, type ManifestInput } from '@kubeplane/sdk';
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

  it('reports a credential variable that is not set as a preflight problem at the entry that names it, and throws nothing', async () => {
    const local = await createKubeplane({ memory: true, env: {} });
    try {
      expect(await local.kubeplane.preflight(minimal())).toEqual([
        {
          severity: 'error',
          path: 'providers[0].secretRef.env.credentials',
          message: 'hetzner provider hetzner-1: secret not found: environment variable HCLOUD_TOKEN is not set; export it or point secretRef elsewhere',
        },
      ]);
    } finally {
      await local.close();
    }
  });

  it('reports a Kubernetes Secret with no secrets cluster named as a preflight problem that says how to name one', async () => {
    const local = await createKubeplane({ memory: true, env: {} });
    const manifest = minimal();
    const claudieForm: Manifest = { ...manifest, providers: manifest.providers.map((p) => ({ ...p, secretRef: { name: 'hetzner', namespace: 'claudie' } })) };
    try {
      const problems = await local.kubeplane.preflight(claudieForm);
      expect(problems.map((p) => [p.severity, p.path])).toEqual([['error', 'providers[0].secretRef']]);
      expect(problems[0]?.message).toMatch(
        /^hetzner provider hetzner-1: secretRef names the Kubernetes Secret claudie\/hetzner, .* pass --secrets-context NAME/,
      );
    } finally {
      await local.close();
    }
  });

  it('reports what makes a manifest invalid as preflight problems, not as an exception', async () => {
    const local = await createKubeplane({ memory: true, env: {} });
    try {
      const misnamed: ManifestInput = { apiVersion: 'kubeplane.dev/v1', kind: 'Manifest', metadata: { name: 'Not_A_Name' } };
      const problems = await local.kubeplane.preflight(misnamed);
      expect(problems.length).toBeGreaterThan(0);
      expect(problems.every((p) => p.severity === 'error' && p.path === 'metadata.name')).toBe(true);
    } finally {
      await local.close();
    }
  });
});

describe('preflight on the sandbox clouds', () => {
  it('reports a catalog call the cloud refuses for good as a problem of its provider, once, and throws nothing', async () => {
    const local = await createSandboxKubeplane();
    try {
      local.sandbox.injectFault({ cloud: 'hetzner', operation: '*', kind: 'quota', times: 1 });
      const problems = await local.kubeplane.preflight(minimal());
      expect(problems.map((p) => [p.severity, p.path])).toEqual([['error', 'providers[0]']]);
      expect(problems[0]?.message).toMatch(/^hetzner provider hetzner-1: regions: /);
    } finally {
      await local.close();
    }
  });
});

describe('a manifest written in TypeScript (ManifestInput)', () => {
  // Defaults left out: labels, static pools, load balancers, storageDiskSize, taints, autoscaler.min.
  const written: ManifestInput = {
    apiVersion: 'kubeplane.dev/v1',
    kind: 'Manifest',
    metadata: { name: 'typed' },
    providers: [{ name: 'hetzner-1', providerType: 'hetzner', secretRef: { env: { credentials: 'HCLOUD_TOKEN' } } }],
    nodePools: {
      dynamic: [
        { name: 'control', providerSpec: { name: 'hetzner-1', region: 'fsn1' }, count: 1, serverType: 'cpx22', image: 'ubuntu-24.04' },
        { name: 'workers', providerSpec: { name: 'hetzner-1', region: 'fsn1' }, count: 2, serverType: 'cpx32', image: 'ubuntu-24.04' },
      ],
    },
    kubernetes: { clusters: [{ name: 'typed', version: '1.34.2', network: '10.0.0.0/24', pools: { control: ['control'], compute: ['workers'] } }] },
  };

  it('is validated, preflighted, planned and built by the engine as it is, its defaults filled in', async () => {
    expect(validateManifestObject(written).issues).toEqual([]);
    const local = await createSandboxKubeplane();
    try {
      expect(await local.kubeplane.preflight(written)).toEqual([]);
      const planned = await local.kubeplane.plan(written);
      if (!planned.ok) throw new Error(planned.issues.map((i) => i.message).join('\n'));
      expect(planned.plan.operations.filter((o) => o.kind === 'create-node').map((o) => o.target)).toHaveLength(3);
      await local.kubeplane.apply(written);
      await local.kubeplane.run();
      expect((await local.kubeplane.status('typed')).state).toBe('DONE');
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
