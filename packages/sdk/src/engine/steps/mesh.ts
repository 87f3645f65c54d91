// mesh (kubernetes phase): publish the WireGuard membership and the load balancers' targets to the nodes.
import { bootstrapView } from './common.js';
import { api } from './kubernetes-api.js';
import { isManaged } from './managed.js';
import { publishMesh } from './mesh-publish.js';
import { next, type StepDefinition } from './types.js';

export const mesh: StepDefinition = {
  phase: 'kubernetes',
  // A managed cluster's network is the provider's: no WireGuard membership to publish.
  appliesTo: (spec) => !isManaged(spec),
  timeoutSeconds: 600,
  timeoutMessage: (r) => `the WireGuard membership of ${r.name} could not be published`,
  async run(ctx) {
    const cluster = bootstrapView(ctx.record);
    // An upgrade under way keeps its instruction (the upgrade step owns it).
    const written = await publishMesh(ctx, await api(ctx), 'keep');
    if (!written) return next('WireGuard membership and load-balancer targets unchanged');
    return next(
      `published ${cluster.nodes.length} WireGuard ` +
        `peers${cluster.loadBalancers.length ? ` and ${cluster.loadBalancers.length} load-balancer configuration(s)` : ''}; nodes apply them within a minute`,
    );
  },
};
