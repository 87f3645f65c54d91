// Route 53 as a DnsApi: record sets in one atomic change batch, health-checked failover, GetChange until
// INSYNC, paged listing; health checks carry the cluster id as the first segment of their CallerReference.
import { createHash } from 'node:crypto';
import type { Change, ResourceRecordSet, Route53Client } from '@aws-sdk/client-route-53';
import { KubeplaneError } from '@kubeplane/sdk';
import {
  RateBudgetWait,
  done,
  pending,
  type CallContext,
  type DnsApi,
  type DnsChange,
  type DnsRecord,
  type Outcome,
  type RateBudget,
} from '@kubeplane/sdk/provider';
import { toKubeplaneError } from './errors.js';
import { loadRoute53, type Route53Module } from './sdk-modules.js';

/** What Route 53 DNS works with: a client, the Route 53 budget, the provider's guard and call counter. */
export interface Route53DnsOptions {
  /** The Route 53 client, made on first use (the SDK module is loaded then). */
  client: () => Promise<Route53Client>;
  budget: RateBudget;
  /** Runs a call under the provider's guard: budget waits, throttles and transient failures become pending. */
  guard: <T>(context: CallContext | undefined, call: () => Promise<Outcome<T>>) => Promise<Outcome<T>>;
  /** Counts a Route 53 operation in the provider's call statistics. */
  count: (operation: string) => void;
}

const dot = (name: string) => (name.endsWith('.') ? name : `${name}.`);
const undot = (name: string) => name.replace(/\.$/, '');

/** DNS records in a Route 53 hosted zone. */
export class Route53Dns implements DnsApi {
  readonly #o: Route53DnsOptions;
  readonly #zones = new Map<string, string>();

  constructor(options: Route53DnsOptions) {
    this.#o = options;
  }

  /** What the DNS API shows of itself in logs. */
  toJSON(): Record<string, string> {
    return { dns: 'route53' };
  }

  async #send<O>(operation: string, command: (route53: Route53Module) => object, resource?: string): Promise<O> {
    const wait = await this.#o.budget.take(1);
    if (wait > 0) throw new RateBudgetWait('aws route53', wait);
    this.#o.count(operation);
    try {
      const [client, module] = await Promise.all([this.#o.client(), loadRoute53()]);
      return (await client.send(command(module) as never)) as O;
    } catch (error) {
      const k = toKubeplaneError(error, 'route53', operation, resource);
      if (k.kind === 'throttled') await this.#o.budget.observeRemaining(0);
      throw k;
    }
  }

  /**
   * Every hosted zone of the account (ListHostedZonesByName, paged by NextDNSName/NextHostedZoneId as
   * https://docs.aws.amazon.com/Route53/latest/APIReference/API_ListHostedZonesByName.html describes), for preflight.
   */
  zones(context?: CallContext): Promise<Outcome<string[]>> {
    return this.#o.guard(context, async () => {
      const out: string[] = [];
      let next: { DNSName?: string; HostedZoneId?: string } = {};
      for (let page = 0; page < 50; page++) {
        const res = await this.#send<{ HostedZones?: Array<{ Name?: string }>; IsTruncated?: boolean; NextDNSName?: string; NextHostedZoneId?: string }>(
          'ListHostedZonesByName',
          (sdk) => new sdk.ListHostedZonesByNameCommand({ ...next, MaxItems: 100 }),
        );
        out.push(...(res.HostedZones ?? []).map((z) => undot(z.Name ?? '')));
        if (!res.IsTruncated || !res.NextDNSName) break;
        next = { DNSName: res.NextDNSName, ...(res.NextHostedZoneId ? { HostedZoneId: res.NextHostedZoneId } : {}) };
      }
      return done(out);
    });
  }

  async #zoneId(zone: string): Promise<string> {
    const cached = this.#zones.get(zone);
    if (cached) return cached;
    const out = await this.#send<{ HostedZones?: Array<{ Id?: string; Name?: string }> }>(
      'ListHostedZonesByName',
      (sdk) => new sdk.ListHostedZonesByNameCommand({ DNSName: zone, MaxItems: 1 }),
      zone,
    );
    const hz = out.HostedZones?.find((z) => undot(z.Name ?? '') === undot(zone));
    if (!hz?.Id)
      throw new KubeplaneError('not-found', `Route 53 has no hosted zone ${zone} in this account; create it or name another dnsZone`, {
        provider: 'aws',
        code: 'NoSuchHostedZone',
        resource: zone,
      });
    const id = hz.Id.replace('/hostedzone/', '');
    this.#zones.set(zone, id);
    return id;
  }

  #callerReference(clusterId: string, record: DnsRecord, ip: string, port: number): string {
    const digest = createHash('sha256')
      .update(`${record.name}|${record.type}|${record.setIdentifier ?? ''}|${ip}:${port}`)
      .digest('hex')
      .slice(0, 24);
    return `${clusterId}/${digest}`.slice(0, 64);
  }

  async #healthCheck(clusterId: string, record: DnsRecord): Promise<string | undefined> {
    const check = record.failover?.healthCheck ?? record.healthCheck;
    if (!check) return undefined;
    const out = await this.#send<{ HealthCheck?: { Id?: string } }>(
      'CreateHealthCheck',
      (sdk) =>
        new sdk.CreateHealthCheckCommand({
          CallerReference: this.#callerReference(clusterId, record, check.ip, check.port),
          HealthCheckConfig: { Type: 'TCP', IPAddress: check.ip, Port: check.port, RequestInterval: 30, FailureThreshold: 3 },
        }),
      record.name,
    );
    return out.HealthCheck?.Id;
  }

  upsertRecords(zone: string, clusterId: string, records: DnsRecord[], context?: CallContext): Promise<Outcome<DnsChange>> {
    return this.#o.guard(context, async () => {
      const zoneId = await this.#zoneId(zone);
      const changes: Change[] = [];
      for (const r of records) {
        // CallerReference makes health-check creation idempotent: a retry returns the same check.
        const healthCheckId = await this.#healthCheck(clusterId, r);
        const set: ResourceRecordSet = {
          Name: dot(r.name),
          Type: r.type,
          TTL: r.ttl,
          ResourceRecords: r.values.map((Value) => ({ Value })),
          ...(r.setIdentifier ? { SetIdentifier: r.setIdentifier } : {}),
          ...(r.failover ? { Failover: r.failover.role === 'primary' ? 'PRIMARY' : 'SECONDARY' } : {}),
          ...(!r.failover && r.healthCheck ? { MultiValueAnswer: true } : {}),
          ...(healthCheckId ? { HealthCheckId: healthCheckId } : {}),
        };
        changes.push({ Action: 'UPSERT', ResourceRecordSet: set });
      }
      const out = await this.#send<{ ChangeInfo?: { Id?: string; Status?: string } }>(
        'ChangeResourceRecordSets',
        (sdk) => new sdk.ChangeResourceRecordSetsCommand({ HostedZoneId: zoneId, ChangeBatch: { Comment: `kubeplane ${clusterId}`, Changes: changes } }),
        zone,
      );
      await this.#deleteReplacedChecks(
        clusterId,
        records,
        new Set(changes.flatMap((c) => (c.ResourceRecordSet?.HealthCheckId ? [c.ResourceRecordSet.HealthCheckId] : []))),
        zone,
      );
      return done({ id: (out.ChangeInfo?.Id ?? '').replace('/change/', ''), status: out.ChangeInfo?.Status === 'INSYNC' ? 'in-sync' : 'pending' });
    });
  }

  /**
   * Health checks follow their machines: a record upserted with a new address (its load-balancer machine replaced)
   * names a new check, and the check it named before is used by nothing from then on. A check belongs to a record when
   * its CallerReference is the one #callerReference makes from that record and the check's own address and port, so
   * the old checks are found again by a retry after a crash, and a check of another record (another zone) is never
   * taken. Route 53 does not refuse to delete a check a record still names (API_DeleteHealthCheck.html): only checks
   * no record of this upsert names go.
   */
  async #deleteReplacedChecks(clusterId: string, records: DnsRecord[], named: ReadonlySet<string>, zone: string): Promise<void> {
    const checks = await this.#clusterHealthChecks(clusterId);
    for (const check of checks) {
      if (named.has(check.id) || check.ip === undefined || check.port === undefined) continue;
      const { ip, port } = check;
      if (!records.some((r) => this.#callerReference(clusterId, r, ip, port) === check.callerReference)) continue;
      try {
        await this.#send('DeleteHealthCheck', (sdk) => new sdk.DeleteHealthCheckCommand({ HealthCheckId: check.id }), zone);
      } catch (error) {
        if (error instanceof KubeplaneError && (error.kind === 'not-found' || error.details.code === 'HealthCheckInUse')) continue;
        throw error;
      }
    }
  }

  changeStatus(changeId: string, context?: CallContext): Promise<Outcome<DnsChange>> {
    return this.#o.guard(context, async () => {
      const out = await this.#send<{ ChangeInfo?: { Status?: string } }>('GetChange', (sdk) => new sdk.GetChangeCommand({ Id: changeId }), changeId);
      if (out.ChangeInfo?.Status === 'INSYNC') return done({ id: changeId, status: 'in-sync' });
      return pending('in-progress', 15, `DNS change ${changeId} is propagating (Route 53 needs about 60 s)`);
    });
  }

  async #allRecordSets(zoneId: string): Promise<ResourceRecordSet[]> {
    const out: ResourceRecordSet[] = [];
    let start: { name?: string; type?: string; id?: string } = {};
    for (;;) {
      const page = await this.#send<{
        ResourceRecordSets?: ResourceRecordSet[];
        IsTruncated?: boolean;
        NextRecordName?: string;
        NextRecordType?: string;
        NextRecordIdentifier?: string;
      }>(
        'ListResourceRecordSets',
        (sdk) =>
          new sdk.ListResourceRecordSetsCommand({
            HostedZoneId: zoneId,
            MaxItems: 300,
            ...(start.name ? { StartRecordName: start.name } : {}),
            ...(start.type ? { StartRecordType: start.type as never } : {}),
            ...(start.id ? { StartRecordIdentifier: start.id } : {}),
          }),
      );
      out.push(...(page.ResourceRecordSets ?? []));
      if (!page.IsTruncated) return out;
      start = {
        ...(page.NextRecordName ? { name: page.NextRecordName } : {}),
        ...(page.NextRecordType ? { type: page.NextRecordType } : {}),
        ...(page.NextRecordIdentifier ? { id: page.NextRecordIdentifier } : {}),
      };
    }
  }

  /** The record sets of a hosted zone. */
  listRecords(zone: string, context?: CallContext): Promise<Outcome<DnsRecord[]>> {
    return this.#o.guard(context, async () => {
      const sets = await this.#allRecordSets(await this.#zoneId(zone));
      return done(
        sets
          .filter((s) => s.Type === 'A' || s.Type === 'AAAA' || s.Type === 'CNAME')
          .map((s) => ({
            name: undot(s.Name ?? ''),
            type: s.Type as DnsRecord['type'],
            ttl: s.TTL ?? 0,
            values: (s.ResourceRecords ?? []).map((v) => v.Value ?? ''),
            ...(s.SetIdentifier ? { setIdentifier: s.SetIdentifier } : {}),
            ...(s.Failover ? { failover: { role: s.Failover === 'PRIMARY' ? ('primary' as const) : ('secondary' as const) } } : {}),
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
    return this.#o.guard(context, async () => {
      const zoneId = await this.#zoneId(zone);
      const sets = await this.#allRecordSets(zoneId);
      const matches = sets.filter((s) =>
        records.some((r) => dot(r.name) === s.Name && r.type === s.Type && (r.setIdentifier ?? '') === (s.SetIdentifier ?? '')),
      );
      if (matches.length > 0) {
        // DELETE must carry the current values exactly; they come from the listing just made.
        try {
          await this.#send(
            'ChangeResourceRecordSets',
            (sdk) =>
              new sdk.ChangeResourceRecordSetsCommand({
                HostedZoneId: zoneId,
                ChangeBatch: { Changes: matches.map((m) => ({ Action: 'DELETE', ResourceRecordSet: m })) },
              }),
            zone,
          );
        } catch (error) {
          // Another delivery of the step deleted some of them after our listing: the batch is refused whole; list again.
          if (error instanceof KubeplaneError && error.details.code === 'InvalidChangeBatch')
            throw new KubeplaneError(
              'retryable',
              `${error.message} (changed meanwhile; listing again)`,
              { provider: 'aws', code: 'InvalidChangeBatch', resource: zone },
              { cause: error },
            );
          throw error;
        }
      }
      // Health checks are found by the cluster id in their CallerReference, not through the records: a retry
      // after the records went (and before their checks did) must still remove the checks.
      const inUse = new Set(sets.filter((s) => !matches.includes(s)).flatMap((s) => (s.HealthCheckId ? [s.HealthCheckId] : [])));
      for (const { id: check } of await this.#clusterHealthChecks(clusterId)) {
        if (inUse.has(check)) continue;
        try {
          await this.#send('DeleteHealthCheck', (sdk) => new sdk.DeleteHealthCheckCommand({ HealthCheckId: check }), zone);
        } catch (error) {
          if (error instanceof KubeplaneError && error.kind === 'not-found') continue;
          // Still referenced from a record in another zone of the cluster: that zone's deletion removes it.
          if (error instanceof KubeplaneError && error.details.code === 'HealthCheckInUse') continue;
          throw error;
        }
      }
      return done(undefined);
    });
  }

  /** The account's health checks of this cluster (the cluster id opens their CallerReference), with what they check. */
  async #clusterHealthChecks(clusterId: string): Promise<Array<{ id: string; callerReference: string; ip?: string; port?: number }>> {
    const out: Array<{ id: string; callerReference: string; ip?: string; port?: number }> = [];
    let marker: string | undefined;
    for (;;) {
      const page = await this.#send<{
        HealthChecks?: Array<{ Id?: string; CallerReference?: string; HealthCheckConfig?: { IPAddress?: string; Port?: number } }>;
        IsTruncated?: boolean;
        NextMarker?: string;
      }>('ListHealthChecks', (sdk) => new sdk.ListHealthChecksCommand({ MaxItems: 1000, ...(marker ? { Marker: marker } : {}) }));
      for (const h of page.HealthChecks ?? []) {
        if (!h.Id || !h.CallerReference?.startsWith(`${clusterId}/`)) continue;
        const ip = h.HealthCheckConfig?.IPAddress;
        const port = h.HealthCheckConfig?.Port;
        out.push({ id: h.Id, callerReference: h.CallerReference, ...(ip ? { ip } : {}), ...(port !== undefined ? { port } : {}) });
      }
      if (!page.IsTruncated || !page.NextMarker) return out;
      marker = page.NextMarker;
    }
  }
}
