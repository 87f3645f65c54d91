// remove-nodes (kubernetes phase): nodes that are no longer wanted go, one at a time, cordoned and drained first
// (honouring PodDisruptionBudgets), then the networks, firewalls and SSH keys of regions no pool uses any more.
import { isPending } from '../../provider/outcome.js';
import { deleteMachine, desiredOf, FIREWALL_ROLES, firewallKey, firewallName, isProviderWideKey, networkName, nodesOf, regionKey, waitFor } from './common.js';
import { refreshFirewalls } from './firewalls.js';
import { api } from './kubernetes-api.js';
import { isManaged, removeManagedNodes } from './managed.js';
import { next, type StepDefinition } from './types.js';

export const removeNodes: StepDefinition = {
  phase: 'kubernetes',
  timeoutSeconds: 3600,
  timeoutMessage: (r) =>
    `nodes of ${r.name} could not be removed or replaced for an hour: a PodDisruptionBudget ` +
    `may forbid every eviction, or a replacement machine did not become a Ready node`,
  async run(ctx) {
    const spec = desiredOf(ctx.record);
    const ledger = ctx.record.ledger;
    if (isManaged(spec)) {
      // The provider deletes the machines; kubeplane chooses them, cordons and drains them first, then forgets their Nodes.
      const managed = await removeManagedNodes(ctx, () => api(ctx));
      if (managed) return managed;
    }
    // A managed cluster's machines are the provider's to remove (above); only kubeplane's own machines here.
    const wanted = new Set(isManaged(spec) ? Object.keys(ledger.nodes) : nodesOf(spec).map(({ node }) => node.name));
    const rank = { compute: 0, loadbalancer: 1, control: 2 } as const;
    const doomed = Object.entries(ledger.nodes)
      .filter(([name]) => !wanted.has(name))
      .sort(([a, x], [b, y]) => rank[x.role] - rank[y.role] || b.localeCompare(a));
    const first = doomed[0];
    if (first) {
      const [name, node] = first;
      const k8s = node.role !== 'loadbalancer' ? await api(ctx) : null;
      if (k8s && node.state !== 'deleting') {
        const drained = await k8s.drainNode(name);
        if (isPending(drained)) return waitFor(drained, `draining ${name}`, ctx);
      }
      node.state = 'deleting';
      const gone = await deleteMachine(ctx, k8s, name);
      if (gone) return gone;
      // Once more: the next node, or (none left) the regions no pool uses any more.
      return next(doomed.length > 1 ? `removed ${name}; ${doomed.length - 1} to go` : `removed ${name}`, 'remove-nodes');
    }
    // Regions no pool uses any more: their firewall, SSH key and network go too.
    const used = new Set(spec.networks.map((n) => regionKey(n.provider, n.region)));
    for (const key of Object.keys(ledger.networks)) {
      if (used.has(key)) continue;
      const [providerName = '', region = ''] = key.split('/');
      const provider = await ctx.provider(providerName, region);
      if (!provider.network) continue;
      const ref = { clusterId: spec.id, region };
      for (const [what, outcome] of [
        ...[undefined, ...FIREWALL_ROLES].map(
          (role) => ['firewall', () => provider.network!.deleteFirewall({ ...ref, name: firewallName(spec.id, region, role) })] as const,
        ),
        // A key of this region only; a provider-wide key stays while another region of the provider uses it (below).
        ...(ledger.sshKeys[key] ? [['ssh key', () => provider.network!.deleteSshKey({ ...ref, name: ledger.sshKeys[key]?.name ?? '' })] as const] : []),
        ['network', () => provider.network!.deleteNetwork({ ...ref, name: networkName(spec.id, region) })],
      ] as const) {
        const o = await outcome();
        if (isPending(o)) return waitFor(o, `removing the ${what} in ${region}`, ctx);
      }
      delete ledger.networks[key];
      for (const role of [undefined, ...FIREWALL_ROLES]) delete ledger.firewalls[firewallKey(key, role)];
      delete ledger.sshKeys[key];
      ctx.emit({ type: 'resource-deleted', kind: 'network', name: key, provider: providerName });
    }
    // Provider-wide keys go after their provider's last region: no machine of the cluster can be made with them any more.
    const usedProviders = new Set(spec.networks.map((n) => n.provider));
    for (const [key, sshKey] of Object.entries(ledger.sshKeys)) {
      if (!isProviderWideKey(key) || usedProviders.has(key)) continue;
      const last =
        ctx.record.ledger.regions
          .filter((r) => r.startsWith(`${key}/`))
          .at(-1)
          ?.slice(key.length + 1) ?? '';
      const provider = await ctx.provider(key, last);
      if (!provider.network) continue;
      const gone = await provider.network.deleteSshKey({ clusterId: spec.id, region: last, name: sshKey.name });
      if (isPending(gone)) return waitFor(gone, `removing the SSH key ${sshKey.name}`, ctx);
      delete ledger.sshKeys[key];
      ctx.emit({ type: 'resource-deleted', kind: 'ssh-key', name: sshKey.name, provider: key });
    }
    // Removed machines' addresses leave the API rules (they may be handed to someone else).
    if (!isManaged(spec)) {
      const firewalls = await refreshFirewalls(ctx);
      if (firewalls) return firewalls;
    }
    return next('no nodes to remove');
  },
};
