// The sweep's hcloud CLI operations (hcloud-cli.ops.ts) against the served Hetzner Cloud API: every answer right or a
// clear refusal, none wrong, none hanging.
import { SANDBOX_CREDENTIALS } from '@kubeplane/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServedWorld } from '../test-support/served-world.js';
import { requireTool } from '../test-support/tools.js';
import { HCLOUD_CLI_OPS } from './hcloud-cli.ops.js';
import { runCliOps, wrongAnswers } from './run.js';

let world: ServedWorld;

beforeAll(async () => {
  // 60 virtual seconds a second: a server boots (about 80 virtual seconds) in about a second and a half.
  world = await ServedWorld.start({ manifests: ['examples/minimal.yaml'], speed: 60 });
}, 180_000);

afterAll(async () => {
  await world?.dispose();
}, 60_000);

describe('hcloud CLI against the served sandbox', () => {
  it(`answers its ${HCLOUD_CLI_OPS.length} operations right or refuses them clearly`, async () => {
    const bin = await requireTool('hcloud', 'hcloud-cli');
    // HOME is the world's directory: no user's cli.toml (contexts, tokens) is read.
    const env = { PATH: process.env.PATH ?? '', HOME: world.dir, HCLOUD_ENDPOINT: world.served.hetzner, HCLOUD_TOKEN: SANDBOX_CREDENTIALS.hetznerToken };
    const results = await runCliOps(bin, [], env, HCLOUD_CLI_OPS);
    expect(wrongAnswers(results)).toBe('');
    expect(results.map((r) => r.status)).not.toContain('wrong');
  }, 600_000);
});
