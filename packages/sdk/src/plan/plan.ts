// plan(desired, current): the ordered, explainable list of operations that turns the current state into the
// desired one. Pure: no I/O, no clock. The order follows Claudie's proven priority — API endpoint and load
// balancers first, then node additions, load-balancer role changes, node deletions one at a time, and last
// the low-priority changes (version upgrades, label and taint patches) — so a cluster stays reachable throughout.
import { compareKubernetesVersions, upstreamVersion } from '../manifest/kubernetes-versions.js';
import type { ValidationIssue } from '../manifest/issues.js';
import { IMMUTABLE_POOL_FIELDS } from '../manifest/rules.js';
import { stableJson } from '../stable-json.js';
import type { ClusterSpec, CurrentState, DesiredState, LoadBalancerSpec, NodeSpec, PoolSpec } from '../model/types.js';
import type { Operation, OperationKind, Phase, Plan, PlanResult, PlanWarning } from './types.js';
import { displayProxyEndpoint, effectiveInstallationProxy } from '../bootstrap/installation-proxy.js';

/** Priority bands; operations are sorted by band, then by the order they were produced in. */
const BAND = {
  infrastructure: 0,
  endpoint: 1,
  additions: 2,
  lbRoles: 3,
  deletions: 4,
  lowPriority: 5,
  outputs: 6,
  teardown: 7,
} as const;

interface Draft extends Operation {
  band: number;
}

/** The operations that take the current state to the desired one, or the issues that forbid it. */
export function plan(desired: DesiredState, current: CurrentState): PlanResult {
  const issues: ValidationIssue[] = [];
  const warnings: PlanWarning[] = [];
  const drafts: Draft[] = [];
  const currentByName = new Map(current.clusters.map((c) => [c.name, c]));
  const desiredNames = new Set(desired.clusters.map((c) => c.name));

  for (const want of desired.clusters) {
    const have = currentByName.get(want.name);
    if (!have) planCreate(want, drafts);
    else planUpdate(want, have, drafts, issues, warnings);
  }
  for (const have of current.clusters) {
    if (!desiredNames.has(have.name)) planDelete(have, drafts, 'the cluster is no longer in the manifest');
  }
  if (issues.length > 0) return { ok: false, issues };

  // Stable sort by band keeps each band's internal order (control before compute, one node after another).
  const operations = drafts
    .map((d, i) => ({ d, i }))
    .sort((a, b) => a.d.band - b.d.band || a.i - b.i)
    .map(({ d }) => {
      const { band: _band, ...op } = d;
      return op;
    });
  const summary: Plan['summary'] = {};
  for (const op of operations) summary[op.kind] = (summary[op.kind] ?? 0) + 1;
  return { ok: true, plan: { project: desired.project, operations, ...(warnings.length > 0 ? { warnings } : {}), summary } };
}

/** Plans the removal of everything in the current state. */
export function planDestroy(current: CurrentState): Plan {
  const result = plan({ project: current.project, clusters: [] }, current);
  if (!result.ok) throw new Error('a destroy plan has no validation step');
  return result.plan;
}

function op(
  drafts: Draft[],
  band: number,
  kind: OperationKind,
  phase: Phase,
  cluster: ClusterSpec,
  target: string,
  reason: string,
  extra: Partial<Operation> = {},
): void {
  drafts.push({ id: `${kind}:${cluster.id}:${target}`, kind, phase, cluster: cluster.name, clusterId: cluster.id, target, reason, band, ...extra });
}

function planCreate(c: ClusterSpec, drafts: Draft[]): void {
  op(
    drafts,
    BAND.infrastructure,
    'create-cluster',
    'infrastructure',
    c,
    c.name,
    `cluster "${c.name}" is new (Kubernetes ${c.version.raw}, ${c.controlPlane} control plane)`,
    {
      details: { version: c.version.raw, network: c.network },
    },
  );
  for (const n of c.networks) {
    op(
      drafts,
      BAND.infrastructure,
      'create-network',
      'infrastructure',
      c,
      `${n.provider}/${n.region}`,
      `pools of cluster "${c.name}" run on ${n.provider} in ${n.region}`,
      {
        details: { cidr: n.cidr, subnets: n.subnets.map((s) => s.cidr) },
      },
    );
  }
  for (const lb of c.loadBalancers) createLoadBalancer(c, lb, drafts, `load balancer "${lb.name}" is new`);
  if (c.apiEndpoint.kind === 'reserved-ip') {
    op(
      drafts,
      BAND.endpoint,
      'change-api-endpoint',
      'infrastructure',
      c,
      c.apiEndpoint.node,
      `the API endpoint is a reserved IP on the first control-plane node, ${c.apiEndpoint.node}`,
    );
  }
  for (const pool of orderPools(c.pools)) createPool(c, pool, drafts, `pool "${pool.name}" is new`);
  if (c.apiDns) upsertApiDns(c, drafts, `the API is named ${c.apiDns.fqdn}`);
  op(drafts, BAND.outputs, 'write-outputs', 'outputs', c, c.name, 'the kubeconfig and metadata are written once the cluster is ready');
}

function createLoadBalancer(c: ClusterSpec, lb: LoadBalancerSpec, drafts: Draft[], reason: string): void {
  op(drafts, BAND.endpoint, 'create-load-balancer', 'infrastructure', c, lb.name, `${reason}${lb.api ? ' (it serves the API endpoint)' : ''}`, {
    details: { roles: lb.roles.map((r) => `${r.name}:${r.protocol}/${r.port}->${r.targetPort}`) },
  });
  for (const pool of lb.pools) createPool(c, pool, drafts, `pool "${pool.name}" of load balancer "${lb.name}" is new`, BAND.endpoint);
  for (const name of [lb.dns.fqdn, ...lb.dns.alternativeNames.map((a) => `${a}.${lb.dns.zone}`)]) {
    op(
      drafts,
      BAND.endpoint,
      'upsert-dns-record',
      'dns',
      c,
      name,
      `load balancer "${lb.name}" is reached at ${name} (zone ${lb.dns.zone}, provider ${lb.dns.provider})`,
      {
        details: { zone: lb.dns.zone, provider: lb.dns.provider },
      },
    );
  }
}

/** A managed control plane's API name: a CNAME to the provider's API name once the cluster runs. */
function upsertApiDns(c: ClusterSpec, drafts: Draft[], reason: string): void {
  const dns = c.apiDns;
  if (!dns) return;
  op(
    drafts,
    BAND.endpoint,
    'upsert-dns-record',
    'dns',
    c,
    dns.fqdn,
    `${reason} (zone ${dns.zone}, provider ${dns.provider}): a CNAME to the provider's API name`,
    { details: { zone: dns.zone, provider: dns.provider } },
  );
}

function createPool(c: ClusterSpec, pool: PoolSpec, drafts: Draft[], reason: string, band: number = BAND.additions): void {
  op(drafts, band, 'create-pool', 'infrastructure', c, pool.name, `${reason}: ${describePool(pool)}`, { pool: pool.name, role: pool.role });
  for (const node of pool.nodes) createNode(c, pool, node, drafts, `pool "${pool.name}" wants ${pool.count} node${pool.count === 1 ? '' : 's'}`, band);
}

function createNode(c: ClusterSpec, pool: PoolSpec, node: NodeSpec, drafts: Draft[], reason: string, band: number = BAND.additions): void {
  // A spot machine says so in the plan's text too: it is cheaper, and the cloud may reclaim it.
  op(drafts, band, 'create-node', 'infrastructure', c, node.name, pool.spot ? `${reason}; a spot machine` : reason, {
    pool: pool.name,
    role: node.role,
    details: {
      overlayIp: node.overlayIp,
      ...(pool.serverType ? { serverType: pool.serverType } : {}),
      ...(pool.spot ? { spot: true } : {}),
      ...(pool.storageDiskSize > 0 ? { storageDiskGB: pool.storageDiskSize } : {}),
      ...(node.staticEndpoint ? { endpoint: node.staticEndpoint } : {}),
    },
  });
}

function planDelete(c: ClusterSpec, drafts: Draft[], reason: string): void {
  const b = BAND.teardown;
  for (const lb of c.loadBalancers) deleteLoadBalancer(c, lb, drafts, reason, b);
  if (c.apiDns) op(drafts, b, 'delete-dns-record', 'dns', c, c.apiDns.fqdn, reason, { details: { zone: c.apiDns.zone, provider: c.apiDns.provider } });
  for (const pool of [...orderPools(c.pools)].reverse()) deletePool(c, pool, drafts, reason, false, b);
  for (const n of c.networks) op(drafts, b, 'delete-network', 'infrastructure', c, `${n.provider}/${n.region}`, reason);
  op(drafts, b, 'delete-cluster', 'infrastructure', c, c.name, `${reason}; everything tagged with cluster id ${c.id} is swept`);
  // The kubeconfig goes last: while anything of the cluster is left, its credentials are kept.
  op(drafts, b, 'delete-outputs', 'outputs', c, c.name, reason);
}

function deleteLoadBalancer(c: ClusterSpec, lb: LoadBalancerSpec, drafts: Draft[], reason: string, band: number): void {
  for (const name of [lb.dns.fqdn, ...lb.dns.alternativeNames.map((a) => `${a}.${lb.dns.zone}`)]) {
    op(drafts, band, 'delete-dns-record', 'dns', c, name, reason, { details: { zone: lb.dns.zone, provider: lb.dns.provider } });
  }
  for (const pool of lb.pools) deletePool(c, pool, drafts, reason, false, band);
  op(drafts, band, 'delete-load-balancer', 'infrastructure', c, lb.name, reason);
}

function deletePool(c: ClusterSpec, pool: PoolSpec, drafts: Draft[], reason: string, drain: boolean, band: number): void {
  // Highest index first, so a half-done deletion leaves the pool's lowest nodes, as a scale-down would.
  for (const node of [...pool.nodes].sort((a, b) => b.index - a.index)) {
    op(drafts, band, 'delete-node', 'infrastructure', c, node.name, reason, { pool: pool.name, role: node.role, drain });
  }
  op(drafts, band, 'delete-pool', 'infrastructure', c, pool.name, reason, { pool: pool.name, role: pool.role });
}

function planUpdate(want: ClusterSpec, have: ClusterSpec, drafts: Draft[], issues: ValidationIssue[], warnings: PlanWarning[]): void {
  const issue = (path: string, message: string) => issues.push({ severity: 'error', path, message });
  if (want.network !== have.network) {
    issue(
      `${want.sourcePath}.network`,
      `network of existing cluster "${want.name}" cannot change (${have.network} -> ${want.network}); every node's overlay address is in it`,
    );
  }
  if (want.controlPlane !== have.controlPlane) {
    issue(`${want.sourcePath}.controlPlane`, `controlPlane of existing cluster "${want.name}" cannot change; create a new cluster instead`);
  }
  const haveAll = new Map([...have.pools, ...have.loadBalancers.flatMap((l) => l.pools)].map((p) => [p.name, p]));
  for (const pool of [...want.pools, ...want.loadBalancers.flatMap((l) => l.pools)]) {
    const old = haveAll.get(pool.name);
    // `spot` is outside the template hash, so that pools built before it took effect keep their hash.
    if (old && old.kind === 'dynamic' && pool.kind === 'dynamic' && (old.templateHash !== pool.templateHash || (old.spot ?? false) !== pool.spot)) {
      const changed = IMMUTABLE_POOL_FIELDS.filter((f) => !sameImmutable(f, old, pool));
      // The hash hashes fields as written; an unset storageDiskSize and its default written out make the same machines.
      if (changed.length === 0) continue;
      if (want.controlPlane === 'managed' && changed.length === 1 && changed[0] === 'image') {
        // A managed pool takes a new node image for new machines; kubeplane rotates the existing ones onto it.
        op(
          drafts,
          BAND.lowPriority,
          'rotate-nodes',
          'kubernetes',
          want,
          pool.name,
          `node image ${old.image ?? ''} -> ${pool.image ?? ''}: new machines get it; the ${old.nodes.length} existing ` +
            `one${old.nodes.length === 1 ? ' is' : 's are'} replaced one at a time (one extra machine while each is drained)`,
          { pool: pool.name, details: { from: old.image ?? '', to: pool.image ?? '' } },
        );
        continue;
      }
      issue(
        `${pool.sourcePath}.${changed[0] ?? 'serverType'}`,
        `${changed.join(', ') || 'the machine template'} of existing pool "${pool.name}" cannot ` +
          `change; rename the pool instead: kubeplane adds the new pool before it removes the old one`,
      );
    }
    if (old && old.role !== pool.role) {
      issue(pool.sourcePath, `pool "${pool.name}" moves from ${old.role} to ${pool.role}; machines cannot change role — use a new pool`);
    }
  }
  if (compareKubernetesVersions(want.version, have.version) < 0) {
    issue(`${want.sourcePath}.version`, `Kubernetes cannot be downgraded (${have.version.raw} -> ${want.version.raw})`);
  } else if (want.version.minor - have.version.minor > 1) {
    issue(
      `${want.sourcePath}.version`,
      `kubeadm upgrades one minor version at a time: go from ${have.version.raw} to 1.${have.version.minor + 1}.x first, then to ${want.version.raw}`,
    );
  }
  if (issues.length > 0) return;

  // Networks for new provider regions.
  const haveNets = new Set(have.networks.map((n) => `${n.provider}/${n.region}`));
  for (const n of want.networks) {
    if (!haveNets.has(`${n.provider}/${n.region}`)) {
      op(
        drafts,
        BAND.infrastructure,
        'create-network',
        'infrastructure',
        want,
        `${n.provider}/${n.region}`,
        `a pool now runs on ${n.provider} in ${n.region}`,
        {
          details: { cidr: n.cidr, subnets: n.subnets.map((s) => s.cidr) },
        },
      );
    }
  }

  // 1. Load balancers and the API endpoint.
  if (want.apiDns?.fqdn !== have.apiDns?.fqdn) {
    if (want.apiDns) upsertApiDns(want, drafts, `the API is now named ${want.apiDns.fqdn}`);
    if (have.apiDns)
      op(drafts, BAND.deletions, 'delete-dns-record', 'dns', want, have.apiDns.fqdn, `the API is no longer named ${have.apiDns.fqdn}`, {
        details: { zone: have.apiDns.zone, provider: have.apiDns.provider },
      });
  }
  const haveLbs = new Map(have.loadBalancers.map((l) => [l.name, l]));
  const wantLbs = new Map(want.loadBalancers.map((l) => [l.name, l]));
  for (const lb of want.loadBalancers) {
    const old = haveLbs.get(lb.name);
    if (!old) {
      createLoadBalancer(want, lb, drafts, `load balancer "${lb.name}" was added`);
      continue;
    }
    if (old.dns.fqdn !== lb.dns.fqdn || stableJson(old.dns.alternativeNames) !== stableJson(lb.dns.alternativeNames)) {
      const oldNames = [old.dns.fqdn, ...old.dns.alternativeNames.map((a) => `${a}.${old.dns.zone}`)];
      const newNames = [lb.dns.fqdn, ...lb.dns.alternativeNames.map((a) => `${a}.${lb.dns.zone}`)];
      for (const n of newNames.filter((x) => !oldNames.includes(x))) {
        op(drafts, BAND.endpoint, 'upsert-dns-record', 'dns', want, n, `load balancer "${lb.name}" is now reached at ${n}`, {
          details: { zone: lb.dns.zone, provider: lb.dns.provider },
        });
      }
      for (const n of oldNames.filter((x) => !newNames.includes(x))) {
        op(drafts, BAND.deletions, 'delete-dns-record', 'dns', want, n, `load balancer "${lb.name}" is no longer reached at ${n}`, {
          details: { zone: old.dns.zone, provider: old.dns.provider },
        });
      }
    }
    diffPools(want, old.pools, lb.pools, drafts, BAND.endpoint, `load balancer "${lb.name}"`);
    if (stableJson(old.roles) !== stableJson(lb.roles)) {
      op(drafts, BAND.lbRoles, 'update-load-balancer-roles', 'kubernetes', want, lb.name, `the roles of load balancer "${lb.name}" changed`, {
        details: { roles: lb.roles.map((r) => `${r.name}:${r.protocol}/${r.port}->${r.targetPort}`) },
      });
    }
  }
  if (stableJson(have.apiEndpoint) !== stableJson(want.apiEndpoint)) {
    op(
      drafts,
      BAND.endpoint,
      'change-api-endpoint',
      'infrastructure',
      want,
      describeEndpoint(want),
      `the API endpoint moves from ${describeEndpoint(have)} to ${describeEndpoint(want)}; certificates and kubeconfig follow`,
    );
  }

  // 2. Node additions (control pools first), 4. deletions one at a time with drain.
  diffPools(want, have.pools, want.pools, drafts, BAND.additions, `cluster "${want.name}"`);

  // Load balancers removed: their records, nodes and listeners go after the cluster's own deletions.
  for (const lb of have.loadBalancers) {
    if (!wantLbs.has(lb.name)) deleteLoadBalancer(want, lb, drafts, `load balancer "${lb.name}" was removed`, BAND.deletions);
  }
  const wantNets = new Set(want.networks.map((n) => `${n.provider}/${n.region}`));
  for (const n of have.networks) {
    if (!wantNets.has(`${n.provider}/${n.region}`)) {
      op(
        drafts,
        BAND.deletions,
        'delete-network',
        'infrastructure',
        want,
        `${n.provider}/${n.region}`,
        `no pool runs on ${n.provider} in ${n.region} any more`,
      );
    }
  }

  // 5. Low priority: version, node metadata, autoscaler limits, add-ons, access rules.
  if (compareKubernetesVersions(want.version, have.version) > 0) {
    op(
      drafts,
      BAND.lowPriority,
      'upgrade-version',
      'kubernetes',
      want,
      want.name,
      `Kubernetes ${have.version.raw} -> ${want.version.raw}: nodes are upgraded in place (kubeadm upgrade), each drained first: ` +
        `control planes one at a time, then ` +
        (want.upgrade.strategy === 'on-delete'
          ? 'workers keep their version until replaced (strategy on-delete)'
          : `workers ${want.upgrade.maxSurge} at a time`),
      {
        details: { from: upstreamVersion(have.version), to: upstreamVersion(want.version) },
      },
    );
  }
  for (const pool of want.pools) {
    const old = have.pools.find((p) => p.name === pool.name);
    if (!old) continue;
    const changes: string[] = [];
    if (stableJson(old.labels) !== stableJson(pool.labels)) changes.push('labels');
    if (stableJson(old.taints) !== stableJson(pool.taints)) changes.push('taints');
    if (stableJson(old.annotations) !== stableJson(pool.annotations)) changes.push('annotations');
    if (changes.length > 0) {
      op(
        drafts,
        BAND.lowPriority,
        'patch-node-metadata',
        'kubernetes',
        want,
        pool.name,
        `the ${changes.join(' and ')} of pool "${pool.name}" changed; its nodes are patched in place`,
        { pool: pool.name },
      );
    }
    if (stableJson(old.autoscaler ?? null) !== stableJson(pool.autoscaler ?? null)) {
      op(
        drafts,
        BAND.lowPriority,
        'update-autoscaler-limits',
        'addons',
        want,
        pool.name,
        pool.autoscaler
          ? `pool "${pool.name}" scales between ${pool.autoscaler.min} and ${pool.autoscaler.max} nodes`
          : `pool "${pool.name}" has a fixed count of ${pool.count} now`,
        { pool: pool.name },
      );
    }
  }
  if (stableJson(have.addons) !== stableJson(want.addons)) {
    op(drafts, BAND.lowPriority, 'update-addons', 'addons', want, want.name, `the add-ons changed: ${want.addons.map((a) => a.name).join(', ') || 'none'}`);
  }
  if (stableJson(have.access) !== stableJson(want.access)) {
    op(
      drafts,
      BAND.lowPriority,
      'update-access',
      'infrastructure',
      want,
      want.name,
      'the allowed API or SSH source ranges changed; firewall rules are updated',
    );
  }
  planInstallationProxy(want, have, drafts, warnings);
  if (drafts.some((d) => d.clusterId === want.id)) {
    op(drafts, BAND.outputs, 'write-outputs', 'outputs', want, want.name, 'the kubeconfig and metadata are refreshed after the change');
  }
}

/**
 * A cluster's installation proxy as it takes effect (mode, and for `default` whether it has a Hetzner node). Its
 * user-data is rendered once, when a machine is created; so a change reaches the machines created from now on, and
 * the plan says that the existing ones keep theirs (Claudie rewrites the variables on its nodes over SSH).
 */
function planInstallationProxy(want: ClusterSpec, have: ClusterSpec, drafts: Draft[], warnings: PlanWarning[]): void {
  const before = effectiveInstallationProxy(have);
  const after = effectiveInstallationProxy(want);
  if (stableJson(before) === stableJson(after)) return;
  const describe = (p: typeof before) => (p ? `${displayProxyEndpoint(p.endpoint)}${p.noProxy.length > 0 ? ` (noProxy ${p.noProxy.join(',')})` : ''}` : 'none');
  const existing = [...have.pools, ...have.loadBalancers.flatMap((lb) => lb.pools)].reduce((n, p) => n + p.nodes.length, 0);
  op(
    drafts,
    BAND.lowPriority,
    'update-installation-proxy',
    'infrastructure',
    want,
    want.name,
    `the installation proxy changes from ${describe(before)} to ${describe(after)}: machines created from now on install ` +
      (after ? `through ${displayProxyEndpoint(after.endpoint)}` : 'without a proxy'),
  );
  warnings.push({
    cluster: want.name,
    path: `${want.sourcePath}.installationProxy`,
    message:
      `the ${existing} existing node${existing === 1 ? '' : 's'} of cluster "${want.name}" keep the installation proxy they were created ` +
      `with (${describe(before)}): kubeplane writes it into a machine's user-data when it creates the machine, and does not change ` +
      'it on running nodes; replace them (a new pool) to move them onto the new setting',
  });
}

/** Pools added, scaled and removed between two lists; new pools before removals, so a rename never shrinks a cluster. */
function diffPools(c: ClusterSpec, before: PoolSpec[], after: PoolSpec[], drafts: Draft[], addBand: number, owner: string): void {
  const old = new Map(before.map((p) => [p.name, p]));
  const next = new Map(after.map((p) => [p.name, p]));
  const removed = before.filter((p) => !next.has(p.name));
  for (const pool of orderPools(after)) {
    const prev = old.get(pool.name);
    if (!prev) {
      const replaced = removed.find((r) => r.role === pool.role);
      createPool(
        c,
        pool,
        drafts,
        replaced
          ? `pool "${pool.name}" replaces "${replaced.name}" in ${owner}; it is created before the old one is removed`
          : `pool "${pool.name}" was added to ${owner}`,
        addBand,
      );
      continue;
    }
    const prevNodes = new Set(prev.nodes.map((n) => n.name));
    for (const node of pool.nodes) {
      if (!prevNodes.has(node.name)) createNode(c, pool, node, drafts, `pool "${pool.name}" scales up from ${prev.count} to ${pool.count}`, addBand);
    }
  }
  // Deletions: compute before control, highest index first, one node at a time with cordon and drain.
  for (const pool of [...orderPools(after)].reverse()) {
    const prev = old.get(pool.name);
    if (!prev) continue;
    const keep = new Set(pool.nodes.map((n) => n.name));
    for (const node of [...prev.nodes].sort((a, b) => b.index - a.index)) {
      if (!keep.has(node.name)) {
        op(drafts, BAND.deletions, 'delete-node', 'infrastructure', c, node.name, `pool "${pool.name}" scales down from ${prev.count} to ${pool.count}`, {
          pool: pool.name,
          role: node.role,
          drain: pool.role !== 'loadbalancer',
        });
      }
    }
  }
  for (const pool of [...orderPools(removed)].reverse()) {
    const replacement = after.find((p) => !old.has(p.name) && p.role === pool.role);
    deletePool(
      c,
      pool,
      drafts,
      replacement ? `pool "${pool.name}" is replaced by "${replacement.name}"` : `pool "${pool.name}" was removed from ${owner}`,
      pool.role !== 'loadbalancer',
      BAND.deletions,
    );
  }
}

function orderPools(pools: readonly PoolSpec[]): PoolSpec[] {
  const rank = { control: 0, loadbalancer: 1, compute: 2 } as const;
  return [...pools].sort((a, b) => rank[a.role] - rank[b.role]);
}

function sameImmutable(field: (typeof IMMUTABLE_POOL_FIELDS)[number], a: PoolSpec, b: PoolSpec): boolean {
  switch (field) {
    case 'providerSpec':
      return stableJson(a.provider) === stableJson(b.provider);
    case 'serverType':
      return a.serverType === b.serverType;
    case 'image':
      return a.image === b.image;
    case 'storageDiskSize':
      return a.storageDiskSize === b.storageDiskSize;
    case 'machineSpec':
      return stableJson(a.machineSpec ?? null) === stableJson(b.machineSpec ?? null);
    case 'spot':
      return (a.spot ?? false) === (b.spot ?? false);
  }
}

function describePool(p: PoolSpec): string {
  const where = p.provider ? `${p.provider.name} ${p.provider.region}${p.provider.zone ? `/${p.provider.zone}` : ''}` : 'static machines';
  const size = p.autoscaler ? `${p.count} (autoscaled ${p.autoscaler.min}–${p.autoscaler.max})` : String(p.count);
  const disk = p.storageDiskSize > 0 ? `, ${p.storageDiskSize} GB storage disk each` : '';
  return `${size} × ${p.serverType ?? 'existing'}${p.spot ? ' spot' : ''} on ${where}, ${p.role}${disk}`;
}

function describeEndpoint(c: ClusterSpec): string {
  const e = c.apiEndpoint;
  return e.kind === 'load-balancer' ? `${e.host}:${e.port}` : e.kind === 'reserved-ip' ? `a reserved IP on ${e.node}` : 'the provider-managed endpoint';
}
