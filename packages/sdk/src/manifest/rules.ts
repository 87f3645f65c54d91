// Every rule that needs the whole manifest: names, references, pool use, counts, networks, versions,
// load-balancer roles and DNS, static machines, spot, credentials. All errors are collected, none stops
// the others, and each names the path of the field to change. One file per manifest section (rules/), run in
// the document's order, so the issues come out in that order.
import { IssueCollector, type ValidationIssue } from './issues.js';
import type { ParsedDocument } from './parse.js';
import { rulesContext } from './rules/context.js';
import { checkApiEndpoints, checkClusters, checkNetworkSizes } from './rules/kubernetes.js';
import { checkLoadBalancers, checkRoles, checkUnusedRoles } from './rules/load-balancers.js';
import { checkMetadata } from './rules/metadata.js';
import { checkDynamicPools, checkStaticPools, checkUnusedPools } from './rules/node-pools.js';
import { checkProviders } from './rules/providers.js';

export { API_SERVER_PORT, NAME_LIMITS, RESERVED_PORTS } from './rules/limits.js';
export { checkManifestUpdate, IMMUTABLE_POOL_FIELDS } from './rules/update.js';

/** The cross-field rules of a parsed manifest (references, names, CIDRs, counts) as issues. */
export function checkManifestRules(parsed: ParsedDocument): ValidationIssue[] {
  const m = parsed.manifest;
  if (!m) return [];
  const out = new IssueCollector(parsed.pathPrefix);
  const ctx = rulesContext(parsed, m, out);
  checkMetadata(ctx);
  checkProviders(ctx);
  checkDynamicPools(ctx);
  checkStaticPools(ctx);
  checkClusters(ctx);
  checkRoles(ctx);
  checkLoadBalancers(ctx);
  checkApiEndpoints(ctx);
  // Whole-manifest checks.
  checkUnusedPools(ctx);
  checkUnusedRoles(ctx);
  checkNetworkSizes(ctx);
  return out.issues;
}
