// DNS phase: each load balancer's hostname (and alternative names) points at its nodes' public addresses,
// health-checked on the LB health port where the DNS provider can fail over; records no longer wanted go.
import { LB_HEALTH_PORT } from '../../bootstrap/lb-nginx.js';
import type { DnsRecord, Provider } from '../../provider/types.js';
import { stableJson } from '../../stable-json.js';
import { desiredOf, waitFor } from './common.js';
import { isPending } from '../../provider/outcome.js';
import { next, wait, type StepDefinition, type StepResult } from './types.js';

const TTL = 60;

export const dns: StepDefinition = {
  phase: 'dns',
  timeoutSeconds: 1800,
  timeoutMessage: (r) => `DNS records of cluster ${r.name} were not in sync after 30 minutes`,
  async run(ctx) {
    const spec = desiredOf(ctx.record);
    const ledger = ctx.record.ledger;
    const wanted = new Set<string>();
    // Each load balancer's records, and a managed cluster's API name: sent as one set, then followed until in sync.
    const groups: Array<{ key: string; provider: string; zone: string; records: (provider: Provider) => DnsRecord[] | StepResult }> = spec.loadBalancers.map(
      (lb) => ({
        key: lb.name,
        provider: lb.dns.provider,
        zone: lb.dns.zone,
        records: (provider) => {
          const nodes = lb.pools.flatMap((p) => p.nodes).map((n) => ({ name: n.name, ip: ledger.nodes[n.name]?.publicIPv4 }));
          const ips = nodes.filter((n): n is { name: string; ip: string } => Boolean(n.ip));
          if (ips.length === 0) return wait(10, `load balancer ${lb.name} has no public address yet`);
          const records: DnsRecord[] = provider.capabilities.dnsFailover
            ? ips.map((n) => ({
                name: lb.dns.fqdn,
                type: 'A',
                ttl: TTL,
                values: [n.ip],
                setIdentifier: n.name,
                healthCheck: { ip: n.ip, port: LB_HEALTH_PORT },
              }))
            : [{ name: lb.dns.fqdn, type: 'A', ttl: TTL, values: ips.map((n) => n.ip).sort() }];
          for (const alt of lb.dns.alternativeNames) records.push({ name: `${alt}.${lb.dns.zone}`, type: 'CNAME', ttl: TTL, values: [lb.dns.fqdn] });
          return records;
        },
      }),
    );
    const apiDns = spec.apiDns;
    if (apiDns) {
      groups.push({
        key: `api:${spec.name}`,
        provider: apiDns.provider,
        zone: apiDns.zone,
        records: () => {
          const endpoint = ledger.managed?.apiEndpoint;
          if (!endpoint) return wait(10, 'the managed control plane has no API name yet');
          return [{ name: apiDns.fqdn, type: 'CNAME', ttl: TTL, values: [new URL(endpoint).hostname] }];
        },
      });
    }
    for (const group of groups) {
      const provider = await ctx.provider(group.provider);
      if (!provider.dns) continue;
      const records = group.records(provider);
      if (!Array.isArray(records)) return records;
      // Send the record set once; then follow that change until it is in sync (a re-sent set is a new change).
      const hash = stableJson(records);
      ledger.dnsSync ??= {};
      const sync = ledger.dnsSync[group.key];
      if (!sync || sync.hash !== hash) {
        const change = await provider.dns.upsertRecords(group.zone, spec.id, records);
        if (isPending(change)) return waitFor(change, `DNS records of ${group.key}`, ctx);
        ledger.dnsSync[group.key] = { hash, changeId: change.value.id, inSync: change.value.status === 'in-sync' };
      }
      const current = ledger.dnsSync[group.key];
      if (current && !current.inSync) {
        const status = await provider.dns.changeStatus(current.changeId);
        if (isPending(status)) return waitFor(status, `DNS change for ${records[0]?.name ?? group.key}`, ctx);
        if (status.value.status !== 'in-sync') return wait(10, `DNS change for ${records[0]?.name ?? group.key} is propagating`);
        current.inSync = true;
      }
      for (const r of records) {
        if (wanted.has(r.name)) continue;
        wanted.add(r.name);
        const before = ledger.dns[r.name];
        if (!before) ctx.emit({ type: 'resource-created', kind: 'dns-record', name: r.name, provider: group.provider });
        const same = records.filter((x) => x.name === r.name);
        const setIdentifiers = same.flatMap((x) => (x.setIdentifier ? [x.setIdentifier] : []));
        // A load-balancer machine removed from its pool: its record set goes, and with it its health check.
        const stale = (before?.setIdentifiers ?? []).filter((id) => !setIdentifiers.includes(id));
        if (before && stale.length > 0) {
          const gone = await provider.dns.deleteRecords(
            before.zone,
            spec.id,
            stale.map((setIdentifier) => ({ name: r.name, type: before.type, setIdentifier })),
          );
          if (isPending(gone)) return waitFor(gone, `removing the DNS records of ${stale.join(', ')}`, ctx);
        }
        ledger.dns[r.name] = {
          zone: group.zone,
          provider: group.provider,
          type: r.type === 'CNAME' ? 'CNAME' : 'A',
          values: same.flatMap((x) => x.values).sort(),
          setIdentifiers,
        };
      }
    }
    for (const [name, entry] of Object.entries(ledger.dns)) {
      if (wanted.has(name)) continue;
      const provider = await ctx.provider(entry.provider);
      if (!provider.dns) continue;
      const targets = entry.setIdentifiers.length
        ? entry.setIdentifiers.map((setIdentifier) => ({ name, type: entry.type, setIdentifier }))
        : [{ name, type: entry.type }];
      const gone = await provider.dns.deleteRecords(entry.zone, spec.id, targets);
      if (isPending(gone)) return waitFor(gone, `removing DNS record ${name}`, ctx);
      delete ledger.dns[name];
      ctx.emit({ type: 'resource-deleted', kind: 'dns-record', name, provider: entry.provider });
    }
    return next(groups.length ? `${wanted.size} DNS records in sync` : 'no load balancers or API name, no DNS records');
  },
};
