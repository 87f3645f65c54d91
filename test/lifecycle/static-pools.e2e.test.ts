// Static pools (the user's own machines, reached over SSH) on the sandbox, through the public API: a node removed
// from a pool is drained, then reset over SSH, and its machine is left clean — it stays the user's, nothing of
// kubeplane's on it. The sandbox's machines are real sshd servers where they can run (see
// packages/sandbox/src/openssh/machine.ts), otherwise its in-process ssh2 servers; both are asked the same.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { holdManifestDnsZones, type Sandbox } from '@kubeplane/sandbox';
import { manifestOf, sandboxWorld } from '../helpers/sandbox-world.js';

const example = readFileSync(join(import.meta.dirname, '..', '..', 'examples', 'static-and-dynamic.yaml'), 'utf8');
const gpuNode = (endpoint: string) => `        - { endpoint: ${endpoint}, secretRef: { env: { privatekey: RACK_SSH_KEY } }, username: ubuntu }\n`;
const twoGpuBoxes = example.replace(gpuNode('198.51.100.20'), gpuNode('198.51.100.20') + gpuNode('198.51.100.21'));

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

describe('a static pool that shrinks', () => {
  it('drains the node it loses, resets its machine over SSH and leaves nothing of kubeplane on it', async () => {
    expect(twoGpuBoxes).toContain('198.51.100.21');
    const world = sandboxWorld(3, (s) => ({ machines: s.staticMachines.access() }));
    sandbox = world.sandbox;
    const { kp, events } = world;
    // The sandbox account holds the manifest's DNS zone (example.com), as the user's would.
    holdManifestDnsZones(world.sandbox, manifestOf(twoGpuBoxes));
    await kp.apply(manifestOf(twoGpuBoxes));
    await kp.run();
    expect((await kp.status('onprem')).state).toBe('DONE');
    const nodes = () => world.sandbox.kubernetes.inventory().clusters.flatMap((c) => c.nodes);
    const gone = nodes().find((n) => n.name.endsWith('rack-gpu-02'));
    expect(gone?.ready).toBe(true);
    expect(world.sandbox.staticMachines.leftovers('198.51.100.21')).toContain('/var/lib/kubeplane-static/user-data');
    // A workload on the node that goes: the drain must evict it before the machine is reset.
    const cluster = world.sandbox.kubernetes.inventory().clusters[0];
    const api = world.sandbox.kubernetes.cluster(cluster?.endpoint ?? '');
    api?.create(
      'pods',
      'default',
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'gpu-job', namespace: 'default' },
        spec: { nodeName: gone?.name, containers: [{ name: 'job', image: 'busybox' }] },
      },
      world.sandbox.clock.now(),
    );
    const pods = () =>
      world.sandbox.kubernetes
        .inventory()
        .clusters.flatMap((c) => c.pods)
        .filter((p) => p.name === 'gpu-job');
    expect(pods()).toMatchObject([{ node: gone?.name }]);

    events.length = 0;
    const evictions = () =>
      Object.entries(world.sandbox.calls())
        .filter(([k]) => k.includes('/eviction'))
        .reduce((n, [, v]) => n + v, 0);
    const evictedBefore = evictions();
    await kp.apply(manifestOf(example));
    await kp.run();
    expect((await kp.status('onprem')).state).toBe('DONE');
    expect(nodes().map((n) => n.name)).not.toContain(gone?.name);
    expect(nodes().find((n) => n.name.endsWith('rack-gpu-01'))?.ready).toBe(true);
    expect(pods()).toEqual([]);
    expect(evictions() - evictedBefore).toBe(1);
    expect(events).toContainEqual(expect.objectContaining({ type: 'step-done', step: 'remove-nodes', message: `removed ${gone?.name}` }));
    expect(events).toContainEqual(expect.objectContaining({ type: 'resource-deleted', kind: 'machine', name: gone?.name, provider: 'static' }));
    expect(world.sandbox.staticMachines.listVms()).toContainEqual(expect.objectContaining({ name: gone?.name, state: 'terminated' }));
    expect(world.sandbox.staticMachines.leftovers('198.51.100.21')).toEqual([]);
    expect(world.sandbox.staticMachines.leftovers('198.51.100.20').length).toBeGreaterThan(0);
  });
});
