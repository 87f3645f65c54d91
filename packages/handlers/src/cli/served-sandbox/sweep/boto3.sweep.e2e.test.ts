// The sweep's boto3 operations (boto3.ops.ts) against the served EC2, Route 53 and STS: every answer right or a clear
// refusal, none wrong, none hanging.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServedWorld } from '../test-support/served-world.js';
import { BOTO3_OPS, BOTO3_PRELUDE } from './boto3.ops.js';
import { runPythonOps, wrongAnswers } from './run.js';

let world: ServedWorld;

beforeAll(async () => {
  world = await ServedWorld.start({ manifests: [] });
}, 180_000);

afterAll(async () => {
  await world?.dispose();
}, 60_000);

describe('boto3 against the served sandbox', () => {
  it(`answers its ${BOTO3_OPS.length} operations right or refuses them clearly`, async () => {
    const results = await runPythonOps(BOTO3_PRELUDE, { ...world.awsEnv(), SWEEP_AWS_ENDPOINT: world.served.aws }, BOTO3_OPS, world.dir);
    expect(wrongAnswers(results)).toBe('');
    expect(results.map((r) => r.status)).not.toContain('wrong');
  }, 600_000);
});
