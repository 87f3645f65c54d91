// await-api (kubernetes phase): wait until the cluster's API server answers.
import { isPending } from '../../provider/outcome.js';
import { waitFor } from './common.js';
import { api } from './kubernetes-api.js';
import { next, type StepDefinition } from './types.js';

export const awaitApi: StepDefinition = {
  phase: 'kubernetes',
  timeoutSeconds: 1800,
  timeoutMessage: (r) =>
    `the API server of ${r.name} did not answer within 30 minutes of its machines running; see docs/bootstrap.md, "A node that does not join"`,
  async run(ctx) {
    const ready = await (await api(ctx)).ready();
    if (isPending(ready)) return waitFor(ready, 'API server', ctx);
    return next('API server answers');
  },
};
