// What a CMK cluster needs through its own Kubernetes API: the per-pool `--nodes=<min>:<max>:<pool>` arguments of the
// autoscaler CMK installed. CMK's `cmk-<cluster>` Secret (its scoped API token) is read, never written.
import { CMK_ADDON_SECRET } from '@kubeplane/sdk/internal';
import { done, pending, type Outcome } from '@kubeplane/sdk/provider';
import type { KubernetesApi } from '@kubeplane/sdk';

/** Where Crusoe Managed Kubernetes runs its cluster autoscaler. */
export const CMK_AUTOSCALER = { namespace: 'crusoe-system', deployment: 'cluster-autoscaler' } as const;
/** Where the `cmk-<cluster>` Secret lives (the SDK's CMK_ADDON_SECRET, which the engine's add-ons step reads too). */
export const CMK_ADDON_SECRET_NAMESPACE = CMK_ADDON_SECRET.namespace;

/** A pool's autoscaler bounds. */
export interface AutoscalerLimits {
  pool: string;
  min: number;
  max: number;
}

/** `--nodes=<min>:<max>:<pool>` per pool, sorted by pool name so the Deployment does not change needlessly. */
export function autoscalerNodeArgs(limits: readonly AutoscalerLimits[]): string[] {
  for (const l of limits) {
    if (!Number.isInteger(l.min) || !Number.isInteger(l.max) || l.min < 0 || l.max < l.min)
      throw new RangeError(`autoscaler limits for ${l.pool}: need 0 <= min <= max, got ${l.min}:${l.max}`);
  }
  return [...limits].sort((a, b) => a.pool.localeCompare(b.pool)).map((l) => `--nodes=${l.min}:${l.max}:${l.pool}`);
}

/** The container's args with every `--nodes=` replaced by the manifest's limits; other args are kept in order. */
export function withAutoscalerNodeArgs(args: readonly string[], limits: readonly AutoscalerLimits[]): string[] {
  return [...args.filter((a) => !a.startsWith('--nodes=')), ...autoscalerNodeArgs(limits)];
}

/** What a CMK cluster should have through its Kubernetes API: the autoscaler's per-pool limits. */
export interface CmkInClusterInput {
  /** Per-pool autoscaler limits for the autoscaler CMK installed at creation; the Deployment is left alone when absent. */
  autoscaler?: readonly AutoscalerLimits[];
}

/** What reconciling a CMK cluster through its Kubernetes API changed. */
export interface CmkInClusterResult {
  autoscalerUpdated: boolean;
}

/**
 * Brings CMK's own autoscaler to the manifest through the Kubernetes API: its `--nodes` arguments, set only when they
 * differ. Pending while the Deployment does not exist yet (CMK installs its add-ons as the cluster comes up).
 */
export async function reconcileCmkInCluster(
  api: Pick<KubernetesApi, 'getDeploymentArgs' | 'setDeploymentArgs'>,
  input: CmkInClusterInput,
): Promise<Outcome<CmkInClusterResult>> {
  const result: CmkInClusterResult = { autoscalerUpdated: false };
  if (input.autoscaler) {
    const args = await api.getDeploymentArgs(CMK_AUTOSCALER.namespace, CMK_AUTOSCALER.deployment);
    if (args === null)
      return pending(
        'dependency',
        30,
        `${CMK_AUTOSCALER.namespace}/${CMK_AUTOSCALER.deployment}, which CMK installs with the cluster_autoscaler add-on, does not exist yet`,
      );
    const next = withAutoscalerNodeArgs(args, input.autoscaler);
    if (JSON.stringify(next) !== JSON.stringify(args)) {
      await api.setDeploymentArgs(CMK_AUTOSCALER.namespace, CMK_AUTOSCALER.deployment, next);
      result.autoscalerUpdated = true;
    }
  }
  return done(result);
}
