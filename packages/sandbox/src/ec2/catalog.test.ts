// The EC2 emulator's catalog is AWS's, from the snapshots in catalogs/aws/ (issue 31): a new account's Regions (every
// Region that needs no opt-in, whatever the seed), the instance types each Region offers, Canonical's Ubuntu images; odd
// accounts only by an explicit option.
import { afterEach, describe, expect, it } from 'vitest';
import {
  DescribeAvailabilityZonesCommand,
  DescribeImagesCommand,
  DescribeInstanceTypeOfferingsCommand,
  DescribeInstanceTypesCommand,
  DescribeRegionsCommand,
  EC2Client,
  type _InstanceType,
  RunInstancesCommand,
} from '@aws-sdk/client-ec2';
import { Sandbox, SANDBOX_CREDENTIALS } from '../sandbox.js';

process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] = 'true';
let sandbox: Sandbox | undefined;
afterEach(() => {
  sandbox?.close();
  sandbox = undefined;
});

const open = (options: ConstructorParameters<typeof Sandbox>[0] = { seed: 1 }): Sandbox => {
  sandbox = new Sandbox({ ...options, ec2: { describeLagMaxMs: 0, ...options?.ec2 } }).listen();
  return sandbox;
};
const ec2 = (region: string) =>
  new EC2Client({
    region,
    credentials: { accessKeyId: SANDBOX_CREDENTIALS.awsAccessKeyId, secretAccessKey: SANDBOX_CREDENTIALS.awsSecretAccessKey },
    maxAttempts: 1,
  });
const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (e: { name?: string }) => e.name,
  );
const enabledRegions = async (region = 'eu-central-1') =>
  ((await ec2(region).send(new DescribeRegionsCommand({}))).Regions ?? []).map((r) => r.RegionName ?? '').sort();
const offeredZones = async (region: string, type: string) =>
  (
    (
      await ec2(region).send(
        new DescribeInstanceTypeOfferingsCommand({ LocationType: 'availability-zone', Filters: [{ Name: 'instance-type', Values: [type] }] }),
      )
    ).InstanceTypeOfferings ?? []
  )
    .map((o) => o.Location ?? '')
    .sort();
const launch = (region: string, type: _InstanceType, zone: string, image = 'ami-0965bd5ba4d59211c') =>
  ec2(region).send(new RunInstancesCommand({ MinCount: 1, MaxCount: 1, ImageId: image, InstanceType: type, Placement: { AvailabilityZone: zone } }));

/** The Regions every AWS account has enabled from the start (those launched before 20 March 2019). */
const DEFAULT_ENABLED = [
  'ap-northeast-1',
  'ap-northeast-2',
  'ap-northeast-3',
  'ap-south-1',
  'ap-southeast-1',
  'ap-southeast-2',
  'ca-central-1',
  'eu-central-1',
  'eu-north-1',
  'eu-west-1',
  'eu-west-2',
  'eu-west-3',
  'sa-east-1',
  'us-east-1',
  'us-east-2',
  'us-west-1',
  'us-west-2',
];

describe("the sandbox's AWS account", () => {
  it('has eu-west-3 enabled and the opt-in eu-central-2 not, as a new account has', async () => {
    open();
    const all = (await ec2('eu-central-1').send(new DescribeRegionsCommand({ AllRegions: true }))).Regions ?? [];
    expect(all.find((r) => r.RegionName === 'eu-west-3')?.OptInStatus).toBe('opt-in-not-required');
    expect(all.find((r) => r.RegionName === 'eu-central-2')?.OptInStatus).toBe('not-opted-in');
    expect(await enabledRegions()).not.toContain('eu-central-2');
    expect(await enabledRegions('eu-west-3')).toContain('eu-west-3');
  });

  it('has every Region that needs no opt-in enabled and served, the same for every seed', async () => {
    for (const seed of [1, 7, 4242]) {
      open({ seed });
      expect(await enabledRegions(), `seed ${seed}`).toEqual(DEFAULT_ENABLED);
      expect([...(sandbox?.ec2Regions.keys() ?? [])].sort()).toEqual(DEFAULT_ENABLED);
      sandbox?.close();
      sandbox = undefined;
    }
  });

  it('keeps the enabled Regions when a test serves fewer of them', async () => {
    open({ seed: 1, ec2Regions: ['eu-central-1'] });
    expect(await enabledRegions()).toEqual(DEFAULT_ENABLED);
  });

  it('enables an opt-in Region only when told to (awsOptInRegions), and serves it then', async () => {
    open({ seed: 1, awsOptInRegions: ['eu-central-2'] });
    const all = (await ec2('eu-central-1').send(new DescribeRegionsCommand({ AllRegions: true }))).Regions ?? [];
    expect(all.find((r) => r.RegionName === 'eu-central-2')?.OptInStatus).toBe('opted-in');
    expect(await codeOf(launch('eu-central-2', 't3.small', 'eu-central-2a'))).toBe('ok');
    expect(() => new Sandbox({ seed: 1, awsOptInRegions: ['eu-west-3'] })).toThrow(/eu-west-3 needs no opt-in/);
    expect(() => new Sandbox({ seed: 1, awsOptInRegions: ['eu-central-9'] })).toThrow(/eu-central-9 is no AWS Region/);
  });

  it("gives each Region its zones with their AZ IDs (Tokyo's a, c and d)", async () => {
    open();
    const zones = (await ec2('ap-northeast-1').send(new DescribeAvailabilityZonesCommand({}))).AvailabilityZones ?? [];
    expect(zones.map((z) => [z.ZoneName, z.ZoneId])).toEqual([
      ['ap-northeast-1a', 'apne1-az4'],
      ['ap-northeast-1c', 'apne1-az1'],
      ['ap-northeast-1d', 'apne1-az2'],
    ]);
    expect(((await ec2('us-east-1').send(new DescribeAvailabilityZonesCommand({}))).AvailabilityZones ?? []).length).toBe(6);
  });
});

describe("the sandbox's instance types", () => {
  it('offers g4dn.xlarge in every zone of eu-central-1 with its NVIDIA T4, and launches it there', async () => {
    open();
    expect(await offeredZones('eu-central-1', 'g4dn.xlarge')).toEqual(['eu-central-1a', 'eu-central-1b', 'eu-central-1c']);
    const [type] = (await ec2('eu-central-1').send(new DescribeInstanceTypesCommand({ InstanceTypes: ['g4dn.xlarge'] }))).InstanceTypes ?? [];
    expect(type?.VCpuInfo?.DefaultVCpus).toBe(4);
    expect(type?.MemoryInfo?.SizeInMiB).toBe(16384);
    expect(type?.GpuInfo?.Gpus).toEqual([{ Name: 'T4', Manufacturer: 'NVIDIA', Count: 1, MemoryInfo: { SizeInMiB: 16384 } }]);
    expect(await codeOf(launch('eu-central-1', 'g4dn.xlarge', 'eu-central-1c'))).toBe('ok');
  });

  it('does not offer a GPU family in a Region AWS does not list for it (P4de in Stockholm), and refuses to launch it there', async () => {
    open();
    expect(await offeredZones('eu-north-1', 'p4de.24xlarge')).toEqual([]);
    expect(await codeOf(ec2('eu-north-1').send(new DescribeInstanceTypesCommand({ InstanceTypes: ['p4de.24xlarge'] })))).toBe('InvalidInstanceType');
    expect(await codeOf(launch('eu-north-1', 'p4de.24xlarge', 'eu-north-1a'))).toBe('Unsupported');
    expect(await offeredZones('eu-central-1', 'p4de.24xlarge')).toEqual(['eu-central-1a', 'eu-central-1b', 'eu-central-1c']);
  });

  it('offers a size only in the Regions AWS sells it in: p5.4xlarge not in Stockholm, which sells only p5.48xlarge', async () => {
    open();
    expect(await offeredZones('eu-north-1', 'p5.48xlarge')).toEqual(['eu-north-1a', 'eu-north-1b', 'eu-north-1c']);
    expect(await offeredZones('eu-north-1', 'p5.4xlarge')).toEqual([]);
    expect(await codeOf(ec2('eu-north-1').send(new DescribeInstanceTypesCommand({ InstanceTypes: ['p5.4xlarge'] })))).toBe('InvalidInstanceType');
    expect(await codeOf(launch('eu-north-1', 'p5.4xlarge', 'eu-north-1b'))).toBe('Unsupported');
    expect(await offeredZones('eu-west-2', 'p5.4xlarge')).toEqual(['eu-west-2a', 'eu-west-2b', 'eu-west-2c']);
    expect(await codeOf(launch('eu-west-2', 'p5.4xlarge', 'eu-west-2a'))).toBe('ok');
  });

  it('narrows what a Region offers only by an explicit option (ec2.offerings)', async () => {
    open({ seed: 1, ec2: { offerings: { 'g4dn.xlarge': ['eu-central-1b'], 't3.small': [] } } });
    expect(await offeredZones('eu-central-1', 'g4dn.xlarge')).toEqual(['eu-central-1b']);
    expect(await codeOf(launch('eu-central-1', 'g4dn.xlarge', 'eu-central-1a'))).toBe('Unsupported');
    expect(await offeredZones('eu-central-1', 't3.small')).toEqual([]);
    expect(await offeredZones('eu-central-1', 't3.medium')).toEqual(['eu-central-1a', 'eu-central-1b', 'eu-central-1c']);
  });
});

describe("the sandbox's images", () => {
  it("lists Canonical's Ubuntu images of the Region by their names, launches them, and takes any well-formed AMI id as the account's own", async () => {
    open();
    const images = (await ec2('eu-west-3').send(new DescribeImagesCommand({ Owners: ['099720109477'] }))).Images ?? [];
    expect(images.map((i) => [i.Name, i.Architecture])).toContainEqual(['ubuntu/images/hvm-ssd-gp3/ubuntu-noble-24.04-arm64-server-20251212', 'arm64']);
    const noble = images.find((i) => i.Name === 'ubuntu/images/hvm-ssd-gp3/ubuntu-noble-24.04-amd64-server-20251212');
    expect(noble?.ImageId).toMatch(/^ami-[0-9a-f]{17}$/);
    expect(await codeOf(launch('eu-west-3', 't3.small', 'eu-west-3a', noble?.ImageId))).toBe('ok');
    // The arm64 image does not boot an x86_64 type.
    const arm = images.find((i) => i.Architecture === 'arm64')?.ImageId;
    expect(await codeOf(launch('eu-west-3', 't3.small', 'eu-west-3a', arm))).toBe('InvalidParameterValue');
    expect(await codeOf(launch('eu-west-3', 't4g.small', 'eu-west-3a', arm))).toBe('ok');
    expect((await ec2('eu-west-3').send(new DescribeImagesCommand({ Owners: ['self'] }))).Images).toEqual([]);
    expect(await codeOf(launch('eu-west-3', 't3.small', 'eu-west-3b', 'ami-03df6dea56f8aa618'))).toBe('ok');
    expect(await codeOf(launch('eu-west-3', 't3.small', 'eu-west-3b', 'ami-0ubuntu2404amd64'))).toBe('InvalidAMIID.Malformed');
  });
});
