import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  CreateSecurityGroupCommand,
  CreateSubnetCommand,
  CreateTagsCommand,
  DescribeAddressesCommand,
  DescribeInternetGatewaysCommand,
  DescribeKeyPairsCommand,
  DescribeRouteTablesCommand,
  CreateVpcCommand,
  DeleteTagsCommand,
  DescribeAvailabilityZonesCommand,
  DescribeInstancesCommand,
  DescribeSecurityGroupsCommand,
  DescribeSubnetsCommand,
  DescribeTagsCommand,
  DescribeVpcsCommand,
  EC2Client,
  RunInstancesCommand,
  TerminateInstancesCommand,
} from '@aws-sdk/client-ec2';
import { Sandbox, SANDBOX_CREDENTIALS } from '../sandbox.js';

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
const launch = (extra: Partial<ConstructorParameters<typeof RunInstancesCommand>[0]> = {}) =>
  ec2().send(new RunInstancesCommand({ MinCount: 1, MaxCount: 1, ImageId: 'ami-0965bd5ba4d59211c', InstanceType: 't3.small', ...extra }));

describe('EC2 emulator: ids that are malformed or name nothing', () => {
  it("answers Describe* by an unknown id with the kind's NotFound, never an empty 200", async () => {
    expect(await failure(ec2().send(new DescribeVpcsCommand({ VpcIds: ['vpc-0123456789abcdef0'] })))).toMatchObject({
      code: 'InvalidVpcID.NotFound',
      status: 400,
      message: "The vpc ID 'vpc-0123456789abcdef0' does not exist",
    });
    expect((await failure(ec2().send(new DescribeSubnetsCommand({ SubnetIds: ['subnet-0123456789abcdef0'] })))).code).toBe('InvalidSubnetID.NotFound');
    expect((await failure(ec2().send(new DescribeSecurityGroupsCommand({ GroupIds: ['sg-0123456789abcdef0'] })))).code).toBe('InvalidGroup.NotFound');
    expect((await failure(ec2().send(new DescribeInstancesCommand({ InstanceIds: ['i-0123456789abcdef0', 'i-0123456789abcdef1'] })))).message).toBe(
      "The instance IDs 'i-0123456789abcdef0, i-0123456789abcdef1' do not exist",
    );
  });

  it('answers an id of the wrong shape with Malformed before looking it up', async () => {
    expect(await failure(ec2().send(new DescribeInstancesCommand({ InstanceIds: ['i-bogus'] })))).toMatchObject({
      code: 'InvalidInstanceID.Malformed',
      message: 'Invalid id: "i-bogus" (expecting "i-...")',
    });
    expect((await failure(ec2().send(new TerminateInstancesCommand({ InstanceIds: ['i-bogus'] })))).code).toBe('InvalidInstanceID.Malformed');
    expect((await failure(ec2().send(new DescribeVpcsCommand({ VpcIds: ['vpc-xyz'] })))).code).toBe('InvalidVpcID.Malformed');
    expect((await failure(ec2().send(new DescribeSubnetsCommand({ SubnetIds: ['subnet-1'] })))).code).toBe('InvalidSubnetID.Malformed');
    expect((await failure(ec2().send(new DescribeSecurityGroupsCommand({ GroupIds: ['sg-nope'] })))).code).toBe('InvalidGroupId.Malformed');
    expect((await failure(launch({ SubnetId: 'subnet-nope' }))).code).toBe('InvalidSubnetID.Malformed');
  });

  it('answers Describe* of gateways, route tables, addresses and key pairs by an unknown id with their NotFound', async () => {
    expect((await failure(ec2().send(new DescribeInternetGatewaysCommand({ InternetGatewayIds: ['igw-0123456789abcdef0'] })))).code).toBe(
      'InvalidInternetGatewayID.NotFound',
    );
    expect((await failure(ec2().send(new DescribeRouteTablesCommand({ RouteTableIds: ['rtb-0123456789abcdef0'] })))).code).toBe('InvalidRouteTableID.NotFound');
    expect((await failure(ec2().send(new DescribeAddressesCommand({ AllocationIds: ['eipalloc-0123456789abcdef0'] })))).code).toBe(
      'InvalidAllocationID.NotFound',
    );
    expect((await failure(ec2().send(new DescribeKeyPairsCommand({ KeyPairIds: ['key-0123456789abcdef0'] })))).code).toBe('InvalidKeyPair.NotFound');
  });

  it('describes a known id as before', async () => {
    const vpc = (await ec2().send(new CreateVpcCommand({ CidrBlock: '10.1.0.0/16' }))).Vpc?.VpcId ?? '';
    expect((await ec2().send(new DescribeVpcsCommand({ VpcIds: [vpc] }))).Vpcs?.map((v) => v.VpcId)).toEqual([vpc]);
  });
});

describe('EC2 emulator: filters', () => {
  it('refuses a filter name the action does not know with InvalidParameterValue', async () => {
    expect(await failure(ec2().send(new DescribeInstancesCommand({ Filters: [{ Name: 'bogus', Values: ['x'] }] })))).toMatchObject({
      code: 'InvalidParameterValue',
      message: "The filter 'bogus' is invalid",
    });
    expect((await failure(ec2().send(new DescribeVpcsCommand({ Filters: [{ Name: 'instance-state-name', Values: ['running'] }] })))).code).toBe(
      'InvalidParameterValue',
    );
  });

  it('takes the alias filter names DescribeSubnets documents, and only the VPC filter names DescribeVpcs documents', async () => {
    const vpc = (await ec2().send(new CreateVpcCommand({ CidrBlock: '10.4.0.0/16' }))).Vpc?.VpcId ?? '';
    await ec2().send(new CreateSubnetCommand({ VpcId: vpc, CidrBlock: '10.4.1.0/24', AvailabilityZone: 'eu-central-1a' }));
    for (const name of ['cidr', 'cidr-block', 'cidrBlock']) {
      expect(
        ((await ec2().send(new DescribeSubnetsCommand({ Filters: [{ Name: name, Values: ['10.4.1.0/24'] }] }))).Subnets ?? []).map((x) => x.VpcId),
      ).toEqual([vpc]);
    }
    expect(((await ec2().send(new DescribeVpcsCommand({ Filters: [{ Name: 'cidr', Values: ['10.4.0.0/16'] }] }))).Vpcs ?? []).map((v) => v.VpcId)).toEqual([
      vpc,
    ]);
    expect((await failure(ec2().send(new DescribeVpcsCommand({ Filters: [{ Name: 'cidr-block', Values: ['10.4.0.0/16'] }] })))).code).toBe(
      'InvalidParameterValue',
    );
  });

  it('matches filter values with the * and ? wildcards', async () => {
    await launch({ TagSpecifications: [{ ResourceType: 'instance', Tags: [{ Key: 'Name', Value: 'web-1' }] }] });
    await launch({ TagSpecifications: [{ ResourceType: 'instance', Tags: [{ Key: 'Name', Value: 'db-1' }] }] });
    const named = async (pattern: string) =>
      ((await ec2().send(new DescribeInstancesCommand({ Filters: [{ Name: 'tag:Name', Values: [pattern] }] }))).Reservations ?? [])
        .flatMap((r) => r.Instances ?? [])
        .map((i) => i.Tags?.find((t) => t.Key === 'Name')?.Value);
    expect(await named('web-*')).toEqual(['web-1']);
    expect((await named('*-?')).sort()).toEqual(['db-1', 'web-1']);
    expect(await named('web')).toEqual([]);
  });

  it('filters instances by instance-type and availability-zone', async () => {
    await launch({ InstanceType: 't3.medium', Placement: { AvailabilityZone: 'eu-central-1b' } });
    await launch();
    const found =
      (
        await ec2().send(
          new DescribeInstancesCommand({
            Filters: [
              { Name: 'instance-type', Values: ['t3.medium'] },
              { Name: 'availability-zone', Values: ['eu-central-1b'] },
            ],
          }),
        )
      ).Reservations ?? [];
    expect(found.flatMap((r) => r.Instances ?? []).map((i) => i.InstanceType)).toEqual(['t3.medium']);
  });

  it("gives zone ids of the Region's own code and filters zones", async () => {
    const zones =
      (await ec2().send(new DescribeAvailabilityZonesCommand({ Filters: [{ Name: 'zone-name', Values: ['eu-central-1b'] }] }))).AvailabilityZones ?? [];
    expect(zones.map((z) => [z.ZoneName, z.ZoneId])).toEqual([['eu-central-1b', 'euc1-az2']]);
  });
});

describe('EC2 emulator: RunInstances parameters', () => {
  it('answers a launch without an image with MissingParameter', async () => {
    expect(await failure(launch({ ImageId: undefined }))).toMatchObject({ code: 'MissingParameter', status: 400 });
  });

  it("launches an instance without a subnet into the default subnet of its zone, with the VPC's default security group", async () => {
    const vpcs = (await ec2().send(new DescribeVpcsCommand({ Filters: [{ Name: 'is-default', Values: ['true'] }] }))).Vpcs ?? [];
    expect(vpcs.map((v) => [v.CidrBlock, v.IsDefault])).toEqual([['172.31.0.0/16', true]]);
    const subnets =
      (
        await ec2().send(
          new DescribeSubnetsCommand({
            Filters: [
              { Name: 'default-for-az', Values: ['true'] },
              { Name: 'availability-zone', Values: ['eu-central-1b'] },
            ],
          }),
        )
      ).Subnets ?? [];
    expect(subnets.map((x) => [x.VpcId, x.CidrBlock, x.DefaultForAz])).toEqual([[vpcs[0]?.VpcId, '172.31.16.0/20', true]]);
    const instance = (await launch({ Placement: { AvailabilityZone: 'eu-central-1b' } })).Instances?.[0];
    expect([instance?.VpcId, instance?.SubnetId, instance?.PrivateIpAddress?.startsWith('172.31.16.')]).toEqual([vpcs[0]?.VpcId, subnets[0]?.SubnetId, true]);
    expect(instance?.SecurityGroups?.map((g) => g.GroupName)).toEqual(['default']);
    // The account's default VPC is no resource of anyone's cluster: the inventory leaves it out (the instance's root volume is the launch's).
    expect(sandbox.inventory().filter((i) => i.cloud === 'ec2' && i.kind !== 'node' && i.kind !== 'volume')).toEqual([]);
  });

  it('answers a launch without a subnet in a Region with no default VPC with VPCIdNotSpecified', async () => {
    sandbox.close();
    sandbox = new Sandbox({ seed: 1, ec2: { describeLagMaxMs: 0, defaultVpc: false } }).listen();
    expect(await failure(launch())).toMatchObject({ code: 'VPCIdNotSpecified', status: 400, message: 'No default VPC for this user' });
  });
});

describe('EC2 emulator: DescribeInstances', () => {
  it('describes the instances of one launch in one reservation', async () => {
    const launched = await ec2().send(new RunInstancesCommand({ MinCount: 2, MaxCount: 2, ImageId: 'ami-0965bd5ba4d59211c', InstanceType: 't3.small' }));
    await launch();
    const reservations = (await ec2().send(new DescribeInstancesCommand({}))).Reservations ?? [];
    expect(reservations.map((r) => r.Instances?.length)).toEqual([2, 1]);
    expect(reservations[0]?.ReservationId).toBe(launched.ReservationId);
  });
});

describe('EC2 emulator: tags', () => {
  it('creates, overwrites, describes and deletes tags on any taggable resource', async () => {
    const vpc = (await ec2().send(new CreateVpcCommand({ CidrBlock: '10.2.0.0/16' }))).Vpc?.VpcId ?? '';
    const sg = (await ec2().send(new CreateSecurityGroupCommand({ VpcId: vpc, GroupName: 'web', Description: 'web' }))).GroupId ?? '';
    await ec2().send(
      new CreateTagsCommand({
        Resources: [vpc, sg],
        Tags: [
          { Key: 'team', Value: 'a' },
          { Key: 'env', Value: '' },
        ],
      }),
    );
    await ec2().send(new CreateTagsCommand({ Resources: [vpc], Tags: [{ Key: 'team', Value: 'b' }] }));
    const described = (await ec2().send(new DescribeTagsCommand({ Filters: [{ Name: 'key', Values: ['team'] }] }))).Tags ?? [];
    expect(described.map((t) => [t.ResourceId, t.ResourceType, t.Value]).sort()).toEqual(
      [
        [sg, 'security-group', 'a'],
        [vpc, 'vpc', 'b'],
      ].sort(),
    );
    expect(
      (
        (
          await ec2().send(
            new DescribeTagsCommand({
              Filters: [
                { Name: 'resource-type', Values: ['vpc'] },
                { Name: 'resource-id', Values: [vpc] },
              ],
            }),
          )
        ).Tags ?? []
      ).map((t) => t.Key),
    ).toEqual(['env', 'team']);
    expect((await ec2().send(new DescribeVpcsCommand({ Filters: [{ Name: 'tag:team', Values: ['b'] }] }))).Vpcs?.map((v) => v.VpcId)).toEqual([vpc]);
    // A key with a value deletes the tag only when the value matches; without a value, whatever it is.
    await ec2().send(new DeleteTagsCommand({ Resources: [vpc], Tags: [{ Key: 'team', Value: 'a' }] }));
    expect(sandbox.ec2.vpcs.get(vpc)?.tags).toEqual({ team: 'b', env: '' });
    await ec2().send(new DeleteTagsCommand({ Resources: [vpc], Tags: [{ Key: 'team' }] }));
    expect(sandbox.ec2.vpcs.get(vpc)?.tags).toEqual({ env: '' });
  });

  it('refuses tags on an unknown or malformed id, reserved aws: keys and more than 50 tags', async () => {
    const tag = (Resources: string[], n = 1, key = 'k') =>
      failure(ec2().send(new CreateTagsCommand({ Resources, Tags: Array.from({ length: n }, (_, i) => ({ Key: `${key}${i}`, Value: 'v' })) })));
    expect((await tag(['i-0123456789abcdef0'])).code).toBe('InvalidInstanceID.NotFound');
    expect((await tag(['vpc-0123456789abcdef0'])).code).toBe('InvalidVpcID.NotFound');
    expect((await tag(['nope-123'])).code).toBe('InvalidID');
    const vpc = (await ec2().send(new CreateVpcCommand({ CidrBlock: '10.3.0.0/16' }))).Vpc?.VpcId ?? '';
    expect((await tag([vpc], 1, 'aws:x')).code).toBe('InvalidParameterValue');
    expect((await tag([vpc], 51)).code).toBe('TagLimitExceeded');
    expect((await tag([vpc], 50)).code).toBe('ok');
  });
});
