// Hetzner DNS (zones and RRSets in the Cloud API) as a DnsApi: A, AAAA and CNAME record sets labelled with the
// cluster id; changes are actions, done when they succeed. No health-checked failover on Hetzner.
import * as z from 'zod';
import { CLUSTER_ID_TAG, done, pending, type CallContext, type DnsApi, type DnsChange, type DnsRecord, type Outcome } from '@kubeplane/sdk/provider';
import { KubeplaneError } from '@kubeplane/sdk';
import type { HetznerClient } from './client.js';

const PROVIDER = 'hetzner';
const rrsetSchema = z.object({
  name: z.string(),
  type: z.string(),
  ttl: z.number().nullable(),
  records: z.array(z.object({ value: z.string() })),
  labels: z.record(z.string(), z.string()),
});
const actionRef = z.object({ action: z.object({ id: z.number() }) });
const zoneSchema = z.object({ id: z.number(), name: z.string() });

/** What Hetzner DNS works with: the provider's client and its guard. */
export interface HetznerDnsOptions {
  client: HetznerClient;
  /** Runs a call under the provider's guard: budget waits, throttles and transient failures become pending. */
  guard: <T>(context: CallContext | undefined, call: () => Promise<Outcome<T>>) => Promise<Outcome<T>>;
}

/** DNS records in Hetzner DNS (zones and RRSets in the Cloud API), labelled with the cluster id. */
export class HetznerDns implements DnsApi {
  readonly #client: HetznerClient;
  readonly #guard: HetznerDnsOptions['guard'];

  constructor(options: HetznerDnsOptions) {
    this.#client = options.client;
    this.#guard = options.guard;
  }

  /** What the DNS API shows of itself in logs. */
  toJSON(): Record<string, string> {
    return { dns: 'hetzner' };
  }

  /** The project's DNS zones (GET /zones), for preflight. */
  zones(context?: CallContext): Promise<Outcome<string[]>> {
    return this.#guard(context, async () => done((await this.#client.list('zones', 'zones', zoneSchema)).map((z2) => z2.name)));
  }

  /** `api.c1.example.de` in zone `example.de` -> `api.c1`; the apex is `@`. */
  #relative(zone: string, name: string): string {
    const n = name.replace(/\.$/, '').toLowerCase();
    if (n === zone) return '@';
    if (!n.endsWith(`.${zone}`))
      throw new KubeplaneError('invalid', `record ${name} is not inside zone ${zone}`, { provider: PROVIDER, code: 'outside_zone', resource: name });
    return n.slice(0, -(zone.length + 1));
  }

  #absolute(zone: string, name: string): string {
    return name === '@' ? zone : `${name}.${zone}`;
  }

  #path(zone: string, name: string, type: string): string {
    return `zones/${encodeURIComponent(zone)}/rrsets/${encodeURIComponent(name)}/${type}`;
  }

  #values(r: Pick<DnsRecord, 'type' | 'values'>): string[] {
    // CNAME targets are absolute names.
    return r.type === 'CNAME' ? r.values.map((v) => (v.endsWith('.') ? v : `${v}.`)) : r.values;
  }

  upsertRecords(zone: string, clusterId: string, records: DnsRecord[], context?: CallContext): Promise<Outcome<DnsChange>> {
    return this.#guard(context, async () => {
      for (const r of records) {
        if (r.failover || r.healthCheck)
          throw new KubeplaneError(
            'invalid',
            `record ${r.name}: Hetzner DNS has no health-checked failover; use a DNS provider that has it (Route 53) or drop the health check`,
            { provider: PROVIDER, code: 'failover_unsupported', resource: r.name },
          );
      }
      const actions: number[] = [];
      for (const r of records) {
        const name = this.#relative(zone, r.name);
        const values = this.#values(r);
        let existing: z.infer<typeof rrsetSchema> | undefined;
        try {
          existing = (await this.#client.request('GET', this.#path(zone, name, r.type), z.object({ rrset: rrsetSchema }), { resource: r.name })).rrset;
        } catch (error) {
          if (!(error instanceof KubeplaneError && error.kind === 'not-found')) throw error;
        }
        if (!existing) {
          const created = await this.#client.request('POST', `zones/${encodeURIComponent(zone)}/rrsets`, actionRef, {
            resource: r.name,
            body: { name, type: r.type, ttl: r.ttl, records: values.map((value) => ({ value })), labels: { [CLUSTER_ID_TAG]: clusterId } },
          });
          actions.push(created.action.id);
          continue;
        }
        if (existing.labels[CLUSTER_ID_TAG] !== clusterId)
          throw new KubeplaneError('conflict', `record ${r.name} ${r.type} exists and is not managed by cluster ${clusterId}`, {
            provider: PROVIDER,
            code: 'record_taken',
            resource: r.name,
          });
        if (JSON.stringify(existing.records.map((x) => x.value).sort()) !== JSON.stringify([...values].sort())) {
          actions.push(
            (
              await this.#client.request('POST', `${this.#path(zone, name, r.type)}/actions/set_records`, actionRef, {
                resource: r.name,
                body: { records: values.map((value) => ({ value })) },
              })
            ).action.id,
          );
        }
        if (existing.ttl !== r.ttl) {
          actions.push(
            (await this.#client.request('POST', `${this.#path(zone, name, r.type)}/actions/change_ttl`, actionRef, { resource: r.name, body: { ttl: r.ttl } }))
              .action.id,
          );
        }
      }
      return done({ id: `actions:${actions.join(',')}`, status: actions.length === 0 ? 'in-sync' : 'pending' });
    });
  }

  changeStatus(changeId: string, context?: CallContext): Promise<Outcome<DnsChange>> {
    return this.#guard(context, async () => {
      const ids = changeId
        .replace(/^actions:/, '')
        .split(',')
        .filter(Boolean);
      if (ids.length === 0) return done({ id: changeId, status: 'in-sync' });
      const actions = await this.#client.list(
        'actions',
        'actions',
        z.object({ id: z.number(), status: z.string(), error: z.object({ code: z.string(), message: z.string() }).nullable() }),
        { id: ids },
      );
      const failed = actions.find((a) => a.status === 'error');
      if (failed)
        throw new KubeplaneError('retryable', `hetzner DNS action ${failed.id} failed: ${failed.error?.message ?? 'unknown error'}; upsert the records again`, {
          provider: PROVIDER,
          code: failed.error?.code ?? 'action_failed',
        });
      if (actions.length === ids.length && actions.every((a) => a.status === 'success')) return done({ id: changeId, status: 'in-sync' });
      return pending('in-progress', 2, `DNS change ${changeId} is being applied`);
    });
  }

  /** The record sets of a zone. */
  listRecords(zone: string, context?: CallContext): Promise<Outcome<DnsRecord[]>> {
    return this.#guard(context, async () => {
      const sets = await this.#client.list(`zones/${encodeURIComponent(zone)}/rrsets`, 'rrsets', rrsetSchema);
      return done(
        sets
          .filter((s) => s.type === 'A' || s.type === 'AAAA' || s.type === 'CNAME')
          .map((s) => ({
            name: this.#absolute(zone, s.name),
            type: s.type as DnsRecord['type'],
            ttl: s.ttl ?? 3600,
            values: s.records.map((r) => (s.type === 'CNAME' ? r.value.replace(/\.$/, '') : r.value)),
          })),
      );
    });
  }

  deleteRecords(
    zone: string,
    clusterId: string,
    records: Array<Pick<DnsRecord, 'name' | 'type' | 'setIdentifier'>>,
    context?: CallContext,
  ): Promise<Outcome<void>> {
    return this.#guard(context, async () => {
      const seen = new Set<string>();
      for (const r of records) {
        const name = this.#relative(zone, r.name);
        if (seen.has(`${name}/${r.type}`)) continue;
        seen.add(`${name}/${r.type}`);
        try {
          const existing = (await this.#client.request('GET', this.#path(zone, name, r.type), z.object({ rrset: rrsetSchema }), { resource: r.name })).rrset;
          if (existing.labels[CLUSTER_ID_TAG] !== clusterId)
            throw new KubeplaneError('conflict', `record ${r.name} ${r.type} is not managed by cluster ${clusterId}; not deleting it`, {
              provider: PROVIDER,
              code: 'record_taken',
              resource: r.name,
            });
          await this.#client.request('DELETE', this.#path(zone, name, r.type), z.unknown(), { resource: r.name });
        } catch (error) {
          if (!(error instanceof KubeplaneError && error.kind === 'not-found')) throw error;
        }
      }
      return done(undefined);
    });
  }

  /** Record sets labelled with the cluster, in every zone of the project (for teardown). */
  async tagged(clusterId: string): Promise<Array<{ zone: string; name: string; type: string }>> {
    const out: Array<{ zone: string; name: string; type: string }> = [];
    for (const zone of await this.#client.list('zones', 'zones', zoneSchema)) {
      for (const s of await this.#client.list(`zones/${zone.id}/rrsets`, 'rrsets', rrsetSchema, { label_selector: `${CLUSTER_ID_TAG}=${clusterId}` }))
        out.push({ zone: String(zone.id), name: s.name, type: s.type });
    }
    return out;
  }

  /** Deletes a record set; one that is gone already is not an error. */
  async deleteTagged(record: { zone: string; name: string; type: string }): Promise<void> {
    try {
      await this.#client.request('DELETE', `zones/${record.zone}/rrsets/${encodeURIComponent(record.name)}/${record.type}`, z.unknown(), {
        resource: record.name,
      });
    } catch (error) {
      if (!(error instanceof KubeplaneError && error.kind === 'not-found')) throw error;
    }
  }
}
