// The EC2 Query API emulator (form-encoded requests, XML responses, real error codes): instances with
// ClientToken idempotency and eventual consistency, VPC/subnet/internet gateway/route table, security groups,
// Elastic IPs, key pairs, images, instance types and zones; EC2's request buckets per action category.
import { createHash } from 'node:crypto';
import { http, HttpResponse, type HttpHandler } from 'msw';
import { TokenBucket, RATE_LIMITS, type TokenBucketState } from '@kubeplane/sdk';
import { type SandboxContext, countCall, requestId } from '../context.js';
import type { InventoryItem } from '../inventory.js';
import type { SandboxVm, SandboxVmSource } from '../kubernetes/vm-source.js';
import { LATENCY, sample } from '../latency.js';
import { el, items, queryList, queryMembers, t, tagsFor } from '../xml.js';
import { verifySigV4 } from '../sigv4.js';
import type { AwsKeyring } from '../sts/emulator.js';
import { sandboxPublicAddress } from '../public-addresses.js';
import { AwsCallAudit, type AwsCallListener, type AwsCallResource } from '../aws-calls.js';
import { Ec2Error } from './errors.js';
import { filterMatches, filtersOf, KNOWN_FILTERS } from './filters.js';
import { createTags, deleteTags, describeTags, type Taggable } from './tags.js';
import { checkIdShape, notFound, requireIds, type Ec2IdKind } from './ids.js';

const XMLNS = 'http://ec2.amazonaws.com/doc/2016-11-15/';
const OWNER = '123456789012';
/** Canonical's account: the owner of every image the emulator serves (Ubuntu's AMIs). */
const IMAGE_OWNER = '099720109477';
const CLUSTER_TAG = 'kubeplane.dev/cluster-id';
const USER_DATA_LIMIT = 16 * 1024;

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
function gpuInfo(type: (typeof EC2_INSTANCE_TYPES)[number]): string {
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

function ec2TypeOfferedIn(type: string, region: string, zones: readonly string[]): string[] {
  const sparse = SPARSE_OFFERINGS[type];
  if (!sparse) return [...zones];
  if (!sparse.regions.includes(region)) return [];
  return zones.filter((z) => sparse.zones.includes(z.slice(region.length)));
}

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
function imageFor(id: string, arch: string): { id: string; name: string; arch: string } | undefined {
  const listed = EC2_IMAGES.find((i) => i.id === id);
  if (listed) return listed;
  if (!AMI_ID.test(id)) throw new Ec2Error(400, 'InvalidAMIID.Malformed', `Invalid id: "${id}" (expecting "ami-...")`);
  return { id, name: `ubuntu/images/hvm-ssd-gp3/ubuntu-noble-24.04-${arch === 'arm64' ? 'arm64' : 'amd64'}-server (sandbox stand-in for ${id})`, arch };
}

type Tags = Record<string, string>;
export interface Instance {
  id: string;
  reservationId: string;
  type: string;
  imageId: string;
  zone: string;
  subnetId?: string;
  vpcId?: string;
  groups: string[];
  keyName?: string;
  tags: Tags;
  launchedAt: number;
  visibleAt: number;
  runningAt: number;
  terminatedAt?: number;
  terminateRequestedAt?: number;
  /** StopInstances: when it was asked and when the instance is `stopped`; StartInstances clears both. */
  stopRequestedAt?: number;
  stoppedAt?: number;
  privateIp: string;
  publicIp?: string;
  clientToken?: string;
  userDataBytes: number;
  /** Absent in snapshots taken before the emulator kept it: EC2's defaults then. */
  metadataOptions?: MetadataOptions;
  /** Base64, as received; kept in memory for the simulated kubelets (it holds bootstrap tokens), never in the inventory. */
  userData: string;
}
/**
 * The instance metadata service options RunInstances takes (`MetadataOptions.*`) and DescribeInstances reports
 * (`metadataOptions`, InstanceMetadataOptionsResponse). What a request leaves out takes EC2's default: tokens
 * optional (IMDSv1 on), hop limit 1, endpoint enabled; IPv6 endpoint and instance tags disabled.
 */
export interface MetadataOptions {
  httpTokens: 'optional' | 'required';
  httpPutResponseHopLimit: number;
  httpEndpoint: 'enabled' | 'disabled';
  httpProtocolIpv6: 'enabled' | 'disabled';
  instanceMetadataTags: 'enabled' | 'disabled';
}
export const DEFAULT_METADATA_OPTIONS: MetadataOptions = {
  httpTokens: 'optional',
  httpPutResponseHopLimit: 1,
  httpEndpoint: 'enabled',
  httpProtocolIpv6: 'disabled',
  instanceMetadataTags: 'disabled',
};

function metadataOptionsOf(p: URLSearchParams): MetadataOptions {
  const oneOf = <T extends string>(name: string, allowed: readonly T[], fallback: T): T => {
    const value = p.get(`MetadataOptions.${name}`);
    if (value === null) return fallback;
    if (!(allowed as readonly string[]).includes(value))
      throw new Ec2Error(
        400,
        'InvalidParameterValue',
        `Value (${value}) for parameter MetadataOptions.${name} is invalid. Valid values: ${allowed.join(', ')}.`,
      );
    return value as T;
  };
  const hop = p.get('MetadataOptions.HttpPutResponseHopLimit');
  const hops = hop === null ? DEFAULT_METADATA_OPTIONS.httpPutResponseHopLimit : Number(hop);
  if (!Number.isInteger(hops) || hops < 1 || hops > 64)
    throw new Ec2Error(
      400,
      'InvalidParameterValue',
      `Value (${hop ?? ''}) for parameter MetadataOptions.HttpPutResponseHopLimit is invalid. It must be an integer from 1 to 64.`,
    );
  return {
    httpTokens: oneOf('HttpTokens', ['optional', 'required'] as const, DEFAULT_METADATA_OPTIONS.httpTokens),
    httpPutResponseHopLimit: hops,
    httpEndpoint: oneOf('HttpEndpoint', ['enabled', 'disabled'] as const, DEFAULT_METADATA_OPTIONS.httpEndpoint),
    httpProtocolIpv6: oneOf('HttpProtocolIpv6', ['enabled', 'disabled'] as const, DEFAULT_METADATA_OPTIONS.httpProtocolIpv6),
    instanceMetadataTags: oneOf('InstanceMetadataTags', ['enabled', 'disabled'] as const, DEFAULT_METADATA_OPTIONS.instanceMetadataTags),
  };
}

export interface Vpc {
  id: string;
  cidr: string;
  tags: Tags;
  mainRouteTable: string;
  isDefault?: boolean;
}
export interface Subnet {
  id: string;
  vpcId: string;
  cidr: string;
  zone: string;
  tags: Tags;
  nextHost: number;
  defaultForAz?: boolean;
}
export interface Igw {
  id: string;
  tags: Tags;
  vpcId?: string;
  isDefault?: boolean;
}
export interface RouteTable {
  id: string;
  vpcId: string;
  main: boolean;
  routes: Array<{ cidr: string; gatewayId: string }>;
  tags: Tags;
}
export interface Permission {
  protocol: string;
  from: number;
  to: number;
  cidrs: Array<{ cidr: string; description?: string }>;
  groups: string[];
}
export interface SecurityGroup {
  id: string;
  name: string;
  description: string;
  vpcId: string;
  tags: Tags;
  ingress: Permission[];
}
export interface Address {
  allocationId: string;
  publicIp: string;
  tags: Tags;
  instanceId?: string;
  associationId?: string;
}
export interface KeyPair {
  id: string;
  name: string;
  fingerprint: string;
  tags: Tags;
}

export interface Ec2EmulatorOptions {
  /** The access key id the account accepts. */
  accessKeyId: string;
  /** Its secret, to verify request signatures. */
  secretAccessKey: string;
  region: string;
  zones: string[];
  /** Max spread of the DescribeInstances lag for new instances (eventual consistency), ms. */
  describeLagMaxMs: number;
  /** The Regions enabled for the account, as DescribeRegions lists them (default: this one). */
  accountRegions?: readonly string[];
  /** The account's keys and STS sessions (the sandbox's STS); without it, only accessKeyId is accepted. */
  keyring?: AwsKeyring;
  /** Whether the Region starts with its default VPC, as every account's Regions do (default: true). */
  defaultVpc?: boolean;
}

type BucketName = 'run' | 'launches' | 'terminate' | 'describe' | 'mutating';

/**
 * Everything one region's emulator keeps, as plain data (sandbox snapshots), except the credentials. It includes
 * the instances' user-data, which holds cluster private keys: written to disk with mode 0600, never logged.
 */
export interface Ec2EmulatorState {
  region: string;
  zones: string[];
  describeLagMaxMs: number;
  seq: number;
  ipSeq: number;
  instances: Array<[string, Instance]>;
  vpcs: Array<[string, Vpc]>;
  subnets: Array<[string, Subnet]>;
  igws: Array<[string, Igw]>;
  routeTables: Array<[string, RouteTable]>;
  securityGroups: Array<[string, SecurityGroup]>;
  addresses: Array<[string, Address]>;
  keyPairs: Array<[string, KeyPair]>;
  /** RunInstances ClientTokens seen, for idempotency. */
  clientTokens: Array<[string, { hash: string; instanceIds: string[] }]>;
  buckets: Record<BucketName, TokenBucketState>;
  throttled: number;
  requests: number;
  /** Whether the default VPC was made (a snapshot from before the emulator had one gets it on restore). */
  defaultVpcMade?: boolean;
}

export class Ec2Emulator implements SandboxVmSource {
  readonly #ctx: SandboxContext;
  readonly #options: Ec2EmulatorOptions;
  #seq = 0;
  #ipSeq = 0;
  readonly instances = new Map<string, Instance>();
  readonly vpcs = new Map<string, Vpc>();
  readonly subnets = new Map<string, Subnet>();
  readonly igws = new Map<string, Igw>();
  readonly routeTables = new Map<string, RouteTable>();
  readonly securityGroups = new Map<string, SecurityGroup>();
  readonly addresses = new Map<string, Address>();
  readonly keyPairs = new Map<string, KeyPair>();
  readonly #tokens = new Map<string, { hash: string; instanceIds: string[] }>();
  readonly #buckets: Record<BucketName, TokenBucket>;
  readonly #audit = new AwsCallAudit();
  throttled = 0;
  requests = 0;

  constructor(ctx: SandboxContext, options: Partial<Ec2EmulatorOptions> & { accessKeyId: string; secretAccessKey: string }) {
    this.#ctx = ctx;
    this.#options = {
      region: 'eu-central-1',
      zones: ['eu-central-1a', 'eu-central-1b', 'eu-central-1c'],
      describeLagMaxMs: LATENCY.ec2DescribeLag.maxMs,
      ...options,
    };
    this.#buckets = {
      run: new TokenBucket(RATE_LIMITS.ec2RunInstances, ctx.clock),
      launches: new TokenBucket(RATE_LIMITS.ec2InstanceLaunches, ctx.clock),
      terminate: new TokenBucket(RATE_LIMITS.ec2TerminateInstances, ctx.clock),
      describe: new TokenBucket(RATE_LIMITS.ec2Describe, ctx.clock),
      mutating: new TokenBucket(RATE_LIMITS.ec2Mutating, ctx.clock),
    };
    if (this.#options.defaultVpc !== false) this.#makeDefaultVpc();
  }

  /**
   * The default VPC every Region of an account starts with (https://docs.aws.amazon.com/vpc/latest/userguide/default-vpc.html):
   * 172.31.0.0/16, a /20 default subnet per zone that maps public IPs, an attached internet gateway routed from the
   * main route table, and the default security group. Its ids come from the Region's name, not the id counter, so a
   * seeded world's other ids stay as they were.
   */
  #makeDefaultVpc(): void {
    const region = this.#options.region;
    const id = (prefix: string, n = 0) => `${prefix}-${createHash('sha256').update(`default-vpc/${region}/${prefix}/${n}`).digest('hex').slice(0, 17)}`;
    const vpc: Vpc = { id: id('vpc'), cidr: '172.31.0.0/16', tags: {}, mainRouteTable: id('rtb'), isDefault: true };
    const igw: Igw = { id: id('igw'), tags: {}, vpcId: vpc.id, isDefault: true };
    this.vpcs.set(vpc.id, vpc);
    this.igws.set(igw.id, igw);
    this.routeTables.set(vpc.mainRouteTable, {
      id: vpc.mainRouteTable,
      vpcId: vpc.id,
      main: true,
      routes: [{ cidr: '0.0.0.0/0', gatewayId: igw.id }],
      tags: {},
    });
    const sg: SecurityGroup = { id: id('sg'), name: 'default', description: 'default VPC security group', vpcId: vpc.id, tags: {}, ingress: [] };
    this.securityGroups.set(sg.id, sg);
    this.#options.zones.forEach((zone, k) => {
      const subnet: Subnet = { id: id('subnet', k), vpcId: vpc.id, cidr: `172.31.${k * 16}.0/20`, zone, tags: {}, nextHost: 0, defaultForAz: true };
      this.subnets.set(subnet.id, subnet);
    });
  }

  /**
   * Where RunInstances without a SubnetId puts the instance: the default subnet of its zone. "If you don't specify a
   * subnet ID, we choose a default subnet from your default VPC for you. If you don't have a default VPC, you must
   * specify a subnet ID" (API_RunInstances.html, SubnetId): EC2 then answers VPCIdNotSpecified, "No default VPC for this
   * user" (as users meet it, https://github.com/aws/karpenter-provider-aws/issues/7834); a default VPC without a
   * default subnet in the zone is InvalidInput, "No default subnet for availability zone" (the words juju's EC2 provider matches on,
   * https://github.com/juju/juju, provider/ec2).
   */
  #defaultSubnet(zone: string): Subnet {
    const vpc = [...this.vpcs.values()].find((v) => v.isDefault);
    if (!vpc) throw new Ec2Error(400, 'VPCIdNotSpecified', 'No default VPC for this user');
    const subnet = [...this.subnets.values()].find((x) => x.vpcId === vpc.id && x.defaultForAz && x.zone === zone);
    if (!subnet) throw new Ec2Error(400, 'InvalidInput', `No default subnet for availability zone: '${zone}'.`);
    return subnet;
  }

  get region(): string {
    return this.#options.region;
  }

  /** A deep copy of the emulator's state. */
  state(): Ec2EmulatorState {
    const b = this.#buckets;
    return structuredClone({
      region: this.#options.region,
      zones: this.#options.zones,
      describeLagMaxMs: this.#options.describeLagMaxMs,
      seq: this.#seq,
      ipSeq: this.#ipSeq,
      instances: [...this.instances.entries()],
      vpcs: [...this.vpcs.entries()],
      subnets: [...this.subnets.entries()],
      igws: [...this.igws.entries()],
      routeTables: [...this.routeTables.entries()],
      securityGroups: [...this.securityGroups.entries()],
      addresses: [...this.addresses.entries()],
      keyPairs: [...this.keyPairs.entries()],
      clientTokens: [...this.#tokens.entries()],
      buckets: { run: b.run.state(), launches: b.launches.state(), terminate: b.terminate.state(), describe: b.describe.state(), mutating: b.mutating.state() },
      throttled: this.throttled,
      requests: this.requests,
      defaultVpcMade: true,
    });
  }

  /** Replaces the emulator's state with a copy of `state`, which must be of this emulator's region. */
  restore(state: Ec2EmulatorState): void {
    if (state.region !== this.#options.region) throw new Error(`cannot restore EC2 state of ${state.region} into the emulator of ${this.#options.region}`);
    const s = structuredClone(state);
    this.#options.zones = s.zones;
    this.#options.describeLagMaxMs = s.describeLagMaxMs;
    this.#seq = s.seq;
    this.#ipSeq = s.ipSeq;
    const refill = <V>(map: Map<string, V>, entries: Array<[string, V]>): void => {
      map.clear();
      for (const [k, v] of entries) map.set(k, v);
    };
    refill(this.instances, s.instances);
    refill(this.vpcs, s.vpcs);
    refill(this.subnets, s.subnets);
    refill(this.igws, s.igws);
    refill(this.routeTables, s.routeTables);
    refill(this.securityGroups, s.securityGroups);
    refill(this.addresses, s.addresses);
    refill(this.keyPairs, s.keyPairs);
    refill(this.#tokens, s.clientTokens);
    for (const name of Object.keys(this.#buckets) as BucketName[]) this.#buckets[name].restore(s.buckets[name]);
    this.throttled = s.throttled;
    this.requests = s.requests;
    if (s.defaultVpcMade !== true && this.#options.defaultVpc !== false) this.#makeDefaultVpc();
  }

  /**
   * Tells `listener` of every signed request before it is served (as IAM authorizes it: throttled and failing calls
   * too), with the resources it names and their tags. Returns the function that stops it.
   */
  onCall(listener: AwsCallListener): () => void {
    return this.#audit.add(listener);
  }

  handlers(): HttpHandler[] {
    return [http.post(`https://ec2.${this.#options.region}.amazonaws.com/`, async ({ request }) => this.#handle(request))];
  }

  inventory(): InventoryItem[] {
    const item = (kind: string, id: string, tags: Tags, state?: string): InventoryItem => ({
      cloud: 'ec2',
      kind,
      id,
      ...((tags['kubeplane.dev/name'] ?? tags['Name']) ? { name: tags['kubeplane.dev/name'] ?? tags['Name'] } : {}),
      ...(tags[CLUSTER_TAG] ? { clusterId: tags[CLUSTER_TAG] } : {}),
      ...(state ? { state } : {}),
    });
    return [
      ...[...this.instances.values()].filter((i) => this.#state(i).name !== 'terminated').map((i) => item('node', i.id, i.tags, this.#state(i).name)),
      // The default VPC and its parts are the account's, made by AWS, not by anyone the inventory accounts for.
      ...[...this.vpcs.values()].filter((v) => !v.isDefault).map((v) => item('network', v.id, v.tags)),
      ...[...this.subnets.values()].filter((s) => !s.defaultForAz).map((s) => item('subnet', s.id, s.tags)),
      ...[...this.igws.values()].filter((g) => !g.isDefault).map((g) => item('internet-gateway', g.id, g.tags)),
      ...[...this.routeTables.values()].filter((r) => !r.main).map((r) => item('route-table', r.id, r.tags)),
      ...[...this.securityGroups.values()].filter((g) => g.name !== 'default').map((g) => item('firewall', g.id, g.tags)),
      ...[...this.addresses.values()].map((a) => item('reserved-ip', a.allocationId, a.tags)),
      ...[...this.keyPairs.values()].map((k) => item('ssh-key', k.id, k.tags)),
    ];
  }

  /** The instances as machines for the simulated kubelets (vm-source.ts). */
  listVms(): SandboxVm[] {
    return [...this.instances.values()].map((i) => {
      const state = this.#state(i).name;
      const vmState: SandboxVm['state'] =
        state === 'running'
          ? 'running'
          : state === 'pending'
            ? 'pending'
            : state === 'terminated'
              ? 'terminated'
              : state === 'stopped'
                ? 'stopped'
                : 'stopping';
      const address = [...this.addresses.values()].find((a) => a.instanceId === i.id);
      const stoppedAtMs = i.terminateRequestedAt ?? i.stopRequestedAt;
      return {
        cloud: 'ec2',
        name: i.tags['kubeplane.dev/name'] ?? i.tags['Name'] ?? i.id,
        id: i.id,
        state: vmState,
        ...(this.#now() >= i.runningAt && (stoppedAtMs === undefined || stoppedAtMs > i.runningAt) ? { runningSinceMs: i.runningAt } : {}),
        ...(stoppedAtMs !== undefined ? { stoppedAtMs } : {}),
        userData: i.userData,
        ...((t) => (t ? { machine: { vcpus: t.vcpus, memoryMiB: t.memoryMiB } } : {}))(EC2_INSTANCE_TYPES.find((x) => x.name === i.type)),
        ...((address?.publicIp ?? i.publicIp) ? { publicIPv4: address?.publicIp ?? i.publicIp } : {}),
        privateIPv4: i.privateIp,
      };
    });
  }

  #id(prefix: string): string {
    this.#seq += 1;
    return `${prefix}-${this.#seq.toString(16).padStart(17, '0')}`;
  }

  #now(): number {
    return this.#ctx.clock.now();
  }

  #state(i: Instance): { code: number; name: string } {
    const now = this.#now();
    if (i.terminatedAt !== undefined) return now >= i.terminatedAt ? { code: 48, name: 'terminated' } : { code: 32, name: 'shutting-down' };
    if (i.stoppedAt !== undefined) return now >= i.stoppedAt ? { code: 80, name: 'stopped' } : { code: 64, name: 'stopping' };
    return now >= i.runningAt ? { code: 16, name: 'running' } : { code: 0, name: 'pending' };
  }

  #xml(action: string, body: string): Response {
    return new HttpResponse(
      `<?xml version="1.0" encoding="UTF-8"?>\n<${action}Response xmlns="${XMLNS}">${t('requestId', requestId())}${body}</${action}Response>`,
      { status: 200, headers: { 'content-type': 'text/xml;charset=UTF-8' } },
    );
  }

  #error(e: Ec2Error): Response {
    const id = requestId();
    return new HttpResponse(
      `<?xml version="1.0" ` +
        `encoding="UTF-8"?>\n<Response><Errors><Error>${t('Code', e.code)}${t('Message', e.message)}</Error></Errors>${t('RequestID', id)}</Response>`,
      { status: e.status, headers: { 'content-type': 'text/xml;charset=UTF-8', 'x-amzn-requestid': id } },
    );
  }

  #bucket(action: string): TokenBucket {
    if (action === 'RunInstances') return this.#buckets.run;
    if (action === 'TerminateInstances') return this.#buckets.terminate;
    if (action.startsWith('Describe')) return this.#buckets.describe;
    return this.#buckets.mutating;
  }

  async #handle(request: Request): Promise<Response> {
    const text = await request.text();
    const params = new URLSearchParams(text);
    const action = params.get('Action') ?? '';
    countCall(this.#ctx, 'ec2', action);
    this.requests += 1;
    const signed = this.#options.keyring
      ? this.#options.keyring.verify(request, text)
      : verifySigV4(request, text, new Map([[this.#options.accessKeyId, this.#options.secretAccessKey]]));
    // EC2's answer to a session's credentials past their expiry.
    if (signed === 'expired') return this.#error(new Ec2Error(400, 'RequestExpired', 'Request has expired.'));
    if (signed !== 'ok') return this.#error(new Ec2Error(401, 'AuthFailure', 'AWS was not able to validate the provided access credentials'));
    this.#audit.emit(() => ({
      service: 'ec2',
      action,
      region: this.#options.region,
      params: Object.fromEntries([...params.entries()].filter(([k]) => k !== 'UserData')),
      resources: this.#resourcesOf(action, params),
      ...(this.#options.keyring ? { caller: this.#options.keyring.callerOf(request) } : {}),
    }));
    if (this.#bucket(action).tryTake(1) > 0) {
      this.throttled += 1;
      return this.#error(new Ec2Error(503, 'RequestLimitExceeded', 'Request limit exceeded.'));
    }
    const fault = this.#ctx.faults.take('ec2', action);
    switch (fault) {
      case 'throttled':
      case 'throttled-no-headers':
        this.throttled += 1;
        return this.#error(new Ec2Error(503, 'RequestLimitExceeded', 'Request limit exceeded.'));
      case 'server-error':
        return this.#error(new Ec2Error(500, 'InternalError', 'An internal error has occurred'));
      case 'timeout':
        return HttpResponse.error();
      case 'capacity':
        return this.#error(
          new Ec2Error(
            500,
            'InsufficientInstanceCapacity',
            `We currently do not have sufficient ${params.get('InstanceType') ?? ''} capacity in the ` +
              `Availability Zone you requested. Our system will be working on provisioning additional capacity.`,
          ),
        );
      case 'quota':
        return this.#error(
          new Ec2Error(
            400,
            'VcpuLimitExceeded',
            'You have requested more vCPU capacity than your current vCPU limit of 32 allows for the instance bucket that the specified ' +
              'instance type belongs to. Please visit http://aws.amazon.com/contact-us/ec2-request to request an adjustment to this limit.',
          ),
        );
      case 'auth':
        return this.#error(new Ec2Error(401, 'AuthFailure', 'AWS was not able to validate the provided access credentials'));
      default:
        break;
    }
    try {
      const response = this.#route(action, params);
      return fault === 'lost-response' ? HttpResponse.error() : response;
    } catch (e) {
      if (e instanceof Ec2Error) return this.#error(e);
      throw e;
    }
  }

  /**
   * The resources a request names, by the resource types the Service Authorization Reference lists for its action
   * (https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazonec2.html), with their tags now.
   * RunInstances: the instance, its volume and network interface (created), the subnet, security groups, key pair and
   * image. Describe calls name none (EC2 has no resource-level permissions for them).
   */
  #resourcesOf(action: string, p: URLSearchParams): AwsCallResource[] {
    const had = (type: string, id: string, found: { tags: Tags } | undefined): AwsCallResource =>
      found ? { type, id, tags: { ...found.tags }, created: false } : { type, id, tags: {}, created: false, missing: true };
    const creates = (type: string, id = '*'): AwsCallResource => ({ type, id, tags: tagsFor(p, type), created: true });
    const vpc = () => had('vpc', p.get('VpcId') ?? '', this.vpcs.get(p.get('VpcId') ?? ''));
    const group = (id: string) => had('security-group', id, this.securityGroups.get(id));
    const keyPair = (name: string | null, id: string | null) => {
      const k = [...this.keyPairs.values()].find((x) => x.name === name || x.id === id);
      return had('key-pair', k?.name ?? name ?? id ?? '', k);
    };
    const address = (a: Address | undefined, id: string) => had('elastic-ip', a?.allocationId ?? id, a);
    const instance = (id: string) => had('instance', id, this.instances.get(id));
    const gateway = () => had('internet-gateway', p.get('InternetGatewayId') ?? '', this.igws.get(p.get('InternetGatewayId') ?? ''));
    switch (action) {
      case 'RunInstances': {
        const subnet = p.get('SubnetId');
        const image = p.get('ImageId') ?? '';
        return [
          creates('instance'),
          creates('volume'),
          creates('network-interface'),
          ...(subnet ? [had('subnet', subnet, this.subnets.get(subnet))] : []),
          ...queryList(p, 'SecurityGroupId').map(group),
          ...(p.get('KeyName') ? [keyPair(p.get('KeyName'), null)] : []),
          { type: 'image', id: image, tags: {}, created: false, owner: IMAGE_OWNER },
        ];
      }
      case 'TerminateInstances':
      case 'StopInstances':
      case 'StartInstances':
        return queryList(p, 'InstanceId').map(instance);
      // Tagging is authorized on the resources tagged (the Service Authorization Reference lists every taggable type).
      case 'CreateTags':
      case 'DeleteTags':
        return queryList(p, 'ResourceId').map((id) => {
          const found = this.#taggables().find((r) => r.id === id);
          return had(found?.type ?? 'unknown', id, found);
        });
      case 'CreateVpc':
        return [creates('vpc')];
      case 'DeleteVpc':
        return [vpc()];
      case 'CreateSubnet':
        return [creates('subnet'), vpc()];
      case 'DeleteSubnet':
        return [had('subnet', p.get('SubnetId') ?? '', this.subnets.get(p.get('SubnetId') ?? ''))];
      case 'CreateInternetGateway':
        return [creates('internet-gateway')];
      case 'AttachInternetGateway':
      case 'DetachInternetGateway':
        return [gateway(), vpc()];
      case 'DeleteInternetGateway':
        return [gateway()];
      case 'CreateRoute':
        return [had('route-table', p.get('RouteTableId') ?? '', this.routeTables.get(p.get('RouteTableId') ?? ''))];
      case 'CreateSecurityGroup':
        return [creates('security-group'), vpc()];
      case 'AuthorizeSecurityGroupIngress':
      case 'RevokeSecurityGroupIngress':
      case 'DeleteSecurityGroup':
        return [group(p.get('GroupId') ?? '')];
      case 'AllocateAddress':
        return [creates('elastic-ip')];
      case 'AssociateAddress':
        return [address(this.addresses.get(p.get('AllocationId') ?? ''), p.get('AllocationId') ?? ''), instance(p.get('InstanceId') ?? '')];
      case 'DisassociateAddress':
        return [
          address(
            [...this.addresses.values()].find((a) => a.associationId === p.get('AssociationId')),
            p.get('AssociationId') ?? '',
          ),
        ];
      case 'ReleaseAddress':
        return [address(this.addresses.get(p.get('AllocationId') ?? ''), p.get('AllocationId') ?? '')];
      // A key pair's ARN ends in its name, which the request gives.
      case 'ImportKeyPair':
        return [creates('key-pair', p.get('KeyName') ?? '')];
      case 'DeleteKeyPair':
        return [keyPair(p.get('KeyName'), p.get('KeyPairId'))];
      default:
        return [];
    }
  }

  #route(action: string, p: URLSearchParams): Response {
    switch (action) {
      case 'RunInstances':
        return this.#runInstances(p);
      case 'DescribeInstances':
        return this.#describeInstances(p);
      case 'TerminateInstances':
        return this.#terminateInstances(p);
      case 'StopInstances':
        return this.#stopOrStart(p, 'stop');
      case 'StartInstances':
        return this.#stopOrStart(p, 'start');
      case 'CreateVpc':
        return this.#createVpc(p);
      case 'DescribeVpcs':
        return this.#xml(
          action,
          items(
            'vpcSet',
            this.#filter(
              [...this.vpcs.values()],
              p,
              action,
              'VpcId',
              (v) => v.id,
              (v, n) => this.#vpcAttr(v, n),
              'vpc',
            ),
            (v) => this.#vpcXml(v),
          ),
        );
      case 'DeleteVpc':
        return this.#deleteVpc(p);
      case 'CreateSubnet':
        return this.#createSubnet(p);
      case 'DescribeSubnets':
        return this.#xml(
          action,
          items(
            'subnetSet',
            this.#filter(
              [...this.subnets.values()],
              p,
              action,
              'SubnetId',
              (s) => s.id,
              (s, n) => this.#subnetAttr(s, n),
              'subnet',
            ),
            (s) => this.#subnetXml(s),
          ),
        );
      case 'DeleteSubnet':
        return this.#deleteSubnet(p);
      case 'CreateInternetGateway': {
        const g: Igw = { id: this.#id('igw'), tags: tagsFor(p, 'internet-gateway') };
        this.igws.set(g.id, g);
        return this.#xml(action, el('internetGateway', this.#igwXml(g)));
      }
      case 'AttachInternetGateway': {
        const g = this.#must(this.igws, p.get('InternetGatewayId'), 'InvalidInternetGatewayID.NotFound', 'internet gateway');
        const vpc = this.#mustId('vpc', this.vpcs, p.get('VpcId'));
        if (g.vpcId && g.vpcId !== vpc.id) throw new Ec2Error(400, 'Resource.AlreadyAssociated', `resource ${g.id} is already attached to network ${g.vpcId}`);
        // A VPC takes one internet gateway ("You can attach only one internet gateway to a VPC":
        // https://docs.aws.amazon.com/vpc/latest/userguide/VPC_Internet_Gateway.html).
        const other = [...this.igws.values()].find((x) => x.vpcId === vpc.id && x.id !== g.id);
        if (other) throw new Ec2Error(400, 'Resource.AlreadyAssociated', `resource ${vpc.id} is already associated with ${other.id}`);
        g.vpcId = vpc.id;
        return this.#xml(action, t('return', true));
      }
      case 'DetachInternetGateway': {
        const g = this.#must(this.igws, p.get('InternetGatewayId'), 'InvalidInternetGatewayID.NotFound', 'internet gateway');
        if (g.vpcId !== p.get('VpcId')) throw new Ec2Error(400, 'Gateway.NotAttached', `resource ${g.id} is not attached to network ${p.get('VpcId') ?? ''}`);
        delete g.vpcId;
        for (const rt of this.routeTables.values()) rt.routes = rt.routes.filter((r) => r.gatewayId !== g.id);
        return this.#xml(action, t('return', true));
      }
      case 'DeleteInternetGateway': {
        const g = this.#must(this.igws, p.get('InternetGatewayId'), 'InvalidInternetGatewayID.NotFound', 'internet gateway');
        if (g.vpcId) throw new Ec2Error(400, 'DependencyViolation', `The internetGateway '${g.id}' has dependencies and cannot be deleted.`);
        this.igws.delete(g.id);
        return this.#xml(action, t('return', true));
      }
      case 'DescribeInternetGateways':
        return this.#xml(
          action,
          items(
            'internetGatewaySet',
            this.#filter(
              [...this.igws.values()],
              p,
              action,
              'InternetGatewayId',
              (g) => g.id,
              (g, n) =>
                n === 'internet-gateway-id'
                  ? [g.id]
                  : n === 'attachment.vpc-id'
                    ? g.vpcId
                      ? [g.vpcId]
                      : []
                    : n === 'attachment.state'
                      ? g.vpcId
                        ? ['available']
                        : []
                      : n === 'owner-id'
                        ? [OWNER]
                        : this.#tagAttr(g.tags, n),
              (id) => new Ec2Error(400, 'InvalidInternetGatewayID.NotFound', `The internetGateway ID '${id}' does not exist`),
            ),
            (g) => this.#igwXml(g),
          ),
        );
      case 'DescribeRouteTables':
        return this.#xml(
          action,
          items(
            'routeTableSet',
            this.#filter(
              [...this.routeTables.values()],
              p,
              action,
              'RouteTableId',
              (r) => r.id,
              (r, n) =>
                n === 'route-table-id'
                  ? [r.id]
                  : n === 'vpc-id'
                    ? [r.vpcId]
                    : n === 'association.main'
                      ? [String(r.main)]
                      : n === 'owner-id'
                        ? [OWNER]
                        : this.#tagAttr(r.tags, n),
              (id) => new Ec2Error(400, 'InvalidRouteTableID.NotFound', `The routeTable ID '${id}' does not exist`),
            ),
            (r) => this.#routeTableXml(r),
          ),
        );
      case 'CreateRoute': {
        const rt = this.#must(this.routeTables, p.get('RouteTableId'), 'InvalidRouteTableID.NotFound', 'route table');
        const cidr = p.get('DestinationCidrBlock') ?? '';
        const gatewayId = p.get('GatewayId') ?? '';
        this.#must(this.igws, gatewayId, 'InvalidGatewayID.NotFound', 'gateway');
        const existing = rt.routes.find((r) => r.cidr === cidr);
        if (existing && existing.gatewayId !== gatewayId) throw new Ec2Error(400, 'RouteAlreadyExists', `The route identified by ${cidr} already exists.`);
        if (!existing) rt.routes.push({ cidr, gatewayId });
        return this.#xml(action, t('return', true));
      }
      case 'CreateSecurityGroup':
        return this.#createSecurityGroup(p);
      case 'DescribeSecurityGroups':
        return this.#xml(
          action,
          items(
            'securityGroupInfo',
            this.#filter(
              [...this.securityGroups.values()],
              p,
              action,
              'GroupId',
              (g) => g.id,
              (g, n) =>
                n === 'group-id'
                  ? [g.id]
                  : n === 'vpc-id'
                    ? [g.vpcId]
                    : n === 'group-name'
                      ? [g.name]
                      : n === 'description'
                        ? [g.description]
                        : n === 'owner-id'
                          ? [OWNER]
                          : this.#tagAttr(g.tags, n),
              'security-group',
            ),
            (g) => this.#sgXml(g),
          ),
        );
      case 'AuthorizeSecurityGroupIngress':
        return this.#changeIngress(p, 'authorize');
      case 'RevokeSecurityGroupIngress':
        return this.#changeIngress(p, 'revoke');
      case 'DeleteSecurityGroup':
        return this.#deleteSecurityGroup(p);
      case 'AllocateAddress': {
        this.#ipSeq += 1;
        const a: Address = {
          allocationId: this.#id('eipalloc'),
          publicIp: sandboxPublicAddress(`ec2:${this.#options.region}`, this.#ipSeq),
          tags: tagsFor(p, 'elastic-ip'),
        };
        this.addresses.set(a.allocationId, a);
        return this.#xml(action, t('publicIp', a.publicIp) + t('domain', 'vpc') + t('allocationId', a.allocationId));
      }
      case 'AssociateAddress':
        return this.#associateAddress(p);
      case 'DisassociateAddress': {
        const a = [...this.addresses.values()].find((x) => x.associationId === p.get('AssociationId'));
        if (!a) throw new Ec2Error(400, 'InvalidAssociationID.NotFound', `The association ID '${p.get('AssociationId') ?? ''}' does not exist`);
        this.#detachAddress(a);
        return this.#xml(action, t('return', true));
      }
      case 'ReleaseAddress': {
        const a = this.addresses.get(p.get('AllocationId') ?? '');
        if (!a) throw new Ec2Error(400, 'InvalidAllocationID.NotFound', `The allocation ID '${p.get('AllocationId') ?? ''}' does not exist`);
        if (a.associationId) throw new Ec2Error(400, 'InvalidIPAddress.InUse', `Address ${a.publicIp} is in use.`);
        this.addresses.delete(a.allocationId);
        return this.#xml(action, t('return', true));
      }
      case 'DescribeAddresses':
        return this.#xml(
          action,
          items(
            'addressesSet',
            this.#filter(
              [...this.addresses.values()],
              p,
              action,
              'AllocationId',
              (a) => a.allocationId,
              (a, n) =>
                n === 'allocation-id'
                  ? [a.allocationId]
                  : n === 'association-id'
                    ? a.associationId
                      ? [a.associationId]
                      : []
                    : n === 'instance-id'
                      ? a.instanceId
                        ? [a.instanceId]
                        : []
                      : n === 'public-ip'
                        ? [a.publicIp]
                        : n === 'domain'
                          ? ['vpc']
                          : this.#tagAttr(a.tags, n),
              (id) => new Ec2Error(400, 'InvalidAllocationID.NotFound', `The allocation ID '${id}' does not exist`),
            ),
            (a) => this.#addressXml(a),
          ),
        );
      case 'ImportKeyPair':
        return this.#importKeyPair(p);
      case 'DescribeKeyPairs': {
        const names = queryList(p, 'KeyName');
        const found = this.#filter(
          [...this.keyPairs.values()],
          p,
          action,
          'KeyPairId',
          (k) => k.id,
          (k, n) => (n === 'key-pair-id' ? [k.id] : n === 'key-name' ? [k.name] : n === 'fingerprint' ? [k.fingerprint] : this.#tagAttr(k.tags, n)),
          (id) => new Ec2Error(400, 'InvalidKeyPair.NotFound', `The key pair ID '${id}' does not exist`),
        ).filter((k) => names.length === 0 || names.includes(k.name));
        if (names.length > 0 && found.length < names.length)
          throw new Ec2Error(400, 'InvalidKeyPair.NotFound', `The key pair '${names.find((n) => !found.some((k) => k.name === n)) ?? ''}' does not exist`);
        return this.#xml(
          action,
          items('keySet', found, (k) => t('keyPairId', k.id) + t('keyName', k.name) + t('keyFingerprint', k.fingerprint) + this.#tagsXml(k.tags)),
        );
      }
      case 'DeleteKeyPair': {
        const k = [...this.keyPairs.values()].find((x) => x.name === p.get('KeyName') || x.id === p.get('KeyPairId'));
        if (k) this.keyPairs.delete(k.id);
        return this.#xml(action, t('return', true));
      }
      case 'DescribeImages': {
        const ids = queryList(p, 'ImageId');
        const found = ids.length === 0 ? [...EC2_IMAGES] : ids.map((id) => imageFor(id, 'x86_64')).filter((i): i is NonNullable<typeof i> => i !== undefined);
        if (ids.length > 0 && found.length < ids.length) throw new Ec2Error(400, 'InvalidAMIID.NotFound', `The image id '[${ids.join(', ')}]' does not exist`);
        return this.#xml(
          action,
          items(
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
          ),
        );
      }
      case 'DescribeInstanceTypes': {
        // "By default, all instance types for the current Region are described" (EC2 API reference, DescribeInstanceTypes).
        const names = queryList(p, 'InstanceType');
        const found = EC2_INSTANCE_TYPES.filter((x) => (names.length === 0 || names.includes(x.name)) && this.#offeredZones(x.name).length > 0);
        if (names.length > 0 && found.length < names.length)
          throw new Ec2Error(
            400,
            'InvalidInstanceType',
            `The following supplied instance types do not exist: [${names.filter((n) => !found.some((f) => f.name === n)).join(', ')}]`,
          );
        const page = this.#page(found, p, 100);
        return this.#xml(
          action,
          items(
            'instanceTypeSet',
            page.items,
            (x) =>
              t('instanceType', x.name) +
              el('vCpuInfo', t('defaultVCpus', x.vcpus)) +
              el('memoryInfo', t('sizeInMiB', x.memoryMiB)) +
              el(
                'processorInfo',
                items('supportedArchitectures', [x.arch], (a) => esc(a)),
              ) +
              gpuInfo(x),
          ) + t('nextToken', page.next),
        );
      }
      case 'DescribeInstanceTypeOfferings':
        return this.#describeOfferings(p);
      case 'DescribeRegions':
        return this.#describeRegions(p);
      case 'CreateTags':
        createTags(p, this.#taggables());
        return this.#xml(action, t('return', true));
      case 'DeleteTags':
        deleteTags(p, this.#taggables());
        return this.#xml(action, t('return', true));
      case 'DescribeTags': {
        const page = this.#page(describeTags(p, this.#taggables()), p, 1000);
        return this.#xml(
          action,
          items('tagSet', page.items, (x) => t('resourceId', x.resourceId) + t('resourceType', x.resourceType) + t('key', x.key) + t('value', x.value)) +
            t('nextToken', page.next),
        );
      }
      case 'DescribeAvailabilityZones': {
        // DescribeAvailabilityZones (API_DescribeAvailabilityZones.html): by ZoneName.N / ZoneId.N, an unknown one being
        // InvalidParameterValue, and by the filters the reference lists.
        const names = queryList(p, 'ZoneName');
        const zoneIds = queryList(p, 'ZoneId');
        const unknown = names.find((n) => !this.#options.zones.includes(n)) ?? zoneIds.find((z) => !this.#options.zones.some((n) => this.#zoneId(n) === z));
        if (unknown !== undefined) throw new Ec2Error(400, 'InvalidParameterValue', `The zone '${unknown}' does not exist.`);
        const filters = filtersOf(p, KNOWN_FILTERS.DescribeAvailabilityZones);
        const attr = (z: string, name: string): string =>
          name === 'zone-name'
            ? z
            : name === 'zone-id'
              ? this.#zoneId(z)
              : name === 'region-name'
                ? this.#options.region
                : name === 'state'
                  ? 'available'
                  : 'availability-zone';
        const zones = this.#options.zones.filter(
          (z) =>
            (names.length === 0 || names.includes(z)) &&
            (zoneIds.length === 0 || zoneIds.includes(this.#zoneId(z))) &&
            filters.every((f) => filterMatches(f, [attr(z, f.name)])),
        );
        return this.#xml(
          action,
          items(
            'availabilityZoneInfo',
            zones,
            (z) =>
              t('zoneName', z) +
              t('zoneState', 'available') +
              t('regionName', this.#options.region) +
              t('zoneId', this.#zoneId(z)) +
              t('zoneType', 'availability-zone') +
              t('groupName', this.#options.region) +
              t('networkBorderGroup', this.#options.region) +
              t('optInStatus', 'opt-in-not-required'),
          ),
        );
      }
      default:
        throw new Ec2Error(400, 'InvalidAction', `The action ${action} is not valid for this web service.`);
    }
  }

  /** Every resource tags can be put on, as CreateTags and DescribeTags see them (instances while they are visible). */
  #taggables(): Taggable[] {
    const of =
      (type: string) =>
      (x: { id: string; tags: Tags }): Taggable => ({ id: x.id, type, tags: x.tags });
    return [
      ...[...this.instances.values()].filter((i) => this.#visible(i)).map(of('instance')),
      ...[...this.vpcs.values()].map(of('vpc')),
      ...[...this.subnets.values()].map(of('subnet')),
      ...[...this.securityGroups.values()].map(of('security-group')),
      ...[...this.igws.values()].map(of('internet-gateway')),
      ...[...this.routeTables.values()].map(of('route-table')),
      ...[...this.addresses.values()].map((a) => ({ id: a.allocationId, type: 'elastic-ip', tags: a.tags })),
      ...[...this.keyPairs.values()].map(of('key-pair')),
    ];
  }

  #offeredZones(type: string): string[] {
    return ec2TypeOfferedIn(type, this.#options.region, this.#options.zones);
  }

  /** `MaxResults`/`NextToken` paging (the token is the offset, opaque to clients). */
  #page<T>(list: readonly T[], p: URLSearchParams, max: number): { items: T[]; next?: string } {
    const size = Math.min(max, Number(p.get('MaxResults') ?? max) || max);
    const start = Number(p.get('NextToken') ?? '0');
    if (!Number.isInteger(start) || start < 0) throw new Ec2Error(400, 'InvalidParameterValue', `Invalid value '${p.get('NextToken') ?? ''}' for NextToken.`);
    const items = list.slice(start, start + size);
    return start + size < list.length ? { items, next: String(start + size) } : { items };
  }

  /**
   * DescribeInstanceTypeOfferings (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_DescribeInstanceTypeOfferings.html):
   * per `LocationType` (region by default, availability-zone, availability-zone-id) the types offered there, filtered by
   * `location` and `instance-type`; a location of another Region matches nothing. At most 1000 per page.
   */
  #describeOfferings(p: URLSearchParams): Response {
    const locationType = p.get('LocationType') ?? 'region';
    if (!['region', 'availability-zone', 'availability-zone-id'].includes(locationType))
      throw new Ec2Error(
        400,
        'InvalidParameterValue',
        `Value (${locationType}) for parameter locationType is invalid. Valid values: region, availability-zone, availability-zone-id, outpost.`,
      );
    const offerings = EC2_INSTANCE_TYPES.flatMap((x) => {
      const zones = this.#offeredZones(x.name);
      if (locationType === 'region') return zones.length > 0 ? [{ type: x.name, location: this.#options.region }] : [];
      return zones.map((z) => ({ type: x.name, location: locationType === 'availability-zone' ? z : this.#zoneId(z) }));
    });
    const filters = filtersOf(p, KNOWN_FILTERS.DescribeInstanceTypeOfferings);
    const found = offerings.filter((o) => filters.every((f) => filterMatches(f, [f.name === 'location' ? o.location : o.type])));
    const page = this.#page(found, p, 1000);
    return this.#xml(
      'DescribeInstanceTypeOfferings',
      items('instanceTypeOfferingSet', page.items, (o) => t('instanceType', o.type) + t('locationType', locationType) + t('location', o.location)) +
        t('nextToken', page.next),
    );
  }

  /**
   * DescribeRegions (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_DescribeRegions.html): the Regions
   * enabled for the account, or with `AllRegions=true` every Region with its `optInStatus`; `RegionName.N` may name
   * any Region, enabled or not, and a name that is no Region is `InvalidParameterValue`.
   */
  #describeRegions(p: URLSearchParams): Response {
    const enabled = new Set(this.#options.accountRegions ?? [this.#options.region]);
    // On AWS a Region that needs no opt-in is always enabled; the sandbox account has only the Regions the sandbox serves
    // enabled (it cannot answer for others), so the rest read as not-opted-in, which is what preflight must catch.
    const listed = [...AWS_REGIONS, ...[...enabled].filter((n) => !AWS_REGIONS.some((r) => r.name === n)).map((name) => ({ name, optIn: false }))].map((r) => ({
      name: r.name,
      status: !enabled.has(r.name) ? 'not-opted-in' : r.optIn ? 'opted-in' : 'opt-in-not-required',
    }));
    const names = queryList(p, 'RegionName');
    const unknown = names.find((n) => !listed.some((r) => r.name === n));
    if (unknown !== undefined) throw new Ec2Error(400, 'InvalidParameterValue', `Invalid region: ${unknown}`);
    const filters = filtersOf(p, KNOWN_FILTERS.DescribeRegions);
    const attr = (r: { name: string; status: string }, name: string): string =>
      name === 'region-name' ? r.name : name === 'opt-in-status' ? r.status : `ec2.${r.name}.amazonaws.com`;
    const found = listed.filter(
      (r) =>
        (names.length > 0 ? names.includes(r.name) : p.get('AllRegions') === 'true' || r.status !== 'not-opted-in') &&
        filters.every((f) => filterMatches(f, [attr(r, f.name)])),
    );
    return this.#xml(
      'DescribeRegions',
      items('regionInfo', found, (r) => t('regionName', r.name) + t('regionEndpoint', `ec2.${r.name}.amazonaws.com`) + t('optInStatus', r.status)),
    );
  }

  /**
   * A zone's id (`euc1-az2`): the Region's short code and a number, which AWS maps to zone letters per account
   * (https://docs.aws.amazon.com/ram/latest/userguide/working-with-az-ids.html); the sandbox maps a to 1, b to 2, …
   */
  #zoneId(zone: string): string {
    const letter = zone.slice(this.#options.region.length);
    return `${regionCode(this.#options.region)}-az${letter.charCodeAt(0) - 'a'.charCodeAt(0) + 1}`;
  }

  /** The resource `id` names, or EC2's Malformed or NotFound error for its kind. */
  #mustId<T>(kind: Ec2IdKind, map: Map<string, T>, id: string | null): T {
    checkIdShape(kind, id ?? '');
    const found = map.get(id ?? '');
    if (!found) throw notFound(kind, [id ?? '']);
    return found;
  }

  #must<T>(map: Map<string, T>, id: string | null, code: string, what: string): T {
    const found = id === null ? undefined : map.get(id);
    if (!found) throw new Ec2Error(400, code, `The ${what} ID '${id ?? ''}' does not exist`);
    return found;
  }

  #tagAttr(tags: Tags, name: string): string[] {
    if (name.startsWith('tag:')) {
      const v = tags[name.slice(4)];
      return v === undefined ? [] : [v];
    }
    if (name === 'tag-key') return Object.keys(tags);
    return [];
  }

  /**
   * Applies `<IdName>.N` and `Filter.N` (Name, Value.M) selection. Ids of `kind` must be well formed and name a resource
   * (Describe* by id answers NotFound for an unknown one, it never returns an empty set).
   */
  #filter<T>(
    list: T[],
    p: URLSearchParams,
    action: keyof typeof KNOWN_FILTERS,
    idName: string,
    idOf: (x: T) => string,
    attr: (x: T, name: string) => string[],
    kind?: Ec2IdKind | ((id: string) => Ec2Error),
  ): T[] {
    const ids = queryList(p, idName);
    const filters = filtersOf(p, KNOWN_FILTERS[action]);
    if (typeof kind === 'string') requireIds(kind, ids, (id) => list.some((x) => idOf(x) === id));
    const unknown = ids.find((id) => !list.some((x) => idOf(x) === id));
    if (typeof kind === 'function' && unknown !== undefined) throw kind(unknown);
    return list.filter((x) => (ids.length === 0 || ids.includes(idOf(x))) && filters.every((f) => filterMatches(f, attr(x, f.name))));
  }

  #tagsXml(tags: Tags): string {
    return items('tagSet', Object.entries(tags), ([k, v]) => t('key', k) + t('value', v));
  }

  #runInstances(p: URLSearchParams): Response {
    const min = Number(p.get('MinCount') ?? '1');
    const max = Number(p.get('MaxCount') ?? '1');
    if (!(min >= 1 && max >= min)) throw new Ec2Error(400, 'InvalidParameterValue', 'MinCount and MaxCount must be >= 1 and MinCount <= MaxCount');
    const token = p.get('ClientToken') ?? undefined;
    const hashed = [...p.entries()]
      .filter(([k]) => k !== 'ClientToken')
      .sort()
      .map(([k, v]) => `${k}=${v}`)
      .join('&');
    const hash = createHash('sha256').update(hashed).digest('hex');
    if (token) {
      const seen = this.#tokens.get(token);
      if (seen) {
        if (seen.hash !== hash)
          throw new Ec2Error(
            400,
            'IdempotentParameterMismatch',
            'The client token you have provided is associated with a resource that is already deleted or was created with different parameters.',
          );
        const instances = seen.instanceIds.map((id) => this.instances.get(id)).filter((i): i is Instance => i !== undefined);
        return this.#xml(
          'RunInstances',
          t('reservationId', instances[0]?.reservationId ?? '') +
            t('ownerId', OWNER) +
            el('groupSet') +
            items('instancesSet', instances, (i) => this.#instanceXml(i)),
        );
      }
    }
    const type = EC2_INSTANCE_TYPES.find((x) => x.name === p.get('InstanceType'));
    if (!type) throw new Ec2Error(400, 'InvalidParameterValue', `Invalid value '${p.get('InstanceType') ?? ''}' for InstanceType.`);
    // ImageId is required unless a launch template gives it (API_RunInstances.html); the sandbox has no launch templates.
    if (!p.get('ImageId')) throw new Ec2Error(400, 'MissingParameter', 'The request must contain the parameter ImageId');
    const image = imageFor(p.get('ImageId') ?? '', type.arch);
    if (!image) throw new Ec2Error(400, 'InvalidAMIID.NotFound', `The image id '[${p.get('ImageId') ?? ''}]' does not exist`);
    if (image.arch !== type.arch)
      throw new Ec2Error(
        400,
        'InvalidParameterValue',
        `The architecture '${type.arch}' of the specified instance type does not match the architecture '${image.arch}' of the specified AMI.`,
      );
    const userData = p.get('UserData');
    const userDataBytes = userData ? Buffer.from(userData, 'base64').length : 0;
    if (userDataBytes > USER_DATA_LIMIT) throw new Ec2Error(400, 'InvalidParameterValue', 'User data is limited to 16384 bytes');
    const named = p.get('SubnetId') ? this.#mustId('subnet', this.subnets, p.get('SubnetId')) : undefined;
    const zone = p.get('Placement.AvailabilityZone') ?? named?.zone ?? this.#options.zones[0] ?? `${this.#options.region}a`;
    if (named && named.zone !== zone)
      throw new Ec2Error(
        400,
        'InvalidParameterValue',
        `Value (${zone}) for parameter availabilityZone is invalid. Subnet '${named.id}' is in availability zone '${named.zone}'.`,
      );
    const subnet = named ?? this.#defaultSubnet(zone);
    const given = queryList(p, 'SecurityGroupId');
    for (const g of given) {
      const sg = this.#mustId('security-group', this.securityGroups, g);
      if (sg.vpcId !== subnet.vpcId) throw new Ec2Error(400, 'InvalidParameter', `Security group ${g} and subnet ${subnet.id} belong to different networks.`);
    }
    // "If you don't specify a security group ID, we use the default security group for the VPC" (API_RunInstances.html).
    const vpcDefaultGroup = [...this.securityGroups.values()].find((g) => g.vpcId === subnet.vpcId && g.name === 'default');
    const groups = given.length > 0 ? given : vpcDefaultGroup ? [vpcDefaultGroup.id] : [];
    const metadataOptions = metadataOptionsOf(p);
    const keyName = p.get('KeyName') ?? undefined;
    if (keyName && ![...this.keyPairs.values()].some((k) => k.name === keyName))
      throw new Ec2Error(400, 'InvalidKeyPair.NotFound', `The key pair '${keyName}' does not exist`);
    const offered = this.#offeredZones(type.name);
    if (!offered.includes(zone)) {
      // EC2's answer for a type its zone does not offer, code and words as a user met it in sa-east-1b
      // (https://github.com/trailofbits/algo/issues/314).
      throw new Ec2Error(
        400,
        'Unsupported',
        `Your requested instance type (${type.name}) is not supported in your requested Availability Zone ` +
          `(${zone}).${offered.length ? ` Please retry your request by not specifying an Availability Zone or choosing ${offered.join(', ')}.` : ''}`,
      );
    }
    if (this.#buckets.launches.tryTake(max) > 0) throw new Ec2Error(503, 'RequestLimitExceeded', 'Request limit exceeded.');
    const reservationId = this.#id('r');
    const tags = tagsFor(p, 'instance');
    const created: Instance[] = [];
    for (let n = 0; n < max; n++) {
      const now = this.#now();
      const host = (subnet.nextHost += 1);
      const base = subnet.cidr.split('/')[0]!.split('.');
      const inst: Instance = {
        id: this.#id('i'),
        reservationId,
        type: type.name,
        imageId: image.id,
        zone,
        groups,
        tags: { ...tags },
        launchedAt: now,
        visibleAt:
          now +
          Math.min(
            this.#options.describeLagMaxMs,
            sample({ ...LATENCY.ec2DescribeLag, maxMs: Math.max(LATENCY.ec2DescribeLag.typicalMs, this.#options.describeLagMaxMs) }, this.#ctx.random),
          ),
        runningAt: now + LATENCY.ec2RunInstancesCall + sample(LATENCY.ec2PendingToRunning, this.#ctx.random),
        privateIp: `${base[0]}.${base[1]}.${Number(base[2]) + Math.floor(host / 250)}.${(host % 250) + 4}`,
        // Subnets map a public IP on launch, as the default VPC does.
        publicIp: sandboxPublicAddress(`ec2:${this.#options.region}`, (this.#ipSeq += 1)),
        subnetId: subnet.id,
        vpcId: subnet.vpcId,
        ...(keyName ? { keyName } : {}),
        ...(token ? { clientToken: token } : {}),
        userDataBytes,
        userData: userData ?? '',
        metadataOptions: { ...metadataOptions },
      };
      this.instances.set(inst.id, inst);
      created.push(inst);
    }
    if (token) this.#tokens.set(token, { hash, instanceIds: created.map((i) => i.id) });
    return this.#xml(
      'RunInstances',
      t('reservationId', reservationId) + t('ownerId', OWNER) + el('groupSet') + items('instancesSet', created, (i) => this.#instanceXml(i)),
    );
  }

  #instanceXml(i: Instance): string {
    const state = this.#state(i);
    const address = [...this.addresses.values()].find((a) => a.instanceId === i.id);
    const publicIp = address?.publicIp ?? (state.name === 'running' || state.name === 'pending' ? i.publicIp : undefined);
    const mo = i.metadataOptions ?? DEFAULT_METADATA_OPTIONS;
    return (
      t('instanceId', i.id) +
      t('imageId', i.imageId) +
      el('instanceState', t('code', state.code), t('name', state.name)) +
      t('privateDnsName', `ip-${i.privateIp.replace(/\./g, '-')}.${this.#options.region}.compute.internal`) +
      t('keyName', i.keyName) +
      t('amiLaunchIndex', 0) +
      t('instanceType', i.type) +
      t('launchTime', new Date(i.launchedAt).toISOString()) +
      el('placement', t('availabilityZone', i.zone), t('tenancy', 'default')) +
      t('subnetId', i.subnetId) +
      t('vpcId', i.vpcId) +
      t('privateIpAddress', i.privateIp) +
      t('ipAddress', publicIp) +
      t('clientToken', i.clientToken) +
      items('groupSet', i.groups, (g) => t('groupId', g) + t('groupName', this.securityGroups.get(g)?.name ?? '')) +
      t('architecture', EC2_IMAGES.find((x) => x.id === i.imageId)?.arch) +
      t('rootDeviceType', 'ebs') +
      t('hypervisor', 'xen') +
      this.#tagsXml(i.tags) +
      // EC2 reports the options `pending` until the instance can serve them, then `applied`.
      el(
        'metadataOptions',
        t('state', state.name === 'pending' ? 'pending' : 'applied'),
        t('httpTokens', mo.httpTokens),
        t('httpPutResponseHopLimit', mo.httpPutResponseHopLimit),
        t('httpEndpoint', mo.httpEndpoint),
        t('httpProtocolIpv6', mo.httpProtocolIpv6),
        t('instanceMetadataTags', mo.instanceMetadataTags),
      )
    );
  }

  /** The instance `id` names if DescribeInstances would show it. */
  #visibleInstance(id: string): Instance | undefined {
    const i = this.instances.get(id);
    return i && this.#visible(i) ? i : undefined;
  }

  #visible(i: Instance): boolean {
    return this.#now() >= i.visibleAt && !(i.terminatedAt !== undefined && this.#now() > i.terminatedAt + 3_600_000);
  }

  #describeInstances(p: URLSearchParams): Response {
    const ids = queryList(p, 'InstanceId');
    requireIds('instance', ids, (id) => this.#visibleInstance(id) !== undefined);
    const visible = [...this.instances.values()].filter((i) => this.#visible(i));
    const matched = this.#filter(
      visible,
      p,
      'DescribeInstances',
      'InstanceId',
      (i) => i.id,
      (i, n) => this.#instanceAttr(i, n),
    );
    const maxResults = p.get('MaxResults') ? Number(p.get('MaxResults')) : undefined;
    if (maxResults !== undefined && (maxResults < 5 || maxResults > 1000))
      throw new Ec2Error(400, 'InvalidParameterValue', 'Value for parameter MaxResults is invalid: must be between 5 and 1000');
    if (maxResults !== undefined && ids.length > 0)
      throw new Ec2Error(400, 'InvalidParameterCombination', 'The parameter instancesSet cannot be used with the parameter maxResults');
    const offset = p.get('NextToken') ? Number(Buffer.from(p.get('NextToken') ?? '', 'base64').toString('utf8')) : 0;
    const page = maxResults === undefined ? matched : matched.slice(offset, offset + maxResults);
    const next = maxResults !== undefined && offset + maxResults < matched.length ? Buffer.from(String(offset + maxResults)).toString('base64') : undefined;
    // One reservation per RunInstances call, holding every instance it launched (API_Reservation.html).
    const reservations = new Map<string, Instance[]>();
    for (const i of page) reservations.set(i.reservationId, [...(reservations.get(i.reservationId) ?? []), i]);
    return this.#xml(
      'DescribeInstances',
      items(
        'reservationSet',
        [...reservations.entries()],
        ([id, list]) => t('reservationId', id) + t('ownerId', OWNER) + el('groupSet') + items('instancesSet', list, (x) => this.#instanceXml(x)),
      ) + t('nextToken', next),
    );
  }

  #terminateInstances(p: URLSearchParams): Response {
    const ids = queryList(p, 'InstanceId');
    const out: string[] = [];
    requireIds('instance', ids, (id) => this.#visibleInstance(id) !== undefined);
    for (const id of ids) {
      const i = this.instances.get(id)!;
      const previous = this.#state(i);
      if (i.terminatedAt === undefined) {
        i.terminateRequestedAt = this.#now();
        i.terminatedAt = this.#now() + LATENCY.ec2ShuttingDownToTerminated;
      }
      for (const a of this.addresses.values()) if (a.instanceId === i.id) this.#detachAddress(a);
      const current = this.#state(i);
      out.push(
        t('instanceId', id) +
          el('currentState', t('code', current.code), t('name', current.name)) +
          el('previousState', t('code', previous.code), t('name', previous.name)),
      );
    }
    return this.#xml('TerminateInstances', el('instancesSet', ...out.map((x) => el('item', x))));
  }

  /**
   * StopInstances and StartInstances (API_StopInstances.html, API_StartInstances.html; the instance lifecycle:
   * https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/ec2-instance-lifecycle.html): running -> stopping -> stopped
   * -> pending -> running. Asking for the state an instance is in or heading to changes nothing; an instance that
   * cannot make the move (pending, terminated, stopping when started) is IncorrectInstanceState, and then none moves.
   */
  #stopOrStart(p: URLSearchParams, mode: 'stop' | 'start'): Response {
    const ids = queryList(p, 'InstanceId');
    if (ids.length === 0) throw new Ec2Error(400, 'MissingParameter', 'The request must contain the parameter InstanceId');
    requireIds('instance', ids, (id) => this.#visibleInstance(id) !== undefined);
    const instances = ids.map((id) => this.#visibleInstance(id)!);
    const allowed = mode === 'stop' ? ['running', 'stopping', 'stopped'] : ['stopped', 'pending', 'running'];
    const stuck = instances.find((i) => !allowed.includes(this.#state(i).name));
    if (stuck)
      throw new Ec2Error(
        400,
        'IncorrectInstanceState',
        `This instance '${stuck.id}' is not in a state from which it can be ${mode === 'stop' ? 'stopped' : 'started'}.`,
      );
    const out = instances.map((i) => {
      const previous = this.#state(i);
      if (mode === 'stop' && previous.name === 'running') {
        i.stopRequestedAt = this.#now();
        i.stoppedAt = this.#now() + LATENCY.ec2ShuttingDownToTerminated;
      }
      if (mode === 'start' && previous.name === 'stopped') {
        delete i.stopRequestedAt;
        delete i.stoppedAt;
        i.runningAt = this.#now() + sample(LATENCY.ec2PendingToRunning, this.#ctx.random);
      }
      const current = this.#state(i);
      return (
        t('instanceId', i.id) +
        el('currentState', t('code', current.code), t('name', current.name)) +
        el('previousState', t('code', previous.code), t('name', previous.name))
      );
    });
    return this.#xml(mode === 'stop' ? 'StopInstances' : 'StartInstances', el('instancesSet', ...out.map((x) => el('item', x))));
  }

  #liveInstances(): Instance[] {
    return [...this.instances.values()].filter((i) => this.#state(i).name !== 'terminated');
  }

  #createVpc(p: URLSearchParams): Response {
    const cidr = p.get('CidrBlock') ?? '';
    if (!/^\d+\.\d+\.\d+\.\d+\/(1[6-9]|2[0-8])$/.test(cidr)) throw new Ec2Error(400, 'InvalidVpc.Range', `The CIDR '${cidr}' is invalid.`);
    const id = this.#id('vpc');
    const rt: RouteTable = { id: this.#id('rtb'), vpcId: id, main: true, routes: [], tags: {} };
    this.routeTables.set(rt.id, rt);
    const sg: SecurityGroup = { id: this.#id('sg'), name: 'default', description: 'default VPC security group', vpcId: id, tags: {}, ingress: [] };
    this.securityGroups.set(sg.id, sg);
    const vpc: Vpc = { id, cidr, tags: tagsFor(p, 'vpc'), mainRouteTable: rt.id };
    this.vpcs.set(id, vpc);
    return this.#xml('CreateVpc', el('vpc', this.#vpcXml(vpc)));
  }

  #vpcAttr(v: Vpc, name: string): string[] {
    switch (name) {
      case 'vpc-id':
        return [v.id];
      case 'cidr':
      case 'cidr-block-association.cidr-block':
        return [v.cidr];
      case 'is-default':
        return [String(v.isDefault === true)];
      case 'state':
        return ['available'];
      case 'owner-id':
        return [OWNER];
      default:
        return this.#tagAttr(v.tags, name);
    }
  }

  #subnetAttr(s: Subnet, name: string): string[] {
    switch (name) {
      case 'subnet-id':
        return [s.id];
      case 'vpc-id':
        return [s.vpcId];
      case 'cidr':
      case 'cidr-block':
      case 'cidrBlock':
        return [s.cidr];
      case 'availability-zone':
      case 'availabilityZone':
        return [s.zone];
      case 'availability-zone-id':
      case 'availabilityZoneId':
        return [this.#zoneId(s.zone)];
      case 'default-for-az':
      case 'defaultForAz':
        return [String(s.defaultForAz === true)];
      case 'state':
        return ['available'];
      case 'owner-id':
        return [OWNER];
      default:
        return this.#tagAttr(s.tags, name);
    }
  }

  #instanceAttr(i: Instance, name: string): string[] {
    const opt = (v: string | undefined): string[] => (v === undefined ? [] : [v]);
    switch (name) {
      case 'instance-id':
        return [i.id];
      case 'instance-state-name':
        return [this.#state(i).name];
      case 'instance-state-code':
        return [String(this.#state(i).code)];
      case 'instance-type':
        return [i.type];
      case 'image-id':
        return [i.imageId];
      case 'client-token':
        return opt(i.clientToken);
      case 'subnet-id':
        return opt(i.subnetId);
      case 'vpc-id':
        return opt(i.vpcId);
      case 'availability-zone':
        return [i.zone];
      case 'private-ip-address':
        return [i.privateIp];
      case 'ip-address':
        return opt([...this.addresses.values()].find((a) => a.instanceId === i.id)?.publicIp ?? i.publicIp);
      case 'key-name':
        return opt(i.keyName);
      case 'instance.group-id':
        return i.groups;
      case 'instance.group-name':
        return i.groups.map((g) => this.securityGroups.get(g)?.name ?? '');
      case 'architecture':
        return opt(EC2_IMAGES.find((x) => x.id === i.imageId)?.arch ?? EC2_INSTANCE_TYPES.find((x) => x.name === i.type)?.arch);
      default:
        return this.#tagAttr(i.tags, name);
    }
  }

  #vpcXml(v: Vpc): string {
    return (
      t('vpcId', v.id) +
      t('ownerId', OWNER) +
      t('state', 'available') +
      t('cidrBlock', v.cidr) +
      t('instanceTenancy', 'default') +
      t('isDefault', v.isDefault === true) +
      this.#tagsXml(v.tags)
    );
  }

  #deleteVpc(p: URLSearchParams): Response {
    const vpc = this.#mustId('vpc', this.vpcs, p.get('VpcId'));
    const deps =
      [...this.subnets.values()].some((s) => s.vpcId === vpc.id) ||
      [...this.igws.values()].some((g) => g.vpcId === vpc.id) ||
      [...this.securityGroups.values()].some((g) => g.vpcId === vpc.id && g.name !== 'default') ||
      [...this.routeTables.values()].some((r) => r.vpcId === vpc.id && !r.main);
    if (deps) throw new Ec2Error(400, 'DependencyViolation', `The vpc '${vpc.id}' has dependencies and cannot be deleted.`);
    for (const [id, r] of this.routeTables) if (r.vpcId === vpc.id) this.routeTables.delete(id);
    for (const [id, g] of this.securityGroups) if (g.vpcId === vpc.id) this.securityGroups.delete(id);
    this.vpcs.delete(vpc.id);
    return this.#xml('DeleteVpc', t('return', true));
  }

  #createSubnet(p: URLSearchParams): Response {
    const vpc = this.#mustId('vpc', this.vpcs, p.get('VpcId'));
    const zone = p.get('AvailabilityZone') ?? this.#options.zones[0] ?? '';
    if (!this.#options.zones.includes(zone))
      throw new Ec2Error(
        400,
        'InvalidParameterValue',
        `Value (${zone}) for parameter availabilityZone is invalid. Subnets can currently only ` +
          `be created in the following availability zones: ${this.#options.zones.join(', ')}.`,
      );
    const cidr = p.get('CidrBlock') ?? '';
    if ([...this.subnets.values()].some((s) => s.vpcId === vpc.id && s.cidr === cidr))
      throw new Ec2Error(400, 'InvalidSubnet.Conflict', `The CIDR '${cidr}' conflicts with another subnet`);
    const s: Subnet = { id: this.#id('subnet'), vpcId: vpc.id, cidr, zone, tags: tagsFor(p, 'subnet'), nextHost: 0 };
    this.subnets.set(s.id, s);
    return this.#xml('CreateSubnet', el('subnet', this.#subnetXml(s)));
  }

  #subnetXml(s: Subnet): string {
    return (
      t('subnetId', s.id) +
      t('state', 'available') +
      t('vpcId', s.vpcId) +
      t('cidrBlock', s.cidr) +
      t('availableIpAddressCount', 250) +
      t('availabilityZone', s.zone) +
      t('availabilityZoneId', this.#zoneId(s.zone)) +
      t('defaultForAz', s.defaultForAz === true) +
      t('mapPublicIpOnLaunch', true) +
      this.#tagsXml(s.tags)
    );
  }

  #deleteSubnet(p: URLSearchParams): Response {
    const s = this.#mustId('subnet', this.subnets, p.get('SubnetId'));
    if (this.#liveInstances().some((i) => i.subnetId === s.id))
      throw new Ec2Error(400, 'DependencyViolation', `The subnet '${s.id}' has dependencies and cannot be deleted.`);
    this.subnets.delete(s.id);
    return this.#xml('DeleteSubnet', t('return', true));
  }

  #igwXml(g: Igw): string {
    return (
      t('internetGatewayId', g.id) +
      t('ownerId', OWNER) +
      items('attachmentSet', g.vpcId ? [g.vpcId] : [], (v) => t('vpcId', v) + t('state', 'available')) +
      this.#tagsXml(g.tags)
    );
  }

  #routeTableXml(r: RouteTable): string {
    return (
      t('routeTableId', r.id) +
      t('vpcId', r.vpcId) +
      t('ownerId', OWNER) +
      items(
        'routeSet',
        [{ cidr: this.vpcs.get(r.vpcId)?.cidr ?? '', gatewayId: 'local' }, ...r.routes],
        (x) =>
          t('destinationCidrBlock', x.cidr) +
          t('gatewayId', x.gatewayId) +
          t('state', 'active') +
          t('origin', x.gatewayId === 'local' ? 'CreateRouteTable' : 'CreateRoute'),
      ) +
      items('associationSet', r.main ? [r.id] : [], (id) => t('routeTableAssociationId', `rtbassoc-${id.slice(4)}`) + t('routeTableId', id) + t('main', true)) +
      this.#tagsXml(r.tags)
    );
  }

  #createSecurityGroup(p: URLSearchParams): Response {
    const vpc = this.#mustId('vpc', this.vpcs, p.get('VpcId'));
    const name = p.get('GroupName') ?? '';
    if ([...this.securityGroups.values()].some((g) => g.vpcId === vpc.id && g.name === name))
      throw new Ec2Error(400, 'InvalidGroup.Duplicate', `The security group '${name}' already exists for VPC '${vpc.id}'`);
    const g: SecurityGroup = {
      id: this.#id('sg'),
      name,
      description: p.get('GroupDescription') ?? '',
      vpcId: vpc.id,
      tags: tagsFor(p, 'security-group'),
      ingress: [],
    };
    this.securityGroups.set(g.id, g);
    return this.#xml('CreateSecurityGroup', t('return', true) + t('groupId', g.id));
  }

  #sgXml(g: SecurityGroup): string {
    return (
      t('ownerId', OWNER) +
      t('groupId', g.id) +
      t('groupName', g.name) +
      t('groupDescription', g.description) +
      t('vpcId', g.vpcId) +
      items(
        'ipPermissions',
        g.ingress,
        (x) =>
          t('ipProtocol', x.protocol) +
          (x.protocol === '-1' ? '' : t('fromPort', x.from) + t('toPort', x.to)) +
          items('groups', x.groups, (id) => t('userId', OWNER) + t('groupId', id)) +
          items('ipRanges', x.cidrs, (c) => t('cidrIp', c.cidr) + t('description', c.description)),
      ) +
      items('ipPermissionsEgress', [0], () => t('ipProtocol', '-1') + items('ipRanges', ['0.0.0.0/0'], (c) => t('cidrIp', c))) +
      this.#tagsXml(g.tags)
    );
  }

  #changeIngress(p: URLSearchParams, mode: 'authorize' | 'revoke'): Response {
    const g = this.#mustId('security-group', this.securityGroups, p.get('GroupId'));
    for (const m of queryMembers(p, 'IpPermissions')) {
      const protocol = m.get('IpProtocol') ?? '-1';
      const from = Number(m.get('FromPort') ?? '-1');
      const to = Number(m.get('ToPort') ?? '-1');
      const cidrs = queryMembers(m, 'IpRanges').map((r) => ({
        cidr: r.get('CidrIp') ?? '',
        ...(r.get('Description') ? { description: r.get('Description') ?? '' } : {}),
      }));
      const groups = queryMembers(m, 'Groups').map((r) => r.get('GroupId') ?? '');
      let perm = g.ingress.find((x) => x.protocol === protocol && x.from === from && x.to === to);
      if (mode === 'authorize') {
        if (!perm) g.ingress.push((perm = { protocol, from, to, cidrs: [], groups: [] }));
        for (const c of cidrs) {
          if (perm.cidrs.some((x) => x.cidr === c.cidr))
            throw new Ec2Error(
              400,
              'InvalidPermission.Duplicate',
              `the specified rule "peer: ${c.cidr}, ${protocol.toUpperCase()}, from port: ${from}, to port: ${to}, ALLOW" already exists`,
            );
          perm.cidrs.push(c);
        }
        for (const id of groups) {
          if (perm.groups.includes(id))
            throw new Ec2Error(
              400,
              'InvalidPermission.Duplicate',
              `the specified rule "peer: ${id}, ${protocol.toUpperCase()}, from port: ${from}, to port: ${to}, ALLOW" already exists`,
            );
          this.#mustId('security-group', this.securityGroups, id);
          perm.groups.push(id);
        }
      } else {
        if (!perm || cidrs.some((c) => !perm?.cidrs.some((x) => x.cidr === c.cidr)) || groups.some((id) => !perm?.groups.includes(id)))
          throw new Ec2Error(400, 'InvalidPermission.NotFound', 'The specified rule does not exist in this security group.');
        perm.cidrs = perm.cidrs.filter((x) => !cidrs.some((c) => c.cidr === x.cidr));
        perm.groups = perm.groups.filter((x) => !groups.includes(x));
        if (perm.cidrs.length === 0 && perm.groups.length === 0) g.ingress = g.ingress.filter((x) => x !== perm);
      }
    }
    return this.#xml(mode === 'authorize' ? 'AuthorizeSecurityGroupIngress' : 'RevokeSecurityGroupIngress', t('return', true));
  }

  #deleteSecurityGroup(p: URLSearchParams): Response {
    const g = this.#mustId('security-group', this.securityGroups, p.get('GroupId'));
    if (this.#liveInstances().some((i) => i.groups.includes(g.id))) throw new Ec2Error(400, 'DependencyViolation', `resource ${g.id} has a dependent object`);
    if ([...this.securityGroups.values()].some((o) => o.id !== g.id && o.ingress.some((x) => x.groups.includes(g.id))))
      throw new Ec2Error(400, 'DependencyViolation', `resource ${g.id} has a dependent object`);
    this.securityGroups.delete(g.id);
    return this.#xml('DeleteSecurityGroup', t('return', true));
  }

  #associateAddress(p: URLSearchParams): Response {
    const a = this.addresses.get(p.get('AllocationId') ?? '');
    if (!a) throw new Ec2Error(400, 'InvalidAllocationID.NotFound', `The allocation ID '${p.get('AllocationId') ?? ''}' does not exist`);
    requireIds('instance', [p.get('InstanceId') ?? ''], (id) => this.#visibleInstance(id) !== undefined);
    const i = this.#visibleInstance(p.get('InstanceId') ?? '')!;
    if (this.#state(i).name !== 'running')
      throw new Ec2Error(400, 'IncorrectInstanceState', `The instance '${i.id}' is not in a valid state for this operation.`);
    if (a.instanceId && a.instanceId !== i.id && p.get('AllowReassociation') !== 'true')
      throw new Ec2Error(400, 'Resource.AlreadyAssociated', `resource ${a.allocationId} is already associated with associate-id ${a.associationId ?? ''}`);
    if (a.instanceId !== i.id) {
      a.instanceId = i.id;
      a.associationId = `eipassoc-${a.allocationId.slice(9)}`;
    }
    return this.#xml('AssociateAddress', t('return', true) + t('associationId', a.associationId));
  }

  #detachAddress(a: Address): void {
    delete a.instanceId;
    delete a.associationId;
  }

  #addressXml(a: Address): string {
    return (
      t('publicIp', a.publicIp) +
      t('allocationId', a.allocationId) +
      t('domain', 'vpc') +
      t('instanceId', a.instanceId) +
      t('associationId', a.associationId) +
      this.#tagsXml(a.tags)
    );
  }

  #importKeyPair(p: URLSearchParams): Response {
    const name = p.get('KeyName') ?? '';
    if ([...this.keyPairs.values()].some((k) => k.name === name)) throw new Ec2Error(400, 'InvalidKeyPair.Duplicate', `The keypair '${name}' already exists.`);
    const material = Buffer.from(p.get('PublicKeyMaterial') ?? '', 'base64').toString('utf8');
    if (!/^(ssh-ed25519|ssh-rsa|ecdsa-sha2-nistp256) [A-Za-z0-9+/=]+/.test(material))
      throw new Ec2Error(400, 'InvalidKey.Format', 'Key is not in valid OpenSSH public key format');
    const digest = createHash('sha256')
      .update(Buffer.from(material.split(' ')[1] ?? '', 'base64'))
      .digest('base64')
      .replace(/=+$/, '');
    const k: KeyPair = { id: this.#id('key'), name, fingerprint: digest, tags: tagsFor(p, 'key-pair') };
    this.keyPairs.set(k.id, k);
    return this.#xml('ImportKeyPair', t('keyFingerprint', k.fingerprint) + t('keyName', k.name) + t('keyPairId', k.id) + this.#tagsXml(k.tags));
  }
}

/** A Region's short code as zone ids carry it: `eu-central-1` -> `euc1`, `ap-southeast-2` -> `apse2`. */
function regionCode(region: string): string {
  const [area = '', direction = '', number = ''] = region.split('-');
  const short = direction.replace('central', 'c').replace('north', 'n').replace('south', 's').replace('east', 'e').replace('west', 'w');
  return `${area}${short}${number}`;
}

function esc(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;');
}
