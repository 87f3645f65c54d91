// The sweep's kubectl workload operations (kubectl-workloads.ops.ts) against a served cluster: every answer right or
// a clear refusal, none wrong, none hanging.
import { describe, expect, it } from 'vitest';
import { requireTool } from '../test-support/tools.js';
import { useKubectlWorld } from '../test-support/kubectl-world.js';
import { KUBECTL_WORKLOADS_OPS } from './kubectl-workloads.ops.js';
import { runCliOps, wrongAnswers } from './run.js';

const served = useKubectlWorld('examples/hybrid-aws-hetzner.yaml', 'hybrid');

describe('kubectl workloads against the served sandbox', () => {
  it(`answers its ${KUBECTL_WORKLOADS_OPS.length} operations right or refuses them clearly`, async () => {
    const kubectl = await requireTool('kubectl', 'kubernetes-client');
    const results = await runCliOps(kubectl, ['--kubeconfig', served.kubeconfig], served.env, KUBECTL_WORKLOADS_OPS);
    expect(wrongAnswers(results)).toBe('');
    expect(results.map((r) => r.status)).not.toContain('wrong');
  }, 600_000);
});
