// Node identity without cloud controller managers, through the public API on the sandbox clouds: every Node kubeplane
// makes carries the providerID and the topology labels its cloud's CCM would set (node-identity.ts cites the rules),
// a replacement machine's Node gets its own, and the API server refuses to change a providerID once set.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { KubeplaneError, type KubeNode, type KubernetesApi } from '@kubeplane/sdk';
import { gpusOfNode, holdManifestDnsZones, sandboxKubernetes, type Sandbox } from '@kubeplane/sandbox';
import { liveMachines, manifestOf, sandboxWorld, type World } from '../helpers/sandbox-world.js';

const example = (name: string) => readFileSync(join(import.meta.dirname, '..', '..', 'examples', name), 'utf8');

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

async function created(
  text: string,
  seed: number,
  project: string,
  cluster: string,
  machines = false,
): Promise<{ w: World; k8s: KubernetesApi; nodes: () => Promise<KubeNode[]> }> {
  const w = sandboxWorld(seed, (s) => (machines ? { machines: s.staticMachines.access() } : {}));
  sandbox = w.sandbox;
  const manifest = manifestOf(text);
  holdManifestDnsZones(w.sandbox, manifest);
  await w.kp.apply(manifest);
  await w.kp.run();
  const status = await w.kp.status(project);
  expect(status.state, JSON.stringify(status.clusters)).toBe('DONE');
  const k8s = sandboxKubernetes(w.sandbox)(await w.kp.kubeconfig(project, cluster));
  return { w, k8s, nodes: () => k8s.listNodes() };
}

/** The cloud's id of the machine named `name`, as the sandbox's inventory lists it. */
function machineId(w: World, name: string): string {
  const items = w.sandbox.inventory().filter((i) => i.kind === 'node' && i.name === name && !/delet|terminat|shutting/i.test(i.state ?? ''));
  expect(items, `one machine named ${name}`).toHaveLength(1);
  return items[0]?.id ?? '';
}

function identity(node: KubeNode): Record<string, string | undefined> {
  return {
    region: node.labels['topology.kubernetes.io/region'],
    zone: node.labels['topology.kubernetes.io/zone'],
    type: node.labels['node.kubernetes.io/instance-type'],
    provider: node.labels['kubeplane.dev/provider'],
    pool: node.labels['kubeplane.dev/pool'],
  };
}

describe('node identity on Hetzner', () => {
  it('gives every Node hcloud://<server id>, the location as region, its data center as zone and the server type', async () => {
    const { w, nodes } = await created(example('minimal.yaml'), 21, 'minimal', 'minimal');
    const all = await nodes();
    expect(all).toHaveLength(3);
    for (const node of all) {
      expect(node.providerId).toBe(`hcloud://${machineId(w, node.name)}`);
      const pool = node.name.includes('-control-') ? 'control' : 'workers';
      expect(identity(node)).toEqual({ region: 'fsn1', zone: 'fsn1-dc14', type: pool === 'control' ? 'cpx22' : 'cpx32', provider: 'hetzner', pool });
    }
  });

  it("gives a replacement machine's Node its own providerID, and the API refuses to change a set one", async () => {
    const { w, k8s, nodes } = await created(example('minimal.yaml'), 22, 'minimal', 'minimal');
    const worker = liveMachines(w.sandbox).find((n) => n.includes('-workers-')) ?? '';
    const before = (await nodes()).find((n) => n.name === worker)?.providerId;
    expect(before).toBe(`hcloud://${machineId(w, worker)}`);

    const refused = await k8s.patchNode(worker, { providerId: 'hcloud://1' }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(KubeplaneError);
    expect((refused as KubeplaneError).kind).toBe('invalid');
    expect((refused as KubeplaneError).message).toContain('spec.providerID: Forbidden: node updates may not change providerID except from "" to valid');
    expect((await nodes()).find((n) => n.name === worker)?.providerId).toBe(before);

    // Remediation replaces the machine under the same name (day-two.test.ts): a new server, a new Node.
    expect(w.sandbox.kubernetes.hangKubelet(worker)).toBe(true);
    w.sandbox.clock.advance(15 * 60_000);
    await w.kp.apply(manifestOf(example('minimal.yaml')), { reconcile: true });
    await w.kp.run();
    expect((await w.kp.status('minimal')).state).toBe('DONE');
    const after = (await nodes()).find((n) => n.name === worker);
    expect(after?.providerId).toBe(`hcloud://${machineId(w, worker)}`);
    expect(after?.providerId).not.toBe(before);
    expect(identity(after as KubeNode)).toMatchObject({ region: 'fsn1', zone: 'fsn1-dc14', type: 'cpx32', pool: 'workers' });
  });
});

describe('node identity through day two', () => {
  it("keeps every Node's identity through an in-place upgrade, and a worker added in the same apply gets its own", async () => {
    const { w, nodes } = await created(example('minimal.yaml'), 26, 'minimal', 'minimal');
    const before = Object.fromEntries((await nodes()).map((n) => [n.name, n.providerId]));
    await w.kp.apply(
      manifestOf(
        example('minimal.yaml')
          .replace('"1.34.2"', '"1.35.0"')
          .replace(/count: 2\n(\s+)serverType: cpx32/, 'count: 3\n$1serverType: cpx32'),
      ),
    );
    await w.kp.run();
    expect((await w.kp.status('minimal')).state).toBe('DONE');
    const after = await nodes();
    expect(after).toHaveLength(4);
    expect(after.map((n) => n.kubeletVersion)).toEqual(['v1.35.0', 'v1.35.0', 'v1.35.0', 'v1.35.0']);
    for (const node of after) {
      expect(node.providerId).toBe(before[node.name] ?? `hcloud://${machineId(w, node.name)}`);
      expect(node.providerId).toBe(`hcloud://${machineId(w, node.name)}`);
      expect(identity(node)).toMatchObject({ region: 'fsn1', zone: 'fsn1-dc14', provider: 'hetzner' });
    }
    expect(new Set(after.map((n) => n.providerId)).size).toBe(4);
  });
});

describe('node identity on AWS beside Hetzner', () => {
  it("gives AWS Nodes aws:///<zone>/<instance id> with the region, the instance's zone and type, and Hetzner Nodes theirs", async () => {
    const { w, nodes } = await created(example('hybrid-aws-hetzner.yaml'), 23, 'hybrid', 'hybrid');
    const all = await nodes();
    expect(all).toHaveLength(8);
    for (const node of all.filter((n) => n.name.includes('-aws-'))) {
      const zone = node.name.includes('-aws-control-') ? 'eu-central-1a' : 'eu-central-1b';
      expect(node.providerId).toBe(`aws:///${zone}/${machineId(w, node.name)}`);
      expect(node.providerId).toMatch(/^aws:\/\/\/eu-central-1[ab]\/i-[0-9a-f]+$/);
      expect(identity(node)).toMatchObject({ region: 'eu-central-1', zone, provider: 'aws', type: zone === 'eu-central-1a' ? 't3.medium' : 't3.large' });
    }
    for (const node of all.filter((n) => n.name.includes('-htz-'))) {
      expect(node.providerId).toBe(`hcloud://${machineId(w, node.name)}`);
      expect(identity(node)).toEqual({ region: 'fsn1', zone: 'fsn1-dc14', type: 'cpx42', provider: 'hetzner', pool: 'htz-worker' });
      // The pool's own labels stay beside the identity.
      expect(node.labels['kubeplane.dev/tier']).toBe('burst');
    }
  });
});

describe('node identity on Crusoe', () => {
  it('gives Crusoe Nodes crusoe://<vm id>, the location as region and zone, the VM type, and the catalog knows their GPUs', async () => {
    const { w, nodes } = await created(example('hybrid-hetzner-crusoe-gpu.yaml'), 24, 'gpu-burst', 'burst');
    const gpu = (await nodes()).filter((n) => n.name.includes('-gpu-'));
    expect(gpu).toHaveLength(2);
    for (const node of gpu) {
      expect(node.providerId).toBe(`crusoe://${machineId(w, node.name)}`);
      expect(identity(node)).toEqual({ region: 'us-east1-a', zone: 'us-east1-a', type: 'h100-80gb-sxm-ib.8x', provider: 'crusoe', pool: 'gpu' });
      expect(gpusOfNode({ apiVersion: 'v1', kind: 'Node', metadata: { name: node.name, labels: node.labels } })).toEqual({ count: 8, model: 'H100-SXM-80GB' });
    }
    const control = (await nodes()).find((n) => n.name.includes('-control-'));
    expect(gpusOfNode({ apiVersion: 'v1', kind: 'Node', metadata: { name: control?.name ?? '', labels: control?.labels ?? {} } })).toEqual({
      count: 0,
      model: '',
    });
  });
});

describe('node identity on static machines', () => {
  it('names static Nodes kubeplane://static/<node> with their provider and pool, and no cloud topology', async () => {
    const { nodes } = await created(example('static-and-dynamic.yaml'), 25, 'onprem', 'onprem', true);
    const all = await nodes();
    const statics = all.filter((n) => n.name.includes('-rack-'));
    expect(statics).toHaveLength(4);
    for (const node of statics) {
      expect(node.providerId).toBe(`kubeplane://static/${node.name}`);
      expect(identity(node)).toEqual({
        region: undefined,
        zone: undefined,
        type: undefined,
        provider: 'static',
        pool: node.name.includes('-rack-gpu-') ? 'rack-gpu' : 'rack-control',
      });
    }
    for (const node of all.filter((n) => n.name.includes('-htz-overflow-'))) {
      expect(identity(node)).toEqual({ region: 'nbg1', zone: 'nbg1-dc3', type: 'cpx32', provider: 'hetzner', pool: 'htz-overflow' });
    }
  });
});
