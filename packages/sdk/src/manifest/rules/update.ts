// Rules between the manifest applied before and the new one: what cannot change in place.
import { stableJson } from '../../stable-json.js';
import { IssueCollector, type ValidationIssue } from '../issues.js';
import { MANIFEST_LISTS, type ParsedDocument } from '../parse.js';
import { type Manifest, storageDiskSizeOf } from '../schema.js';

/**
 * Fields of an existing dynamic pool that cannot change (the machines would have to be rebuilt), and a
 * cluster's network. The error says what to do instead: rename the pool so the new one replaces it.
 * `spot` too, although Claudie's webhook lets it change: a machine's market is fixed at launch (EC2 cannot turn an
 * instance into a spot one), so a change would make a pool of both kinds, which neither the user nor the
 * autoscaler's template of the pool could tell apart.
 */
export const IMMUTABLE_POOL_FIELDS = ['providerSpec', 'serverType', 'image', 'storageDiskSize', 'machineSpec', 'spot'] as const;

/** The issues of changing an applied manifest into this one (immutable fields changed). */
export function checkManifestUpdate(previous: Manifest, parsed: ParsedDocument): ValidationIssue[] {
  const next = parsed.manifest;
  if (!next) return [];
  const out = new IssueCollector(parsed.pathPrefix);
  const before = new Map(previous.nodePools.dynamic.map((p) => [p.name, p]));
  // A managed cluster's pools take a new node image (kubeplane rotates their machines onto it).
  const managedPools = new Set(next.kubernetes.clusters.filter((c) => c.controlPlane === 'managed').flatMap((c) => c.pools.compute ?? []));
  next.nodePools.dynamic.forEach((pool, i) => {
    const old = before.get(pool.name);
    if (!old) return;
    const path = [...MANIFEST_LISTS.dynamic.path, parsed.positions.dynamic[i] ?? i];
    for (const field of IMMUTABLE_POOL_FIELDS) {
      if (field === 'image' && managedPools.has(pool.name)) continue;
      // The storage disk is compared as made (its document kind's default when unset): writing Claudie's default
      // 50 into a Claudie document changes nothing; 200 instead of the default would need new disks on every node.
      // An unset `spot` is false: writing `spot: false` out changes nothing.
      const [was, now] =
        field === 'storageDiskSize'
          ? [storageDiskSizeOf(old, previous.source), storageDiskSizeOf(pool, next.source)]
          : field === 'spot'
            ? [old.spot ?? false, pool.spot ?? false]
            : [old[field], pool[field]];
      if (stableJson(was) !== stableJson(now)) {
        const more = field === 'storageDiskSize' ? ' (every node has its storage disk from its creation; a new pool gets disks of the new size)' : '';
        out.error(
          [...path, field],
          `${field} of existing pool "${pool.name}" cannot change (${describe(was)} -> ` +
            `${describe(now)}); rename the pool instead: kubeplane adds the new pool before it removes the old one${more}`,
        );
      }
    }
  });
  const clustersBefore = new Map(previous.kubernetes.clusters.map((c) => [c.name, c]));
  next.kubernetes.clusters.forEach((cluster, i) => {
    const old = clustersBefore.get(cluster.name);
    if (!old) return;
    const path = [...MANIFEST_LISTS.clusters.path, parsed.positions.clusters[i] ?? i];
    if (old.network !== cluster.network) {
      out.error(
        [...path, 'network'],
        `network of existing cluster "${cluster.name}" cannot change (${old.network} -> ${cluster.network}); every node's overlay address is in it`,
      );
    }
    if ((old.controlPlane ?? 'self-managed') !== (cluster.controlPlane ?? 'self-managed')) {
      out.error([...path, 'controlPlane'], `controlPlane of existing cluster "${cluster.name}" cannot change; create a new cluster instead`);
    }
  });
  return out.issues;
}

function describe(value: unknown): string {
  return value === undefined ? 'unset' : typeof value === 'object' ? stableJson(value) : String(value);
}
