// Claudie's guide, end to end (issue 40): its bursting InputManifest with the Hetzner pool the guide adds (autoscaled
// 1-10, credentials in the Kubernetes Secret hetzner-secret-1 of namespace mynamespace, as every provider of the
// guide's), plus annotations on its workers, applied with `--secrets-context` against a management cluster that holds
// those Secrets, then checked as a user would with the clouds' and Kubernetes' own clients against `kubeplane sandbox
// serve`: the workers' 200 GiB volumes with the AWS CLI, the annotations and the autoscaler's cloud-config with kubectl,
// the pool's limits with `kubeplane status`; then destroyed with nothing left.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redacted } from '@kubeplane/sdk';
import { kubernetesConnector } from '@kubeplane/providers';
import { runCli } from '../../../../../test/helpers/cli.js';
import { createSandboxKubeplane } from '../../runtime/embed.js';
import { repositoryRoot, ServedWorld } from './test-support/served-world.js';
import { requireTool, runTool } from './test-support/tools.js';

const CONTEXT = 'kubeplane-admin@mgmt';
/** What the guide's `kubectl create secret generic` commands would hold (made-up values of the right forms). */
const SECRETS = {
  'aws-secret-1': { accesskey: 'AKIAGUIDEEXAMPLE0001', secretkey: 'guideExampleSecretKey0000000000000000001' },
  'aws-secret-dns': { accesskey: 'AKIAGUIDEEXAMPLE0002', secretkey: 'guideExampleSecretKey0000000000000000002' },
  'hetzner-secret-1': { credentials: 'kslISA878a6etYAfXYcg5iYyrFGNlCxcICo060HVEygjFs21nske76ksjKko21lp' },
};

/** The guide's bursting manifest: its first InputManifest and the Hetzner provider and pool it then adds. */
async function guideManifest(): Promise<string> {
  const first = await readFile(join(repositoryRoot, 'examples', 'claudie-bursting.yaml'), 'utf8');
  const text = first
    .replace(
      '  nodePools:\n',
      `    - name: hetzner-1
      providerType: hetzner
      secretRef:
        name: hetzner-secret-1
        namespace: mynamespace
  nodePools:
`,
    )
    .replace(
      '        storageDiskSize: 200\n',
      `        storageDiskSize: 200
        annotations:
          example.com/team: bursting
      - name: hetzner-worker
        providerSpec:
            name: hetzner-1
            region: hel1
            zone: hel1-dc2
        serverType: cpx42
        image: ubuntu-24.04
        autoscaler:
            min: 1
            max: 10
`,
    )
    .replace(
      '            compute:\n            - aws-worker\n',
      `            compute:
            - aws-worker
            - hetzner-worker
        addons:
          - name: cluster_autoscaler
            config: { adapterAddress: "203.0.113.10:8086" }
`,
    );
  expect(text).toContain('hetzner-worker\n        addons:');
  expect(text).toContain('example.com/team: bursting');
  return text;
}

let world: ServedWorld;
let guide = '';
const secretsCluster = (dir: string) => ['--secrets-context', CONTEXT, '--secrets-kubeconfig', join(dir, 'mgmt.kubeconfig')];

beforeAll(async () => {
  guide = await guideManifest();
  world = await ServedWorld.start({
    manifests: [],
    prepare: async (dir) => {
      // The management cluster, its kubeconfig in a file, and the guide's Secrets put in it as kubectl would.
      const mgmt = (await readFile(join(repositoryRoot, 'examples', 'minimal.yaml'), 'utf8')).replaceAll('minimal', 'mgmt');
      await writeFile(join(dir, 'mgmt.yaml'), mgmt);
      // The world is made here: its AWS account has Zurich (eu-central-2, an opt-in Region) enabled for the guide's load balancers.
      const applied = await runCli(['apply', 'mgmt.yaml', '--sandbox', '--state-dir', dir, '--aws-opt-in-regions', 'eu-central-2'], { cwd: dir });
      expect(applied.code, applied.stderr).toBe(0);
      const kubeconfig = await runCli(['kubeconfig', 'mgmt', '--sandbox', '--state-dir', dir, '--out', 'mgmt.kubeconfig'], { cwd: dir });
      expect(kubeconfig.code, kubeconfig.stderr).toBe(0);
      const rt = await createSandboxKubeplane({ stateDir: dir });
      try {
        const api = kubernetesConnector({ clock: rt.clock })(await rt.kubeplane.kubeconfig('mgmt', 'mgmt'));
        for (const [name, keys] of Object.entries(SECRETS))
          await api.applySecret('mynamespace', name, Object.fromEntries(Object.entries(keys).map(([k, v]) => [k, Redacted.of(v)])));
      } finally {
        await rt.close();
      }
      await writeFile(join(dir, 'inputmanifest-bursting.yaml'), guide);
      const bursting = await runCli(['apply', 'inputmanifest-bursting.yaml', '--sandbox', '--state-dir', dir, ...secretsCluster(dir)], { cwd: dir });
      expect(bursting.code, bursting.stderr + bursting.stdout).toBe(0);
    },
  });
}, 600_000);

afterAll(async () => {
  await world?.dispose();
}, 60_000);

async function aws<T>(region: string, ...args: string[]): Promise<T> {
  const run = await runTool(
    await requireTool('aws', 'awscli'),
    ['--endpoint-url', world.served.aws, '--output', 'json', '--region', region, ...args],
    world.awsEnv(),
  );
  if (run.code !== 0) throw new Error(`aws ${args.join(' ')} exited ${run.code}: ${run.stderr}`);
  return JSON.parse(run.stdout) as T;
}

async function kubectl(kubeconfig: string, ...args: string[]): Promise<string> {
  const run = await runTool(await requireTool('kubectl', 'kubernetes-client'), ['--kubeconfig', kubeconfig, ...args], {
    PATH: process.env.PATH ?? '',
    HOME: world.dir,
  });
  if (run.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${run.code}: ${run.stderr}`);
  return run.stdout;
}

describe("Claudie's guide, bursting into Hetzner, with the credentials in the management cluster's Secrets", () => {
  it('gives every AWS worker its 200 GiB storage volume, as the AWS CLI lists it, and the control planes and load balancers none', async () => {
    const volumes = async (region: string, pool: string) => {
      const r = await aws<{ Reservations: Array<{ Instances: Array<{ InstanceId: string }> }> }>(
        region,
        'ec2',
        'describe-instances',
        '--filters',
        `Name=tag:kubeplane.dev/nodepool,Values=${pool}`,
      );
      const ids = r.Reservations.flatMap((x) => x.Instances.map((i) => i.InstanceId));
      const v = await aws<{ Volumes: Array<{ Size: number; Attachments: Array<{ InstanceId: string; Device: string }> }> }>(
        region,
        'ec2',
        'describe-volumes',
        '--filters',
        `Name=attachment.instance-id,Values=${ids.join(',')}`,
      );
      return { ids, sizes: v.Volumes.map((x) => [x.Attachments[0]?.InstanceId, x.Attachments[0]?.Device, x.Size]) };
    };
    const workers = await volumes('eu-north-1', 'aws-worker');
    expect(workers.ids).toHaveLength(3);
    for (const id of workers.ids) expect(workers.sizes.filter(([i, device]) => i === id && device === '/dev/sdf').map(([, , size]) => size)).toEqual([200]);
    const control = await volumes('eu-central-1', 'aws-control');
    expect(control.ids).toHaveLength(3);
    expect(control.sizes.every(([, device]) => device !== '/dev/sdf')).toBe(true);
  });

  it("puts the pool's annotations on its nodes, as kubectl shows them, and on no other pool's", async () => {
    const kubeconfig = await world.kubeconfigFile('my-super-cluster');
    const names = (pool: string) => kubectl(kubeconfig, 'get', 'nodes', '-l', `kubeplane.dev/nodepool=${pool}`, '-o', 'jsonpath={.items[*].metadata.name}');
    const workers = (await names('aws-worker')).split(' ').filter(Boolean);
    expect(workers).toHaveLength(3);
    for (const node of workers) {
      const annotations = JSON.parse(await kubectl(kubeconfig, 'get', 'node', node, '-o', 'jsonpath={.metadata.annotations}')) as Record<string, string>;
      expect(annotations['example.com/team']).toBe('bursting');
    }
    const [hetzner = ''] = (await names('hetzner-worker')).split(' ');
    expect(hetzner).not.toBe('');
    const other = JSON.parse((await kubectl(kubeconfig, 'get', 'node', hetzner, '-o', 'jsonpath={.metadata.annotations}')) || '{}') as Record<string, string>;
    expect(other['example.com/team']).toBeUndefined();
  });

  it('makes the autoscaled Hetzner pool at its minimum with its limits, and points the cluster autoscaler at its adapter', async () => {
    const status = await runCli(['status', '--sandbox', '--state-dir', world.dir, '--json'], { cwd: world.dir });
    const result = JSON.parse(status.stdout.trim().split('\n').pop() ?? '{}') as {
      projects: Array<{ project: string; clusters: Record<string, { pools?: Array<{ name: string; target: number; min: number; max: number }> }> }>;
    };
    const pools = result.projects.find((p) => p.project === 'cloud-bursting')?.clusters['my-super-cluster']?.pools ?? [];
    expect(pools).toContainEqual(expect.objectContaining({ name: 'hetzner-worker', target: 1, min: 1, max: 10 }));
    const kubeconfig = await world.kubeconfigFile('my-super-cluster');
    const config = await kubectl(
      kubeconfig,
      'get',
      'secret',
      '-n',
      'kube-system',
      'kubeplane-autoscaler-cloud-config',
      '-o',
      "jsonpath={.data['cloud-config']}",
    );
    expect(Buffer.from(config, 'base64').toString('utf8')).toContain('address: "203.0.113.10:8086"');
  });

  it("keeps the Secrets' values out of the state, and is destroyed with the same context, leaving nothing", async () => {
    const { readdir } = await import('node:fs/promises');
    const files = (await readdir(world.dir, { recursive: true, withFileTypes: true })).filter((f) => f.isFile());
    for (const f of files) {
      const text = await readFile(join(f.parentPath, f.name), 'utf8').catch(() => '');
      for (const keys of Object.values(SECRETS)) for (const value of Object.values(keys)) expect(text, join(f.parentPath, f.name)).not.toContain(value);
    }
    expect(await world.stop()).toBe(0);
    const destroyed = await runCli(['destroy', 'inputmanifest-bursting.yaml', '--yes', '--sandbox', '--state-dir', world.dir, ...secretsCluster(world.dir)], {
      cwd: world.dir,
    });
    expect(destroyed.code, destroyed.stderr + destroyed.stdout).toBe(0);
    expect(destroyed.stdout).toContain('cloud-bursting: DELETED');
    // What is left is the management cluster's; with it gone, nothing.
    const mgmt = await runCli(['destroy', 'mgmt', '--yes', '--sandbox', '--state-dir', world.dir], { cwd: world.dir });
    expect(mgmt.code, mgmt.stderr + mgmt.stdout).toBe(0);
    expect(mgmt.stdout).toMatch(/resources left in the sandbox clouds: 0\n/);
  });
});
