// The AWS catalog snapshots (regions.json, instance-types.json, ubuntu-images.json beside this file): what AWS offers,
// as of each file's date and from the public sources each names. The EC2 emulator answers from these and nothing else.
import { readSnapshot, type SnapshotHeader } from '../snapshot-file.js';

/** A Region of the commercial partition: whether accounts must opt in, and its zones with their AZ IDs. */
export interface AwsRegion {
  /** The Region's code (`eu-central-1`). */
  name: string;
  /** Whether an account must enable it first (a Region launched since 20 March 2019). */
  optIn: boolean;
  /** Its availability zones: name (`eu-central-1a`) and AZ ID (`euc1-az1`). */
  zones: Array<{ name: string; id: string }>;
}

/** An instance type as DescribeInstanceTypes reports it: default vCPUs, memory, architecture, GPUs. */
export interface Ec2InstanceType {
  /** The type's name (`g4dn.xlarge`). */
  name: string;
  /** Default vCPUs (VCpuInfo.DefaultVCpus). */
  vcpus: number;
  /** Memory in MiB (MemoryInfo.SizeInMiB). */
  memoryMiB: number;
  /** The processor architecture. */
  architecture: 'x86_64' | 'arm64';
  /** The accelerators: `count` GPUs of one model, each with `memoryMiB`. */
  gpu?: { count: number; manufacturer: string; name: string; memoryMiB: number };
}

export interface AwsRegionsSnapshot extends SnapshotHeader {
  regions: AwsRegion[];
}

/** An instance type of the snapshot: as DescribeInstanceTypes reports it, and its Regions where they are not its family's. */
export interface AwsInstanceTypeEntry extends Ec2InstanceType {
  /**
   * The Regions whose offerings list this type, given only where they differ from its family's (p5.4xlarge is not sold
   * in every Region that sells p5.48xlarge); without it, the type is offered wherever its family is.
   */
  regions?: string[];
}

export interface AwsInstanceTypesSnapshot extends SnapshotHeader {
  /** Per family (`g4dn`), the Regions that offer at least one of its types. */
  regions: Record<string, string[]>;
  types: AwsInstanceTypeEntry[];
}

export interface AwsUbuntuImagesSnapshot extends SnapshotHeader {
  /** Canonical's AWS account, which owns the images. */
  owner: string;
  images: Array<{ name: string; architecture: 'x86_64' | 'arm64' }>;
}

let regions: AwsRegionsSnapshot | undefined;
let types: AwsInstanceTypesSnapshot | undefined;
let images: AwsUbuntuImagesSnapshot | undefined;

/** The Regions snapshot (read once). */
export function awsRegionsSnapshot(): AwsRegionsSnapshot {
  regions ??= readSnapshot<AwsRegionsSnapshot>('aws', 'regions.json');
  return regions;
}

/** The instance types snapshot (read once). */
export function awsInstanceTypesSnapshot(): AwsInstanceTypesSnapshot {
  types ??= readSnapshot<AwsInstanceTypesSnapshot>('aws', 'instance-types.json');
  return types;
}

/** The Ubuntu images snapshot (read once). */
export function awsUbuntuImagesSnapshot(): AwsUbuntuImagesSnapshot {
  images ??= readSnapshot<AwsUbuntuImagesSnapshot>('aws', 'ubuntu-images.json');
  return images;
}
