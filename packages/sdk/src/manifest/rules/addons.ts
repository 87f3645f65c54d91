// A cluster's add-ons: each once, CMK's autoclusters on a managed cluster only, the chart add-ons' own rules, and
// autoscaled pools in a cluster that has nothing to scale them.
import type { ChartAddonId } from '../../addons/catalog.js';
import { isChartAddon } from '../../addons/catalog.js';
import { autoclustersConfigSchema } from '../../providers-data/crusoe.js';
import { checkChartAddon } from '../addon-rules.js';
import type { Path } from '../issues.js';
import type { ClusterDef } from '../schema.js';
import type { RulesContext } from './context.js';
import { checkSecretRef } from './secret-ref.js';

export function checkClusterAddons(
  { out, pools, providers }: RulesContext,
  cluster: ClusterDef,
  path: Path,
  managed: boolean,
  control: string[],
  compute: string[],
): void {
  const addons = new Set<string>();
  (cluster.addons ?? []).forEach((addon, j) => {
    if (addons.has(addon.name)) out.error([...path, 'addons', j, 'name'], `add-on "${addon.name}" is listed twice`);
    addons.add(addon.name);
    if (addon.name === 'autoclusters') {
      if (!managed) out.error([...path, 'addons', j, 'name'], 'autoclusters is node remediation of Crusoe Managed Kubernetes; it needs controlPlane: managed');
      const parsed = autoclustersConfigSchema.safeParse(addon.config ?? {});
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        if (issue) out.error([...path, 'addons', j, 'config', ...issue.path.map((k) => (typeof k === 'symbol' ? String(k) : k))], issue.message);
      }
    }
    if (isChartAddon(addon.name)) {
      const clusterPools = [...control, ...compute].flatMap((name) => {
        const pool = pools.get(name);
        return pool?.kind === 'dynamic' ? [pool.def] : [];
      });
      checkChartAddon(out, [...path, 'addons', j], addon as typeof addon & { name: ChartAddonId }, {
        managed,
        pools: clusterPools,
        providers,
        checkSecretRef,
      });
    }
  });
  // Claudie deploys its autoscaler for every cluster with an autoscaled pool; kubeplane installs cluster-autoscaler only
  // as the add-on, so without it such a pool is made at its minimum and stays there. Said, not refused: the pool can
  // be scaled by hand (Kubeplane.scalePool) or an autoscaler added later.
  if (!addons.has('cluster_autoscaler')) {
    for (const name of compute) {
      const pool = pools.get(name);
      if (pool?.kind !== 'dynamic' || !pool.def.autoscaler) continue;
      const { min, max } = pool.def.autoscaler;
      out.warning(
        [...pool.path, 'autoscaler'],
        `pool "${name}" is autoscaled (${min}-${max}), but cluster "${cluster.name}" has no cluster autoscaler, so it is made ` +
          `with ${min} node${min === 1 ? '' : 's'} and stays there; add {name: cluster_autoscaler} to the addons of cluster ` +
          `"${cluster.name}"${managed ? " (Crusoe Managed Kubernetes' own autoscaler)" : ' (docs/autoscaling.md)'}`,
      );
    }
  }
}
