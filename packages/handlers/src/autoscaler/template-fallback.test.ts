// When the provider's instance catalog does not answer (throttled past its cache), an autoscaled pool's template node
// is the one the manifest's machineSpec describes: cpuCount, memory, nvidiaGpuCount (or Claudie's deprecated
// nvidiaGpu) with the `nvidia.com/gpu.present` label, and nvidiaGpuType among the GPU types the adapter offers.
// Driven as cluster-autoscaler drives it: the real gRPC adapter on a sandbox cluster, and Kubeplane.nodeGroups.
import { afterEach, describe, expect, it } from 'vitest';
import { validateManifestText, type Manifest } from '@kubeplane/sdk';
import { createSandboxKubeplane } from '../runtime/embed.js';
import { localBackend } from './backend.js';
import { cloudProviderClient, type CloudProviderClient } from './client.js';
import { serveAutoscalerAdapter, type RunningAdapter } from './server.js';

type Runtime = Awaited<ReturnType<typeof createSandboxKubeplane>>;
let runtime: Runtime | undefined;
let adapter: RunningAdapter | undefined;
let client: CloudProviderClient | undefined;

afterEach(async () => {
  client?.close();
  await adapter?.close();
  await runtime?.close();
  client = adapter = runtime = undefined;
});

/** One control plane and an autoscaled pool from zero whose machineSpec is `machineSpec` (YAML flow). */
function manifest(machineSpec: string): Manifest {
  const r = validateManifestText(`apiVersion: kubeplane.dev/v1
kind: Manifest
metadata: { name: gpus }
providers:
  - { name: hetzner-1, providerType: hetzner, secretRef: { env: { credentials: HCLOUD_TOKEN } } }
nodePools:
  dynamic:
    - { name: control, providerSpec: { name: hetzner-1, region: fsn1 }, count: 1, serverType: cpx22, image: ubuntu-24.04 }
    - name: trainers
      providerSpec: { name: hetzner-1, region: fsn1 }
      autoscaler: { min: 0, max: 2 }
      serverType: cpx32
      image: ubuntu-24.04
      machineSpec: ${machineSpec}
kubernetes:
  clusters:
    - { name: gpus, version: "1.34.2", network: 10.0.0.0/24, pools: { control: [control], compute: [trainers] } }
`);
  const [m] = r.manifests;
  if (!r.ok || !m) throw new Error(r.errors.map((e) => `${e.path}: ${e.message}`).join('; '));
  return m;
}

/** Builds the cluster, then makes Hetzner's server-type catalog answer 429 from past the engine's cache on. */
async function withCatalogThrottled(machineSpec: string, seed: number): Promise<{ rt: Runtime; c: CloudProviderClient }> {
  const rt = await createSandboxKubeplane({ seed });
  runtime = rt;
  await rt.kubeplane.apply(manifest(machineSpec));
  await rt.kubeplane.run();
  expect((await rt.kubeplane.status('gpus')).state).toBe('DONE');
  rt.sandbox.faults.add({ cloud: 'hetzner', operation: 'GET /server_types', kind: 'throttled' });
  // Past the catalog cache (ten minutes), so the template must be made without the catalog.
  rt.sandbox.clock.advance(11 * 60_000);
  adapter = await serveAutoscalerAdapter({ backend: localBackend(rt.kubeplane, 'gpus', 'gpus'), listen: '127.0.0.1:0', now: () => rt.clock.now() });
  client = cloudProviderClient(adapter.address);
  return { rt, c: client };
}

describe('an autoscaled pool whose server type the catalog does not answer for', () => {
  it('makes the template node from machineSpec: cpuCount, memory, nvidiaGpuCount GPUs with the GPU label, and offers nvidiaGpuType', async () => {
    const { rt, c } = await withCatalogThrottled('{ cpuCount: 24, memory: 96, nvidiaGpuCount: 2, nvidiaGpuType: nvidia-l4 }', 51);
    const [group] = await rt.kubeplane.nodeGroups('gpus', 'gpus');
    expect(rt.sandbox.faults.fired.some((f) => f.operation === 'GET /server_types')).toBe(true);
    expect(group?.template).toMatchObject({ cpu: 24, memoryGiB: 96, gpus: 2, gpuType: 'nvidia-l4' });
    const node = await c.templateNodeInfo('trainers');
    expect(node.status.allocatable).toMatchObject({ cpu: { string: '24' }, memory: { string: '96Gi' }, 'nvidia.com/gpu': { string: '2' } });
    expect(node.metadata.labels).toMatchObject({ 'nvidia.com/gpu.present': 'true', 'kubeplane.dev/pool': 'trainers' });
    expect(await c.availableGpuTypes()).toEqual(['nvidia-l4']);
  });

  it("takes Claudie's deprecated nvidiaGpu as the GPU count", async () => {
    const { rt, c } = await withCatalogThrottled('{ cpuCount: 8, memory: 32, nvidiaGpu: 1 }', 52);
    expect((await rt.kubeplane.nodeGroups('gpus', 'gpus'))[0]?.template).toMatchObject({ cpu: 8, memoryGiB: 32, gpus: 1 });
    const node = await c.templateNodeInfo('trainers');
    expect(node.status.allocatable).toMatchObject({ 'nvidia.com/gpu': { string: '1' } });
    expect(node.metadata.labels).toMatchObject({ 'nvidia.com/gpu.present': 'true' });
    // No type named: none offered.
    expect(await c.availableGpuTypes()).toEqual([]);
  });

  it('gives a machineSpec without GPUs no GPU and no GPU label', async () => {
    const { c } = await withCatalogThrottled('{ cpuCount: 8, memory: 32 }', 53);
    const node = await c.templateNodeInfo('trainers');
    expect(node.status.allocatable).toMatchObject({ cpu: { string: '8' }, memory: { string: '32Gi' } });
    expect(node.status.allocatable).not.toHaveProperty('nvidia.com/gpu');
    expect(node.metadata.labels).not.toHaveProperty('nvidia.com/gpu.present');
  });
});
