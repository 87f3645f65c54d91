// The Route 53 REST-XML emulator: hosted zones (seeded), ChangeResourceRecordSets (atomic batches, failover
// with health checks), ListResourceRecordSets with pagination, GetChange (PENDING -> INSYNC after 60 s),
// Create/Delete/List health checks; Route 53's 10 requests/second account budget.
import { http, HttpResponse, type HttpHandler } from 'msw';
import { XMLParser } from 'fast-xml-parser';
import { TokenBucket, RATE_LIMITS, type TokenBucketState } from '@kubeplane/sdk';
import { type SandboxContext, countCall, requestId } from '../context.js';
import type { InventoryItem } from '../inventory.js';
import { LATENCY } from '../latency.js';
import { el, t } from '../xml.js';
import { verifySigV4 } from '../sigv4.js';
import type { AwsKeyring } from '../sts/emulator.js';
import { AwsCallAudit, type AwsCall, type AwsCallListener } from '../aws-calls.js';
import { compareNames, fqdn, reversedName, wireName } from './dns-names.js';

const BASE = 'https://route53.amazonaws.com/2013-04-01';
const XMLNS = 'https://route53.amazonaws.com/doc/2013-04-01/';

export interface RecordSet {
  name: string;
  type: string;
  ttl?: number;
  values: string[];
  setIdentifier?: string;
  failover?: string;
  healthCheckId?: string;
  multiValue?: boolean;
}
export interface Zone {
  id: string;
  name: string;
  records: RecordSet[];
}
export interface HealthCheck {
  id: string;
  callerReference: string;
  ip: string;
  port: number;
  type: string;
}
export interface Change {
  id: string;
  submittedAt: number;
}

class Route53Error extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface Route53EmulatorOptions {
  accessKeyId: string;
  secretAccessKey: string;
  /** Hosted zones that exist before the test (user-owned), e.g. `example.com`. */
  zones: string[];
  /** The account's keys and STS sessions (the sandbox's STS); without it, only accessKeyId is accepted. */
  keyring?: AwsKeyring;
}

const parser = new XMLParser({ ignoreAttributes: true, parseTagValue: false, isArray: (name) => ['Change', 'ResourceRecord'].includes(name) });

/** Everything the emulator keeps, as plain data (sandbox snapshots), except the credentials. */
export interface Route53EmulatorState {
  seq: number;
  zones: Array<[string, Zone]>;
  healthChecks: Array<[string, HealthCheck]>;
  changes: Array<[string, Change]>;
  budget: TokenBucketState;
  throttled: number;
}

export class Route53Emulator {
  readonly #ctx: SandboxContext;
  readonly #secrets: ReadonlyMap<string, string>;
  readonly #keyring: AwsKeyring | undefined;
  readonly zones = new Map<string, Zone>();
  readonly healthChecks = new Map<string, HealthCheck>();
  readonly changes = new Map<string, Change>();
  readonly #budget: TokenBucket;
  readonly #audit = new AwsCallAudit();
  #seq = 0;
  throttled = 0;

  constructor(ctx: SandboxContext, options: Partial<Route53EmulatorOptions> & { accessKeyId: string; secretAccessKey: string }) {
    this.#ctx = ctx;
    this.#secrets = new Map([[options.accessKeyId, options.secretAccessKey]]);
    this.#keyring = options.keyring;
    this.#budget = new TokenBucket(RATE_LIMITS.route53, ctx.clock);
    for (const name of options.zones ?? ['example.com']) this.addZone(name);
  }

  /** A hosted zone the account's owner made (with its NS and SOA records), unless one of that name exists. */
  addZone(name: string): void {
    const zone = fqdn(name);
    if ([...this.zones.values()].some((z) => z.name === zone)) return;
    const id = `Z0SANDBOX${String(this.zones.size + 1).padStart(5, '0')}`;
    this.zones.set(id, {
      id,
      name: zone,
      records: [
        { name: zone, type: 'NS', ttl: 172800, values: ['ns-1.awsdns-01.org.', 'ns-2.awsdns-02.net.'] },
        { name: zone, type: 'SOA', ttl: 900, values: ['ns-1.awsdns-01.org. awsdns-hostmaster.amazon.com. 1 7200 900 1209600 86400'] },
      ],
    });
  }

  /** A deep copy of the emulator's state. */
  state(): Route53EmulatorState {
    return structuredClone({
      seq: this.#seq,
      zones: [...this.zones.entries()],
      healthChecks: [...this.healthChecks.entries()],
      changes: [...this.changes.entries()],
      budget: this.#budget.state(),
      throttled: this.throttled,
    });
  }

  /** Replaces the emulator's state with a copy of `state`. */
  restore(state: Route53EmulatorState): void {
    const s = structuredClone(state);
    this.#seq = s.seq;
    const refill = <V>(map: Map<string, V>, entries: Array<[string, V]>): void => {
      map.clear();
      for (const [k, v] of entries) map.set(k, v);
    };
    refill(this.zones, s.zones);
    refill(this.healthChecks, s.healthChecks);
    refill(this.changes, s.changes);
    this.#budget.restore(s.budget);
    this.throttled = s.throttled;
  }

  /**
   * Tells `listener` of every signed request before it is served (as IAM authorizes it: throttled and failing calls
   * too), with the zone, change or health check it names and, for a change batch, its changes. Returns the function
   * that stops it.
   */
  onCall(listener: AwsCallListener): () => void {
    return this.#audit.add(listener);
  }

  handlers(): HttpHandler[] {
    return [http.all(`${BASE}/*`, async ({ request }) => this.#handle(request))];
  }

  /** Records other than the zone's own SOA/NS, and health checks. The health check's cluster is the first
   * segment of its CallerReference (the AWS provider writes `<clusterId>/…`). */
  inventory(): InventoryItem[] {
    const out: InventoryItem[] = [];
    for (const z of this.zones.values()) {
      for (const r of z.records)
        if (!(r.name === z.name && (r.type === 'NS' || r.type === 'SOA')))
          out.push({ cloud: 'route53', kind: 'dns-record', id: `${z.id}/${r.name}/${r.type}/${r.setIdentifier ?? ''}`, name: r.name });
    }
    for (const h of this.healthChecks.values())
      out.push({ cloud: 'route53', kind: 'health-check', id: h.id, clusterId: h.callerReference.split('/')[0] ?? '' });
    return out;
  }

  /** A health-check id (a UUID on Route 53), from the emulator's counter so seeded worlds repeat exactly. */
  #uuid(): string {
    this.#seq += 1;
    return `5a1e0053-0000-4000-8000-${this.#seq.toString(16).padStart(12, '0')}`;
  }

  #id(prefix: string): string {
    this.#seq += 1;
    return `${prefix}${this.#seq.toString(36).toUpperCase().padStart(12, '0')}`;
  }

  #xml(status: number, root: string, body: string, headers: Record<string, string> = {}): Response {
    return new HttpResponse(`<?xml version="1.0"?>\n<${root} xmlns="${XMLNS}">${body}</${root}>`, {
      status,
      headers: { 'content-type': 'text/xml', 'x-amzn-requestid': requestId(), ...headers },
    });
  }

  #error(e: Route53Error): Response {
    const id = requestId();
    const error = `<Error>${t('Type', e.status >= 500 ? 'Receiver' : 'Sender')}${t('Code', e.code)}${t('Message', e.message)}</Error>`;
    return new HttpResponse(`<?xml version="1.0"?>\n<ErrorResponse xmlns="${XMLNS}">${error}${t('RequestId', id)}</ErrorResponse>`, {
      status: e.status,
      headers: { 'content-type': 'text/xml', 'x-amzn-requestid': id },
    });
  }

  async #handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const path = url.pathname.replace('/2013-04-01', '');
    const operation = this.#operation(request.method, path);
    countCall(this.#ctx, 'route53', operation);
    const body = request.method === 'POST' ? await request.text() : '';
    const signed = this.#keyring ? this.#keyring.verify(request, body) : verifySigV4(request, body, this.#secrets);
    if (signed === 'expired') return this.#error(new Route53Error(403, 'ExpiredToken', 'The security token included in the request is expired'));
    if (signed === 'unknown-key' || signed === 'missing')
      return this.#error(new Route53Error(403, 'InvalidClientTokenId', 'The security token included in the request is invalid.'));
    if (signed !== 'ok')
      return this.#error(new Route53Error(403, 'SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided.'));
    this.#audit.emit(() => ({
      ...this.#auditRecord(operation, request.method, path, url.searchParams, body),
      ...(this.#keyring ? { caller: this.#keyring.callerOf(request) } : {}),
    }));
    if (this.#budget.tryTake(1) > 0) {
      this.throttled += 1;
      return this.#error(new Route53Error(400, 'Throttling', 'Rate exceeded'));
    }
    const fault = this.#ctx.faults.take('route53', operation);
    switch (fault) {
      case 'throttled':
      case 'throttled-no-headers':
        this.throttled += 1;
        return this.#error(new Route53Error(400, 'Throttling', 'Rate exceeded'));
      case 'server-error':
        // "ServiceUnavailable ... HTTP Status Code: 503" (https://docs.aws.amazon.com/Route53/latest/APIReference/CommonErrors.html).
        return this.#error(new Route53Error(503, 'ServiceUnavailable', 'Service is unavailable'));
      case 'timeout':
        return HttpResponse.error();
      case 'quota':
        return this.#error(new Route53Error(400, 'TooManyHealthChecks', 'You have reached the maximum number of active health checks for an AWS account.'));
      case 'capacity':
        return this.#error(new Route53Error(400, 'PriorRequestNotComplete', 'The request was rejected because Route 53 was still processing a prior request.'));
      case 'auth':
        return this.#error(new Route53Error(403, 'InvalidClientTokenId', 'The security token included in the request is invalid.'));
      default:
        break;
    }
    try {
      const response = this.#route(request.method, path, url.searchParams, body);
      return fault === 'lost-response' ? HttpResponse.error() : response;
    } catch (e) {
      if (e instanceof Route53Error) return this.#error(e);
      throw e;
    }
  }

  /**
   * The resource an operation names, by the resource types the Service Authorization Reference lists for it
   * (https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazonroute53.html): the hosted zone of a
   * record operation, the change of GetChange, the health check of DeleteHealthCheck; the list and create operations
   * name none. Route 53 keeps no tags IAM could read, so none are given.
   */
  #auditRecord(operation: string, method: string, path: string, q: URLSearchParams, body: string): AwsCall {
    const parts = path.split('/').filter(Boolean);
    const id = parts[1] ?? '';
    const resource = (type: string, found: boolean) => [{ type, id, tags: {}, created: false, ...(found ? {} : { missing: true }) }];
    const resources =
      operation === 'ChangeResourceRecordSets' || operation === 'ListResourceRecordSets' || operation === 'GetHostedZone'
        ? resource('hostedzone', this.zones.has(id))
        : operation === 'GetChange'
          ? resource('change', this.changes.has(id))
          : operation === 'DeleteHealthCheck'
            ? resource('healthcheck', this.healthChecks.has(id))
            : [];
    const call: AwsCall = {
      service: 'route53',
      action: operation,
      region: 'us-east-1',
      params: { method, path, ...Object.fromEntries(q.entries()) },
      resources,
    };
    if (operation === 'ChangeResourceRecordSets') {
      const doc = parser.parse(body) as {
        ChangeResourceRecordSetsRequest?: {
          ChangeBatch?: { Changes?: { Change?: Array<{ Action?: string; ResourceRecordSet?: { Name?: string; Type?: string } }> } };
        };
      };
      call.changes = (doc.ChangeResourceRecordSetsRequest?.ChangeBatch?.Changes?.Change ?? []).map((c) => ({
        action: c.Action ?? '',
        name: c.ResourceRecordSet?.Name ?? '',
        type: c.ResourceRecordSet?.Type ?? '',
      }));
    }
    return call;
  }

  #operation(method: string, path: string): string {
    if (path.endsWith('/rrset')) return method === 'POST' ? 'ChangeResourceRecordSets' : 'ListResourceRecordSets';
    if (path.startsWith('/change/')) return 'GetChange';
    if (path.startsWith('/healthcheck')) return method === 'POST' ? 'CreateHealthCheck' : method === 'DELETE' ? 'DeleteHealthCheck' : 'ListHealthChecks';
    if (path.startsWith('/hostedzonesbyname')) return 'ListHostedZonesByName';
    if (path.startsWith('/hostedzonecount')) return 'GetHostedZoneCount';
    if (method === 'GET' && /^\/hostedzone\/?$/.test(path)) return 'ListHostedZones';
    if (method === 'GET' && /^\/hostedzone\/[^/]+$/.test(path)) return 'GetHostedZone';
    return `${method} ${path}`;
  }

  #route(method: string, path: string, q: URLSearchParams, body: string): Response {
    const parts = path.split('/').filter(Boolean);
    if (parts[0] === 'hostedzonesbyname' && method === 'GET') return this.#listZonesByName(q);
    // GetHostedZoneCount (https://docs.aws.amazon.com/Route53/latest/APIReference/API_GetHostedZoneCount.html).
    if (parts[0] === 'hostedzonecount' && method === 'GET') return this.#xml(200, 'GetHostedZoneCountResponse', t('HostedZoneCount', this.zones.size));
    if (parts[0] === 'hostedzone' && parts.length === 1 && method === 'GET') return this.#listZones(q);
    if (parts[0] === 'hostedzone' && parts.length === 2 && method === 'GET') {
      const zone = this.#zone(parts[1] ?? '');
      return this.#xml(
        200,
        'GetHostedZoneResponse',
        this.#zoneXml(zone) + el('DelegationSet', el('NameServers', ...this.#nameServers(zone).map((n) => t('NameServer', n.replace(/\.$/, ''))))),
      );
    }
    if (parts[0] === 'hostedzone' && parts[2] === 'rrset') {
      const zone = this.#zone(parts[1] ?? '');
      return method === 'POST' ? this.#change(zone, body) : this.#listRecords(zone, q);
    }
    if (parts[0] === 'change' && method === 'GET') {
      const change = this.changes.get(parts[1] ?? '');
      if (!change) throw new Route53Error(404, 'NoSuchChange', `Could not find resource with ID: ${parts[1] ?? ''}`);
      return this.#xml(200, 'GetChangeResponse', this.#changeInfo(change));
    }
    if (parts[0] === 'healthcheck') {
      if (method === 'POST') return this.#createHealthCheck(body);
      if (method === 'DELETE') {
        const h = this.healthChecks.get(parts[1] ?? '');
        if (!h) throw new Route53Error(404, 'NoSuchHealthCheck', `A health check with id ${parts[1] ?? ''} does not exist.`);
        for (const z of this.zones.values())
          if (z.records.some((r) => r.healthCheckId === h.id))
            throw new Route53Error(400, 'HealthCheckInUse', `The health check ${h.id} is still referenced from a record set.`);
        this.healthChecks.delete(h.id);
        return this.#xml(200, 'DeleteHealthCheckResponse', '');
      }
      if (method === 'GET') {
        return this.#xml(
          200,
          'ListHealthChecksResponse',
          el('HealthChecks', ...[...this.healthChecks.values()].map((h) => this.#healthCheckXml(h))) +
            t('IsTruncated', false) +
            t('MaxItems', 1000) +
            t('Marker', ''),
        );
      }
    }
    // "InvalidAction: The action or operation requested is invalid", HTTP 400 (Route 53's common errors).
    throw new Route53Error(400, 'InvalidAction', `${method} ${path} is not an operation of this API`);
  }

  #zone(id: string): Zone {
    const zone = this.zones.get(id);
    if (!zone) throw new Route53Error(404, 'NoSuchHostedZone', `No hosted zone found with ID: ${id}`);
    return zone;
  }

  #zoneXml(z: Zone): string {
    return el(
      'HostedZone',
      t('Id', `/hostedzone/${z.id}`),
      t('Name', wireName(z.name)),
      t('CallerReference', z.id),
      el('Config', t('PrivateZone', false)),
      t('ResourceRecordSetCount', z.records.length),
    );
  }

  /** The zone's name servers, as its apex NS record lists them (GetHostedZone's DelegationSet). */
  #nameServers(z: Zone): string[] {
    return z.records.find((r) => r.name === z.name && r.type === 'NS')?.values ?? [];
  }

  /** `maxitems`: at most 100 for the hosted zone lists (API_ListHostedZones.html, "MaxItems"). */
  #maxItems(q: URLSearchParams, limit: number): number {
    const raw = q.get('maxitems');
    const max = raw === null ? limit : Number(raw);
    if (!Number.isInteger(max) || max < 1)
      throw new Route53Error(
        400,
        'InvalidInput',
        `1 validation error detected: Value '${raw ?? ''}' at 'maxItems' failed to satisfy constraint: Member must be a positive integer`,
      );
    return Math.min(max, limit);
  }

  /**
   * ListHostedZones (https://docs.aws.amazon.com/Route53/latest/APIReference/API_ListHostedZones.html): pages of at
   * most 100 zones; `marker` is the id of the first zone of the page, as NextMarker gave it. The sandbox lists zones in
   * the order they were made.
   */
  #listZones(q: URLSearchParams): Response {
    const max = this.#maxItems(q, 100);
    const zones = [...this.zones.values()];
    const marker = q.get('marker');
    let start = 0;
    if (marker !== null) {
      start = zones.findIndex((z) => z.id === marker.replace(/^\/hostedzone\//, ''));
      if (start < 0) throw new Route53Error(400, 'InvalidInput', `Invalid marker: ${marker}`);
    }
    const page = zones.slice(start, start + max);
    const next = zones[start + max];
    return this.#xml(
      200,
      'ListHostedZonesResponse',
      el('HostedZones', ...page.map((z) => this.#zoneXml(z))) +
        t('Marker', marker ?? '') +
        t('IsTruncated', next !== undefined) +
        t('NextMarker', next?.id) +
        t('MaxItems', max),
    );
  }

  /**
   * ListHostedZonesByName (https://docs.aws.amazon.com/Route53/latest/APIReference/API_ListHostedZonesByName.html):
   * zones sorted by name with the labels reversed, from `dnsname` on (and `hostedzoneid` among zones of that name);
   * a `hostedzoneid` without a `dnsname` is InvalidInput.
   */
  #listZonesByName(q: URLSearchParams): Response {
    const max = this.#maxItems(q, 100);
    const dns = q.get('dnsname') ? fqdn(q.get('dnsname') ?? '') : undefined;
    const fromId = q.get('hostedzoneid');
    if (fromId && !dns) throw new Route53Error(400, 'InvalidInput', 'The input is not valid: hostedzoneid requires dnsname');
    const sorted = [...this.zones.values()].sort((a, b) => compareNames(a.name, b.name) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const zones = sorted.filter((z) => !dns || reversedName(z.name) > reversedName(dns) || (z.name === dns && (!fromId || z.id >= fromId)));
    const next = zones[max];
    return this.#xml(
      200,
      'ListHostedZonesByNameResponse',
      el('HostedZones', ...zones.slice(0, max).map((z) => this.#zoneXml(z))) +
        t('DNSName', q.get('dnsname')) +
        t('HostedZoneId', fromId) +
        t('IsTruncated', next !== undefined) +
        (next ? t('NextDNSName', wireName(next.name)) + t('NextHostedZoneId', next.id) : '') +
        t('MaxItems', max),
    );
  }

  #changeInfo(c: Change): string {
    const insync = this.#ctx.clock.now() >= c.submittedAt + LATENCY.route53ChangeToInsync;
    return el('ChangeInfo', t('Id', `/change/${c.id}`), t('Status', insync ? 'INSYNC' : 'PENDING'), t('SubmittedAt', new Date(c.submittedAt).toISOString()));
  }

  #healthCheckXml(h: HealthCheck): string {
    return el(
      'HealthCheck',
      t('Id', h.id),
      t('CallerReference', h.callerReference),
      el('HealthCheckConfig', t('IPAddress', h.ip), t('Port', h.port), t('Type', h.type), t('RequestInterval', 30), t('FailureThreshold', 3)),
      t('HealthCheckVersion', 1),
    );
  }

  #createHealthCheck(body: string): Response {
    const doc = parser.parse(body) as {
      CreateHealthCheckRequest?: { CallerReference?: string; HealthCheckConfig?: { IPAddress?: string; Port?: string; Type?: string } };
    };
    const req = doc.CreateHealthCheckRequest;
    const ref = req?.CallerReference;
    const cfg = req?.HealthCheckConfig;
    if (!ref || !cfg?.Type) throw new Route53Error(400, 'InvalidInput', 'CallerReference and HealthCheckConfig.Type are required');
    const existing = [...this.healthChecks.values()].find((h) => h.callerReference === ref);
    if (existing) {
      if (existing.ip !== cfg.IPAddress || existing.port !== Number(cfg.Port))
        throw new Route53Error(409, 'HealthCheckAlreadyExists', `A health check with caller reference ${ref} already exists with a different configuration.`);
      return this.#xml(201, 'CreateHealthCheckResponse', this.#healthCheckXml(existing), { Location: `${BASE}/healthcheck/${existing.id}` });
    }
    const h: HealthCheck = { id: this.#uuid(), callerReference: ref, ip: cfg.IPAddress ?? '', port: Number(cfg.Port ?? 80), type: cfg.Type };
    this.healthChecks.set(h.id, h);
    return this.#xml(201, 'CreateHealthCheckResponse', this.#healthCheckXml(h), { Location: `${BASE}/healthcheck/${h.id}` });
  }

  #change(zone: Zone, body: string): Response {
    type RawRecord = {
      Name?: string;
      Type?: string;
      TTL?: string;
      SetIdentifier?: string;
      Failover?: string;
      HealthCheckId?: string;
      MultiValueAnswer?: string;
      ResourceRecords?: { ResourceRecord?: Array<{ Value?: string }> };
    };
    const doc = parser.parse(body) as {
      ChangeResourceRecordSetsRequest?: { ChangeBatch?: { Changes?: { Change?: Array<{ Action?: string; ResourceRecordSet?: RawRecord }> } } };
    };
    const changes = doc.ChangeResourceRecordSetsRequest?.ChangeBatch?.Changes?.Change ?? [];
    if (changes.length === 0) throw new Route53Error(400, 'InvalidInput', 'ChangeBatch must contain at least one change');
    // Atomic: validate every change against a copy, then commit.
    const records = zone.records.map((r) => ({ ...r }));
    for (const c of changes) {
      const raw = c.ResourceRecordSet ?? {};
      const rec: RecordSet = {
        name: fqdn(raw.Name ?? ''),
        type: raw.Type ?? '',
        ...(raw.TTL ? { ttl: Number(raw.TTL) } : {}),
        values: (raw.ResourceRecords?.ResourceRecord ?? []).map((v) => v.Value ?? ''),
        ...(raw.SetIdentifier ? { setIdentifier: raw.SetIdentifier } : {}),
        ...(raw.Failover ? { failover: raw.Failover } : {}),
        ...(raw.HealthCheckId ? { healthCheckId: raw.HealthCheckId } : {}),
        ...(raw.MultiValueAnswer === 'true' ? { multiValue: true } : {}),
      };
      if (!rec.name.endsWith(zone.name))
        throw new Route53Error(400, 'InvalidChangeBatch', `[RRSet with DNS name ${rec.name} is not permitted in zone ${zone.name}]`);
      if (!['A', 'AAAA', 'CNAME', 'TXT', 'NS', 'SOA', 'MX', 'SRV', 'CAA'].includes(rec.type))
        throw new Route53Error(400, 'InvalidInput', `Invalid type ${rec.type}`);
      if ((rec.failover || rec.multiValue) && !rec.setIdentifier)
        throw new Route53Error(400, 'InvalidInput', 'SetIdentifier is required for failover and multivalue records');
      if (rec.healthCheckId && !this.healthChecks.has(rec.healthCheckId))
        throw new Route53Error(400, 'NoSuchHealthCheck', `A health check with id ${rec.healthCheckId} does not exist.`);
      const same = (r: RecordSet) => r.name === rec.name && r.type === rec.type && (r.setIdentifier ?? '') === (rec.setIdentifier ?? '');
      const index = records.findIndex(same);
      const action = c.Action;
      if (action === 'CREATE') {
        if (index >= 0)
          throw new Route53Error(
            400,
            'InvalidChangeBatch',
            `[Tried to create resource record set [name='${rec.name}', type='${rec.type}'] but it already exists]`,
          );
        records.push(rec);
      } else if (action === 'UPSERT') {
        if (index >= 0) records[index] = rec;
        else records.push(rec);
      } else if (action === 'DELETE') {
        const existing = records[index];
        if (!existing)
          throw new Route53Error(
            400,
            'InvalidChangeBatch',
            `[Tried to delete resource record set [name='${rec.name}', type='${rec.type}'] but it was not found]`,
          );
        if (JSON.stringify([...existing.values].sort()) !== JSON.stringify([...rec.values].sort()) || existing.ttl !== rec.ttl)
          throw new Route53Error(
            400,
            'InvalidChangeBatch',
            `[Tried to delete resource record set [name='${rec.name}', type='${rec.type}'] but the values provided do not match the current values]`,
          );
        records.splice(index, 1);
      } else {
        throw new Route53Error(400, 'InvalidInput', `Invalid action ${String(action)}`);
      }
      if (rec.type === 'CNAME' && action !== 'DELETE' && records.some((r) => r.name === rec.name && r.type !== 'CNAME'))
        throw new Route53Error(
          400,
          'InvalidChangeBatch',
          `[RRSet of type CNAME with DNS name ${rec.name} is not permitted as it conflicts with other records with the same DNS name in zone ${zone.name}]`,
        );
    }
    zone.records = records;
    const change: Change = { id: this.#id('C'), submittedAt: this.#ctx.clock.now() };
    this.changes.set(change.id, change);
    return this.#xml(200, 'ChangeResourceRecordSetsResponse', this.#changeInfo(change));
  }

  /**
   * ListResourceRecordSets (https://docs.aws.amazon.com/Route53/latest/APIReference/API_ListResourceRecordSets.html):
   * "sorted by name with the labels reversed", records of one name by type; `name` (and `type`, `identifier`) says
   * where a page starts, in that same order; a `type` without a `name` is InvalidInput. Pages of at most 300.
   */
  #listRecords(zone: Zone, q: URLSearchParams): Response {
    const max = Math.min(300, Number(q.get('maxitems') ?? '300'));
    const order = (a: RecordSet, b: RecordSet): number =>
      compareNames(a.name, b.name) ||
      (a.type < b.type ? -1 : a.type > b.type ? 1 : 0) ||
      ((a.setIdentifier ?? '') < (b.setIdentifier ?? '') ? -1 : (a.setIdentifier ?? '') > (b.setIdentifier ?? '') ? 1 : 0);
    const sorted = [...zone.records].sort(order);
    const name = q.get('name');
    if (q.get('type') && !name) throw new Route53Error(400, 'InvalidInput', 'The input is not valid: if you specify type, you must also specify name');
    let start = 0;
    if (name) {
      const from: RecordSet = {
        name: fqdn(name),
        type: q.get('type') ?? '',
        values: [],
        ...(q.get('identifier') ? { setIdentifier: q.get('identifier') ?? '' } : {}),
      };
      start = sorted.findIndex((r) => order(r, from) >= 0);
      if (start < 0) start = sorted.length;
    }
    const page = sorted.slice(start, start + max);
    const next = sorted[start + max];
    const recordXml = (r: RecordSet) =>
      el(
        'ResourceRecordSet',
        t('Name', wireName(r.name)),
        t('Type', r.type),
        t('SetIdentifier', r.setIdentifier),
        t('Failover', r.failover),
        t('MultiValueAnswer', r.multiValue),
        t('TTL', r.ttl),
        el('ResourceRecords', ...r.values.map((v) => el('ResourceRecord', t('Value', v)))),
        t('HealthCheckId', r.healthCheckId),
      );
    return this.#xml(
      200,
      'ListResourceRecordSetsResponse',
      el('ResourceRecordSets', ...page.map(recordXml)) +
        t('IsTruncated', next !== undefined) +
        t('MaxItems', max) +
        (next ? t('NextRecordName', wireName(next.name)) + t('NextRecordType', next.type) + t('NextRecordIdentifier', next.setIdentifier) : ''),
    );
  }
}
