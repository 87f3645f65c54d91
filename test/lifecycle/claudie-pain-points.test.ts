// Claudie's users ran into each of these (berops/claudie issues); each test shows it cannot happen here.
import { readFileSync } from 'node:fs';
import { mkdtemp, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileLease, clusterKey } from '@kubeplane/sdk';
import type { Sandbox } from '@kubeplane/providers';
import { acquireProcessLock } from '../../packages/handlers/src/runtime/process-lock.js';
import { liveMachines, manifestOf, sandboxWorld } from '../helpers/sandbox-world.js';

const minimal = readFileSync(join(import.meta.dirname, '..', '..', 'examples', 'minimal.yaml'), 'utf8');
const badServerType = minimal.replace('serverType: cpx32', 'serverType: cpx999');

let sandbox: Sandbox | undefined;
afterEach(() => sandbox?.close());
function world(seed = 3) {
  const w = sandboxWorld(seed);
  sandbox = w.sandbox;
  return w;
}

describe('changes the engine cannot carry out yet are refused, not reported DONE', () => {
  it('refuses a version upgrade of an existing cluster before touching anything', async () => {
    const { kp, sandbox } = world();
    await kp.apply(manifestOf(minimal));
    await kp.run();
    const before = sandbox.totalCalls();
    await expect(kp.apply(manifestOf(minimal.replace('"1.34.2"', '"1.35.0"')))).rejects.toThrow(/version upgrades .* not carried out yet/);
    expect(sandbox.totalCalls()).toBe(before);
    expect((await kp.status('minimal')).state).toBe('DONE');
  });
});

describe('Claudie pain points that cannot happen here', () => {
  it('#1275: a manifest that failed before its machines existed is deleted at once, not hung', async () => {
    const { kp, sandbox } = world();
    await kp.apply(manifestOf(badServerType));
    await kp.run();
    const failed = await kp.status('minimal');
    expect(failed.state).toBe('ERROR');
    expect(failed.clusters.minimal?.message).toContain('cpx999');
    await kp.destroy('minimal');
    const run = await kp.run();
    expect(run.stopped).toBe('idle');
    expect(await kp.status('minimal')).toMatchObject({ clusters: {} });
    expect(sandbox.inventory()).toEqual([]);
  });

  it('#2009: after a failed apply and a destroy nothing comes back: no queued work, no resources, however long we wait', async () => {
    const { kp, sandbox, queue } = world();
    await kp.apply(manifestOf(badServerType));
    await kp.run();
    await kp.destroy('minimal');
    await kp.run();
    sandbox.clock.advance(6 * 3600_000);
    const later = await kp.run();
    expect(later.messages).toBe(0);
    expect(await queue.size()).toBe(0);
    expect(sandbox.inventory()).toEqual([]);
    expect(await kp.projects()).toEqual([]);
  });

  it('#1483: a bad pool does not poison the state: replacing it with a good one converges', async () => {
    const { kp, sandbox } = world();
    await kp.apply(manifestOf(badServerType));
    await kp.run();
    expect((await kp.status('minimal')).state).toBe('ERROR');
    const replaced = minimal.replace('- name: workers', '- name: workers2').replace('compute: [workers]', 'compute: [workers2]');
    await kp.apply(manifestOf(replaced));
    await kp.run();
    expect((await kp.status('minimal')).state).toBe('DONE');
    expect(liveMachines(sandbox).map((n) => n.replace(/^minimal-[a-z0-9]+-/, ''))).toEqual(['control-01', 'workers2-01', 'workers2-02']);
  });

  it('#1286: a lease held by a process that died expires and is taken over without a manual unlock', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kubeplane-lease-'));
    const w = sandboxWorld(4, (sb) => ({ lease: new FileLease(dir, sb.clock) }));
    sandbox = w.sandbox;
    await w.kp.apply(manifestOf(minimal));
    const id = (await w.kp.status('minimal')).clusters.minimal?.id ?? '';
    // A worker took the cluster's lease and died without releasing it.
    expect(await w.options.lease.acquire(clusterKey(id), 'crashed-worker', 120)).not.toBeNull();
    const run = await w.kp.run();
    expect(run.outcomes.busy).toBeGreaterThan(0);
    expect((await w.kp.status('minimal')).state).toBe('DONE');
  });

  it('#1286: the state directory writer lock of a process that died is taken over', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kubeplane-lock-'));
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'writer.lock'), JSON.stringify({ pid: 2 ** 22 + 12345, command: 'kubeplane apply', since: '2026-01-01T00:00:00Z' }));
    const lock = await acquireProcessLock(join(dir, 'writer.lock'), 'kubeplane destroy');
    await lock.release();
  });

  it('#1339 and #1207: the status tells the truth — ERROR with the reason when a step fails, IN_PROGRESS with the reason while it retries, DONE only when done', async () => {
    const { kp, sandbox } = world();
    sandbox.injectFault({ cloud: 'hetzner', operation: 'POST /servers', kind: 'auth' });
    await kp.apply(manifestOf(minimal));
    await kp.run();
    const failed = await kp.status('minimal');
    expect(failed.state).toBe('ERROR');
    expect(failed.clusters.minimal?.state).toBe('ERROR');
    expect(failed.clusters.minimal?.message).toMatch(/create-nodes: .*(unauthorized|token|credential)/i);
    expect(failed.clusters.minimal?.previous.at(-1)).toMatchObject({ status: 'ERROR', stage: 'infrastructure' });

    sandbox.faults.clear();
    sandbox.injectFault({ cloud: 'hetzner', operation: 'DELETE /servers/{id}', kind: 'server-error', times: 3 });
    await kp.apply(manifestOf(minimal));
    await kp.run();
    expect((await kp.status('minimal')).state).toBe('DONE');
    await kp.destroy('minimal');
    // Mid-deletion, while the cloud fails, the status says so instead of DONE or a stale IN_PROGRESS.
    const seen: string[] = [];
    kp.on((e) => {
      if (e.type === 'waiting') seen.push(e.reason);
    });
    await kp.run();
    expect(seen.some((r) => /server_error|5\d\d|retried/i.test(r))).toBe(true);
    expect(await kp.projects()).toEqual([]);
    expect(sandbox.inventory()).toEqual([]);
  });
});

