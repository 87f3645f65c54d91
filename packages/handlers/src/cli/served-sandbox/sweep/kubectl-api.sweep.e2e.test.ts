// The sweep's kubectl operations on the API surface (kubectl-api.ops.ts) against a served cluster: every answer
// right or a clear refusal, none wrong, none hanging.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useKubectlWorld } from '../test-support/kubectl-world.js';
import { requireTool } from '../test-support/tools.js';
import { KUBECTL_API_MANIFESTS, KUBECTL_API_OPS } from './kubectl-api.ops.js';
import { runCliOps, wrongAnswers } from './run.js';

const served = useKubectlWorld('examples/hybrid-aws-hetzner.yaml', 'hybrid');

describe('kubectl against the served API surface', () => {
  it(`answers its ${KUBECTL_API_OPS.length} operations right or refuses them clearly`, async () => {
    const kubectl = await requireTool('kubectl', 'kubernetes-client');
    const dir = join(served.world.dir, 'kubectl-api-manifests');
    await mkdir(dir, { recursive: true });
    for (const [name, content] of Object.entries(KUBECTL_API_MANIFESTS)) await writeFile(join(dir, name), content);
    const results = await runCliOps(kubectl, ['--kubeconfig', served.kubeconfig], served.env, KUBECTL_API_OPS, { dir });
    expect(wrongAnswers(results)).toBe('');
    expect(results.map((r) => r.status)).not.toContain('wrong');
  }, 600_000);
});
