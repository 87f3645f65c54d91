// A cluster with a spot pool applied by `kubeplane apply --sandbox`, then looked at through the real AWS CLI against
// the served sandbox: the spot pool's instances are spot (InstanceLifecycle, SpotInstanceRequestId), as
// `aws ec2 describe-instances` shows them on EC2, and the on-demand pools' are not.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireTool, runTool } from './test-support/tools.js';
import { ServedWorld } from './test-support/served-world.js';

const CLI_TEST_MS = 300_000;
let world: ServedWorld;

beforeAll(async () => {
  world = await ServedWorld.start({ manifests: ['test/fixtures/spot/aws-spot-workers.yaml'] });
}, 180_000);

afterAll(async () => {
  await world?.dispose();
}, 60_000);

interface Described {
  Reservations: Array<{ Instances: Array<{ InstanceLifecycle?: string; SpotInstanceRequestId?: string; Tags?: Array<{ Key: string; Value: string }> }> }>;
}

async function describeInstances(...filters: string[]): Promise<Array<{ pool: string; lifecycle: string; spotRequest: boolean }>> {
  const bin = await requireTool('aws', 'awscli');
  const run = await runTool(
    bin,
    ['--endpoint-url', world.served.aws, '--output', 'json', 'ec2', 'describe-instances', '--filters', 'Name=instance-state-name,Values=running', ...filters],
    world.awsEnv(),
  );
  if (run.code !== 0) throw new Error(`aws ec2 describe-instances exited ${run.code}: ${run.stderr}`);
  const described = JSON.parse(run.stdout) as Described;
  return described.Reservations.flatMap((r) => r.Instances)
    .map((i) => ({
      pool: i.Tags?.find((t) => t.Key === 'kubeplane.dev/nodepool')?.Value ?? '',
      lifecycle: i.InstanceLifecycle ?? 'on-demand',
      spotRequest: /^sir-/.test(i.SpotInstanceRequestId ?? ''),
    }))
    .sort((a, b) => a.pool.localeCompare(b.pool));
}

describe('a spot pool through the AWS CLI', () => {
  it(
    "describe-instances shows the spot pool's instances as spot with their spot requests, and the on-demand pools' without",
    async () => {
      expect(await describeInstances()).toEqual([
        { pool: 'batch', lifecycle: 'spot', spotRequest: true },
        { pool: 'batch', lifecycle: 'spot', spotRequest: true },
        { pool: 'control', lifecycle: 'on-demand', spotRequest: false },
        { pool: 'general', lifecycle: 'on-demand', spotRequest: false },
      ]);
      // EC2's own filter for the market finds the spot pool's two instances and nothing else.
      expect((await describeInstances('Name=instance-lifecycle,Values=spot')).map((i) => i.pool)).toEqual(['batch', 'batch']);
    },
    CLI_TEST_MS,
  );
});
