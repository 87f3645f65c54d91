// Day two: changes long after a cluster was created must still work — the bootstrap token in the first
// control plane's configuration lives 24 hours, so machines added later need a fresh one.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sandboxProviders as sandboxProvidersOf, type Sandbox } from '@kubeplane/sandbox';
import { liveMachines, manifestOf, sandboxWorld } from '../helpers/sandbox-world.js';

const minimal = readFileSync(join(import.meta.dirname, '..', '..', 'examples', 'minimal.yaml'), 'utf8');
const workers = (n: number) => minimal.replace(/count: 2\n(\s+)serverType: cpx32/, `count: ${n}\n$1serverType: cpx32`);

let sandbox: Sandbox | undefined;
afterEach(() => sandbox?.close());

describe('providers are per project', () => {
  it('gives two projects that both name a provider "hetzner-1" a provider each, with their own credentials', async () => {
    const seen: string[] = [];
    const w = sandboxWorld(6, (sb) => {
      const real = sandboxProvidersOf(sb);
      return {
        providers: async (def, region) => {
          seen.push(`${JSON.stringify(def.secretRef)}@${region ?? ''}`);
          return real(def, region);
        },
      };
    });
    sandbox = w.sandbox;
    await w.kp.apply(manifestOf(minimal));
    await w.kp.apply(manifestOf(minimal.replace('name: minimal\n', 'name: other\n').replace('HCLOUD_TOKEN', 'OTHER_HCLOUD_TOKEN')));
    await w.kp.run();
    expect((await w.kp.status('minimal')).state).toBe('DONE');
    expect((await w.kp.status('other')).state).toBe('DONE');
    expect(new Set(seen.map((s) => s.split('@')[0]))).toEqual(
      new Set(['{"env":{"credentials":"HCLOUD_TOKEN"}}', '{"env":{"credentials":"OTHER_HCLOUD_TOKEN"}}']),
    );
  });
});

describe('day two', () => {
  it('adds machines two days after the cluster was created, and they join', async () => {
    const w = sandboxWorld(5);
    sandbox = w.sandbox;
    await w.kp.apply(manifestOf(minimal));
    await w.kp.run();
    expect((await w.kp.status('minimal')).state).toBe('DONE');

    w.sandbox.clock.advance(48 * 3600_000);
    await w.kp.apply(manifestOf(workers(3)));
    await w.kp.run();
    const status = await w.kp.status('minimal');
    expect(status.state, JSON.stringify(status.clusters)).toBe('DONE');
    expect(liveMachines(w.sandbox)).toHaveLength(4);
    const ready = w.sandbox.kubernetes
      .inventory()
      .clusters.flatMap((c) => c.nodes)
      .filter((n) => n.ready);
    expect(ready).toHaveLength(4);
  });

  it("repairs drift on apply --reconcile: a worker deleted behind kubeplane's back is created again and joins", async () => {
    const w = sandboxWorld(8);
    sandbox = w.sandbox;
    const m = manifestOf(minimal);
    await w.kp.apply(m);
    await w.kp.run();
    const status = await w.kp.status('minimal');
    const clusterId = status.clusters['minimal']?.id ?? '';
    const machines = liveMachines(w.sandbox);
    const victim = machines.find((n) => n.includes('-workers-')) ?? '';
    // Someone deletes a worker in the Hetzner console.
    const hetzner = await sandboxProvidersOf(w.sandbox)(m.providers[0] as (typeof m.providers)[number], 'fsn1');
    for (let i = 0; i < 30; i++) {
      const gone = await hetzner.compute?.deleteNode({ clusterId, name: victim, region: 'fsn1' });
      if (gone?.status === 'done') break;
      w.sandbox.clock.advance(5_000);
    }
    expect(liveMachines(w.sandbox)).not.toContain(victim);
    w.sandbox.clock.advance(15 * 60_000);

    // A plain apply of the same manifest has nothing to do; --reconcile looks and repairs.
    expect((await w.kp.apply(m)).queued).toEqual([]);
    await w.kp.apply(m, { reconcile: true });
    await w.kp.run();
    const after = await w.kp.status('minimal');
    expect(after.state, JSON.stringify(after.clusters)).toBe('DONE');
    expect(liveMachines(w.sandbox)).toEqual(machines);
    const nodes = w.sandbox.kubernetes.inventory().clusters.flatMap((c) => c.nodes);
    expect(
      nodes
        .filter((n) => n.ready)
        .map((n) => n.name)
        .sort(),
    ).toEqual([...machines].sort());
    expect(w.events.some((e) => e.type === 'resource-deleted' && e.kind === 'machine' && (e as { name: string }).name === victim)).toBe(true);
  });

  it('remediates a worker whose kubelet hangs: NotReady past remediation.notReadyMinutes, its machine is replaced', async () => {
    const w = sandboxWorld(10);
    sandbox = w.sandbox;
    const m = manifestOf(minimal);
    await w.kp.apply(m);
    await w.kp.run();
    const machines = liveMachines(w.sandbox);
    const worker = machines.find((n) => n.includes('-workers-')) ?? '';
    const before = w.sandbox.inventory().find((i) => i.name === worker)?.id;
    expect(w.sandbox.kubernetes.hangKubelet(worker)).toBe(true);
    w.sandbox.clock.advance(15 * 60_000);
    const notReady = w.sandbox.kubernetes
      .inventory()
      .clusters.flatMap((c) => c.nodes)
      .find((n) => n.name === worker);
    expect(notReady?.ready).toBe(false);

    await w.kp.apply(m, { reconcile: true });
    await w.kp.run();
    const after = await w.kp.status('minimal');
    expect(after.state, JSON.stringify(after.clusters)).toBe('DONE');
    expect(liveMachines(w.sandbox)).toEqual(machines);
    // The same name on a new machine, Ready.
    expect(w.sandbox.inventory().find((i) => i.name === worker)?.id).not.toBe(before);
    const nodes = w.sandbox.kubernetes.inventory().clusters.flatMap((c) => c.nodes);
    expect(
      nodes
        .filter((n) => n.ready)
        .map((n) => n.name)
        .sort(),
    ).toEqual([...machines].sort());
    const replaced = w.events.find((e) => e.type === 'step-done' && e.step === 'await-nodes' && /was NotReady for more than 10 minutes/.test(e.message));
    expect(replaced).toBeDefined();
  });

  it('leaves NotReady workers alone with remediation.notReadyMinutes: 0', async () => {
    const w = sandboxWorld(10);
    sandbox = w.sandbox;
    const m = manifestOf(minimal.replace('      pools:', '      remediation: { notReadyMinutes: 0 }\n      pools:'));
    await w.kp.apply(m);
    await w.kp.run();
    const worker = liveMachines(w.sandbox).find((n) => n.includes('-workers-')) ?? '';
    const before = w.sandbox.inventory().find((i) => i.name === worker)?.id;
    w.sandbox.kubernetes.hangKubelet(worker);
    w.sandbox.clock.advance(15 * 60_000);
    await w.kp.apply(m, { reconcile: true });
    await w.kp.run({ maxMessages: 200 });
    expect(w.sandbox.inventory().find((i) => i.name === worker)?.id).toBe(before);
    const status = await w.kp.status('minimal');
    // It is reported, not replaced: the apply ends in ERROR naming the step and what to look at.
    expect(status.clusters['minimal']?.message).toMatch(/await-nodes: nodes of minimal did not all join within 30 minutes/);
  });

  it('a reconcile never interrupts work under way', async () => {
    const w = sandboxWorld(12);
    sandbox = w.sandbox;
    await w.kp.apply(manifestOf(minimal));
    await w.kp.run({ maxMessages: 5 });
    expect((await w.kp.status('minimal')).state).toBe('IN_PROGRESS');
    expect((await w.kp.reconcile('minimal')).queued).toEqual([]);
    await w.kp.run();
    expect((await w.kp.status('minimal')).state).toBe('DONE');
    expect((await w.kp.reconcile('minimal')).queued).toEqual(['minimal']);
  });
});
