// What a Region offers, as the Describe* actions of the catalog answer it: DescribeImages, DescribeInstanceTypes,
// DescribeInstanceTypeOfferings, DescribeRegions and DescribeAvailabilityZones.
import { EmulatorError } from '../emulator/index.js';
import { el, items, queryList, t } from '../xml.js';
import { AWS_REGIONS, EC2_IMAGES, EC2_INSTANCE_TYPES, escapeText, gpuInfo, imageFor } from './catalog.js';
import { type Ec2Routes, type Query, result } from './dialect.js';
import { filterMatches, filtersOf, KNOWN_FILTERS, offsetPage } from './filters.js';
import { IMAGE_OWNER } from './resources.js';
import type { Ec2World } from './world.js';

function describeImages(p: Query): string {
  const ids = queryList(p, 'ImageId');
  const found = ids.length === 0 ? [...EC2_IMAGES] : ids.map((id) => imageFor(id, 'x86_64')).filter((i): i is NonNullable<typeof i> => i !== undefined);
  if (ids.length > 0 && found.length < ids.length) throw new EmulatorError(400, 'InvalidAMIID.NotFound', `The image id '[${ids.join(', ')}]' does not exist`);
  return items(
    'imagesSet',
    found,
    (i) =>
      t('imageId', i.id) +
      t('imageLocation', `${IMAGE_OWNER}/${i.name}`) +
      t('imageState', 'available') +
      t('imageOwnerId', IMAGE_OWNER) +
      t('isPublic', true) +
      t('architecture', i.arch) +
      t('imageType', 'machine') +
      t('name', i.name) +
      t('rootDeviceType', 'ebs') +
      t('virtualizationType', 'hvm'),
  );
}

function describeInstanceTypes(w: Ec2World, p: Query): string {
  // "By default, all instance types for the current Region are described" (EC2 API reference, DescribeInstanceTypes).
  const names = queryList(p, 'InstanceType');
  const found = EC2_INSTANCE_TYPES.filter((x) => (names.length === 0 || names.includes(x.name)) && w.offeredZones(x.name).length > 0);
  if (names.length > 0 && found.length < names.length)
    throw new EmulatorError(
      400,
      'InvalidInstanceType',
      `The following supplied instance types do not exist: [${names.filter((n) => !found.some((f) => f.name === n)).join(', ')}]`,
    );
  const page = offsetPage(found, p, 100);
  return (
    items(
      'instanceTypeSet',
      page.items,
      (x) =>
        t('instanceType', x.name) +
        el('vCpuInfo', t('defaultVCpus', x.vcpus)) +
        el('memoryInfo', t('sizeInMiB', x.memoryMiB)) +
        el(
          'processorInfo',
          items('supportedArchitectures', [x.arch], (a) => escapeText(a)),
        ) +
        gpuInfo(x),
    ) + t('nextToken', page.next)
  );
}

/**
 * DescribeInstanceTypeOfferings (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_DescribeInstanceTypeOfferings.html):
 * per `LocationType` (region by default, availability-zone, availability-zone-id) the types offered there, filtered by
 * `location` and `instance-type`; a location of another Region matches nothing. At most 1000 per page.
 */
function describeOfferings(w: Ec2World, p: Query): string {
  const locationType = p.get('LocationType') ?? 'region';
  if (!['region', 'availability-zone', 'availability-zone-id'].includes(locationType))
    throw new EmulatorError(
      400,
      'InvalidParameterValue',
      `Value (${locationType}) for parameter locationType is invalid. Valid values: region, availability-zone, availability-zone-id, outpost.`,
    );
  const offerings = EC2_INSTANCE_TYPES.flatMap((x) => {
    const zones = w.offeredZones(x.name);
    if (locationType === 'region') return zones.length > 0 ? [{ type: x.name, location: w.region }] : [];
    return zones.map((z) => ({ type: x.name, location: locationType === 'availability-zone' ? z : w.zoneId(z) }));
  });
  const filters = filtersOf(p, KNOWN_FILTERS.DescribeInstanceTypeOfferings);
  const found = offerings.filter((o) => filters.every((f) => filterMatches(f, [f.name === 'location' ? o.location : o.type])));
  const page = offsetPage(found, p, 1000);
  return (
    items('instanceTypeOfferingSet', page.items, (o) => t('instanceType', o.type) + t('locationType', locationType) + t('location', o.location)) +
    t('nextToken', page.next)
  );
}

/**
 * DescribeRegions (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_DescribeRegions.html): the Regions
 * enabled for the account, or with `AllRegions=true` every Region with its `optInStatus`; `RegionName.N` may name
 * any Region, enabled or not, and a name that is no Region is `InvalidParameterValue`.
 */
function describeRegions(w: Ec2World, p: Query): string {
  const enabled = new Set(w.options.accountRegions ?? [w.region]);
  // On AWS a Region that needs no opt-in is always enabled; the sandbox account has only the Regions the sandbox serves
  // enabled (it cannot answer for others), so the rest read as not-opted-in, which is what preflight must catch.
  const listed = [...AWS_REGIONS, ...[...enabled].filter((n) => !AWS_REGIONS.some((r) => r.name === n)).map((name) => ({ name, optIn: false }))].map((r) => ({
    name: r.name,
    status: !enabled.has(r.name) ? 'not-opted-in' : r.optIn ? 'opted-in' : 'opt-in-not-required',
  }));
  const names = queryList(p, 'RegionName');
  const unknown = names.find((n) => !listed.some((r) => r.name === n));
  if (unknown !== undefined) throw new EmulatorError(400, 'InvalidParameterValue', `Invalid region: ${unknown}`);
  const filters = filtersOf(p, KNOWN_FILTERS.DescribeRegions);
  const attr = (r: { name: string; status: string }, name: string): string =>
    name === 'region-name' ? r.name : name === 'opt-in-status' ? r.status : `ec2.${r.name}.amazonaws.com`;
  const found = listed.filter(
    (r) =>
      (names.length > 0 ? names.includes(r.name) : p.get('AllRegions') === 'true' || r.status !== 'not-opted-in') &&
      filters.every((f) => filterMatches(f, [attr(r, f.name)])),
  );
  return items('regionInfo', found, (r) => t('regionName', r.name) + t('regionEndpoint', `ec2.${r.name}.amazonaws.com`) + t('optInStatus', r.status));
}

/**
 * DescribeAvailabilityZones (API_DescribeAvailabilityZones.html): by ZoneName.N / ZoneId.N, an unknown one being
 * InvalidParameterValue, and by the filters the reference lists.
 */
function describeZones(w: Ec2World, p: Query): string {
  const names = queryList(p, 'ZoneName');
  const zoneIds = queryList(p, 'ZoneId');
  const unknown = names.find((n) => !w.zones.includes(n)) ?? zoneIds.find((z) => !w.zones.some((n) => w.zoneId(n) === z));
  if (unknown !== undefined) throw new EmulatorError(400, 'InvalidParameterValue', `The zone '${unknown}' does not exist.`);
  const filters = filtersOf(p, KNOWN_FILTERS.DescribeAvailabilityZones);
  const attr = (z: string, name: string): string =>
    name === 'zone-name' ? z : name === 'zone-id' ? w.zoneId(z) : name === 'region-name' ? w.region : name === 'state' ? 'available' : 'availability-zone';
  const zones = w.zones.filter(
    (z) =>
      (names.length === 0 || names.includes(z)) &&
      (zoneIds.length === 0 || zoneIds.includes(w.zoneId(z))) &&
      filters.every((f) => filterMatches(f, [attr(z, f.name)])),
  );
  return items(
    'availabilityZoneInfo',
    zones,
    (z) =>
      t('zoneName', z) +
      t('zoneState', 'available') +
      t('regionName', w.region) +
      t('zoneId', w.zoneId(z)) +
      t('zoneType', 'availability-zone') +
      t('groupName', w.region) +
      t('networkBorderGroup', w.region) +
      t('optInStatus', 'opt-in-not-required'),
  );
}

export function catalogRoutes(w: Ec2World): Ec2Routes {
  return [
    ['DescribeImages', ({ body }) => result(describeImages(body))],
    ['DescribeInstanceTypes', ({ body }) => result(describeInstanceTypes(w, body))],
    ['DescribeInstanceTypeOfferings', ({ body }) => result(describeOfferings(w, body))],
    ['DescribeRegions', ({ body }) => result(describeRegions(w, body))],
    ['DescribeAvailabilityZones', ({ body }) => result(describeZones(w, body))],
  ];
}
