// Pool annotations as kubectl sees them on the served sandbox (issue 40, item 3): `kubeplane apply` puts them on the
// Nodes through the Kubernetes API, and a later apply changes and removes its own while an annotation kubectl added
// stays.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../../../test/helpers/cli.js';
import { requireTool, runTool } from './test-support/tools.js';
import { repositoryRoot, ServedWorld } from './test-support/served-world.js';

const minimal = readFileSync(join(repositoryRoot, 'examples', 'minimal.yaml'), 'utf8');
const withAnnotations = (annotations: string) => minimal.replace('      serverType: cpx32\n', `      serverType: cpx32\n      annotations: ${annotations}\n`);

describe('pool annotations, with kubectl', () => {
  let world: ServedWorld;
  let manifests = '';
  let kubeconfig = '';

  async function kubectl(...args: string[]): Promise<string> {
    const run = await runTool(await requireTool('kubectl', 'kubernetes-client'), ['--kubeconfig', kubeconfig, ...args], {
      PATH: process.env.PATH ?? '',
      HOME: world.dir,
    });
    if (run.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${run.code}: ${run.stderr}`);
    return run.stdout;
  }

  const workers = async () => (await kubectl('get', 'nodes', '-l', 'kubeplane.dev/nodepool=workers', '-o', 'jsonpath={.items[*].metadata.name}')).split(' ');
  const annotationsOf = async (node: string) =>
    JSON.parse(await kubectl('get', 'node', node, '-o', 'jsonpath={.metadata.annotations}')) as Record<string, string>;

  beforeAll(async () => {
    manifests = await mkdtemp(join(tmpdir(), 'kubeplane-annotations-'));
    await writeFile(join(manifests, 'v1.yaml'), withAnnotations('{ example.com/team: ml, example.com/cost-center: "42" }'));
    await writeFile(join(manifests, 'v2.yaml'), withAnnotations('{ example.com/team: research }'));
    world = await ServedWorld.start({ manifests: [join(manifests, 'v1.yaml')] });
    kubeconfig = await world.kubeconfigFile('minimal');
  }, 300_000);

  afterAll(async () => {
    await world?.dispose();
    if (manifests) await rm(manifests, { recursive: true, force: true });
  }, 60_000);

  it("shows the pool's annotations on its nodes (kubectl get node -o jsonpath='{.metadata.annotations}')", async () => {
    const names = await workers();
    expect(names).toHaveLength(2);
    for (const name of names) {
      expect(await annotationsOf(name)).toMatchObject({
        'example.com/team': 'ml',
        'example.com/cost-center': '42',
        'kubeplane.dev/annotations': 'example.com/cost-center,example.com/team',
      });
    }
  });

  it('changes and removes its own on the next apply, and keeps the one kubectl annotate added', async () => {
    const [node = ''] = await workers();
    await kubectl('annotate', 'node', node, 'example.com/owner=team-a');
    expect(await world.stop('SIGTERM')).toBe(0);
    const applied = await runCli(['apply', join(manifests, 'v2.yaml'), '--sandbox', '--state-dir', world.dir], { cwd: repositoryRoot });
    expect(applied.code, applied.stderr).toBe(0);
    await world.serve(10);
    kubeconfig = await world.kubeconfigFile('minimal');
    const after = await annotationsOf(node);
    expect(after).toMatchObject({ 'example.com/team': 'research', 'example.com/owner': 'team-a', 'kubeplane.dev/annotations': 'example.com/team' });
    expect(after['example.com/cost-center']).toBeUndefined();
  }, 300_000);
});
