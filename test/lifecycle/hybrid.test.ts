// The whole lifecycle of the hybrid example on the sandbox clouds, through the public API: create, scale a
// pool up and down, add and remove a pool, destroy — and nothing left in any cloud afterwards.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Kubeplane } from '@kubeplane/sdk';
import type { Sandbox } from '@kubeplane/sandbox';
import { liveMachines, manifestOf, meshBundleOf, meshSigningKey, sandboxWorld } from '../helpers/sandbox-world.js';

const hybrid = readFileSync(join(import.meta.dirname, '..', '..', 'examples', 'hybrid-aws-hetzner.yaml'), 'utf8');

let sandbox: Sandbox | undefined;
afterEach(() => sandbox?.close());

function world(seed = 1) {
  const w = sandboxWorld(seed);
  sandbox = w.sandbox;
  return w;
}

async function applyAndRun(kp: Kubeplane, text: string) {
  const result = await kp.apply(manifestOf(text));
  const run = await kp.run({ maxMessages: Number(process.env.KP_MAX ?? 20_000) });
  const status = await kp.status('hybrid');
  expect(status.clusters.hybrid?.state, JSON.stringify(status.clusters.hybrid, null, 1)).toBe('DONE');
  expect(run.stopped).toBe('idle');
  return { result, run, status };
}

/** The mesh ConfigMap (the signed bundle's keys), read through the cluster's API with the admin kubeconfig, as the LB nodes read it. */
async function kubeConfigMap(kp: Kubeplane): Promise<{ data: Record<string, string> }> {
  const { kubernetesConnector } = await import('@kubeplane/providers');
  const data = await kubernetesConnector()(await kp.kubeconfig('hybrid', 'hybrid')).getConfigMap('kube-system', 'kubeplane-mesh');
  return { data: data ?? {} };
}

const htzWorkers = (n: number) => hybrid.replace(/count: 3\n(\s+)serverType: cpx42/, `count: ${n}\n$1serverType: cpx42`);
const withExtraPool = hybrid
  .replace(
    'kubernetes:\n',
    '    - name: aws-extra\n      providerSpec: { name: aws-1, region: eu-west-1 }\n      count: 2\n      serverType: m6i.large\n      image: ami-0694d931cee176e7d\nkubernetes:\n',
  )
  .replace('compute: [aws-worker, htz-worker]', 'compute: [aws-worker, htz-worker, aws-extra]');

describe('the hybrid example on the sandbox', () => {
  it('is created: machines in both clouds, DNS, every node Ready, a kubeconfig', async () => {
    const { sandbox, kp, events } = world();
    const { run } = await applyAndRun(kp, hybrid);
    const kubeconfig = await kp.kubeconfig('hybrid', 'hybrid');
    expect(kubeconfig.reveal()).toContain('https://hybrid.example.com:6443');
    expect(events.filter((e) => e.type === 'resource-created' && e.kind === 'machine')).toHaveLength(10);
    const nodes = sandbox.kubernetes.inventory().clusters.flatMap((c) => c.nodes);
    expect(nodes.filter((n) => n.ready)).toHaveLength(8);
    expect(liveMachines(sandbox)).toHaveLength(10);
    expect(run.elapsedMs).toBeLessThan(15 * 60_000);
    // The AWS work was done as sessions of the provider role, each tagged with this cluster.
    const id = (await kp.status('hybrid')).clusters.hybrid?.id;
    const sessions = sandbox.sts.sessions();
    expect(sessions.length).toBeGreaterThan(0);
    expect(sessions.every((s) => s.tags['kubeplane.dev/cluster-id'] === id && s.uses > 0)).toBe(true);
  });

  it('scales a pool up and down, adds and removes a pool, then is destroyed leaving nothing behind', async () => {
    const { sandbox, kp, events } = world(7);
    await applyAndRun(kp, hybrid);
    const machines = () => liveMachines(sandbox).length;
    const ready = () =>
      sandbox.kubernetes
        .inventory()
        .clusters.flatMap((c) => c.nodes)
        .filter((n) => n.ready)
        .map((n) => n.name)
        .sort();
    expect(machines()).toBe(10);

    await applyAndRun(kp, htzWorkers(5));
    expect(machines()).toBe(12);
    expect(ready()).toHaveLength(10);
    // The load balancer's https role now targets the two new workers too (published for the LB nodes' sync agent).
    const overlayOf = (name: string) =>
      sandbox.kubernetes
        .inventory()
        .clusters.flatMap((c) => c.nodes)
        .find((n) => n.name.endsWith(name))?.internalIp;
    const lbConfig = async () => meshBundleOf((await kubeConfigMap(kp)).data)?.loadBalancers['hybrid-lb'] ?? '';
    for (const w of ['htz-worker-04', 'htz-worker-05']) expect(await lbConfig()).toContain(`${overlayOf(w)}:30443`);

    await applyAndRun(kp, htzWorkers(2));
    expect(machines()).toBe(9);
    expect(ready()).toHaveLength(7);
    const drained = events.filter((e) => e.type === 'resource-deleted' && e.kind === 'machine').map((e) => (e as { name: string }).name);
    expect(drained).toHaveLength(3);
    expect(drained.every((n) => /htz-worker-0[345]$/.test(n))).toBe(true);

    await applyAndRun(kp, withExtraPool);
    expect(machines()).toBe(12);
    expect(ready().filter((n) => n.includes('aws-extra'))).toHaveLength(2);

    await applyAndRun(kp, hybrid);
    expect(machines()).toBe(10);
    expect(ready().some((n) => n.includes('aws-extra'))).toBe(false);

    await kp.destroy('hybrid');
    const run = await kp.run({ maxMessages: 20_000 });
    expect(run.stopped).toBe('idle');
    expect(sandbox.inventory()).toEqual([]);
    expect(await kp.findStatus('hybrid')).toBeNull();
    expect(await kp.projects()).toEqual([]);
  });

  it("changes a load balancer's roles in place: the firewall opens the new port, and the LB nodes get the new nginx configuration", async () => {
    const { sandbox, kp } = world(9);
    await applyAndRun(kp, hybrid);
    const withHttp = hybrid.replace(
      '  clusters:\n    - name: hybrid-lb\n      roles: [apiserver, https]',
      '    - name: http\n      protocol: tcp\n      port: 80\n      targetPort: 30080\n      targetPools: [htz-worker]\n  clusters:\n    - name: hybrid-lb\n      roles: [apiserver, https, http]',
    );
    expect(withHttp).not.toBe(hybrid);
    const machinesBefore = liveMachines(sandbox);
    const { result } = await applyAndRun(kp, withHttp);
    expect(result.plan.operations.map((o) => o.kind)).toContain('update-load-balancer-roles');
    const conf = meshBundleOf((await kubeConfigMap(kp)).data)?.loadBalancers['hybrid-lb'] ?? '';
    expect(conf).toMatch(/listen 80\b/);
    expect(conf).toMatch(/:30080\b/);
    // No machine was replaced; the nodes' sync agents apply the published configuration (after nginx -t).
    expect(liveMachines(sandbox)).toEqual(machinesBefore);
    const rules = [...sandbox.hetzner.firewalls.values()].flatMap((f) => f.rules).map((r) => `${String(r['protocol'])}/${String(r['port'] ?? '')}`);
    expect(rules).toContain('tcp/80');
  });

  it("renews the load-balancer nodes' mesh-reader certificates before they expire, and publishes them signed (never their keys)", async () => {
    const w = world(5);
    const { sandbox, kp } = w;
    await applyAndRun(kp, hybrid);
    const certificates = async () => meshBundleOf((await kubeConfigMap(kp)).data)?.meshReaderCertificates ?? {};
    const first = await certificates();
    expect(Object.keys(first).sort()).toEqual([expect.stringMatching(/-lb-01$/), expect.stringMatching(/-lb-02$/)]);
    const dir = mkdtempSync(join(tmpdir(), 'kubeplane-mesh-reader-'));
    try {
      const ca = Buffer.from(/certificate-authority-data: (\S+)/.exec((await kp.kubeconfig('hybrid', 'hybrid')).reveal())?.[1] ?? '', 'base64').toString();
      writeFileSync(join(dir, 'ca.pem'), ca);
      const check = (pem: string, at: Date) => {
        writeFileSync(join(dir, 'cert.pem'), pem);
        const verify = spawnSync(
          'openssl',
          ['verify', '-purpose', 'sslclient', '-attime', String(Math.floor(at.getTime() / 1000)), '-CAfile', join(dir, 'ca.pem'), join(dir, 'cert.pem')],
          { encoding: 'utf8' },
        );
        const subject = spawnSync('openssl', ['x509', '-in', join(dir, 'cert.pem'), '-noout', '-subject', '-enddate', '-nameopt', 'RFC2253'], {
          encoding: 'utf8',
        }).stdout;
        return { ok: verify.status === 0, subject };
      };
      for (const [node, pem] of Object.entries(first)) {
        const { ok, subject } = check(pem, new Date(sandbox.clock.now()));
        expect(ok).toBe(true);
        expect(subject).toContain(`subject=O=kubeplane:mesh-readers,CN=kubeplane:mesh-reader:${node}`);
      }
      // With more than 60 days left they stay as they are.
      await kp.apply(manifestOf(hybrid), { reconcile: true });
      await kp.run();
      expect(await certificates()).toEqual(first);
      // 310 days on, 55 are left: the engine issues new ones for the same keys, valid a year from now.
      sandbox.clock.advance(310 * 86_400_000);
      await kp.apply(manifestOf(hybrid), { reconcile: true });
      await kp.run();
      const renewed = await certificates();
      expect(Object.keys(renewed)).toEqual(Object.keys(first));
      for (const [node, pem] of Object.entries(renewed)) {
        expect(pem).not.toBe(first[node]);
        expect(check(pem, new Date(sandbox.clock.now() + 300 * 86_400_000)).ok).toBe(true);
        expect(check(first[node] ?? '', new Date(sandbox.clock.now() + 60 * 86_400_000)).ok).toBe(false);
      }
      expect(JSON.stringify((await kubeConfigMap(kp)).data)).not.toContain('PRIVATE KEY');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps the mesh signing key out of the state, the events, the plan and the mesh ConfigMap', async () => {
    const w = world(6);
    const { kp } = w;
    const { result } = await applyAndRun(kp, hybrid);
    const signing = await meshSigningKey(w, 'hybrid');
    const secretLine = signing.privateKeyPem.reveal().split('\n')[1] ?? '';
    expect(secretLine).toMatch(/^[A-Za-z0-9+/=]{40,}$/);
    const keys = await w.options.state.list('');
    const state = await Promise.all(keys.map((k) => w.options.state.get(k)));
    const dump = JSON.stringify({
      state,
      events: w.events,
      plan: result.plan,
      replan: await kp.plan(manifestOf(hybrid)),
      mesh: (await kubeConfigMap(kp)).data,
    });
    expect(dump).toContain('hybrid');
    expect(dump).not.toContain(secretLine);
    expect(dump).not.toContain('PRIVATE KEY');
  });
});
