// The cluster's Kubernetes API as the steps reach it (the admin kubeconfig), and the nodes each pool should have there.
import { KubeplaneError } from '../../errors.js';
import type { NodeRole, PoolSpec } from '../../model/types.js';
import type { KubernetesApi } from '../ports/kubernetes.js';
import { desiredOf, poolsOf } from './common.js';
import { isManaged, managedPoolMembers } from './managed.js';
import type { StepContext } from './types.js';

export async function api(ctx: StepContext): Promise<KubernetesApi> {
  const kubeconfig = await ctx.secrets.adminKubeconfig();
  if (!kubeconfig) throw new KubeplaneError('invalid', `cluster ${ctx.record.name} has no admin credentials yet`);
  return ctx.kubernetes(kubeconfig);
}

/** The Kubernetes nodes each pool should have: kubeplane's own node names, or the machines a managed pool has now. */
export function poolMembers(ctx: StepContext): Array<{ pool: PoolSpec; nodes: Array<{ name: string; role: NodeRole }> }> {
  const spec = desiredOf(ctx.record);
  if (isManaged(spec))
    return spec.pools.map((pool) => ({ pool, nodes: managedPoolMembers(ctx, pool.name).map((name) => ({ name, role: 'compute' as const })) }));
  return poolsOf(spec).map((pool) => ({ pool, nodes: pool.nodes.filter((n) => n.role !== 'loadbalancer') }));
}
