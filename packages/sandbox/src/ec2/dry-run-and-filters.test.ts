// DryRun on EC2's actions, the filters each Describe action documents, the fields of an AMI, and the refusal of what
// the sandbox does not emulate: each as a client of the SDK meets it.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  AllocateAddressCommand,
  type _InstanceType,
  CreateVpcCommand,
  DescribeAddressesCommand,
  DescribeImagesCommand,
  DescribeInstancesCommand,
  DescribeInstanceTypesCommand,
  DescribeKeyPairsCommand,
  ImportKeyPairCommand,
  DescribeRouteTablesCommand,
  DescribeSecurityGroupsCommand,
  DescribeSnapshotsCommand,
  DescribeSubnetsCommand,
  DescribeTagsCommand,
  DescribeVolumesCommand,
  DescribeVpcsCommand,
  EC2Client,
  RunInstancesCommand,
  TerminateInstancesCommand,
} from '@aws-sdk/client-ec2';
import { Sandbox, SANDBOX_CREDENTIALS } from '../sandbox.js';
import { SANDBOX_SSH_PUBLIC_KEY } from '../accounts.js';
import { DOCUMENTED_FILTERS } from './documented-filters.js';
import { EVALUATED_FILTERS } from './filters.js';

process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] = 'true';
let sandbox: Sandbox;
beforeEach(() => {
  sandbox = new Sandbox({ seed: 1, ec2: { describeLagMaxMs: 0 } }).listen();
});
afterEach(() => sandbox.close());

const ec2 = () =>
  new EC2Client({
    region: 'eu-central-1',
    credentials: { accessKeyId: SANDBOX_CREDENTIALS.awsAccessKeyId, secretAccessKey: SANDBOX_CREDENTIALS.awsSecretAccessKey },
    maxAttempts: 1,
  });
const failure = (p: Promise<unknown>) =>
  p.then(
    () => ({ code: 'ok', message: '', status: 200 }),
    (e: { name?: string; message?: string; $metadata?: { httpStatusCode?: number } }) => ({
      code: e.name,
      message: e.message,
      status: e.$metadata?.httpStatusCode,
    }),
  );
const NOBLE = 'ubuntu/images/hvm-ssd-gp3/ubuntu-noble-24.04-amd64-server-*';
const nobleImage = async () =>
  (await ec2().send(new DescribeImagesCommand({ Owners: ['099720109477'], Filters: [{ Name: 'name', Values: [NOBLE] }] }))).Images?.[0];
const launch = async (extra: Partial<ConstructorParameters<typeof RunInstancesCommand>[0]> = {}) =>
  ec2().send(new RunInstancesCommand({ MinCount: 1, MaxCount: 1, ImageId: (await nobleImage())?.ImageId ?? '', InstanceType: 't3.small', ...extra }));

describe('EC2 DryRun', () => {
  it('answers a dry run that would succeed with DryRunOperation (412) and launches nothing', async () => {
    expect(await failure(launch({ DryRun: true }))).toEqual({
      code: 'DryRunOperation',
      status: 412,
      message: 'Request would have succeeded, but DryRun flag is set.',
    });
    expect((await ec2().send(new DescribeInstancesCommand({}))).Reservations).toEqual([]);
    expect(sandbox.ec2.instances.size).toBe(0);
  });

  it("answers a dry run that would fail with the call's own error", async () => {
    expect((await failure(launch({ DryRun: true, InstanceType: 't3.nope' as _InstanceType }))).code).toBe('InvalidParameterValue');
    expect((await failure(ec2().send(new CreateVpcCommand({ CidrBlock: '10.0.0.0/8', DryRun: true })))).code).toBe('InvalidVpc.Range');
  });

  it('changes nothing on a dry run of any action, and takes no id from the counter', async () => {
    const before = (await ec2().send(new DescribeVpcsCommand({}))).Vpcs?.length;
    expect((await failure(ec2().send(new CreateVpcCommand({ CidrBlock: '10.1.0.0/16', DryRun: true })))).code).toBe('DryRunOperation');
    expect((await failure(ec2().send(new AllocateAddressCommand({ Domain: 'vpc', DryRun: true })))).code).toBe('DryRunOperation');
    expect((await ec2().send(new DescribeVpcsCommand({}))).Vpcs?.length).toBe(before);
    expect((await ec2().send(new DescribeAddressesCommand({}))).Addresses).toEqual([]);
    const id = (await launch()).Instances?.[0]?.InstanceId ?? '';
    expect((await failure(ec2().send(new TerminateInstancesCommand({ InstanceIds: [id], DryRun: true })))).code).toBe('DryRunOperation');
    expect(sandbox.ec2.instances.get(id)?.terminatedAt).toBeUndefined();
    // The reservation took the first id, the instance the second: the dry runs took none.
    expect(id).toBe('i-00000000000000002');
  });
});

describe('EC2 Describe filters', () => {
  it("refuses a filter the action does not document in EC2's words, and a documented one the sandbox does not model in its own", async () => {
    expect(await failure(ec2().send(new DescribeVolumesCommand({ Filters: [{ Name: 'volume-size', Values: ['8'] }] })))).toMatchObject({
      code: 'InvalidParameterValue',
      message: "The filter 'volume-size' is invalid",
    });
    expect(await failure(ec2().send(new DescribeInstancesCommand({ Filters: [{ Name: 'network-interface.mac-address', Values: ['x'] }] })))).toMatchObject({
      code: 'UnsupportedOperation',
      message: expect.stringMatching(/^the sandbox does not emulate the filter 'network-interface.mac-address' of EC2 DescribeInstances/),
    });
    expect((await failure(ec2().send(new DescribeInstanceTypesCommand({ Filters: [{ Name: 'tag:a', Values: ['b'] }] })))).code).toBe('InvalidParameterValue');
  });

  it('evaluates only documented filters (and the older names DescribeSubnets takes)', () => {
    const aliases = ['cidr', 'cidrBlock', 'availabilityZone', 'availabilityZoneId', 'defaultForAz'];
    for (const [action, names] of Object.entries(EVALUATED_FILTERS))
      for (const name of names)
        expect((DOCUMENTED_FILTERS[action as keyof typeof DOCUMENTED_FILTERS] as readonly string[]).includes(name) || aliases.includes(name)).toBe(true);
  });

  it('selects instances by their documented fields, and by what no sandbox instance has, none', async () => {
    const id = (await launch({ TagSpecifications: [{ ResourceType: 'instance', Tags: [{ Key: 'team', Value: 'blue' }] }] })).Instances?.[0]?.InstanceId;
    const ids = async (...filters: Array<[string, string]>) =>
      (await ec2().send(new DescribeInstancesCommand({ Filters: filters.map(([Name, v]) => ({ Name, Values: [v] })) }))).Reservations?.flatMap((r) =>
        (r.Instances ?? []).map((i) => i.InstanceId),
      );
    expect(await ids(['root-device-name', '/dev/sda1'], ['virtualization-type', 'hvm'], ['tenancy', 'default'], ['tag:team', 'b?ue'])).toEqual([id]);
    expect(
      await ids(['block-device-mapping.status', 'attached'], ['owner-id', '123456789012'], ['dns-name', 'ec2-*.eu-central-1.compute.amazonaws.com']),
    ).toEqual([id]);
    expect(await ids(['metadata-options.http-put-response-hop-limit', '1'], ['hibernation-options.configured', 'false'], ['launch-index', '0'])).toEqual([id]);
    expect(await ids(['platform', 'windows'])).toEqual([]);
    expect(await ids(['host-id', '*'])).toEqual([]);
    expect(await ids(['instance-type', 'm5.*'])).toEqual([]);
  });

  it('selects subnets, groups, route tables and tags by the filters that were ignored before', async () => {
    const subnets = await ec2().send(new DescribeSubnetsCommand({ Filters: [{ Name: 'available-ip-address-count', Values: ['4091'] }] }));
    expect(subnets.Subnets?.length).toBe(3);
    expect((await ec2().send(new DescribeSubnetsCommand({ Filters: [{ Name: 'ipv6-native', Values: ['true'] }] }))).Subnets).toEqual([]);
    const egress = await ec2().send(new DescribeSecurityGroupsCommand({ Filters: [{ Name: 'egress.ip-permission.protocol', Values: ['-1'] }] }));
    expect(egress.SecurityGroups?.map((g) => g.GroupName)).toEqual(['default']);
    const tables = await ec2().send(new DescribeRouteTablesCommand({ Filters: [{ Name: 'route.gateway-id', Values: ['igw-*'] }] }));
    expect(tables.RouteTables?.length).toBe(1);
    const vpc = (
      await ec2().send(
        new CreateVpcCommand({
          CidrBlock: '10.2.0.0/16',
          TagSpecifications: [
            {
              ResourceType: 'vpc',
              Tags: [
                { Key: 'env', Value: 'x' },
                { Key: 'k', Value: 'v' },
              ],
            },
          ],
        }),
      )
    ).Vpc;
    const tags = await ec2().send(new DescribeTagsCommand({ Filters: [{ Name: 'tag:env', Values: ['x'] }] }));
    expect(tags.Tags?.map((t) => `${t.ResourceId} ${t.Key}`)).toEqual([`${vpc?.VpcId} env`, `${vpc?.VpcId} k`]);
  });
});

describe('EC2 paging', () => {
  it('refuses a MaxResults outside the bounds the action documents', async () => {
    expect((await failure(ec2().send(new DescribeVolumesCommand({ MaxResults: 3 })))).code).toBe('InvalidParameterValue');
    expect((await failure(ec2().send(new DescribeInstanceTypesCommand({ MaxResults: 1000 })))).code).toBe('InvalidParameterValue');
    expect((await ec2().send(new DescribeInstanceTypesCommand({ MaxResults: 5 }))).InstanceTypes?.length).toBe(5);
  });
});

describe('EC2 key pairs', () => {
  it('describes an imported key with its type, time and, when asked, its public key', async () => {
    await ec2().send(new ImportKeyPairCommand({ KeyName: 'k', PublicKeyMaterial: Buffer.from(SANDBOX_SSH_PUBLIC_KEY) }));
    const [key] = (await ec2().send(new DescribeKeyPairsCommand({ IncludePublicKey: true }))).KeyPairs ?? [];
    expect(key).toMatchObject({ KeyName: 'k', KeyType: 'ed25519', PublicKey: SANDBOX_SSH_PUBLIC_KEY });
    expect(key?.CreateTime).toBeInstanceOf(Date);
    expect((await ec2().send(new DescribeKeyPairsCommand({}))).KeyPairs?.[0]?.PublicKey).toBeUndefined();
  });
});

describe('EC2 AMIs', () => {
  it("describes Canonical's image with its documented fields and a well-formed id", async () => {
    const image = await nobleImage();
    expect(image?.ImageId).toMatch(/^ami-[0-9a-f]{17}$/);
    expect(image).toMatchObject({
      CreationDate: '2025-12-12T00:00:00.000Z',
      DeprecationTime: '2027-12-12T00:00:00.000Z',
      RootDeviceName: '/dev/sda1',
      RootDeviceType: 'ebs',
      VirtualizationType: 'hvm',
      Hypervisor: 'xen',
      EnaSupport: true,
      SriovNetSupport: 'simple',
      PlatformDetails: 'Linux/UNIX',
      UsageOperation: 'RunInstances',
      BootMode: 'uefi-preferred',
      OwnerId: '099720109477',
    });
    expect(image?.BlockDeviceMappings?.[0]).toEqual({
      DeviceName: '/dev/sda1',
      Ebs: { SnapshotId: expect.stringMatching(/^snap-[0-9a-f]{17}$/), VolumeSize: 8, VolumeType: 'gp3', DeleteOnTermination: true, Encrypted: false },
    });
  });

  it('refuses the images of an owner whose images the catalog does not hold, rather than answering none', async () => {
    expect(await failure(ec2().send(new DescribeImagesCommand({ Owners: ['amazon'] })))).toMatchObject({
      code: 'UnsupportedOperation',
      message: expect.stringMatching(/^the sandbox does not emulate the images of owner 'amazon'/),
    });
    expect((await ec2().send(new DescribeImagesCommand({ Owners: ['self'] }))).Images).toEqual([]);
  });

  it("gives an instance's root volume the image's snapshot and volume type", async () => {
    const image = await nobleImage();
    const id = (await launch()).Instances?.[0]?.InstanceId ?? '';
    const volumes = await ec2().send(new DescribeVolumesCommand({ Filters: [{ Name: 'attachment.instance-id', Values: [id] }] }));
    expect(volumes.Volumes?.map((v) => [v.VolumeType, v.SnapshotId, v.Size])).toEqual([['gp3', image?.BlockDeviceMappings?.[0]?.Ebs?.SnapshotId, 8]]);
  });
});

describe('EC2 actions the sandbox does not emulate', () => {
  it("refuses an action of EC2's model in the sealed sandbox's words, never with another action's answer", async () => {
    expect(await failure(ec2().send(new DescribeSnapshotsCommand({ OwnerIds: ['self'] })))).toMatchObject({
      code: 'UnsupportedOperation',
      status: 400,
      message: expect.stringMatching(/^the sandbox does not emulate EC2 DescribeSnapshots \(.*the sandbox has no network\)$/),
    });
  });
});
