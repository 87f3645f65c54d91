// A manifest may name a provider type Claudie accepts and kubeplane has no provider for yet (verda, openstack, …):
// validation warns, apply's preflight refuses it at the entry's providerType, and the refused project is destroyed
// through the engine's ordinary delete flow, to DELETED: nothing can have been made through a provider that cannot be
// made, so its regions are swept as empty, while what other providers hold is swept as always.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { KubeplaneError } from '@kubeplane/sdk';
import type { Sandbox } from '@kubeplane/sandbox';
import { cloudProviderFactory } from '../../packages/handlers/src/runtime/cloud-providers.js';
import { liveMachines, manifestOf, sandboxWorld } from '../helpers/sandbox-world.js';

const root = join(import.meta.dirname, '..', '..');
const verda = readFileSync(join(root, 'test', 'fixtures', 'claudie', 'docs', 'verda-1.yaml'), 'utf8');
const minimal = readFileSync(join(root, 'examples', 'minimal.yaml'), 'utf8');

/** minimal.yaml with a second cluster on a Verda provider. */
const withVerdaCluster = minimal
  .replace(
    'nodePools:\n',
    '  - name: verda-1\n    providerType: verda\n    secretRef:\n      env: { clientid: VERDA_CLIENT_ID, clientsecret: VERDA_CLIENT_SECRET }\nnodePools:\n',
  )
  .replace(
    'kubernetes:\n',
    '    - name: verda-control\n      providerSpec: { name: verda-1, region: FIN-01 }\n      count: 1\n      serverType: CPU.4V.16G\n      image: ubuntu-24.04\n' +
      'kubernetes:\n',
  )
  .concat('    - name: on-verda\n      version: "1.34.2"\n      network: 10.1.0.0/24\n      pools:\n        control: [verda-control]\n');

let sandbox: Sandbox | undefined;
afterEach(() => sandbox?.close());

describe('a provider type kubeplane has no provider for', () => {
  it('is refused by the engine at its providerType when apply is called without the CLI, and the project is then destroyed to DELETED, asking no cloud', async () => {
    const w = sandboxWorld(11);
    sandbox = w.sandbox;
    const manifest = manifestOf(verda);
    await w.kp.apply(manifest);
    await w.kp.run();
    const refused = await w.kp.status(manifest.name);
    expect(refused.state).toBe('ERROR');
    expect(refused.clusters['verda-cluster']?.message).toContain('providers[0].providerType: the sandbox has no verda cloud');

    await w.kp.destroy(manifest.name);
    await w.kp.run();
    expect(await w.kp.findStatus(manifest.name)).toBeNull();
    expect(w.events).toContainEqual(expect.objectContaining({ type: 'cluster-done', cluster: 'verda-cluster', state: 'DELETED' }));
    expect(w.events.filter((e) => e.type === 'error' && e.phase === 'delete')).toEqual([]);
    expect(w.sandbox.totalCalls()).toBe(0);
    expect(w.sandbox.inventory()).toEqual([]);
  });

  it("is refused by the real clouds' factory before any credential is read, and destroy ends DELETED there too", async () => {
    const asked: string[] = [];
    const w = sandboxWorld(12, {
      providers: cloudProviderFactory(async (def) => {
        asked.push(def.name);
        throw new KubeplaneError('auth', `no credentials for ${def.name} in this test`);
      }),
    });
    sandbox = w.sandbox;
    const manifest = manifestOf(verda);
    expect(await w.kp.preflight(manifest)).toEqual([
      {
        severity: 'error',
        path: 'providers[0].providerType',
        message: 'provider type verda (verda-1) has no kubeplane provider yet; available: aws, cloudflare, crusoe, hetzner',
      },
    ]);
    await w.kp.apply(manifest);
    await w.kp.run();
    expect((await w.kp.status(manifest.name)).state).toBe('ERROR');
    await w.kp.destroy(manifest.name);
    await w.kp.run();
    expect(await w.kp.findStatus(manifest.name)).toBeNull();
    expect(asked).toEqual([]);
  });

  it("leaves the clouds it has providers for swept as always: a built Hetzner cluster's machines go when the project, now naming Verda too, is destroyed", async () => {
    const w = sandboxWorld(13);
    sandbox = w.sandbox;
    await w.kp.apply(manifestOf(minimal));
    await w.kp.run();
    expect((await w.kp.status('minimal')).state).toBe('DONE');
    expect(liveMachines(w.sandbox)).toHaveLength(3);

    // The apply that adds the Verda cluster stops at preflight, for both clusters of the project: nothing changes.
    await w.kp.apply(manifestOf(withVerdaCluster));
    await w.kp.run();
    const refused = await w.kp.status('minimal');
    expect(refused.clusters['on-verda']?.message).toContain('providers[1].providerType');
    expect(liveMachines(w.sandbox)).toHaveLength(3);

    await w.kp.destroy('minimal');
    await w.kp.run();
    expect(await w.kp.findStatus('minimal')).toBeNull();
    expect(liveMachines(w.sandbox)).toEqual([]);
    expect(w.sandbox.inventory()).toEqual([]);
    const teardowns = w.events.flatMap((e) => (e.type === 'step-done' && e.step === 'teardown' ? [`${e.cluster}: ${e.message}`] : []));
    expect(teardowns.sort()).toEqual([
      'minimal: nothing tagged minimal-9g0flyp is left in 1 region',
      expect.stringMatching(
        /^on-verda: nothing tagged on-verda-\w+ is left in 0 regions; nothing can be in verda-1\/FIN-01: there is no provider of its type here$/,
      ),
    ]);
  });
});
