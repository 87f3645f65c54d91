// The sandbox's simulated cluster-autoscaler against kubeplane's real adapter over loopback gRPC, on a sandbox
// cluster: unschedulable pods grow the pool (packed on as few nodes as fit, never past max), idle nodes are removed
// after the unneeded time (never below min), and a pool whose provider refuses to grow is backed off, not retried in a loop.
// Pods are written into the sandbox API server's store as kube-scheduler leaves them when nothing fits (PodScheduled
// False, reason Unschedulable); the lifecycle's autoscale stage has the sandbox's scheduler set that condition itself.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { driveUntil, sandboxClusterApi, sandboxClusterView, SimulatedClusterAutoscaler, CA_DEFAULTS, unschedulablePod } from '@kubeplane/sandbox';
import { autoscaledManifest, BATCH_PODS, BATCH_POOL } from '../../../../test/helpers/autoscaled-manifest.js';
import { createSandboxKubeplane } from '../runtime/embed.js';
import { localBackend } from './backend.js';
import { cloudProviderClient, type CloudProviderClient } from './client.js';
import { serveAutoscalerAdapter, type RunningAdapter } from './server.js';

type Runtime = Awaited<ReturnType<typeof createSandboxKubeplane>>;
let runtime: Runtime;
let adapter: RunningAdapter;
let client: CloudProviderClient;

beforeEach(async () => {
  runtime = await createSandboxKubeplane({ seed: 41 });
  await runtime.kubeplane.apply(autoscaledManifest({ project: 'batchy', max: 3, ...BATCH_POOL }));
  await runtime.kubeplane.run();
  expect((await runtime.kubeplane.status('batchy')).state).toBe('DONE');
  adapter = await serveAutoscalerAdapter({
    backend: localBackend(runtime.kubeplane, 'batchy', 'batchy'),
    listen: '127.0.0.1:0',
    now: () => runtime.clock.now(),
  });
  client = cloudProviderClient(adapter.address);
});

afterEach(async () => {
  client.close();
  await adapter.close();
  await runtime.close();
});

const api = () => sandboxClusterApi(runtime.sandbox.kubernetes, 'batchy');

/** Pods of a batch job that need 3 of a cpx32's 4 CPUs each, left unschedulable by the scheduler. */
function pendingPods(n: number): string[] {
  const names = Array.from({ length: n }, (_, i) => `batch-job-${i}`);
  for (const name of names) {
    api().store.create('pods', unschedulablePod({ name, requests: { cpu: '3', memory: '2Gi' }, ...BATCH_PODS, nodes: 1 }), runtime.clock.now());
  }
  return names;
}

const scheduled = (names: string[]) =>
  names.every((n) => typeof (api().store.get('pods', 'default', n)?.['spec'] as { nodeName?: string } | undefined)?.nodeName === 'string');

describe('the simulated cluster-autoscaler with the real adapter', () => {
  it('grows the pool for unschedulable pods, then shrinks it back to min once they are gone', async () => {
    const ca = new SimulatedClusterAutoscaler({ clock: runtime.clock, provider: client, cluster: sandboxClusterView(runtime.sandbox.kubernetes, 'batchy') });
    const pods = pendingPods(3);
    const run = (participant: SimulatedClusterAutoscaler) => runtime.kubeplane.run({ participant });
    const up = await driveUntil({ clock: runtime.clock, autoscaler: ca, run, until: () => scheduled(pods), limitMs: 30 * 60_000 });
    expect(up.ok, JSON.stringify(ca.events)).toBe(true);
    // 3 CPUs each on 4-CPU nodes: one pod a node, three nodes, one IncreaseSize.
    expect(ca.events.filter((e) => e.type === 'scale-up')).toEqual([expect.objectContaining({ group: 'batch', delta: 3, pods: 3 })]);
    expect(await client.targetSize('batch')).toBe(3);
    expect(up.elapsedMs).toBeLessThan(10 * 60_000);

    for (const p of pods) api().store.delete('pods', 'default', p);
    const down = await driveUntil({
      clock: runtime.clock,
      autoscaler: ca,
      run,
      until: async () => (await client.targetSize('batch')) === 0 && (await client.nodeGroupNodes('batch')).length === 0,
      limitMs: 60 * 60_000,
    });
    expect(down.ok, JSON.stringify(ca.events)).toBe(true);
    // Not before the unneeded time (and the delay after the scale-up) has passed.
    const removed = ca.events.find((e) => e.type === 'scale-down');
    expect(removed?.at).toBeGreaterThanOrEqual((ca.events.find((e) => e.type === 'scale-up')?.at ?? 0) + CA_DEFAULTS.unneededMs);
    expect(
      runtime.sandbox.kubernetes
        .inventory()
        .clusters[0]?.nodes.map((n) => n.name)
        .filter((n) => n.includes('-batch-')),
    ).toEqual([]);
    expect((await runtime.kubeplane.status('batchy')).state).toBe('DONE');
  });

  it('backs a pool off when its provider refuses to grow it, and asks again only after the backoff', async () => {
    runtime.sandbox.faults.add({ cloud: 'hetzner', operation: 'POST /servers', kind: 'quota' });
    const ca = new SimulatedClusterAutoscaler({ clock: runtime.clock, provider: client, cluster: sandboxClusterView(runtime.sandbox.kubernetes, 'batchy') });
    pendingPods(2);
    const run = (participant: SimulatedClusterAutoscaler) => runtime.kubeplane.run({ participant });
    // Twenty minutes of scans (120 of them) with the pods pending all along.
    const start = runtime.clock.now();
    await driveUntil({ clock: runtime.clock, autoscaler: ca, run, until: () => runtime.clock.now() - start >= 20 * 60_000, limitMs: 21 * 60_000 });
    expect(ca.events.some((e) => e.type === 'backoff')).toBe(true);
    // The first ask, then one after each backoff (5 min, then 10): three in twenty minutes, not one a scan.
    expect(ca.calls['NodeGroupIncreaseSize']).toBeLessThanOrEqual(3);
    expect(ca.calls['NodeGroupIncreaseSize']).toBeGreaterThanOrEqual(2);
    expect((await runtime.kubeplane.status('batchy')).state).toBe('DONE');
    expect(await client.targetSize('batch')).toBe(0);
  });
});
