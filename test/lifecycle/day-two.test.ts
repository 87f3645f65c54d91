// Day two: changes long after a cluster was created must still work — the bootstrap token in the first
// control plane's configuration lives 24 hours, so machines added later need a fresh one.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sandboxProviders as sandboxProvidersOf, type Sandbox } from '@kubeplane/providers';
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
    expect(new Set(seen.map((s) => s.split('@')[0]))).toEqual(new Set(['{"env":{"credentials":"HCLOUD_TOKEN"}}', '{"env":{"credentials":"OTHER_HCLOUD_TOKEN"}}']));
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
    const ready = w.sandbox.kubernetes.inventory().clusters.flatMap((c) => c.nodes).filter((n) => n.ready);
    expect(ready).toHaveLength(4);
  });
});
