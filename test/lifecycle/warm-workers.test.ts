// Warm workers: provider ids cached by name in one worker must not outlive the resources when another worker deletes
// and re-creates them (destroy, then apply again; Lambda keeps containers warm for hours). Found by the chaos suite.
import { expect, it } from 'vitest';
import { Engine } from '@kubeplane/sdk';
import { sandboxWorld, type World } from '../helpers/sandbox-world.js';
import { chaosManifest } from '../chaos/harness.js';

/** Delivers every message, to `pick(step)`, until the queue is empty. */
async function runOn(w: World, pick: (step: string) => Engine): Promise<void> {
  for (let i = 0; i < 5000; i++) {
    const batch = await w.queue.receive(1);
    if (batch.length === 0) {
      const next = await w.queue.nextVisibleAt();
      if (next === null) return;
      w.sandbox.clock.advanceTo(next);
      continue;
    }
    for (const m of batch) await pick(m.body.step).process(m);
  }
}

it('worker A builds and destroys the cluster; B creates its firewalls again and A its machines: DONE', async () => {
  const w = sandboxWorld(7);
  const a = w.kp.engine;
  const b = new Engine({ ...w.options, workerId: 'b' });
  const manifest = chaosManifest(1);
  try {
    await w.kp.apply(manifest);
    await runOn(w, () => a);
    expect((await w.kp.status('chaos')).state).toBe('DONE');
    await w.kp.destroy('chaos');
    await runOn(w, () => a);
    expect(await w.kp.findStatus('chaos')).toBeNull();
    await w.kp.apply(manifest);
    // Life 2: B creates the networks and firewalls, A (which cached life 1's ids) creates the machines.
    await runOn(w, (step) => (step === 'networks' ? b : a));
    const status = await w.kp.status('chaos');
    expect(status.state, JSON.stringify(status.clusters)).toBe('DONE');
  } finally {
    w.sandbox.close();
  }
}, 600_000);
