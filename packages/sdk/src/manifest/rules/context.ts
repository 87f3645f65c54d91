// What the manifest's sections share while their rules run: the document, the issue collector, and what each section
// has declared so far (providers, pools, clusters, roles, hostnames), for the sections after it to check references.
import type { IssueCollector, Path } from '../issues.js';
import { MANIFEST_LISTS, type ManifestList, type ParsedDocument } from '../parse.js';
import type { ProviderType } from '../provider-types.js';
import type { ClusterDef, DynamicPoolDef, Manifest, StaticPoolDef } from '../schema.js';

export type PoolEntry = { kind: 'dynamic'; def: DynamicPoolDef; path: Path } | { kind: 'static'; def: StaticPoolDef; path: Path };
export type RoleDef = Manifest['loadBalancers']['roles'][number];
export interface ClusterEntry {
  def: ClusterDef;
  path: Path;
  control: Set<string>;
  compute: Set<string>;
}

export interface RulesContext {
  parsed: ParsedDocument;
  m: Manifest;
  out: IssueCollector;
  /** The path of the i-th entry of a manifest list, as the document numbers it. */
  at: (list: ManifestList, i: number) => Path;
  /** A Claudie document: some rules warn where they would refuse a native one. */
  claudie: boolean;
  providers: Map<string, ProviderType>;
  providerKnown: (name: string) => boolean;
  pools: Map<string, PoolEntry>;
  poolKnown: (name: string) => boolean;
  /** fqdn -> what uses it (a load balancer, a cluster's API name) */
  hostnames: Map<string, string>;
  usedPools: Set<string>;
  /** static pool -> "cluster X" / "load balancer Y" */
  staticUse: Map<string, string>;
  clusters: Map<string, ClusterEntry>;
  clusterKnown: (name: string) => boolean;
  roles: Map<string, RoleDef>;
  roleKnown: (name: string) => boolean;
  /** cluster -> its API load balancer */
  apiLbFor: Map<string, string>;
  usedRoles: Set<string>;
}

export function rulesContext(parsed: ParsedDocument, m: Manifest, out: IssueCollector): RulesContext {
  const providers = new Map<string, ProviderType>();
  const pools = new Map<string, PoolEntry>();
  const clusters = new Map<string, ClusterEntry>();
  const roles = new Map<string, RoleDef>();
  return {
    parsed,
    m,
    out,
    at: (list: ManifestList, i: number): Path => [...MANIFEST_LISTS[list].path, parsed.positions[list][i] ?? i],
    claudie: m.source === 'claudie',
    providers,
    providerKnown: (name: string) => providers.has(name) || parsed.brokenNames.providers.has(name),
    pools,
    poolKnown: (name: string) => pools.has(name) || parsed.brokenNames.dynamic.has(name) || parsed.brokenNames.static.has(name),
    hostnames: new Map<string, string>(),
    usedPools: new Set<string>(),
    staticUse: new Map<string, string>(),
    clusters,
    clusterKnown: (name: string) => clusters.has(name) || parsed.brokenNames.clusters.has(name),
    roles,
    roleKnown: (name: string) => roles.has(name) || parsed.brokenNames.roles.has(name),
    apiLbFor: new Map<string, string>(),
    usedRoles: new Set<string>(),
  };
}
