// The add-ons a managed service installed at creation (CMK: Helm releases of its own, never auto-upgraded), found in
// the cluster by their chart's name, and the rules for upgrading one through the manifest's `version` (seeds/cmk-addons.txt).
import type { KubeObject } from '../engine/ports/kubernetes.js';
import { CATALOG, compareChartVersions, CRUSOE_CSI_NFS_MIN_VERSION, type ChartAddonId } from './catalog.js';
import { decodeRelease, type HelmRelease } from './state.js';

/** The Helm release a managed service installed for an add-on: where it lives, its chart version and its first values. */
export interface ProviderRelease {
  name: string;
  namespace: string;
  /** The chart version of its newest revision. */
  version: string;
  /** Its newest revision's status (`deployed`, `pending-upgrade`, `failed`, …). */
  status: string;
  /**
   * The values of its oldest revision: the service's own. An upgrade starts from them, as Crusoe asks
   * (`helm upgrade --reset-then-reuse-values`, crusoe-notes §3.2), with the manifest's values over them.
   */
  serviceValues: Record<string, unknown>;
}

/** The release of `chart` among the cluster's Helm release Secrets (any namespace), or null when there is none. */
export function findProviderRelease(chart: string, releaseSecrets: readonly KubeObject[]): ProviderRelease | null {
  const revisions = releaseSecrets
    .filter((s) => s.metadata.labels?.['owner'] === 'helm')
    .map(decodeRelease)
    .filter((r): r is HelmRelease => r !== null && r.chart?.metadata?.name === chart)
    .sort((a, b) => b.version - a.version);
  const newest = revisions[0];
  const oldest = revisions.at(-1);
  if (!newest || !oldest) return null;
  const sameRelease = revisions.filter((r) => r.name === newest.name && r.namespace === newest.namespace);
  return {
    name: newest.name,
    namespace: newest.namespace ?? 'default',
    version: newest.chart?.metadata?.version ?? '',
    status: newest.info?.status ?? 'unknown',
    serviceValues: (sameRelease.at(-1) ?? oldest).config ?? {},
  };
}

/** The crusoe-csi-driver chart whose upgrade instructions every older release must follow first (its CHANGELOG, v0.7.0). */
export const CRUSOE_CSI_PASS_THROUGH_VERSION = '0.7.0';

/**
 * Why the manifest cannot take a service-installed add-on from `installed` to `target` (null when it can):
 * - crusoe_csi from before 0.7.0 to later than 0.7.0. seeds/cmk-addons.txt: "If upgrading from a version prior to
 *   v0.7.0, you must follow the v0.7.0 upgrade instructions first"; the chart's CHANGELOG for v0.7.0 is a breaking
 *   change (the Secret's default key paths became CRUSOE_ACCESS_KEY / CRUSOE_SECRET_KEY), which asks the user to check
 *   their values. So kubeplane refuses, and says to go to 0.7.0 first, rather than step through it unasked.
 * - crusoe_csi with NFS on a chart before 0.10.3. seeds/cmk-addons.txt: "Cluster must be on CSI Helm chart v0.10.3 or newer".
 * - a downgrade: Helm would roll the service's release back past what it was created with.
 */
export function providerUpgradeProblem(
  id: ChartAddonId,
  installed: string,
  target: string | undefined,
  config: Record<string, unknown> | undefined,
): string | null {
  const chart = CATALOG[id].chart;
  const effective = target ?? installed;
  if (id === 'crusoe_csi' && config?.['nfs'] === true && compareChartVersions(effective, CRUSOE_CSI_NFS_MIN_VERSION) < 0) {
    return (
      `crusoe_csi NFS mode needs chart ${CRUSOE_CSI_NFS_MIN_VERSION} or later (seeds/cmk-addons.txt), and the cluster runs the ` +
      `${chart} ${effective} that CMK installed; set version: "${CRUSOE_CSI_NFS_MIN_VERSION}" (or later) to upgrade it`
    );
  }
  if (target === undefined || compareChartVersions(target, installed) === 0) return null;
  if (compareChartVersions(target, installed) < 0)
    return `${id}: the cluster runs ${chart} ${installed}, installed by the managed service; kubeplane upgrades it, it does not downgrade it to ${target}`;
  if (
    id === 'crusoe_csi' &&
    compareChartVersions(installed, CRUSOE_CSI_PASS_THROUGH_VERSION) < 0 &&
    compareChartVersions(target, CRUSOE_CSI_PASS_THROUGH_VERSION) > 0
  ) {
    return (
      `crusoe_csi: the cluster runs ${chart} ${installed}, from before ${CRUSOE_CSI_PASS_THROUGH_VERSION}; Crusoe asks that such an upgrade ` +
      `follow the v${CRUSOE_CSI_PASS_THROUGH_VERSION} upgrade instructions first (seeds/cmk-addons.txt; the chart's v${CRUSOE_CSI_PASS_THROUGH_VERSION} ` +
      `changed the Secret's default key paths). Set version: "${CRUSOE_CSI_PASS_THROUGH_VERSION}" and apply, then version: "${target}"`
    );
  }
  return null;
}
