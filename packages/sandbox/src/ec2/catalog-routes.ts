// What a Region offers, as the Describe* actions of the catalog answer it: DescribeImages, DescribeInstanceTypes,
// DescribeInstanceTypeOfferings, DescribeRegions and DescribeAvailabilityZones.
import { notEmulatedMessage } from '../aws-not-emulated.js';
import { EmulatorError } from '../emulator/index.js';
import { OWNER } from './resources.js';
import { el, items, queryList, t } from '../xml.js';
import {
  AWS_DEFAULT_ENABLED_REGIONS,
  AWS_REGIONS,
  EC2_INSTANCE_TYPES,
  type Ec2Image,
  type Ec2InstanceType,
  ec2ImagesIn,
  escapeText,
  gpuInfo,
  imageDetails,
  imageFor,
  UBUNTU_IMAGE_OWNER,
} from './catalog.js';
import { type Ec2Routes, type Query, result } from './dialect.js';
import { filterMatches, filtersOf, offsetPage } from './filters.js';
import type { Ec2World } from './world.js';

/** An image's values for each filter of DescribeImages (its own elements, as imageXml writes them). */
function imageAttr(region: string, i: Ec2Image, name: string): string[] {
  const d = imageDetails(region, i);
  switch (name) {
    case 'architecture':
      return [i.arch];
    case 'block-device-mapping.delete-on-termination':
      return ['true'];
    case 'block-device-mapping.device-name':
      return [d.rootDevice, ...EPHEMERAL.map((e) => e.device)];
    case 'block-device-mapping.snapshot-id':
      return [d.rootSnapshotId];
    case 'block-device-mapping.volume-size':
      return [String(d.rootSizeGiB)];
    case 'block-device-mapping.volume-type':
      return [d.rootVolumeType];
    case 'block-device-mapping.encrypted':
      return ['false'];
    case 'creation-date':
      return [d.creationDate];
    case 'description':
      return [d.description];
    case 'ena-support':
      return ['true'];
    case 'hypervisor':
      return ['xen'];
    case 'image-id':
      return [i.id];
    case 'image-type':
      return ['machine'];
    case 'is-public':
      return ['true'];
    case 'manifest-location':
      return [d.location];
    case 'name':
      return [i.name];
    case 'owner-id':
      return [UBUNTU_IMAGE_OWNER];
    case 'root-device-name':
      return [d.rootDevice];
    case 'root-device-type':
      return ['ebs'];
    case 'state':
      return ['available'];
    case 'sriov-net-support':
      return ['simple'];
    case 'virtualization-type':
      return ['hvm'];
    // No owner alias (Canonical is not Amazon), platform (Linux), kernel, ramdisk, product code, state reason or tag.
    default:
      return [];
  }
}

/** The instance-store slots Canonical's images map (instances of types without instance storage ignore them). */
const EPHEMERAL = [
  { device: '/dev/sdb', virtualName: 'ephemeral0' },
  { device: '/dev/sdc', virtualName: 'ephemeral1' },
];

function imageXml(region: string, i: Ec2Image): string {
  const d = imageDetails(region, i);
  return (
    t('imageId', i.id) +
    t('imageLocation', d.location) +
    t('imageState', 'available') +
    t('imageOwnerId', UBUNTU_IMAGE_OWNER) +
    t('creationDate', d.creationDate) +
    t('isPublic', true) +
    t('architecture', i.arch) +
    t('imageType', 'machine') +
    t('platformDetails', 'Linux/UNIX') +
    t('usageOperation', 'RunInstances') +
    t('name', i.name) +
    t('description', d.description) +
    t('rootDeviceType', 'ebs') +
    t('rootDeviceName', d.rootDevice) +
    items(
      'blockDeviceMapping',
      [d.rootDevice, ...EPHEMERAL.map((e) => e.device)],
      (device) =>
        t('deviceName', device) +
        (device === d.rootDevice
          ? el(
              'ebs',
              t('snapshotId', d.rootSnapshotId),
              t('volumeSize', d.rootSizeGiB),
              t('deleteOnTermination', true),
              t('volumeType', d.rootVolumeType),
              t('encrypted', false),
            )
          : t('virtualName', EPHEMERAL.find((e) => e.device === device)?.virtualName)),
    ) +
    t('virtualizationType', 'hvm') +
    t('hypervisor', 'xen') +
    t('enaSupport', true) +
    t('sriovNetSupport', 'simple') +
    t('bootMode', d.bootMode) +
    t('deprecationTime', d.deprecationTime)
  );
}

/**
 * DescribeImages (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_DescribeImages.html): by `ImageId.N`, any
 * well-formed id (Canonical's in the Region, or one the account holds); else the images of the owners asked for
 * (`Owner.N`: an account id, or `self`, `amazon`, `aws-marketplace`): the sandbox's public images are Canonical's Ubuntu
 * images of the Region (catalogs/aws/ubuntu-images.json), and the account owns none. Then the filters; an image past
 * its DeprecationTime only by id or with IncludeDeprecated, as the reference says.
 */
function describeImages(w: Ec2World, p: Query): string {
  const ids = queryList(p, 'ImageId');
  const owners = queryList(p, 'Owner');
  const filters = filtersOf(p, 'DescribeImages');
  // The catalog holds Canonical's images and the account owns none: the images of any other owner (Amazon's, the
  // Marketplace's, another account's public ones) exist on AWS but not in the sandbox, so asking for them is refused
  // rather than answered with none.
  const unknown = owners.find((o) => o !== UBUNTU_IMAGE_OWNER && o !== 'self' && o !== OWNER);
  if (unknown !== undefined)
    throw new EmulatorError(
      400,
      'UnsupportedOperation',
      notEmulatedMessage(`the images of owner '${unknown}' (its catalog holds Canonical's, ${UBUNTU_IMAGE_OWNER})`),
    );
  const byOwner = owners.length === 0 || owners.includes(UBUNTU_IMAGE_OWNER);
  const listed =
    ids.length > 0
      ? ids.map((id) => imageFor(id, 'x86_64', w.region))
      : ec2ImagesIn(w.region).filter((i) => p.get('IncludeDeprecated') === 'true' || Date.parse(imageDetails(w.region, i).deprecationTime) > w.now());
  const found = listed.filter((i) => byOwner && filters.every((f) => filterMatches(f, imageAttr(w.region, i, f.name))));
  return items('imagesSet', found, (i) => imageXml(w.region, i));
}

/** A `.metal` size is a bare metal type (https://docs.aws.amazon.com/ec2/latest/instancetypes/instance-type-names.html). */
const bareMetal = (x: Ec2InstanceType): boolean => x.name.split('.')[1]?.startsWith('metal') === true;
/** The burstable performance types are the T families (https://docs.aws.amazon.com/ec2/latest/instancetypes/gp.html#burstable-performance-instances). */
const burstable = (x: Ec2InstanceType): boolean => /^t\d/.test(x.name);

function instanceTypeAttr(x: Ec2InstanceType, name: string): string[] {
  switch (name) {
    case 'instance-type':
      return [x.name];
    case 'vcpu-info.default-vcpus':
      return [String(x.vcpus)];
    case 'memory-info.size-in-mib':
      return [String(x.memoryMiB)];
    case 'processor-info.supported-architecture':
      return [x.architecture];
    case 'bare-metal':
      return [String(bareMetal(x))];
    case 'burstable-performance-supported':
      return [String(burstable(x))];
    default:
      return [];
  }
}

function describeInstanceTypes(w: Ec2World, p: Query): string {
  // "By default, all instance types for the current Region are described" (EC2 API reference, DescribeInstanceTypes).
  const names = queryList(p, 'InstanceType');
  const offered = EC2_INSTANCE_TYPES.filter((x) => (names.length === 0 || names.includes(x.name)) && w.offeredZones(x.name).length > 0);
  if (names.length > 0 && offered.length < names.length)
    throw new EmulatorError(
      400,
      'InvalidInstanceType',
      `The following supplied instance types do not exist: [${names.filter((n) => !offered.some((f) => f.name === n)).join(', ')}]`,
    );
  const filters = filtersOf(p, 'DescribeInstanceTypes');
  const found = offered.filter((x) => filters.every((f) => filterMatches(f, instanceTypeAttr(x, f.name))));
  const page = offsetPage(found, p, 100);
  return (
    items(
      'instanceTypeSet',
      page.items,
      (x) =>
        t('instanceType', x.name) +
        t('bareMetal', bareMetal(x)) +
        t('burstablePerformanceSupported', burstable(x)) +
        el('vCpuInfo', t('defaultVCpus', x.vcpus)) +
        el('memoryInfo', t('sizeInMiB', x.memoryMiB)) +
        el(
          'processorInfo',
          items('supportedArchitectures', [x.architecture], (a) => escapeText(a)),
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
  const filters = filtersOf(p, 'DescribeInstanceTypeOfferings');
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
  // The account's Regions: by default those that need no opt-in, as in every new account (catalogs/aws/regions.json).
  const enabled = new Set(w.options.accountRegions ?? AWS_DEFAULT_ENABLED_REGIONS);
  const listed = [...AWS_REGIONS, ...[...enabled].filter((n) => !AWS_REGIONS.some((r) => r.name === n)).map((name) => ({ name, optIn: false }))].map((r) => ({
    name: r.name,
    status: !enabled.has(r.name) ? 'not-opted-in' : r.optIn ? 'opted-in' : 'opt-in-not-required',
  }));
  const names = queryList(p, 'RegionName');
  const unknown = names.find((n) => !listed.some((r) => r.name === n));
  if (unknown !== undefined) throw new EmulatorError(400, 'InvalidParameterValue', `Invalid region: ${unknown}`);
  const filters = filtersOf(p, 'DescribeRegions');
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
  const filters = filtersOf(p, 'DescribeAvailabilityZones');
  // The zones' own values; a zone of this kind has no parent zone and no message (those are Local and Wavelength Zones').
  const attr = (z: string, name: string): string[] => {
    const values: Record<string, string> = {
      'zone-name': z,
      'zone-id': w.zoneId(z),
      'region-name': w.region,
      'group-name': w.region,
      'opt-in-status': 'opt-in-not-required',
      state: 'available',
      'zone-type': 'availability-zone',
    };
    const v = values[name];
    return v === undefined ? [] : [v];
  };
  const zones = w.zones.filter(
    (z) =>
      (names.length === 0 || names.includes(z)) &&
      (zoneIds.length === 0 || zoneIds.includes(w.zoneId(z))) &&
      filters.every((f) => filterMatches(f, attr(z, f.name))),
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
    ['DescribeImages', ({ body }) => result(describeImages(w, body))],
    ['DescribeInstanceTypes', ({ body }) => result(describeInstanceTypes(w, body))],
    ['DescribeInstanceTypeOfferings', ({ body }) => result(describeOfferings(w, body))],
    ['DescribeRegions', ({ body }) => result(describeRegions(w, body))],
    ['DescribeAvailabilityZones', ({ body }) => result(describeZones(w, body))],
  ];
}
