// The cluster's firewalls in one provider region, and their refresh when the machines' addresses change (networks,
// await-machines and remove-nodes keep them to the rules of now).
import { createHash } from 'node:crypto';
import { isPending } from '../../provider/outcome.js';
import type { FirewallRule } from '../../provider/types.js';
import {
  clusterNodeSources,
  desiredOf,
  ensureOnce,
  firewallKey,
  firewallName,
  firewallRules,
  firewallRulesByRole,
  type FirewallRole,
  networkName,
  regionKey,
  rolesIn,
  waitFor,
} from './common.js';
import { isManaged } from './managed.js';
import type { StepContext, StepResult } from './types.js';

/**
 * Brings the firewalls of one provider region to the rules of now: one per role with machines there, or one for
 * the whole region where the cloud's rules are network-wide (and for managed clusters, whose nodes share one set).
 */
export async function ensureFirewalls(ctx: StepContext, providerName: string, region: string, nodeSources: string[]): Promise<StepResult | null> {
  const spec = desiredOf(ctx.record);
  const ledger = ctx.record.ledger;
  const provider = await ctx.provider(providerName, region);
  const network = provider.network;
  if (!network) return null;
  const key = regionKey(providerName, region);
  // The network the rules go in: kubeplane's, or the VPC of the existing subnet the manifest names.
  const netName = ledger.networks[key]?.name ?? networkName(spec.id, region);
  const perRole = !provider.capabilities.networkWideFirewalls && !isManaged(spec);
  const byRole = firewallRulesByRole(spec, nodeSources);
  const wanted: Array<{ role?: FirewallRole; rules: FirewallRule[] }> = perRole
    ? rolesIn(spec, providerName, region).map((role) => ({ role, rules: byRole[role] }))
    : [{ rules: firewallRules(spec, nodeSources) }];
  for (const { role, rules } of wanted) {
    const name = firewallName(spec.id, region, role);
    const ledgerKey = firewallKey(key, role);
    const rulesHash = createHash('sha256').update(JSON.stringify(rules)).digest('hex').slice(0, 32);
    const known = ledger.firewalls[ledgerKey];
    // Converged with these very rules in this run of the step: an attempt after a throttle or a fault does not spend
    // calls on it again. Later steps and applies converge it again, correcting any drift.
    const pending = await ensureOnce(ctx, `firewall ${ledgerKey} ${rulesHash}`, async () => {
      const fw = await network.ensureFirewall({ name, clusterId: spec.id, region, networkName: netName, rules });
      if (isPending(fw)) return waitFor(fw, `firewall ${name}`, ctx);
      if (!known) ctx.emit({ type: 'resource-created', kind: 'firewall', name: fw.value.name, provider: providerName });
      ledger.firewalls[ledgerKey] = { name: fw.value.name, id: fw.value.id, rulesHash };
      return null;
    });
    if (pending) return pending;
  }
  return null;
}

/**
 * Once machines have addresses (or lose them), the API rules follow: re-applied in every region when the cluster's
 * machine addresses differ from those last written. Needs no API server, so workers can join through the endpoint.
 */
export async function refreshFirewalls(ctx: StepContext): Promise<StepResult | null> {
  const spec = desiredOf(ctx.record);
  const sources = clusterNodeSources(ctx.record);
  if (JSON.stringify(sources) === JSON.stringify(ctx.record.ledger.firewallSources ?? [])) return null;
  for (const net of spec.networks) {
    const pending = await ensureFirewalls(ctx, net.provider, net.region, sources);
    if (pending) return pending;
  }
  ctx.record.ledger.firewallSources = sources;
  return null;
}
