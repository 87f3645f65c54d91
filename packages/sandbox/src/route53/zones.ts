// Hosted zones: ListHostedZones, GetHostedZone, ListHostedZonesByName and GetHostedZoneCount. Zones are the account
// owner's (seeded): the API only reads them.
import { EmulatorError, type Reply } from '../emulator/index.js';
import { el, t } from '../xml.js';
import { xml } from './dialect.js';
import { compareNames, fqdn, reversedName, wireName } from './dns-names.js';
import type { Route53Route, Route53World, Zone } from './world.js';

export function zoneRoutes(w: Route53World): Route53Route[] {
  return [
    ['GET /hostedzone', (c) => listZones(w, c.query), { name: 'ListHostedZones' }],
    ['GET /hostedzone/{id}', (c) => getZone(zoneOf(w, c.params['id'] ?? '')), { name: 'GetHostedZone' }],
    ['GET /hostedzonesbyname', (c) => listZonesByName(w, c.query), { name: 'ListHostedZonesByName' }],
    // GetHostedZoneCount (https://docs.aws.amazon.com/Route53/latest/APIReference/API_GetHostedZoneCount.html).
    ['GET /hostedzonecount', () => xml('GetHostedZoneCountResponse', t('HostedZoneCount', w.zones.size)), { name: 'GetHostedZoneCount' }],
  ];
}

export function zoneOf(w: Route53World, id: string): Zone {
  return w.zones.require(id, () => new EmulatorError(404, 'NoSuchHostedZone', `No hosted zone found with ID: ${id}`));
}

function zoneXml(z: Zone): string {
  return el(
    'HostedZone',
    t('Id', `/hostedzone/${z.id}`),
    t('Name', wireName(z.name)),
    t('CallerReference', z.id),
    el('Config', t('PrivateZone', false)),
    t('ResourceRecordSetCount', z.records.length),
  );
}

/** GetHostedZone: the zone and its name servers, as its apex NS record lists them (the DelegationSet). */
function getZone(zone: Zone): Reply {
  const nameServers = zone.records.find((r) => r.name === zone.name && r.type === 'NS')?.values ?? [];
  return xml('GetHostedZoneResponse', zoneXml(zone) + el('DelegationSet', el('NameServers', ...nameServers.map((n) => t('NameServer', n.replace(/\.$/, ''))))));
}

/** `maxitems`: at most 100 for the hosted zone lists (API_ListHostedZones.html, "MaxItems"). */
function maxItems(q: URLSearchParams, limit: number): number {
  const raw = q.get('maxitems');
  const max = raw === null ? limit : Number(raw);
  if (!Number.isInteger(max) || max < 1)
    throw new EmulatorError(
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
function listZones(w: Route53World, q: URLSearchParams): Reply {
  const max = maxItems(q, 100);
  const zones = [...w.zones.values()];
  const marker = q.get('marker');
  let start = 0;
  if (marker !== null) {
    start = zones.findIndex((z) => z.id === marker.replace(/^\/hostedzone\//, ''));
    if (start < 0) throw new EmulatorError(400, 'InvalidInput', `Invalid marker: ${marker}`);
  }
  const page = zones.slice(start, start + max);
  const next = zones[start + max];
  return xml(
    'ListHostedZonesResponse',
    el('HostedZones', ...page.map(zoneXml)) + t('Marker', marker ?? '') + t('IsTruncated', next !== undefined) + t('NextMarker', next?.id) + t('MaxItems', max),
  );
}

/**
 * ListHostedZonesByName (https://docs.aws.amazon.com/Route53/latest/APIReference/API_ListHostedZonesByName.html):
 * zones sorted by name with the labels reversed, from `dnsname` on (and `hostedzoneid` among zones of that name);
 * a `hostedzoneid` without a `dnsname` is InvalidInput.
 */
function listZonesByName(w: Route53World, q: URLSearchParams): Reply {
  const max = maxItems(q, 100);
  const dns = q.get('dnsname') ? fqdn(q.get('dnsname') ?? '') : undefined;
  const fromId = q.get('hostedzoneid');
  if (fromId && !dns) throw new EmulatorError(400, 'InvalidInput', 'The input is not valid: hostedzoneid requires dnsname');
  const sorted = [...w.zones.values()].sort((a, b) => compareNames(a.name, b.name) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const zones = sorted.filter((z) => !dns || reversedName(z.name) > reversedName(dns) || (z.name === dns && (!fromId || z.id >= fromId)));
  const next = zones[max];
  return xml(
    'ListHostedZonesByNameResponse',
    el('HostedZones', ...zones.slice(0, max).map(zoneXml)) +
      t('DNSName', q.get('dnsname')) +
      t('HostedZoneId', fromId) +
      t('IsTruncated', next !== undefined) +
      (next ? t('NextDNSName', wireName(next.name)) + t('NextHostedZoneId', next.id) : '') +
      t('MaxItems', max),
  );
}
