// The sweep's AWS CLI operations (aws-cli.ops.ts) against the served EC2, Route 53 and STS: every answer right or a
// clear refusal, none wrong, none hanging.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServedWorld } from '../test-support/served-world.js';
import { requireTool } from '../test-support/tools.js';
import { AWS_CLI_OPS } from './aws-cli.ops.js';
import { runCliOps, wrongAnswers } from './run.js';

let world: ServedWorld;

beforeAll(async () => {
  world = await ServedWorld.start({ manifests: [] });
}, 180_000);

afterAll(async () => {
  await world?.dispose();
}, 60_000);

describe('the AWS CLI against the served sandbox', () => {
  it(`answers its ${AWS_CLI_OPS.length} operations right or refuses them clearly`, async () => {
    const bin = await requireTool('aws', 'awscli');
    const results = await runCliOps(bin, ['--endpoint-url', world.served.aws, '--output', 'json'], world.awsEnv(), AWS_CLI_OPS);
    expect(wrongAnswers(results)).toBe('');
    expect(results.map((r) => r.status)).not.toContain('wrong');
  }, 600_000);
});
