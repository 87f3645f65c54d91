// The sweep's python3-kubernetes operations (python-kubernetes.ops.ts) against a served cluster: every answer right
// or a clear refusal, none wrong, none hanging.
import { describe, expect, it } from 'vitest';
import { useKubectlWorld } from '../test-support/kubectl-world.js';
import { PYTHON_KUBERNETES_OPS, PYTHON_KUBERNETES_PRELUDE } from './python-kubernetes.ops.js';
import { runPythonOps, wrongAnswers } from './run.js';

const served = useKubectlWorld('examples/hybrid-aws-hetzner.yaml', 'hybrid');

describe('python3-kubernetes against the served sandbox', () => {
  it(`answers its ${PYTHON_KUBERNETES_OPS.length} operations right or refuses them clearly`, async () => {
    const results = await runPythonOps(PYTHON_KUBERNETES_PRELUDE, { ...served.env, KUBECONFIG: served.kubeconfig }, PYTHON_KUBERNETES_OPS, served.world.dir);
    expect(wrongAnswers(results)).toBe('');
    expect(results.map((r) => r.status)).not.toContain('wrong');
  }, 300_000);
});
