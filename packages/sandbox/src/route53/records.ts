// Record sets and their changes: ChangeResourceRecordSets (an atomic batch, failover and multivalue records with
// health checks), ListResourceRecordSets in Route 53's order with its paging, and GetChange (PENDING, then INSYNC).
import { EmulatorError, type Reply } from '../emulator/index.js';
import { LATENCY } from '../latency.js';
import { el, t } from '../xml.js';
import { parser, xml } from './dialect.js';
import { compareNames, fqdn, wireName } from './dns-names.js';
import type { Change, RecordSet, Route53Route, Route53World, Zone } from './world.js';
import { zoneOf } from './zones.js';

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
  Failover?: string;
  HealthCheckId?: string;
  MultiValueAnswer?: string;
  ResourceRecords?: { ResourceRecord?: Array<{ Value?: string }> };
};

function recordOf(raw: RawRecord): RecordSet {
  return {
    name: fqdn(raw.Name ?? ''),
    type: raw.Type ?? '',
    ...(raw.TTL ? { ttl: Number(raw.TTL) } : {}),
    values: (raw.ResourceRecords?.ResourceRecord ?? []).map((v) => v.Value ?? ''),
    ...(raw.SetIdentifier ? { setIdentifier: raw.SetIdentifier } : {}),
    ...(raw.Failover ? { failover: raw.Failover } : {}),
    ...(raw.HealthCheckId ? { healthCheckId: raw.HealthCheckId } : {}),
    ...(raw.MultiValueAnswer === 'true' ? { multiValue: true } : {}),
  };
}

function changeRecords(w: Route53World, zone: Zone, body: string): Reply {
  const doc = parser.parse(body) as {
    ChangeResourceRecordSetsRequest?: { ChangeBatch?: { Changes?: { Change?: Array<{ Action?: string; ResourceRecordSet?: RawRecord }> } } };
  };
  const changes = doc.ChangeResourceRecordSetsRequest?.ChangeBatch?.Changes?.Change ?? [];
  if (changes.length === 0) throw new EmulatorError(400, 'InvalidInput', 'ChangeBatch must contain at least one change');
  // Atomic: validate every change against a copy, then commit.
  const records = zone.records.map((r) => ({ ...r }));
  for (const c of changes) {
    const rec = recordOf(c.ResourceRecordSet ?? {});
    if (!rec.name.endsWith(zone.name))
      throw new EmulatorError(400, 'InvalidChangeBatch', `[RRSet with DNS name ${rec.name} is not permitted in zone ${zone.name}]`);
    if (!['A', 'AAAA', 'CNAME', 'TXT', 'NS', 'SOA', 'MX', 'SRV', 'CAA'].includes(rec.type))
      throw new EmulatorError(400, 'InvalidInput', `Invalid type ${rec.type}`);
    if ((rec.failover || rec.multiValue) && !rec.setIdentifier)
      throw new EmulatorError(400, 'InvalidInput', 'SetIdentifier is required for failover and multivalue records');
    if (rec.healthCheckId && !w.healthChecks.has(rec.healthCheckId))
      throw new EmulatorError(400, 'NoSuchHealthCheck', `A health check with id ${rec.healthCheckId} does not exist.`);
    const same = (r: RecordSet) => r.name === rec.name && r.type === rec.type && (r.setIdentifier ?? '') === (rec.setIdentifier ?? '');
    const index = records.findIndex(same);
    const action = c.Action;
    const tried = `[Tried to ${action === 'CREATE' ? 'create' : 'delete'} resource record set [name='${rec.name}', type='${rec.type}'] but`;
    if (action === 'CREATE') {
      if (index >= 0) throw new EmulatorError(400, 'InvalidChangeBatch', `${tried} it already exists]`);
      records.push(rec);
    } else if (action === 'UPSERT') {
      if (index >= 0) records[index] = rec;
      else records.push(rec);
    } else if (action === 'DELETE') {
      const existing = records[index];
      if (!existing) throw new EmulatorError(400, 'InvalidChangeBatch', `${tried} it was not found]`);
      if (JSON.stringify([...existing.values].sort()) !== JSON.stringify([...rec.values].sort()) || existing.ttl !== rec.ttl)
        throw new EmulatorError(400, 'InvalidChangeBatch', `${tried} the values provided do not match the current values]`);
      records.splice(index, 1);
    } else {
      throw new EmulatorError(400, 'InvalidInput', `Invalid action ${String(action)}`);
    }
    if (rec.type === 'CNAME' && action !== 'DELETE' && records.some((r) => r.name === rec.name && r.type !== 'CNAME'))
      throw new EmulatorError(
        400,
        'InvalidChangeBatch',
        `[RRSet of type CNAME with DNS name ${rec.name} is not permitted as it conflicts with other records with the same DNS name in zone ${zone.name}]`,
      );
  }
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
      t('Failover', r.failover),
      t('MultiValueAnswer', r.multiValue),
      t('TTL', r.ttl),
      el('ResourceRecords', ...r.values.map((v) => el('ResourceRecord', t('Value', v)))),
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
