// The engine across a sandbox snapshot, as `kubeplane apply --sandbox` then a later command would run it: the
// minimal example is applied halfway, the world is saved and restored into a new Sandbox, and a new Kubeplane on
// the same stores finishes the cluster on the restored world, then destroys it to an empty inventory.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Kubeplane, MemoryLease, MemoryQueue, MemorySecretStore, MemoryStateStore, validateManifestText, type Manifest, type StepEvent } from '@kubeplane/sdk';
import { sandboxKubernetes, sandboxProviders } from './providers.js';
import { Sandbox } from './sandbox.js';
import { asSandboxSnapshot } from './snapshot.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
const minimal = readFileSync(join(import.meta.dirname, '..', '..', '..', 'examples', 'minimal.yaml'), 'utf8');

const open: Sandbox[] = [];
afterEach(() => {
  for (const s of open.splice(0)) s.close();
});

function manifest(): Manifest {
  const r = validateManifestText(minimal);
  expect(r.errors).toEqual([]);
  return r.manifests[0] as Manifest;
}

describe('the engine across a sandbox snapshot', () => {
  it('finishes a half-applied cluster on the restored world, then destroys it leaving nothing behind', async () => {
    const first = new Sandbox({ seed: 11 }).listen();
    open.push(first);
    const clock = first.clock;
    const stores = {
      state: new MemoryStateStore(),
      secrets: new MemorySecretStore(),
      queue: new MemoryQueue<StepEvent>({ clock, visibilityTimeoutSeconds: 120 }),
      lease: new MemoryLease(clock),
    };
    const before = new Kubeplane({ ...stores, clock, providers: sandboxProviders(first), kubernetes: sandboxKubernetes(first) });
    await before.apply(manifest());
    const half = await before.run({ maxMessages: 14 });
    expect(half.stopped).toBe('max-messages');
    expect((await before.status('minimal')).clusters['minimal']?.state).not.toBe('DONE');
    // Halfway: the machines run and their kubelets are preparing, with boot events pending.
    expect(first.inventory().filter((i) => i.kind === 'node')).toHaveLength(3);
    expect(first.kubernetes.kubelets().map((k) => k.state)).toEqual(['preparing', 'preparing', 'preparing']);

    const text = JSON.stringify(first.snapshot());
    first.close();
    // The queue and the lease keep their time on this clock, so the restored world continues on it.
    expect(Buffer.byteLength(text)).toBeLessThan(1024 * 1024);
    const second = Sandbox.fromSnapshot(asSandboxSnapshot(JSON.parse(text)), { clock }).listen();
    open.push(second);
    expect(second.inventory()).toEqual(first.inventory());

    const after = new Kubeplane({ ...stores, clock, providers: sandboxProviders(second), kubernetes: sandboxKubernetes(second) });
    const rest = await after.run({ maxMessages: 20_000 });
    expect(rest.stopped).toBe('idle');
    const status = await after.status('minimal');
    expect(status.clusters['minimal']?.state, JSON.stringify(status.clusters['minimal'])).toBe('DONE');
    const nodes = second.kubernetes.inventory().clusters.flatMap((c) => c.nodes);
    expect(
      nodes
        .filter((n) => n.ready)
        .map((n) => n.name)
        .sort(),
    ).toHaveLength(3);
    expect((await after.kubeconfig('minimal', 'minimal')).reveal()).toContain('server: https://');

    await after.destroy('minimal');
    expect((await after.run({ maxMessages: 20_000 })).stopped).toBe('idle');
    expect(second.inventory()).toEqual([]);
    // Nothing happened in the old world after the snapshot.
    expect(first.inventory().filter((i) => i.kind === 'node')).toHaveLength(3);
  });
});
