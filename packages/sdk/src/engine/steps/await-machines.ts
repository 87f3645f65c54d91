// await-machines (infrastructure phase): every machine running, as its provider lists it; the API rules follow the
// addresses, and the API's reserved IP goes onto its machine where the provider attaches it after the create.
import { isPending } from '../../provider/outcome.js';
import { desiredOf, nodesOf, waitFor } from './common.js';
import { refreshFirewalls } from './firewalls.js';
import { awaitManagedMachines, isManaged } from './managed.js';
import { observeMachines } from './observe-machines.js';
import { next, wait, type StepDefinition, type StepResult } from './types.js';

export const awaitMachines: StepDefinition = {
  phase: 'infrastructure',
  timeoutSeconds: 1800,
  timeoutMessage: (r) =>
    `machines not running after 30 minutes: ${Object.entries(r.ledger.nodes)
      .filter(([, n]) => n.state !== 'running')
      .map(([name]) => name)
      .join(', ')}; check the provider's console for capacity or image problems`,
  async run(ctx): Promise<StepResult> {
    const spec = desiredOf(ctx.record);
    if (isManaged(spec)) return awaitManagedMachines(ctx);
    const ledger = ctx.record.ledger;
    const wanted = nodesOf(spec).map(({ node }) => node.name);
    const observed = await observeMachines(ctx);
    if (observed.kind !== 'ok') return observed;
    const missing = wanted.filter((name) => !ledger.nodes[name] || ledger.nodes[name]?.state === 'requested');
    if (missing.length > 0) return next(`machines ${missing.join(', ')} are gone; creating them again`, 'create-nodes');
    // Addresses seen so far go into the API rules now, so early machines can join while others still boot.
    const firewalls = await refreshFirewalls(ctx);
    if (firewalls) return firewalls;
    const notRunning = wanted.filter((name) => ledger.nodes[name]?.state !== 'running');
    if (notRunning.length > 0) {
      return wait(
        notRunning.length > 10 ? 15 : 10,
        `${wanted.length - notRunning.length}/${wanted.length} machines running; waiting ` +
          `for ${notRunning.slice(0, 3).join(', ')}${notRunning.length > 3 ? ', ...' : ''}`,
      );
    }
    const ip = ledger.reservedIp;
    if (ip && spec.apiEndpoint.kind === 'reserved-ip') {
      const node = ledger.nodes[spec.apiEndpoint.node];
      const provider = await ctx.provider(ip.provider, ip.region);
      if (node && provider.network && provider.capabilities.attachReservedIpAfterCreate && ip.attachedTo !== node.providerId) {
        const attached = await provider.network.attachReservedIp(
          { clusterId: spec.id, name: ip.name, region: ip.region },
          { clusterId: spec.id, name: spec.apiEndpoint.node, region: node.region },
        );
        if (isPending(attached)) return waitFor(attached, `attaching the API address to ${spec.apiEndpoint.node}`, ctx);
        ip.attachedTo = attached.value.attachedTo ?? node.providerId ?? '';
      }
    }
    return next(`${wanted.length} machines running`);
  },
};
