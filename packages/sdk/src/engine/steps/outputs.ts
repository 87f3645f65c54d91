// Outputs: the admin kubeconfig and the metadata (node addresses per pool, the SSH key) are written to the
// SecretStore, labelled like Claudie's output Secrets, and the cluster is DONE. (Add-ons: steps/addons.ts.)
import { Redacted } from '../../redacted.js';
import { KubeplaneError } from '../../errors.js';
import type { ClusterSpec, PoolSpec } from '../../model/types.js';
import { desiredOf, poolsOf } from './common.js';
import { isManaged } from './managed.js';
import type { StepDefinition } from './types.js';

/** A node's public and private address, under the field names Claudie's metadata Secret uses. */
export type IpPair = { public_ip: string; private_ip: string };
/** How to reach one of the user's static machines: endpoint, SSH port and user, private address. */
export type StaticNodeInfo = { endpoint: string; port: number; username: string; private_ip: string };
type Ledger = { nodes: Record<string, { pool: string; publicIPv4?: string; privateIPv4?: string }> };

/** A dynamic pool in Claudie v0.9+'s shape: its nodes' addresses and the key that logs in to them. */
export interface DynamicPoolMetadata {
  node_ips: Record<string, IpPair>;
  nodepool_private_key: string;
}

/** A static pool: the endpoints of the user's machines, never their keys (those stay where the manifest's secretRef points). */
export interface StaticPoolMetadata {
  node_info: Record<string, StaticNodeInfo>;
}

/**
 * The metadata output (docs/outputs.md). The top level is Claudie v0.8's (the shape its detailed guide reads with jq:
 * `.cluster_private_key`, `.dynamic_nodepools.node_ips`, `.dynamic_load_balancer_nodepools[] | .cluster_private_key`);
 * `nodepools` holds the same per pool in Claudie v0.9+'s shape (`.nodepools.dynamic_nodepools.<pool>.node_ips`).
 */
export interface ClusterMetadata {
  cluster_private_key: string;
  dynamic_nodepools: { node_ips: Record<string, IpPair> };
  static_nodepools: { node_info: Record<string, StaticNodeInfo> };
  dynamic_load_balancer_nodepools: Record<string, { node_ips: Record<string, IpPair>; cluster_private_key: string }>;
  static_load_balancer_nodepools: Record<string, { node_info: Record<string, StaticNodeInfo> }>;
  nodepools: {
    dynamic_nodepools: Record<string, DynamicPoolMetadata>;
    static_nodepools: Record<string, StaticPoolMetadata>;
    dynamic_load_balancer_nodepools: Record<string, Record<string, DynamicPoolMetadata>>;
    static_load_balancer_nodepools: Record<string, Record<string, StaticPoolMetadata>>;
  };
}

/** A pool's nodes as Claudie lists them: dynamic ones by address pair, static ones by endpoint. */
function poolMetadata(pool: PoolSpec, ledger: Ledger, managed: boolean, key: string): { dynamic: DynamicPoolMetadata } | { static: StaticPoolMetadata } {
  if (pool.kind === 'static') {
    const info = pool.nodes.map((n): [string, StaticNodeInfo] => [
      n.name,
      { endpoint: n.staticEndpoint ?? '', port: n.staticAccess?.port ?? 22, username: n.staticAccess?.username ?? 'root', private_ip: n.overlayIp },
    ]);
    return { static: { node_info: Object.fromEntries(info) } };
  }
  // A managed cluster's nodes are the provider's machines (by pool, from the ledger); their private address is the
  // VPC's, as they are on no overlay.
  const ips: Array<[string, IpPair]> = managed
    ? Object.entries(ledger.nodes)
        .filter(([, n]) => n.pool === pool.name)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([name, n]) => [name, { public_ip: n.publicIPv4 ?? '', private_ip: n.privateIPv4 ?? '' }])
    : pool.nodes.map((n) => [n.name, { public_ip: ledger.nodes[n.name]?.publicIPv4 ?? '', private_ip: n.overlayIp }]);
  return { dynamic: { node_ips: Object.fromEntries(ips), nodepool_private_key: key } };
}

/** The metadata output of a cluster: its nodes' addresses by pool and load balancer, and the SSH key (OpenSSH format). */
export function metadataOf(spec: ClusterSpec, ledger: Ledger, sshPrivateKey: string): ClusterMetadata {
  const managed = spec.controlPlane === 'managed';
  const md: ClusterMetadata = {
    cluster_private_key: sshPrivateKey,
    dynamic_nodepools: { node_ips: {} },
    static_nodepools: { node_info: {} },
    dynamic_load_balancer_nodepools: {},
    static_load_balancer_nodepools: {},
    nodepools: { dynamic_nodepools: {}, static_nodepools: {}, dynamic_load_balancer_nodepools: {}, static_load_balancer_nodepools: {} },
  };
  for (const pool of spec.pools) {
    const m = poolMetadata(pool, ledger, managed, sshPrivateKey);
    if ('dynamic' in m) {
      md.nodepools.dynamic_nodepools[pool.name] = m.dynamic;
      Object.assign(md.dynamic_nodepools.node_ips, m.dynamic.node_ips);
    } else {
      md.nodepools.static_nodepools[pool.name] = m.static;
      Object.assign(md.static_nodepools.node_info, m.static.node_info);
    }
  }
  for (const lb of spec.loadBalancers) {
    for (const pool of lb.pools) {
      const m = poolMetadata(pool, ledger, false, sshPrivateKey);
      if ('dynamic' in m) {
        (md.nodepools.dynamic_load_balancer_nodepools[lb.name] ??= {})[pool.name] = m.dynamic;
        const flat = (md.dynamic_load_balancer_nodepools[lb.name] ??= { node_ips: {}, cluster_private_key: sshPrivateKey });
        Object.assign(flat.node_ips, m.dynamic.node_ips);
      } else {
        (md.nodepools.static_load_balancer_nodepools[lb.name] ??= {})[pool.name] = m.static;
        Object.assign((md.static_load_balancer_nodepools[lb.name] ??= { node_info: {} }).node_info, m.static.node_info);
      }
    }
  }
  return md;
}

export const outputs: StepDefinition = {
  phase: 'outputs',
  timeoutSeconds: 600,
  timeoutMessage: (r) => `the outputs of ${r.name} could not be written`,
  async run(ctx) {
    const spec = desiredOf(ctx.record);
    const kubeconfig = await ctx.secrets.adminKubeconfig();
    const ssh = await ctx.secrets.ssh();
    if (!kubeconfig || !ssh) throw new KubeplaneError('invalid', 'the cluster credentials are missing');
    await ctx.secrets.putOutput('kubeconfig', kubeconfig);
    await ctx.secrets.putOutput('metadata', Redacted.of(JSON.stringify(metadataOf(spec, ctx.record.ledger, ssh.privateKey.reveal()))));
    // What was built is now the current state, with what the clouds reported about each machine.
    const current = structuredClone(spec);
    for (const pool of poolsOf(current)) {
      for (const node of pool.nodes) {
        const n = ctx.record.ledger.nodes[node.name];
        if (n)
          node.observed = {
            ...(n.providerId ? { providerId: n.providerId } : {}),
            ...(n.publicIPv4 ? { publicIPv4: n.publicIPv4 } : {}),
            ...(n.privateIPv4 ? { privateIPv4: n.privateIPv4 } : {}),
            status: 'ready',
          };
      }
    }
    ctx.record.current = current;
    delete ctx.record.ledger.remediated;
    delete ctx.record.ledger.upgradedBatches;
    const nodes = isManaged(spec) ? Object.keys(ctx.record.ledger.nodes).length : poolsOf(spec).reduce((n, p) => n + p.nodes.length, 0);
    return { kind: 'finished', message: `kubeconfig and metadata written; ${nodes} nodes` };
  },
};
