// Record sets and their changes: ChangeResourceRecordSets (an atomic batch, failover and multivalue records with
// health checks), ListResourceRecordSets in Route 53's order with its paging, and GetChange (PENDING, then INSYNC).
import { EmulatorError, type Reply } from '../emulator/index.js';
import { LATENCY } from '../latency.js';
import { el, t } from '../xml.js';
import { parser, xml } from './dialect.js';
import { compareNames, fqdn, wireName } from './dns-names.js';
import type { Change, RecordSet, Route53Route, Route53World, Zone } from './world.js';
import { zoneOf } from './zones.js';
import { isIPv4, isIPv6 } from './health-checks.js';

export function recordRoutes(w: Route53World): Route53Route[] {
  return [
    ['POST /hostedzone/{id}/rrset', (c) => changeRecords(w, zoneOf(w, c.params['id'] ?? ''), c.body), { name: 'ChangeResourceRecordSets' }],
    ['GET /hostedzone/{id}/rrset', (c) => listRecords(zoneOf(w, c.params['id'] ?? ''), c.query), { name: 'ListResourceRecordSets' }],
    ['GET /change/{id}', (c) => getChange(w, c.params['id'] ?? ''), { name: 'GetChange' }],
  ];
}

function changeInfo(w: Route53World, c: Change): string {
  const insync = w.now() >= c.submittedAt + LATENCY.route53ChangeToInsync;
  return el('ChangeInfo', t('Id', `/change/${c.id}`), t('Status', insync ? 'INSYNC' : 'PENDING'), t('SubmittedAt', new Date(c.submittedAt).toISOString()));
}

function getChange(w: Route53World, id: string): Reply {
  const change = w.changes.require(id, () => new EmulatorError(404, 'NoSuchChange', `Could not find resource with ID: ${id}`));
  return xml('GetChangeResponse', changeInfo(w, change));
}

type RawRecord = {
  Name?: string;
  Type?: string;
  TTL?: string;
  SetIdentifier?: string;
  Weight?: string;
  Failover?: string;
  HealthCheckId?: string;
  MultiValueAnswer?: string;
  AliasTarget?: { HostedZoneId?: string; DNSName?: string; EvaluateTargetHealth?: string };
  ResourceRecords?: { ResourceRecord?: Array<{ Value?: string }> };
};

/** The record types Route 53 takes (ResourceRecordSet, Type). */
const TYPES = ['SOA', 'A', 'TXT', 'NS', 'CNAME', 'MX', 'NAPTR', 'PTR', 'SRV', 'SPF', 'AAAA', 'CAA', 'DS'];
const MAX_TTL = 2_147_483_647;

const invalidInput = (message: string) => new EmulatorError(400, 'InvalidInput', message);
const invalidBatch = (message: string) => new EmulatorError(400, 'InvalidChangeBatch', `[${message}]`);

/** Route 53's words for a field outside its constraint ("1 validation error detected: Value '-1' at '…tTL' failed …"). */
function validationError(index: number, field: string, value: string, constraint: string): EmulatorError {
  return invalidInput(
    `1 validation error detected: Value '${value}' at 'changeBatch.changes.${index}.member.resourceRecordSet.${field}' failed to satisfy constraint: ` +
      `${constraint}`,
  );
}

/**
 * One change's record set, read and checked as Route 53 checks it before anything changes: a known type; exactly one
 * of an alias target or a TTL with values (https://docs.aws.amazon.com/Route53/latest/APIReference/API_ResourceRecordSet.html);
 * TTL 0-2147483647; a weight 0-255 and a SetIdentifier together; a SetIdentifier only with a routing policy.
 */
function recordOf(raw: RawRecord, action: string, index: number): RecordSet {
  const name = fqdn(raw.Name ?? '');
  const type = raw.Type ?? '';
  if (!TYPES.includes(type)) throw validationError(index, 'type', type, `Member must satisfy enum value set: [${TYPES.join(', ')}]`);
  const values = (raw.ResourceRecords?.ResourceRecord ?? []).map((v) => v.Value ?? '');
  const described = `Change with [Action=${action}, Name=${raw.Name ?? ''}, Type=${type}, SetIdentifier=${raw.SetIdentifier ?? 'null'}]`;
  const hasAlias = raw.AliasTarget !== undefined;
  const hasRecords = raw.TTL !== undefined || raw.ResourceRecords !== undefined;
  if (hasAlias === hasRecords)
    throw invalidInput(
      `Invalid request: Expected exactly one of [AliasTarget, all of [TTL, and ResourceRecords], or TrafficPolicyInstanceId], but found ` +
        `${hasAlias ? 'more than one' : 'none'} in ${described}`,
    );
  if (!hasAlias && raw.TTL === undefined) throw invalidInput(`Invalid request: Missing field 'TTL' in ${described}`);
  if (!hasAlias && values.length === 0) throw invalidInput(`Invalid request: Missing field 'ResourceRecords' in ${described}`);
  let ttl: number | undefined;
  if (raw.TTL !== undefined) {
    ttl = Number(raw.TTL);
    if (!Number.isInteger(ttl) || ttl < 0) throw validationError(index, 'tTL', raw.TTL, 'Member must have value greater than or equal to 0');
    if (ttl > MAX_TTL) throw validationError(index, 'tTL', raw.TTL, `Member must have value less than or equal to ${MAX_TTL}`);
  }
  let weight: number | undefined;
  if (raw.Weight !== undefined) {
    weight = Number(raw.Weight);
    if (!Number.isInteger(weight) || weight < 0) throw validationError(index, 'weight', raw.Weight, 'Member must have value greater than or equal to 0');
    if (weight > 255) throw validationError(index, 'weight', raw.Weight, 'Member must have value less than or equal to 255');
  }
  const policy = weight !== undefined || raw.Failover !== undefined || raw.MultiValueAnswer !== undefined;
  if (policy && !raw.SetIdentifier) throw invalidInput(`Invalid request: Missing field 'SetIdentifier' in ${described}`);
  if (raw.SetIdentifier && !policy)
    throw invalidInput(
      `Invalid request: Expected exactly one of [Weight, Region, Failover, GeoLocation, MultiValueAnswer, GeoProximityLocation, or ` +
        `CidrRoutingConfig], but found none in ${described}`,
    );
  const alias = raw.AliasTarget;
  return {
    name,
    type,
    ...(ttl !== undefined ? { ttl } : {}),
    values,
    ...(raw.SetIdentifier ? { setIdentifier: raw.SetIdentifier } : {}),
    ...(weight !== undefined ? { weight } : {}),
    ...(raw.Failover ? { failover: raw.Failover } : {}),
    ...(raw.HealthCheckId ? { healthCheckId: raw.HealthCheckId } : {}),
    ...(raw.MultiValueAnswer === 'true' ? { multiValue: true } : {}),
    ...(alias
      ? { alias: { hostedZoneId: alias.HostedZoneId ?? '', dnsName: fqdn(alias.DNSName ?? ''), evaluateTargetHealth: alias.EvaluateTargetHealth === 'true' } }
      : {}),
  };
}

/** Route 53's words for a value its type does not take ("FATAL problem: ARRDATAIllegalIPv4Address …"), as users meet them. */
function badValue(problem: string, why: string, value: string): EmulatorError {
  return invalidBatch(`Invalid Resource Record: 'FATAL problem: ${problem} (${why}) encountered with '${value}''`);
}

/** Each value checked for its type: an A record's an IPv4 address, an AAAA's an IPv6 one, a TXT's quoted strings, an MX's `priority host`. */
function checkValues(rec: RecordSet, zone: Zone): void {
  for (const v of rec.values) {
    if (rec.type === 'A' && !isIPv4(v)) throw badValue('ARRDATAIllegalIPv4Address', 'Value is not a valid IPv4 address', v);
    if (rec.type === 'AAAA' && !isIPv6(v)) throw badValue('AAAARRDATAIllegalIPv6Address', 'Value is not a valid IPv6 address', v);
    if ((rec.type === 'TXT' || rec.type === 'SPF') && !/^(?:"(?:[^"\\]|\\.)*"\s*)+$/.test(v))
      throw badValue('InvalidCharacterString', 'Value should be enclosed in quotation marks', v);
    if (rec.type === 'MX' && !/^\d{1,5} \S+$/.test(v)) throw badValue('MXRRDATATooFewFields', 'Value should be of the form priority host', v);
  }
  if (rec.type === 'CNAME' && rec.values.length > 1)
    throw invalidBatch(`RRSet of type CNAME with DNS name ${rec.name} has more than one value; a CNAME has one`);
  // "You can't create a CNAME record at the zone apex" (ResourceRecordSet, Type).
  if (rec.type === 'CNAME' && rec.name === zone.name)
    throw invalidBatch(`RRSet of type CNAME with DNS name ${rec.name} is not permitted at apex in zone ${zone.name}`);
}

/** An alias to a record of this zone must name one that exists, of the same type. */
function checkAlias(rec: RecordSet, zone: Zone, records: readonly RecordSet[]): void {
  const alias = rec.alias;
  if (!alias || alias.hostedZoneId !== zone.id) return;
  if (!alias.dnsName.endsWith(zone.name))
    throw invalidBatch(
      `Tried to create an alias that targets ${alias.dnsName}, type ${rec.type} in zone ${zone.id}, but the alias target name does not lie within the ` +
        `target zone`,
    );
  if (!records.some((r) => r.name === alias.dnsName && r.type === rec.type))
    throw invalidBatch(`Tried to create an alias that targets ${alias.dnsName}, type ${rec.type} in zone ${zone.id}, but that target was not found`);
}

const sameValues = (a: RecordSet, b: RecordSet): boolean =>
  JSON.stringify([...a.values].sort()) === JSON.stringify([...b.values].sort()) &&
  a.ttl === b.ttl &&
  a.weight === b.weight &&
  JSON.stringify(a.alias) === JSON.stringify(b.alias);

function changeRecords(w: Route53World, zone: Zone, body: string): Reply {
  const doc = parser.parse(body) as {
    ChangeResourceRecordSetsRequest?: { ChangeBatch?: { Changes?: { Change?: Array<{ Action?: string; ResourceRecordSet?: RawRecord }> } } };
  };
  const changes = doc.ChangeResourceRecordSetsRequest?.ChangeBatch?.Changes?.Change ?? [];
  if (changes.length === 0) throw invalidInput('ChangeBatch must contain at least one change');
  // Atomic: validate every change against a copy, then commit.
  const records = zone.records.map((r) => ({ ...r }));
  changes.forEach((c, n) => {
    const action = c.Action ?? '';
    if (!['CREATE', 'DELETE', 'UPSERT'].includes(action))
      throw invalidInput(
        `1 validation error detected: Value '${action}' at 'changeBatch.changes.${n + 1}.member.action' failed to satisfy constraint: Member must ` +
          `satisfy enum value set: [CREATE, DELETE, UPSERT]`,
      );
    const rec = recordOf(c.ResourceRecordSet ?? {}, action, n + 1);
    if (!rec.name.endsWith(zone.name)) throw invalidBatch(`RRSet with DNS name ${rec.name} is not permitted in zone ${zone.name}`);
    if (action !== 'DELETE') {
      checkValues(rec, zone);
      checkAlias(rec, zone, records);
    }
    if (rec.healthCheckId && !w.healthChecks.has(rec.healthCheckId))
      throw new EmulatorError(400, 'NoSuchHealthCheck', `A health check with id ${rec.healthCheckId} does not exist.`);
    const same = (r: RecordSet) => r.name === rec.name && r.type === rec.type && (r.setIdentifier ?? '') === (rec.setIdentifier ?? '');
    const index = records.findIndex(same);
    const tried =
      `Tried to ${action === 'CREATE' ? 'create' : 'delete'} resource record set [name='${rec.name}', ` +
      `type='${rec.type}'${rec.setIdentifier ? `, set-identifier='${rec.setIdentifier}'` : ''}] but`;
    if (action === 'CREATE') {
      if (index >= 0) throw invalidBatch(`${tried} it already exists`);
      records.push(rec);
    } else if (action === 'UPSERT') {
      if (index >= 0) records[index] = rec;
      else records.push(rec);
    } else {
      const existing = records[index];
      if (!existing) throw invalidBatch(`${tried} it was not found`);
      if (!sameValues(existing, rec)) throw invalidBatch(`${tried} the values provided do not match the current values`);
      records.splice(index, 1);
    }
    if (rec.type === 'CNAME' && action !== 'DELETE' && records.some((r) => r.name === rec.name && r.type !== 'CNAME'))
      throw invalidBatch(
        `RRSet of type CNAME with DNS name ${rec.name} is not permitted as it conflicts with other records with the same DNS name in zone ${zone.name}`,
      );
    if (action !== 'DELETE' && rec.type !== 'CNAME' && records.some((r) => r.name === rec.name && r.type === 'CNAME'))
      throw invalidBatch(
        `RRSet of type ${rec.type} with DNS name ${rec.name} is not permitted because a conflicting RRSet of type CNAME with the same DNS name ` +
          `already exists in zone ${zone.name}`,
      );
  });
  zone.records = records;
  const change: Change = { id: `C${w.seq.next().toString(36).toUpperCase().padStart(12, '0')}`, submittedAt: w.now() };
  w.changes.set(change.id, change);
  return xml('ChangeResourceRecordSetsResponse', changeInfo(w, change));
}

/**
 * ListResourceRecordSets (https://docs.aws.amazon.com/Route53/latest/APIReference/API_ListResourceRecordSets.html):
 * "sorted by name with the labels reversed", records of one name by type; `name` (and `type`, `identifier`) says
 * where a page starts, in that same order; a `type` without a `name` is InvalidInput. Pages of at most 300.
 */
function listRecords(zone: Zone, q: URLSearchParams): Reply {
  const max = Math.min(300, Number(q.get('maxitems') ?? '300'));
  const order = (a: RecordSet, b: RecordSet): number =>
    compareNames(a.name, b.name) ||
    (a.type < b.type ? -1 : a.type > b.type ? 1 : 0) ||
    ((a.setIdentifier ?? '') < (b.setIdentifier ?? '') ? -1 : (a.setIdentifier ?? '') > (b.setIdentifier ?? '') ? 1 : 0);
  const sorted = [...zone.records].sort(order);
  const name = q.get('name');
  if (q.get('type') && !name) throw new EmulatorError(400, 'InvalidInput', 'The input is not valid: if you specify type, you must also specify name');
  let start = 0;
  if (name) {
    const identifier = q.get('identifier');
    const from: RecordSet = { name: fqdn(name), type: q.get('type') ?? '', values: [], ...(identifier ? { setIdentifier: identifier } : {}) };
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
      t('Weight', r.weight),
      t('Failover', r.failover),
      t('MultiValueAnswer', r.multiValue),
      t('TTL', r.ttl),
      r.alias ? '' : el('ResourceRecords', ...r.values.map((v) => el('ResourceRecord', t('Value', v)))),
      r.alias
        ? el(
            'AliasTarget',
            t('HostedZoneId', r.alias.hostedZoneId),
            t('DNSName', wireName(r.alias.dnsName)),
            t('EvaluateTargetHealth', r.alias.evaluateTargetHealth),
          )
        : '',
      t('HealthCheckId', r.healthCheckId),
    );
  return xml(
    'ListResourceRecordSetsResponse',
    el('ResourceRecordSets', ...page.map(recordXml)) +
      t('IsTruncated', next !== undefined) +
      t('MaxItems', max) +
      (next ? t('NextRecordName', wireName(next.name)) + t('NextRecordType', next.type) + t('NextRecordIdentifier', next.setIdentifier) : ''),
  );
}
