// Delete phase: outputs, then DNS records, then everything in the clouds carrying the cluster's tag (found by
// tag, so it works from any state — a failed create, or state lost altogether), then the secrets and records.
import { regionKey, resetStaticMachine, waitFor } from './common.js';
import { isPending } from '../../provider/outcome.js';
import { isKubeplaneError } from '../../errors.js';
import { next, type StepDefinition } from './types.js';
import type { ClusterSpec } from '../../model/types.js';
import type { Ledger } from '../records.js';

/**
 * How long a deletion step (DNS removal, teardown) keeps trying before it ends in ERROR with what it could not delete,
 * for destroy to be asked again: a cloud that answers 5xx or throttles for four hours is not going to get better by
 * itself. Not one hour: in a storm of throttling a teardown spends most attempts backing off (up to five minutes
 * each), and one hour of that is a dozen attempts, too few for one to get through while the cloud is still working.
 */
export const DELETION_CEILING_SECONDS = 4 * 3600;

export const deleteOutputs: StepDefinition = {
  phase: 'delete',
  timeoutSeconds: 600,
  timeoutMessage: (r) => `the outputs of ${r.name} could not be removed`,
  async run(ctx) {
    // Outputs go only once nothing is left in the clouds (a record from a version whose delete flow began here goes
    // through the teardown first): the kubeconfig stays while the cluster's machines may.
    if (!ctx.record.ledger.tornDown) return next('outputs are kept until the teardown is done', 'delete-dns');
    await ctx.secrets.deleteOutputs();
    return next('outputs removed');
  },
};

/** What the ledger still holds of a cluster being deleted, for the message of a deletion that gave up. */
function leftInLedger(r: { ledger: Ledger }): string {
  const l = r.ledger;
  const parts = [
    ...Object.keys(l.nodes).map((n) => `machine ${n}`),
    ...Object.values(l.networks).map((n) => `network ${n.name}`),
    ...Object.values(l.firewalls).map((f) => `firewall ${f.name}`),
    ...Object.values(l.sshKeys).map((k) => `SSH key ${k.name}`),
    ...(l.reservedIp ? [`address ${l.reservedIp.ip}`] : []),
    ...(l.managed ? [`managed cluster ${l.managed.name}`] : []),
    ...Object.keys(l.dns).map((n) => `DNS record ${n}`),
  ];
  if (parts.length === 0) return '';
  return `; left, as last recorded: ${parts.slice(0, 12).join(', ')}${parts.length > 12 ? ` and ${parts.length - 12} more` : ''}`;
}

/** Every spec the cluster had: DNS names and regions are swept from all of them. */
function specs(ctx: { record: { desired: ClusterSpec | null; current: ClusterSpec | null } }): ClusterSpec[] {
  return [ctx.record.desired, ctx.record.current].filter((s): s is ClusterSpec => s !== null);
}

export const deleteDns: StepDefinition = {
  phase: 'delete',
  timeoutSeconds: DELETION_CEILING_SECONDS,
  timeoutMessage: (r) => `the DNS records of ${r.name} could not be removed${leftInLedger(r)}; run destroy again to retry`,
  async run(ctx) {
    const ledger = ctx.record.ledger;
    const clusterId = ctx.record.clusterId;
    const targets = new Map<string, { zone: string; provider: string; type: 'A' | 'CNAME'; setIdentifiers: string[] }>();
    for (const spec of specs(ctx)) {
      for (const lb of spec.loadBalancers) {
        const ids = lb.pools.flatMap((p) => p.nodes.map((n) => n.name));
        targets.set(lb.dns.fqdn, { zone: lb.dns.zone, provider: lb.dns.provider, type: 'A', setIdentifiers: ids });
        for (const alt of lb.dns.alternativeNames)
          targets.set(`${alt}.${lb.dns.zone}`, { zone: lb.dns.zone, provider: lb.dns.provider, type: 'CNAME', setIdentifiers: [] });
      }
      if (spec.apiDns) targets.set(spec.apiDns.fqdn, { zone: spec.apiDns.zone, provider: spec.apiDns.provider, type: 'CNAME', setIdentifiers: [] });
    }
    for (const [name, e] of Object.entries(ledger.dns)) targets.set(name, e);
    for (const [name, t] of targets) {
      const provider = await ctx.provider(t.provider);
      if (!provider.dns) continue;
      const records =
        provider.capabilities.dnsFailover && t.type === 'A' && t.setIdentifiers.length
          ? t.setIdentifiers.map((setIdentifier) => ({ name, type: t.type, setIdentifier }))
          : [{ name, type: t.type }];
      // A zone that does not exist holds no records of ours (a create that failed on a missing zone): nothing to remove.
      const gone = await provider.dns.deleteRecords(t.zone, clusterId, records).catch((e: unknown) => {
        if (isKubeplaneError(e) && e.kind === 'not-found') return null;
        throw e;
      });
      if (gone && isPending(gone)) return waitFor(gone, `removing DNS record ${name}`, ctx);
      if (ledger.dns[name]) ctx.emit({ type: 'resource-deleted', kind: 'dns-record', name, provider: t.provider });
      delete ledger.dns[name];
    }
    return next(`${targets.size} DNS records removed`);
  },
};

export const teardown: StepDefinition = {
  phase: 'delete',
  // It retries (with backoff) and says why in the status, up to the ceiling; then ERROR, and destroy may be run again.
  timeoutSeconds: DELETION_CEILING_SECONDS,
  timeoutMessage: (r) =>
    `resources of ${r.name} are still present${leftInLedger(r)}; resources tagged ` +
    `kubeplane.dev/cluster-id=${r.clusterId} are left in the clouds: run destroy again to retry`,
  async run(ctx) {
    // Static machines are the user's: reset, not deleted (one at a time; each is removed from the ledger once clean).
    for (const [name, node] of Object.entries(ctx.record.ledger.nodes)) {
      if (!node.static) continue;
      await resetStaticMachine(ctx, name, node.static);
      delete ctx.record.ledger.nodes[name];
      ctx.emit({ type: 'resource-deleted', kind: 'machine', name, provider: node.provider });
      await ctx.checkpoint();
    }
    const regions = new Set(ctx.record.ledger.regions);
    for (const spec of specs(ctx)) for (const n of spec.networks) regions.add(regionKey(n.provider, n.region));
    for (const key of [...regions].sort()) {
      const [providerName = '', region = ''] = key.split('/');
      const provider = await ctx.provider(providerName, region);
      const outcome = await provider.teardownCluster(ctx.record.clusterId, region);
      if (isPending(outcome)) return waitFor(outcome, `tearing down ${key}`, ctx);
    }
    for (const name of Object.keys(ctx.record.ledger.nodes))
      ctx.emit({ type: 'resource-deleted', kind: 'machine', name, provider: ctx.record.ledger.nodes[name]?.provider ?? '' });
    const ledger = ctx.record.ledger;
    ledger.networks = {};
    ledger.firewalls = {};
    ledger.sshKeys = {};
    ledger.nodes = {};
    delete ledger.reservedIp;
    delete ledger.managed;
    ledger.tornDown = true;
    return next(`nothing tagged ${ctx.record.clusterId} is left in ${regions.size} region${regions.size === 1 ? '' : 's'}`);
  },
};

export const forget: StepDefinition = {
  phase: 'delete',
  timeoutSeconds: 600,
  timeoutMessage: (r) => `the records of ${r.name} could not be removed`,
  async run(ctx) {
    await ctx.secrets.deleteAll();
    return { kind: 'finished', message: 'deleted' };
  },
};
