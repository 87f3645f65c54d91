// The sweep's python3-hcloud operations (python-hcloud.ops.ts) against the served Hetzner Cloud API: every answer right
// or a clear refusal, none wrong, none hanging.
import { SANDBOX_CREDENTIALS } from '@kubeplane/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServedWorld } from '../test-support/served-world.js';
import { requirePythonWithHcloud } from '../test-support/tools.js';
import { PYTHON_HCLOUD_OPS, PYTHON_HCLOUD_PRELUDE } from './python-hcloud.ops.js';
import { runPythonOps, wrongAnswers } from './run.js';

let world: ServedWorld;

beforeAll(async () => {
  // 60 virtual seconds a second: a server boots (about 80 virtual seconds) in about a second and a half.
  world = await ServedWorld.start({ manifests: ['examples/minimal.yaml'], speed: 60 });
}, 180_000);

afterAll(async () => {
  await world?.dispose();
}, 60_000);

describe('python3-hcloud against the served sandbox', () => {
  it(`answers its ${PYTHON_HCLOUD_OPS.length} operations right or refuses them clearly`, async () => {
    await requirePythonWithHcloud();
    const env = { PATH: process.env.PATH ?? '', HOME: world.dir, HCLOUD_ENDPOINT: world.served.hetzner, HCLOUD_TOKEN: SANDBOX_CREDENTIALS.hetznerToken };
    const results = await runPythonOps(PYTHON_HCLOUD_PRELUDE, env, PYTHON_HCLOUD_OPS, world.dir);
    expect(wrongAnswers(results)).toBe('');
    expect(results.map((r) => r.status)).not.toContain('wrong');
  }, 600_000);
});
