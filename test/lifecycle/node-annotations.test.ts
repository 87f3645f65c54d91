// Pool annotations on the Nodes, through the public API on the sandbox clouds: a kubelet cannot set annotations, so
// the engine patches them on; a change or removal takes effect on the next apply, and only the keys kubeplane put
// there (recorded on each Node) are ever changed or removed — annotations others set stay. Self-managed and CMK pools.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { KubeNode, KubernetesApi } from '@kubeplane/sdk';
import { holdManifestDnsZones, sandboxKubernetes, type Sandbox } from '@kubeplane/sandbox';
import { manifestOf, sandboxWorld, type World } from '../helpers/sandbox-world.js';

const example = (name: string) => readFileSync(join(import.meta.dirname, '..', '..', 'examples', name), 'utf8');
const OWNED = 'kubeplane.dev/annotations';

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

async function applied(w: World, text: string, project: string): Promise<void> {
  const manifest = manifestOf(text);
  holdManifestDnsZones(w.sandbox, manifest);
  await w.kp.apply(manifest);
  await w.kp.run();
  const status = await w.kp.status(project);
  expect(status.state, JSON.stringify(status.clusters)).toBe('DONE');
}

async function world(seed: number, text: string, project: string, cluster: string): Promise<{ w: World; k8s: KubernetesApi }> {
  const w = sandboxWorld(seed);
  sandbox = w.sandbox;
  await applied(w, text, project);
  return { w, k8s: sandboxKubernetes(w.sandbox)(await w.kp.kubeconfig(project, cluster)) };
}

const inPool = (nodes: KubeNode[], pool: string) => nodes.filter((n) => n.labels['kubeplane.dev/nodepool'] === pool);

/** minimal.yaml with `annotations` on its workers pool (a YAML flow mapping, or none). */
const minimalWith = (annotations: string | undefined) =>
  annotations === undefined
    ? example('minimal.yaml')
    : example('minimal.yaml').replace('      serverType: cpx32\n', `      serverType: cpx32\n      annotations: ${annotations}\n`);

describe('pool annotations on self-managed nodes', () => {
  it("are put on every node of the pool, one added later too, with the record of kubeplane's keys, and on no other pool's", async () => {
    const { w, k8s } = await world(41, minimalWith('{ example.com/team: ml, example.com/cost-center: "42" }'), 'minimal', 'minimal');
    const nodes = await k8s.listNodes();
    const workers = inPool(nodes, 'workers');
    expect(workers).toHaveLength(2);
    for (const n of workers) {
      expect(n.annotations).toMatchObject({ 'example.com/team': 'ml', 'example.com/cost-center': '42', [OWNED]: 'example.com/cost-center,example.com/team' });
    }
    for (const n of inPool(nodes, 'control')) {
      expect(n.annotations['example.com/team']).toBeUndefined();
      expect(n.annotations[OWNED]).toBeUndefined();
    }
    // A node added to the pool later gets them too.
    await applied(w, minimalWith('{ example.com/team: ml, example.com/cost-center: "42" }').replace('count: 2', 'count: 3'), 'minimal');
    const grown = inPool(await k8s.listNodes(), 'workers');
    expect(grown).toHaveLength(3);
    for (const n of grown) expect(n.annotations).toMatchObject({ 'example.com/team': 'ml', 'example.com/cost-center': '42' });
  });

  it('changes and removes them on the next apply, keeping the annotations others put on the Nodes', async () => {
    const { w, k8s } = await world(42, minimalWith('{ example.com/team: ml, example.com/cost-center: "42" }'), 'minimal', 'minimal');
    const workers = inPool(await k8s.listNodes(), 'workers').map((n) => n.name);
    // Someone else annotates the nodes: one key of their own, and one kubeplane has never set.
    for (const name of workers) await k8s.patchNode(name, { annotations: { 'example.com/owner': 'team-a', 'example.com/audit': 'yes' } });

    const plan = await w.kp.plan(manifestOf(minimalWith('{ example.com/team: research }')));
    if (!plan.ok) throw new Error(JSON.stringify(plan.issues));
    expect(plan.plan.operations.map((o) => o.reason)).toContain('the annotations of pool "workers" changed; its nodes are patched in place');
    await applied(w, minimalWith('{ example.com/team: research }'), 'minimal');
    for (const n of inPool(await k8s.listNodes(), 'workers')) {
      expect(n.annotations['example.com/team']).toBe('research');
      expect(n.annotations['example.com/cost-center']).toBeUndefined();
      expect(n.annotations).toMatchObject({ 'example.com/owner': 'team-a', 'example.com/audit': 'yes', [OWNED]: 'example.com/team' });
    }

    await applied(w, minimalWith(undefined), 'minimal');
    for (const n of inPool(await k8s.listNodes(), 'workers')) {
      expect(n.annotations['example.com/team']).toBeUndefined();
      expect(n.annotations[OWNED]).toBeUndefined();
      expect(n.annotations).toMatchObject({ 'example.com/owner': 'team-a', 'example.com/audit': 'yes' });
    }
  });
});

describe('pool annotations on Crusoe Managed Kubernetes nodes', () => {
  // The CMK example without its add-ons: the pools are what this is about.
  const cmk = (annotations: string) =>
    example('crusoe-cmk.yaml')
      .replace(/\n {6}addons:\n(?: {8}.*\n?)*/, '\n')
      .replace('      labels: { workload: training }\n', `      labels: { workload: training }\n      annotations: ${annotations}\n`);

  it("are put on the managed pool's nodes and follow a change on the next apply", async () => {
    const { w, k8s } = await world(44, cmk('{ example.com/team: ml }'), 'gpu-lab', 'gpu-lab');
    const gpu = () => k8s.listNodes().then((nodes) => inPool(nodes, 'h100'));
    expect(await gpu()).toHaveLength(2);
    for (const n of await gpu()) expect(n.annotations).toMatchObject({ 'example.com/team': 'ml', [OWNED]: 'example.com/team' });

    await applied(w, cmk('{ example.com/owner: research }'), 'gpu-lab');
    for (const n of await gpu()) {
      expect(n.annotations['example.com/team']).toBeUndefined();
      expect(n.annotations).toMatchObject({ 'example.com/owner': 'research', [OWNED]: 'example.com/owner' });
    }
  });
});
