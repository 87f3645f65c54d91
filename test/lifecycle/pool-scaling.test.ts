// Scaling autoscaled pools through the engine (Kubeplane.scalePool / nodeGroups), as a cluster autoscaler's adapter
// does: targets within limits that later applies keep, the nodes the autoscaler chose removed, compare-and-swap under
// concurrency, and a growth the provider refuses backed off and reported instead of failing the cluster.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GROWTH_BACKOFF_INITIAL_MS } from '@kubeplane/sdk/internal';
import { isKubeplaneError, type Kubeplane } from '@kubeplane/sdk';
import type { Sandbox } from '@kubeplane/sandbox';
import { liveMachines, manifestOf, sandboxWorld } from '../helpers/sandbox-world.js';

const minimal = readFileSync(join(import.meta.dirname, '..', '..', 'examples', 'minimal.yaml'), 'utf8');
const autoscaled = (min: number, max: number) =>
  minimal.replace(/count: 2\n(\s+)serverType: cpx32/, `autoscaler: { min: ${min}, max: ${max} }\n$1serverType: cpx32`);

let sandbox: Sandbox | undefined;
afterEach(() => sandbox?.close());

async function built(min = 1, max = 4) {
  const w = sandboxWorld(31);
  sandbox = w.sandbox;
  await w.kp.apply(manifestOf(autoscaled(min, max)));
  await w.kp.run();
  expect((await w.kp.status('minimal')).state).toBe('DONE');
  return w;
}

async function errorOf(p: Promise<unknown>) {
  try {
    await p;
  } catch (e) {
    if (isKubeplaneError(e)) return e;
    throw e;
  }
  throw new Error('expected a KubeplaneError');
}

const workers = async (kp: Kubeplane) => (await kp.nodeGroups('minimal', 'minimal')).find((g) => g.id === 'workers');

describe('Kubeplane.scalePool', () => {
  it('grows an autoscaled pool to the target, and a re-apply of the same manifest keeps it', async () => {
    const w = await built();
    expect((await workers(w.kp))?.target).toBe(1);
    await w.kp.scalePool('minimal', 'minimal', 'workers', 3);
    await w.kp.run();
    expect((await w.kp.status('minimal')).state).toBe('DONE');
    expect(liveMachines(w.sandbox)).toHaveLength(4);
    const group = await workers(w.kp);
    expect(group?.target).toBe(3);
    expect(group?.nodes.map((n) => n.state)).toEqual(['running', 'running', 'running']);
    expect(group?.nodes.every((n) => n.providerId !== '')).toBe(true);

    const again = await w.kp.apply(manifestOf(autoscaled(1, 4)));
    expect(again.queued).toEqual([]);
    await w.kp.run();
    expect(liveMachines(w.sandbox)).toHaveLength(4);
    // New limits clamp the target.
    await w.kp.apply(manifestOf(autoscaled(1, 2)));
    await w.kp.run();
    expect((await workers(w.kp))?.target).toBe(2);
    expect(liveMachines(w.sandbox)).toHaveLength(3);
  });

  it('refuses a target outside the limits, a pool with a fixed count and an unknown pool, naming them', async () => {
    const w = await built();
    const past = await errorOf(w.kp.scalePool('minimal', 'minimal', 'workers', 5));
    expect(past.kind).toBe('invalid');
    expect(past.message).toContain('scales between 1 and 4 nodes; 5 is outside');
    expect((await errorOf(w.kp.scalePool('minimal', 'minimal', 'workers', 0))).kind).toBe('invalid');
    const fixed = await errorOf(w.kp.scalePool('minimal', 'minimal', 'control', 2));
    expect(fixed.message).toContain('pool control of cluster minimal is not autoscaled');
    const unknown = await errorOf(w.kp.scalePool('minimal', 'minimal', 'gpus', 2));
    expect(unknown.kind).toBe('not-found');
    expect(unknown.message).toContain('its autoscaled pools: workers');
  });

  it('removes exactly the nodes named, not the highest', async () => {
    const w = await built();
    await w.kp.scalePool('minimal', 'minimal', 'workers', 3);
    await w.kp.run();
    const names = (await workers(w.kp))?.nodes.map((n) => n.name) ?? [];
    const middle = names[1] ?? '';
    await w.kp.scalePool('minimal', 'minimal', 'workers', 2, { removeNodes: [middle] });
    await w.kp.run();
    const left = (await workers(w.kp))?.nodes.map((n) => n.name);
    expect(left).toEqual([names[0], names[2]]);
    expect(liveMachines(w.sandbox)).not.toContain(middle);
    expect((await errorOf(w.kp.scalePool('minimal', 'minimal', 'workers', 1, { removeNodes: ['nope'] }))).message).toContain(
      'node nope is not in pool workers',
    );
  });

  it('takes two concurrent scale calls one after the other (compare-and-swap): the last target wins, nothing is lost', async () => {
    const w = await built();
    await Promise.all([w.kp.scalePool('minimal', 'minimal', 'workers', 2), w.kp.scalePool('minimal', 'minimal', 'workers', 3)]);
    const target = (await workers(w.kp))?.target;
    expect([2, 3]).toContain(target);
    await w.kp.run();
    expect((await w.kp.status('minimal')).state).toBe('DONE');
    expect(liveMachines(w.sandbox)).toHaveLength(1 + (target ?? 0));
  });

  it("takes a scale while the cluster's flow runs: the flow starts again toward the new target", async () => {
    const w = await built();
    await w.kp.scalePool('minimal', 'minimal', 'workers', 2);
    await w.kp.run({ maxMessages: 4 });
    await w.kp.scalePool('minimal', 'minimal', 'workers', 4);
    await w.kp.run();
    expect((await w.kp.status('minimal')).state).toBe('DONE');
    expect(liveMachines(w.sandbox)).toHaveLength(5);
  });

  it('backs off a growth the provider refuses: the target falls back, the cluster is DONE, the failure is reported', async () => {
    const w = await built();
    // Hetzner's answer when the location has no capacity for the type.
    w.sandbox.faults.add({ cloud: 'hetzner', operation: 'POST /servers', kind: 'capacity' });
    await w.kp.scalePool('minimal', 'minimal', 'workers', 3);
    await w.kp.run();
    const status = await w.kp.status('minimal');
    expect(status.state).toBe('DONE');
    const pool = status.clusters.minimal?.pools?.find((p) => p.name === 'workers');
    expect(pool).toMatchObject({ target: 1, min: 1, max: 4, running: 1, lastFailure: { kind: 'capacity' } });
    const group = await workers(w.kp);
    expect(group?.target).toBe(1);
    expect(group?.lastFailure?.kind).toBe('capacity');
    expect(w.events.some((e) => e.type === 'pool-growth-refused')).toBe(true);
    const creates = w.sandbox.faults.fired.length;

    // Within the backoff, growth is refused without a call to the provider.
    const backedOff = await errorOf(w.kp.scalePool('minimal', 'minimal', 'workers', 2));
    expect(backedOff.details.code).toBe('GrowthBackedOff');
    await w.kp.run();
    expect(w.sandbox.faults.fired.length).toBe(creates);

    // After it, growth is tried again; once it succeeds the failure is cleared.
    w.sandbox.faults.clear();
    w.sandbox.clock.advance(GROWTH_BACKOFF_INITIAL_MS + 1000);
    await w.kp.scalePool('minimal', 'minimal', 'workers', 2);
    await w.kp.run();
    expect((await workers(w.kp))?.lastFailure).toBeUndefined();
    expect(liveMachines(w.sandbox)).toHaveLength(3);
  });

  it('describes each autoscaled pool as a node group with a template from the instance catalog', async () => {
    const w = await built(0, 3);
    const group = await workers(w.kp);
    expect(group).toMatchObject({ id: 'workers', min: 0, max: 3, target: 0, nodes: [], serverType: 'cpx32' });
    // Hetzner's cpx32: 4 vCPU, 8 GB.
    expect(group?.template).toMatchObject({ cpu: 4, memoryGiB: 8, gpus: 0, pods: 110 });
    expect(group?.template.labels).toMatchObject({
      'kubeplane.dev/pool': 'workers',
      'kubeplane.dev/provider': 'hetzner',
      'node.kubernetes.io/instance-type': 'cpx32',
      'topology.kubernetes.io/region': 'fsn1',
    });
  });

  it('reads the instance catalog once, however often an autoscaler asks for the node groups', async () => {
    const w = await built();
    const before = w.sandbox.totalCalls();
    for (let i = 0; i < 5; i++) await workers(w.kp);
    expect(w.sandbox.totalCalls() - before).toBeLessThanOrEqual(1);
  });

  it("takes the template's size from the server type, not from a machineSpec that asks for more", async () => {
    const w = sandboxWorld(32);
    sandbox = w.sandbox;
    await w.kp.apply(manifestOf(autoscaled(0, 2).replace(/serverType: cpx32/, 'serverType: cpx32\n      machineSpec: { cpuCount: 16, memory: 32 }')));
    await w.kp.run();
    // A new cpx32 has 4 vCPU and 8 GB whatever the manifest wished for: the autoscaler must plan with that.
    expect((await workers(w.kp))?.template).toMatchObject({ cpu: 4, memoryGiB: 8 });
  });
});
