// What EC2 offers, as the sandbox's catalog: the instance types (with their GPUs), the Regions that offer each, the
// Regions of the commercial partition with their opt-in rule and zones, and Canonical's Ubuntu images; all read from the
// dated, sourced snapshots in ../catalogs/aws/ (their refresh: ../catalogs/README.md).
import { createHash } from 'node:crypto';
import { type AwsRegion, awsInstanceTypesSnapshot, awsRegionsSnapshot, awsUbuntuImagesSnapshot, type Ec2InstanceType } from '../catalogs/aws/snapshot.js';
import { EmulatorError } from '../emulator/index.js';
import { el, items, t } from '../xml.js';

export type { AwsRegion, Ec2InstanceType } from '../catalogs/aws/snapshot.js';

/**
 * The instance types the EC2 emulator knows (DescribeInstanceTypes, RunInstances), with vCPUs, memory, architecture and
 * GPUs, from catalogs/aws/instance-types.json. A Region lists only those it offers (ec2TypeOfferedIn, which reads the
 * snapshot's Regions: the entries here carry none).
 */
export const EC2_INSTANCE_TYPES: readonly Ec2InstanceType[] = awsInstanceTypesSnapshot().types.map(({ regions: _regions, ...type }) => type);

/**
 * `gpuInfo` of DescribeInstanceTypes (EC2 API reference, GpuInfo and GpuDeviceInfo): the accelerators of a GPU type,
 * nothing for the others.
 */
export function gpuInfo(type: Ec2InstanceType): string {
  const g = type.gpu;
  if (!g) return '';
  const device = t('name', g.name) + t('manufacturer', g.manufacturer) + t('count', g.count) + el('memoryInfo', t('sizeInMiB', g.memoryMiB));
  return el('gpuInfo', items('gpus', [device], (d) => d) + t('totalGpuMemoryInMiB', g.count * g.memoryMiB));
}

/**
 * The Regions of AWS's commercial partition, whether an account must opt in to use them, and their zones
 * (catalogs/aws/regions.json): Regions launched before 20 March 2019 are enabled in every account, later ones are
 * disabled until the account enables them (https://docs.aws.amazon.com/accounts/latest/reference/manage-acct-regions.html).
 */
export const AWS_REGIONS: readonly AwsRegion[] = awsRegionsSnapshot().regions;

/** The Regions every account has enabled from the start: those that need no opt-in. */
export const AWS_DEFAULT_ENABLED_REGIONS: readonly string[] = AWS_REGIONS.filter((r) => !r.optIn).map((r) => r.name);

/** A Region of the snapshot by name. */
export function awsRegion(name: string): AwsRegion | undefined {
  return AWS_REGIONS.find((r) => r.name === name);
}

let regionsByType: ReadonlyMap<string, readonly string[]> | undefined;

/**
 * The Regions that offer an instance type: its own list where the snapshot gives one (a size some Regions of its family
 * do not sell), else its family's; none for a type the catalog does not know.
 */
function ec2TypeRegions(type: string): readonly string[] {
  regionsByType ??= new Map(
    awsInstanceTypesSnapshot().types.map((x) => [x.name, x.regions ?? awsInstanceTypesSnapshot().regions[x.name.split('.')[0] ?? ''] ?? []]),
  );
  return regionsByType.get(type) ?? [];
}

/**
 * The zones of `region` where an instance type is offered (DescribeInstanceTypeOfferings): every zone of a Region the
 * snapshot lists for the type (ec2TypeRegions), none elsewhere. AWS's per-zone subsets differ per account and are not
 * documented, so the catalog offers a type in every zone of a Region that has it; `override` (the `offerings` option of
 * an emulator: an explicit, narrower account) replaces that for the types it names.
 */
export function ec2TypeOfferedIn(type: string, region: string, zones: readonly string[], override?: Readonly<Record<string, readonly string[]>>): string[] {
  const given = override?.[type];
  if (given) return zones.filter((z) => given.includes(z));
  return ec2TypeRegions(type).includes(region) ? [...zones] : [];
}

/** An AMI as the emulator describes it. */
export interface Ec2Image {
  /** The AMI id (`ami-` and 17 hex digits). */
  id: string;
  /** The image's name, as Canonical names it. */
  name: string;
  /** Its architecture. */
  arch: 'x86_64' | 'arm64';
}

/** Canonical's AWS account, owner of the Ubuntu images. */
export const UBUNTU_IMAGE_OWNER: string = awsUbuntuImagesSnapshot().owner;

/**
 * The sandbox's id for Canonical's image `name` in `region`: AWS gives each Region its own id, which the snapshot could
 * not record (ubuntu-images.json, notes), so the sandbox makes a stable one of the Region and the name.
 */
export function sandboxImageId(region: string, name: string): string {
  return `ami-${createHash('sha256').update(`${region}/${name}`).digest('hex').slice(0, 17)}`;
}

const imagesByRegion = new Map<string, readonly Ec2Image[]>();

/** The Ubuntu images Canonical publishes in `region` (catalogs/aws/ubuntu-images.json), with the sandbox's ids. */
export function ec2ImagesIn(region: string): readonly Ec2Image[] {
  let images = imagesByRegion.get(region);
  if (!images) {
    images = awsUbuntuImagesSnapshot().images.map((i) => ({ id: sandboxImageId(region, i.name), name: i.name, arch: i.architecture }));
    imagesByRegion.set(region, images);
  }
  return images;
}

const AMI_ID = /^ami-[0-9a-f]{8}(?:[0-9a-f]{9})?$/;

/**
 * The image `id` names in `region`: one of Canonical's, or, for any other well-formed AMI id, an image the account
 * holds (a real account may own or be shared any AMI), of the instance type's architecture. A malformed id fails as on
 * AWS.
 */
export function imageFor(id: string, arch: 'x86_64' | 'arm64', region: string): Ec2Image {
  const listed = ec2ImagesIn(region).find((i) => i.id === id);
  if (listed) return listed;
  if (!AMI_ID.test(id)) throw new EmulatorError(400, 'InvalidAMIID.Malformed', `Invalid id: "${id}" (expecting "ami-...")`);
  return { id, name: `ubuntu/images/hvm-ssd-gp3/ubuntu-noble-24.04-${arch === 'arm64' ? 'arm64' : 'amd64'}-server (sandbox stand-in for ${id})`, arch };
}

/**
 * What DescribeImages reports of an image beyond its id, name and architecture (API_Image.html), as Canonical
 * registers its Ubuntu images: an EBS-backed HVM image on the Xen/Nitro hypervisor with ENA and SR-IOV, its root
 * /dev/sda1 an 8 GiB unencrypted snapshot of the volume type its name says (hvm-ssd-gp3: gp3, hvm-ssd: gp2) deleted with
 * the instance, and two instance-store slots (/dev/sdb, /dev/sdc as ephemeral0 and 1). Its creation date is the
 * name's serial (the build date, `…-server-20251212`); Canonical deprecates an image two years after it is made.
 * Graviton (arm64) boots UEFI only; Canonical's amd64 images of 23.04 and later boot either way (uefi-preferred),
 * 22.04's legacy BIOS. Canonical is no Amazon-owned account, so an image has no ImageOwnerAlias.
 */
export interface Ec2ImageDetails {
  creationDate: string;
  deprecationTime: string;
  description: string;
  rootDevice: string;
  rootSnapshotId: string;
  rootVolumeType: 'gp2' | 'gp3';
  rootSizeGiB: number;
  bootMode: 'uefi' | 'uefi-preferred' | 'legacy-bios';
  /** The image's location: its owner's account and its name. */
  location: string;
}

const UBUNTU_NAME = /ubuntu-([a-z]+)-(\d+\.\d+)-(amd64|arm64)-server(?:-(\d{8}))?/;

export function imageDetails(region: string, image: Ec2Image): Ec2ImageDetails {
  const [, codename = 'noble', version = '24.04', arch = 'amd64', serial] = UBUNTU_NAME.exec(image.name) ?? [];
  // A stand-in image (another id the account holds) has no serial: it takes the catalog's newest.
  const built = serial ?? newestSerial();
  const made = new Date(Date.UTC(Number(built.slice(0, 4)), Number(built.slice(4, 6)) - 1, Number(built.slice(6, 8))));
  const deprecated = new Date(made);
  deprecated.setUTCFullYear(made.getUTCFullYear() + 2);
  const major = Number(version.split('.')[0]);
  return {
    creationDate: made.toISOString(),
    deprecationTime: deprecated.toISOString(),
    description: `Canonical, Ubuntu, ${version}, ${arch} ${codename} image`,
    rootDevice: '/dev/sda1',
    rootSnapshotId: `snap-${createHash('sha256').update(`${region}/${image.id}/root`).digest('hex').slice(0, 17)}`,
    rootVolumeType: image.name.includes('hvm-ssd-gp3') ? 'gp3' : 'gp2',
    rootSizeGiB: 8,
    bootMode: image.arch === 'arm64' ? 'uefi' : major >= 23 ? 'uefi-preferred' : 'legacy-bios',
    location: `${UBUNTU_IMAGE_OWNER}/${image.name}`,
  };
}

function newestSerial(): string {
  const serials = awsUbuntuImagesSnapshot().images.map((i) => UBUNTU_NAME.exec(i.name)?.[4] ?? '');
  return serials.sort().at(-1) || '20240101';
}

/** A Region's short code as zone ids carry it: `eu-central-1` -> `euc1`, `ap-southeast-2` -> `apse2`. */
export function regionCode(region: string): string {
  const [area = '', direction = '', number = ''] = region.split('-');
  const short = direction.replace('central', 'c').replace('north', 'n').replace('south', 's').replace('east', 'e').replace('west', 'w');
  return `${area}${short}${number}`;
}

/** Escapes what XML text cannot hold as is (`&`, `<`). */
export function escapeText(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;');
}
