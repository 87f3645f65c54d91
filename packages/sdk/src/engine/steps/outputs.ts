// Outputs: the admin kubeconfig and the metadata (node addresses per pool, the SSH key) are written to the
// SecretStore, labelled like Claudie's output Secrets, and the cluster is DONE. (Add-ons: steps/addons.ts.)
import { Redacted } from '../../redacted.js';
import { KubeplaneError } from '../../errors.js';
import type { ClusterSpec } from '../../model/types.js';
import { desiredOf, poolsOf } from './common.js';
import { isManaged } from './managed.js';
import type { StepDefinition } from './types.js';

/**
 * The metadata output, in the shape of Claudie's metadata Secret. A managed cluster's nodes are the provider's
 * machines (by pool, from the ledger); their private address is the VPC's, as they are on no overlay.
 */
export function metadataOf(
  spec: ClusterSpec,
  ledger: { nodes: Record<string, { pool: string; publicIPv4?: string; privateIPv4?: string }> },
  sshPrivateKey: string,
): Record<string, unknown> {
  const dynamic: Record<string, unknown> = {};
  const lbs: Record<string, Record<string, unknown>> = {};
  for (const pool of spec.pools) {
    const ips: Array<[string, { public_ip: string; private_ip: string }]> =
      spec.controlPlane === 'managed'
        ? Object.entries(ledger.nodes)
            .filter(([, n]) => n.pool === pool.name)
            .sort(([a], [b]) => a.localeCompare(b))
            .map(([name, n]) => [name, { public_ip: n.publicIPv4 ?? '', private_ip: n.privateIPv4 ?? '' }])
        : pool.nodes.map((n) => [n.name, { public_ip: ledger.nodes[n.name]?.publicIPv4 ?? '', private_ip: n.overlayIp }]);
    dynamic[pool.name] = { node_ips: Object.fromEntries(ips), nodepool_private_key: sshPrivateKey };
  }
  for (const lb of spec.loadBalancers) {
    lbs[lb.name] = Object.fromEntries(
      lb.pools.map((pool) => [
        pool.name,
        {
          node_ips: Object.fromEntries(pool.nodes.map((n) => [n.name, { public_ip: ledger.nodes[n.name]?.publicIPv4 ?? '', private_ip: n.overlayIp }])),
          nodepool_private_key: sshPrivateKey,
        },
      ]),
    );
  }
  return { dynamic_nodepools: dynamic, static_nodepools: {}, dynamic_load_balancer_nodepools: lbs, static_load_balancer_nodepools: {} };
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
