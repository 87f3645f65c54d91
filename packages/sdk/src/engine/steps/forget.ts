// forget (delete phase, last): the cluster's secrets and records.
import type { StepDefinition } from './types.js';

export const forget: StepDefinition = {
  phase: 'delete',
  timeoutSeconds: 600,
  timeoutMessage: (r) => `the records of ${r.name} could not be removed`,
  async run(ctx) {
    await ctx.secrets.deleteAll();
    return { kind: 'finished', message: 'deleted' };
  },
};
