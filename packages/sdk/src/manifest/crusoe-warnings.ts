// The Crusoe Managed Kubernetes checks of a manifest: the seeds' rules (providers-data/crusoe.ts) applied to every
// `controlPlane: managed` cluster whose pools come from a Crusoe provider, with the manifest paths they concern.
import { CRUSOE_PROFILE, crusoeClusterWarnings, parseCmkVersion, type CrusoeWarning } from '../providers-data/crusoe.js';
import type { Manifest } from './schema.js';

/** A warning found in a manifest, with the manifest path it concerns. */
export interface CrusoeManifestWarning extends CrusoeWarning {
  cluster: string;
}

/**
 * The seeds' checks for every `controlPlane: managed` cluster of a manifest whose pools come from a Crusoe
 * provider. For a managed pool, `image` names the CMK worker image (node pool version, `1.33.4-cmk.4`).
 */
export function crusoeManifestWarnings(manifest: Manifest): CrusoeManifestWarning[] {
  const crusoeProviders = new Set(manifest.providers.filter((p) => p.providerType === CRUSOE_PROFILE.type).map((p) => p.name));
  const out: CrusoeManifestWarning[] = [];
  manifest.kubernetes.clusters.forEach((cluster, ci) => {
    if (cluster.controlPlane !== 'managed') return;
    const pools = (cluster.pools.compute ?? []).flatMap((name) => {
      const index = manifest.nodePools.dynamic.findIndex((p) => p.name === name);
      const pool = manifest.nodePools.dynamic[index];
      return pool && crusoeProviders.has(pool.providerSpec.name) ? [{ index, pool }] : [];
    });
    if (pools.length === 0) return;
    const addons = (cluster.addons ?? []).map((a) => a.name);
    const warnings = crusoeClusterWarnings({
      version: cluster.version,
      addons,
      autoClusters: addons.includes('autoclusters'),
      // kubeplane pins a fixed pool at its count (--nodes=<count>:<count>:<pool>), so the autoscaler leaves it alone.
      pools: pools.map(({ pool }) => ({
        name: pool.name,
        productName: pool.serverType,
        ...(parseCmkVersion(pool.image) ? { nodePoolVersion: pool.image } : {}),
        autoscaler: pool.autoscaler ?? { min: pool.count ?? 1, max: pool.count ?? 1 },
      })),
    });
    for (const w of warnings) {
      const m = /^pools\[(\d+)\](?:\.(\w+))?$/.exec(w.path);
      const poolIndex = m ? pools[Number(m[1])]?.index : undefined;
      const field = m?.[2] === 'nodePoolVersion' ? 'image' : m?.[2] === 'productName' ? 'serverType' : m?.[2];
      const path = poolIndex !== undefined ? `nodePools.dynamic[${poolIndex}]${field ? `.${field}` : ''}` : `kubernetes.clusters[${ci}].${w.path}`;
      out.push({ ...w, path, cluster: cluster.name });
    }
  });
  return out;
}
