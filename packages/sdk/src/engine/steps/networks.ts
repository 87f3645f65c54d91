// networks (infrastructure phase): the cluster's network, firewalls and SSH key in every provider region it uses,
// and the reserved IP of the API endpoint when it has no API load balancer.
import { KubeplaneError } from '../../errors.js';
import { isPending } from '../../provider/outcome.js';
import { apiIpName, clusterNodeSources, desiredOf, ensureOnce, networkName, regionKey, scopeOf, sshKeyName, waitFor } from './common.js';
import { ensureFirewalls } from './firewalls.js';
import { next, type StepDefinition } from './types.js';

export const networks: StepDefinition = {
  phase: 'infrastructure',
  timeoutSeconds: 1800,
  timeoutMessage: (r) => `the networks of cluster ${r.name} were not ready after 30 minutes`,
  async run(ctx) {
    const spec = desiredOf(ctx.record);
    const ledger = ctx.record.ledger;
    const ssh = await ctx.secrets.ssh();
    if (!ssh) throw new KubeplaneError('invalid', 'the SSH key is missing; the prepare step did not run');
    // Keys of provider-wide scope are ensured once per run, however many of the provider's regions the cluster uses.
    const keysEnsured = new Set<string>();
    for (const net of spec.networks) {
      const key = regionKey(net.provider, net.region);
      if (!ledger.regions.includes(key)) ledger.regions.push(key);
      const provider = await ctx.provider(net.provider, net.region);
      const network = provider.network;
      if (!network) continue;
      const name = networkName(spec.id, net.region);
      const netWait = await ensureOnce(ctx, `network ${key}`, async () => {
        const n = await network.ensureNetwork({
          name,
          clusterId: spec.id,
          region: net.region,
          cidr: net.cidr,
          subnets: net.subnets.map((s) => (s.zone ? { cidr: s.cidr, zone: s.zone } : { cidr: s.cidr })),
          ...(net.existingSubnet ? { existingSubnet: net.existingSubnet } : {}),
        });
        if (isPending(n)) return waitFor(n, `network ${name}`, ctx);
        if (!ledger.networks[key] && !n.value.adopted) ctx.emit({ type: 'resource-created', kind: 'network', name, provider: net.provider });
        // An adopted network is recorded by its own name, with the subnet the machines and control plane go in.
        const subnetId = n.value.adopted ? n.value.subnets[0]?.id : undefined;
        ledger.networks[key] = { name: n.value.adopted ? n.value.name : name, id: n.value.id, ...(subnetId ? { subnetId } : {}) };
        return null;
      });
      if (netWait) return netWait;

      const fw = await ensureFirewalls(ctx, net.provider, net.region, clusterNodeSources(ctx.record));
      if (fw) return fw;

      const scope = scopeOf(provider.capabilities, 'sshKey', net.provider, net.region);
      if (keysEnsured.has(scope.key)) continue;
      const keyName = sshKeyName(spec.id, scope.region);
      const keyWait = await ensureOnce(ctx, `ssh-key ${scope.key}`, async () => {
        const k = await network.ensureSshKey({ name: keyName, clusterId: spec.id, region: net.region, publicKey: ssh.publicKey });
        if (isPending(k)) return waitFor(k, `SSH key ${keyName}`, ctx);
        if (!ledger.sshKeys[scope.key]) ctx.emit({ type: 'resource-created', kind: 'ssh-key', name: k.value.name, provider: net.provider });
        // The provider's name for it: a key made before the scope was known (one region's name) is adopted, not copied.
        ledger.sshKeys[scope.key] = { name: k.value.name, id: k.value.id };
        if (scope.key !== key) delete ledger.sshKeys[key];
        return null;
      });
      if (keyWait) return keyWait;
      keysEnsured.add(scope.key);
    }
    if (spec.apiEndpoint.kind === 'reserved-ip') {
      const endpointNode = spec.apiEndpoint.node;
      const pool = spec.pools.find((p) => p.name === (spec.apiEndpoint as { pool: string }).pool);
      const where = pool?.provider;
      if (!where) throw new KubeplaneError('invalid', `the API endpoint node ${endpointNode} has no provider`);
      const network = (await ctx.provider(where.name, where.region)).network;
      if (!network) throw new KubeplaneError('invalid', `provider ${where.name} cannot reserve an IP for the API endpoint; add an API load balancer`);
      const name = apiIpName(spec.id);
      const ipWait = await ensureOnce(ctx, `reserved-ip ${name}`, async () => {
        const ip = await network.ensureReservedIp({ name, clusterId: spec.id, region: where.region, ...(where.zone ? { zone: where.zone } : {}) });
        if (isPending(ip)) return waitFor(ip, `reserved IP ${name}`, ctx);
        if (!ledger.reservedIp) ctx.emit({ type: 'resource-created', kind: 'reserved-ip', name, provider: where.name });
        ledger.reservedIp = {
          provider: where.name,
          region: where.region,
          ...(where.zone ? { zone: where.zone } : {}),
          name,
          id: ip.value.id,
          ip: ip.value.ip,
          ...(ip.value.attachedTo ? { attachedTo: ip.value.attachedTo } : {}),
        };
        return null;
      });
      if (ipWait) return ipWait;
    }
    ledger.firewallSources = clusterNodeSources(ctx.record);
    const ready = `networks ready in ${spec.networks.length} region${spec.networks.length === 1 ? '' : 's'}`;
    return next(ready);
  },
};
