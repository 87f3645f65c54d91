// delete-outputs (delete phase): the cluster's outputs go once nothing of it is left in the clouds.
import { next, type StepDefinition } from './types.js';

export const deleteOutputs: StepDefinition = {
  phase: 'delete',
  timeoutSeconds: 600,
  timeoutMessage: (r) => `the outputs of ${r.name} could not be removed`,
  async run(ctx) {
    // Outputs go only once nothing is left in the clouds (a record from a version whose delete flow began here goes
    // through the teardown first): the kubeconfig stays while the cluster's machines may.
    if (!ctx.record.ledger.tornDown) return next('outputs are kept until the teardown is done', 'delete-dns');
    await ctx.secrets.deleteOutputs();
    return next('outputs removed');
  },
};
