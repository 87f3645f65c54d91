// Deterministic identities: the same manifest always yields the same cluster ids, node names and hostnames,
// so a step that runs twice, or after lost state, finds what it created before instead of creating it again.
import { createHash } from 'node:crypto';

/** Seven lower-case base-36 characters of SHA-256 over the parts (Claudie's ids have the same shape). */
export function shortHash(parts: readonly string[], length = 7): string {
  const digest = createHash('sha256').update(parts.join('\u0000')).digest();
  let n = digest.readBigUInt64BE(0);
  let out = '';
  while (out.length < length) {
    out += (n % 36n).toString(36);
    n /= 36n;
  }
  return out;
}

/** `<cluster>-<hash7>`: unique per project and cluster name. */
export function clusterId(project: string, cluster: string): string {
  return `${cluster}-${shortHash([project, cluster])}`;
}

/** `<lb>-<hash7>`: unique per project, targeted cluster and load-balancer name. */
export function loadBalancerId(project: string, cluster: string, lb: string): string {
  return `${lb}-${shortHash([project, cluster, lb])}`;
}

/** `<owner-id>-<pool>-<nn>` with nn the two-digit hex index 01..ff; at most 54 characters. */
export function nodeName(ownerId: string, pool: string, index: number): string {
  return `${ownerId}-${pool}-${index.toString(16).padStart(2, '0')}`;
}

/** The hostname used when a load balancer's dns.hostname is left out. */
export function defaultHostname(project: string, cluster: string, lb: string): string {
  return shortHash([project, cluster, lb, 'hostname'], 12);
}

/**
 * The name of the worker copy of a dynamic pool listed in both `control` and `compute` of one cluster. Claudie builds
 * such a pool twice, each copy under its own `<name>-<hash>`; kubeplane keeps the control copy under the pool's name
 * (so adding a pool to compute never renames its control planes) and gives the workers this one.
 */
export function computeInstanceName(pool: string): string {
  return `${pool}-w`;
}
