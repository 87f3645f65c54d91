// delete-dns (delete phase): the cluster's DNS records, from every spec it had and from the ledger.
import { isPending } from '../../provider/outcome.js';
import { isKubeplaneError } from '../../errors.js';
import { waitFor } from './common.js';
import { DELETION_CEILING_SECONDS, leftInLedger, providerToSweep, specs } from './deletion.js';
import { next, type StepDefinition } from './types.js';

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
      const provider = await providerToSweep(ctx, t.provider);
      if (!provider?.dns) continue;
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
