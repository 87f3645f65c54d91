// What EC2 offers in a Region, as the sandbox's catalog: the instance types (with their GPUs), where each is offered,
// the Regions of the commercial partition with their opt-in rule, and the Ubuntu images.
import { EmulatorError } from '../emulator/index.js';
import { el, items, t } from '../xml.js';

/**
 * The instance types the EC2 emulator offers (DescribeInstanceTypes, RunInstances), with vCPUs, memory, architecture and
 * GPUs.
 */
export const EC2_INSTANCE_TYPES = [
  { name: 't3.micro', vcpus: 2, memoryMiB: 1024, arch: 'x86_64' },
  { name: 't3.small', vcpus: 2, memoryMiB: 2048, arch: 'x86_64' },
  { name: 't3.medium', vcpus: 2, memoryMiB: 4096, arch: 'x86_64' },
  { name: 't3.large', vcpus: 2, memoryMiB: 8192, arch: 'x86_64' },
  { name: 't3.xlarge', vcpus: 4, memoryMiB: 16384, arch: 'x86_64' },
  { name: 't4g.medium', vcpus: 2, memoryMiB: 4096, arch: 'arm64' },
  { name: 'm6i.large', vcpus: 2, memoryMiB: 8192, arch: 'x86_64' },
  { name: 'm6i.xlarge', vcpus: 4, memoryMiB: 16384, arch: 'x86_64' },
  { name: 'm7g.large', vcpus: 2, memoryMiB: 8192, arch: 'arm64' },
  { name: 'c6i.large', vcpus: 2, memoryMiB: 4096, arch: 'x86_64' },
  { name: 'c6i.xlarge', vcpus: 4, memoryMiB: 8192, arch: 'x86_64' },
  { name: 'c6i.2xlarge', vcpus: 8, memoryMiB: 16384, arch: 'x86_64' },
  { name: 'r6i.large', vcpus: 2, memoryMiB: 16384, arch: 'x86_64' },
  // One NVIDIA A10G with 24 GiB (https://aws.amazon.com/ec2/instance-types/g5/); DescribeInstanceTypes reports it as gpuInfo.
  { name: 'g5.xlarge', vcpus: 4, memoryMiB: 16384, arch: 'x86_64', gpu: { count: 1, manufacturer: 'NVIDIA', name: 'A10G', memoryMiB: 24576 } },
] as const;

/**
 * `gpuInfo` of DescribeInstanceTypes (EC2 API reference, GpuInfo and GpuDeviceInfo): the accelerators of a GPU type,
 * nothing for the others.
 */
export function gpuInfo(type: (typeof EC2_INSTANCE_TYPES)[number]): string {
  if (!('gpu' in type)) return '';
  const g = type.gpu;
  const device = t('name', g.name) + t('manufacturer', g.manufacturer) + t('count', g.count) + el('memoryInfo', t('sizeInMiB', g.memoryMiB));
  return el('gpuInfo', items('gpus', [device], (d) => d) + t('totalGpuMemoryInMiB', g.count * g.memoryMiB));
}

/**
 * The Regions of AWS's commercial partition and whether an account must opt in to use them: Regions launched before
 * 20 March 2019 are enabled by default, later ones are disabled until the account enables them
 * (https://docs.aws.amazon.com/global-infrastructure/latest/regions/aws-regions.html, "Region opt-in"). DescribeRegions
 * with AllRegions lists them all; the sandbox account has the Regions the sandbox serves enabled, and no other.
 */
export const AWS_REGIONS: ReadonlyArray<{ name: string; optIn: boolean }> = [
  ...[
    'us-east-1',
    'us-east-2',
    'us-west-1',
    'us-west-2',
    'ca-central-1',
    'sa-east-1',
    'eu-central-1',
    'eu-west-1',
    'eu-west-2',
    'eu-west-3',
    'eu-north-1',
    'ap-northeast-1',
    'ap-northeast-2',
    'ap-northeast-3',
    'ap-southeast-1',
    'ap-southeast-2',
    'ap-south-1',
  ].map((name) => ({ name, optIn: false })),
  ...[
    'af-south-1',
    'ap-east-1',
    'ap-east-2',
    'ap-south-2',
    'ap-southeast-3',
    'ap-southeast-4',
    'ap-southeast-5',
    'ap-southeast-7',
    'ca-west-1',
    'eu-central-2',
    'eu-south-1',
    'eu-south-2',
    'il-central-1',
    'me-central-1',
    'me-south-1',
    'mx-central-1',
  ].map((name) => ({ name, optIn: true })),
];

/**
 * The zone letters of a Region where an instance type is offered (DescribeInstanceTypeOfferings). On AWS the newer and
 * GPU families are offered in fewer Regions and fewer zones than general-purpose ones (the offerings differ per account
 * and zone: https://docs.aws.amazon.com/ec2/latest/instancetypes/ec2-instance-regions.html); the sandbox's invented
 * but same-shaped rule: g5 (GPU) only in zones a and b of four Regions, everything else in every zone.
 */
const SPARSE_OFFERINGS: Record<string, { regions: readonly string[]; zones: readonly string[] }> = {
  'g5.xlarge': { regions: ['us-east-1', 'us-west-2', 'eu-central-1', 'eu-west-1'], zones: ['a', 'b'] },
};

export function ec2TypeOfferedIn(type: string, region: string, zones: readonly string[]): string[] {
  const sparse = SPARSE_OFFERINGS[type];
  if (!sparse) return [...zones];
  if (!sparse.regions.includes(region)) return [];
  return zones.filter((z) => sparse.zones.includes(z.slice(region.length)));
}

/**
 * The Ubuntu images the EC2 emulator lists; any other well-formed AMI id stands for an Ubuntu image of the type's
 * architecture.
 */
export const EC2_IMAGES = [
  { id: 'ami-0ubuntu2404amd64', name: 'ubuntu/images/hvm-ssd-gp3/ubuntu-noble-24.04-amd64-server-20260101', arch: 'x86_64' },
  { id: 'ami-0ubuntu2404arm64', name: 'ubuntu/images/hvm-ssd-gp3/ubuntu-noble-24.04-arm64-server-20260101', arch: 'arm64' },
  { id: 'ami-0ubuntu2204amd64', name: 'ubuntu/images/hvm-ssd/ubuntu-jammy-22.04-amd64-server-20260101', arch: 'x86_64' },
] as const;

const AMI_ID = /^ami-[0-9a-f]{8}(?:[0-9a-f]{9})?$/;

/**
 * The sandbox cannot know a user's AMIs, which differ per account and region: any well-formed AMI id it does
 * not list stands for a public Ubuntu image of the instance type's architecture. A malformed id fails as on AWS.
 */
export function imageFor(id: string, arch: string): { id: string; name: string; arch: string } | undefined {
  const listed = EC2_IMAGES.find((i) => i.id === id);
  if (listed) return listed;
  if (!AMI_ID.test(id)) throw new EmulatorError(400, 'InvalidAMIID.Malformed', `Invalid id: "${id}" (expecting "ami-...")`);
  return { id, name: `ubuntu/images/hvm-ssd-gp3/ubuntu-noble-24.04-${arch === 'arm64' ? 'arm64' : 'amd64'}-server (sandbox stand-in for ${id})`, arch };
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
