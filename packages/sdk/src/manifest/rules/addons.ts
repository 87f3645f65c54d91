// A cluster's add-ons: each once, CMK's autoclusters on a managed cluster only, and the chart add-ons' own rules.
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
}
