// storageDiskSize as a user checks it with the clouds' own CLIs against `kubeplane sandbox serve`: Claudie's guide
// example (claudie-bursting.yaml: `storageDiskSize: 200` on the workers) has a 200 GiB EBS volume on every worker and
// none on its control planes and load balancers (`aws ec2 describe-volumes`, `describe-instances`); the hybrid
// example's Hetzner workers (a native document without the field) have no volume (`hcloud volume list`).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_CREDENTIALS } from '@kubeplane/sandbox';
import { ServedWorld } from './test-support/served-world.js';
import { requireTool, runTool } from './test-support/tools.js';

const CLI_TEST_MS = 300_000;
let world: ServedWorld;

beforeAll(async () => {
  // The guide's load balancers are in Zurich (eu-central-2), an opt-in Region: the account has it enabled.
  world = await ServedWorld.start({
    manifests: ['examples/claudie-bursting.yaml', 'examples/hybrid-aws-hetzner.yaml'],
    applyArgs: ['--aws-opt-in-regions', 'eu-central-2'],
  });
}, 300_000);

afterAll(async () => {
  await world?.dispose();
}, 60_000);

async function aws<T>(region: string, ...args: string[]): Promise<T> {
  const bin = await requireTool('aws', 'awscli');
  const run = await runTool(bin, ['--endpoint-url', world.served.aws, '--output', 'json', '--region', region, ...args], world.awsEnv());
  if (run.code !== 0) throw new Error(`aws ${args.join(' ')} exited ${run.code}: ${run.stderr}`);
  return JSON.parse(run.stdout) as T;
}

interface Volumes {
  Volumes: Array<{ Size: number; VolumeType: string; State: string; Attachments: Array<{ InstanceId: string; Device: string; DeleteOnTermination: boolean }> }>;
}
interface Reservations {
  Reservations: Array<{ Instances: Array<{ InstanceId: string; BlockDeviceMappings: Array<{ DeviceName: string; Ebs: { VolumeId: string } }> }> }>;
}

/** The machines of a pool, as describe-instances lists them by kubeplane's nodepool tag. */
async function poolInstances(region: string, pool: string): Promise<Reservations['Reservations'][number]['Instances']> {
  const described = await aws<Reservations>(region, 'ec2', 'describe-instances', '--filters', `Name=tag:kubeplane.dev/nodepool,Values=${pool}`);
  return described.Reservations.flatMap((r) => r.Instances);
}

describe("storageDiskSize through the clouds' CLIs", () => {
  it(
    "gives each worker of Claudie's bursting example a 200 GiB gp3 volume at /dev/sdf, deleted with the instance",
    async () => {
      const workers = await poolInstances('eu-north-1', 'aws-worker');
      expect(workers).toHaveLength(3);
      const volumes = await aws<Volumes>('eu-north-1', 'ec2', 'describe-volumes', '--filters', 'Name=attachment.device,Values=/dev/sdf');
      expect(volumes.Volumes.map((v) => [v.Size, v.VolumeType, v.State, v.Attachments[0]?.DeleteOnTermination])).toEqual([
        [200, 'gp3', 'in-use', true],
        [200, 'gp3', 'in-use', true],
        [200, 'gp3', 'in-use', true],
      ]);
      expect(volumes.Volumes.map((v) => v.Attachments[0]?.InstanceId).sort()).toEqual(workers.map((i) => i.InstanceId).sort());
      for (const worker of workers) expect(worker.BlockDeviceMappings.map((m) => m.DeviceName)).toEqual(['/dev/sda1', '/dev/sdf']);
    },
    CLI_TEST_MS,
  );

  it(
    'gives its control planes and load balancers only their root volume',
    async () => {
      for (const [region, pool] of [
        ['eu-central-1', 'aws-control'],
        ['eu-central-2', 'aws-lb'],
      ] as const) {
        const instances = await poolInstances(region, pool);
        expect(instances.length, pool).toBeGreaterThan(0);
        for (const i of instances)
          expect(
            i.BlockDeviceMappings.map((m) => m.DeviceName),
            pool,
          ).toEqual(['/dev/sda1']);
      }
      const data = await aws<Volumes>('eu-central-2', 'ec2', 'describe-volumes', '--filters', 'Name=attachment.device,Values=/dev/sdf');
      expect(data.Volumes).toEqual([]);
    },
    CLI_TEST_MS,
  );

  it(
    'gives the Hetzner workers of a native document without storageDiskSize no volume (hcloud volume list)',
    async () => {
      const bin = await requireTool('hcloud', 'hcloud-cli');
      const run = await runTool(bin, ['volume', 'list', '-o', 'json'], {
        PATH: process.env.PATH ?? '',
        HOME: world.dir,
        HCLOUD_ENDPOINT: world.served.hetzner,
        HCLOUD_TOKEN: SANDBOX_CREDENTIALS.hetznerToken,
      });
      expect(run.code, run.stderr).toBe(0);
      // hcloud prints `null` for an empty list.
      expect(JSON.parse(run.stdout) ?? []).toEqual([]);
      // ... while its AWS workers, which write 100, have their volumes.
      const volumes = await aws<Volumes>('eu-central-1', 'ec2', 'describe-volumes', '--filters', 'Name=attachment.device,Values=/dev/sdf');
      expect(volumes.Volumes.map((v) => v.Size)).toEqual([100, 100]);
    },
    CLI_TEST_MS,
  );
});
