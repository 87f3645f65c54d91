// Preflight's word on Crusoe stock and quota: a pool wanting more GPU machines than its location can start now (GET
// /capacities quantity) is a warning, not a refusal (stock changes, and a growing pool holds some already); pools
// wanting more machines than the project's quota allows (GET /projects/{id}/quotas, CapacityV1.quota_type) are refused.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { CatalogCache, preflight } from '@kubeplane/sdk/internal';
import { validateManifestText } from '@kubeplane/sdk';
import { Sandbox, sandboxProviders } from '@kubeplane/sandbox';

let sandbox: Sandbox | undefined;
afterEach(() => sandbox?.close());

async function check(stock: number, gpuVms = 64): Promise<Awaited<ReturnType<typeof preflight>>> {
  sandbox = new Sandbox({ seed: 3, crusoe: { stock: { 'us-east1-a/h100-80gb-sxm-ib.8x': stock }, quota: { vms: 200, gpuVms } } }).listen();
  const text = await readFile(join(import.meta.dirname, '..', '..', '..', '..', 'examples', 'hybrid-hetzner-crusoe-gpu.yaml'), 'utf8');
  const manifest = validateManifestText(text).manifests[0];
  if (!manifest) throw new Error('example does not parse');
  const factory = sandboxProviders(sandbox);
  const s = sandbox;
  return preflight(manifest, (name, region) => factory(manifest.providers.find((p) => p.name === name)!, region), new CatalogCache(s.clock), s.clock.now());
}

it('warns that a Crusoe pool wants more GPU machines than its location can start now, with the count', async () => {
  expect(await check(1)).toEqual([
    {
      severity: 'warning',
      path: 'nodePools.dynamic[1].count',
      message:
        'crusoe can start only 1 h100-80gb-sxm-ib.8x in us-east1-a now and the pool wants 2: creating more fails while it is out of stock (types with stock for the pool: a100-80gb-sxm-ib.8x, h200-141gb-sxm-ib.8x)',
    },
  ]);
});

it('says nothing of stock when the location has enough', async () => {
  expect(await check(2)).toEqual([]);
});

it('refuses Crusoe pools that want more GPU machines than the project quota allows, naming the quota and the pools', async () => {
  expect(await check(16, 1)).toEqual([
    {
      severity: 'error',
      path: 'nodePools.dynamic[1].count',
      message:
        'the crusoe quota "GPU VMs" of provider crusoe-1 allows 1 machines and the manifest\'s pools want 2 (gpu: 2); raise it with the provider or lower the counts',
    },
  ]);
});
