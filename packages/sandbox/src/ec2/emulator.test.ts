import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  CreateSubnetCommand,
  CreateVpcCommand,
  DeleteVpcCommand,
  DescribeInstancesCommand,
  DescribeInstanceTypeOfferingsCommand,
  DescribeInstanceTypesCommand,
  DescribeRegionsCommand,
  paginateDescribeInstanceTypeOfferings,
  paginateDescribeInstanceTypes,
  EC2Client,
  RunInstancesCommand,
  TerminateInstancesCommand,
  paginateDescribeInstances,
  type Instance,
} from '@aws-sdk/client-ec2';
import { Sandbox, SANDBOX_CREDENTIALS } from '../sandbox.js';
import type { AwsCall } from '../aws-calls.js';

process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] = 'true';
let sandbox: Sandbox;
beforeEach(() => {
  sandbox = new Sandbox({ seed: 1, ec2: { describeLagMaxMs: 0 } }).listen();
});
afterEach(() => sandbox.close());

const client = (secretAccessKey: string = SANDBOX_CREDENTIALS.awsSecretAccessKey, accessKeyId: string = SANDBOX_CREDENTIALS.awsAccessKeyId) =>
  new EC2Client({ region: 'eu-central-1', credentials: { accessKeyId, secretAccessKey }, maxAttempts: 1 });
const run = (token?: string, tags: Record<string, string> = {}, userData = '') =>
  new RunInstancesCommand({
    MinCount: 1,
    MaxCount: 1,
    ImageId: 'ami-0965bd5ba4d59211c',
    InstanceType: 't3.small',
    ...(token ? { ClientToken: token } : {}),
    UserData: Buffer.from(userData).toString('base64'),
    TagSpecifications: [{ ResourceType: 'instance', Tags: Object.entries(tags).map(([Key, Value]) => ({ Key, Value })) }],
  });
const offeringsOfGpu = (locationType: 'region' | 'availability-zone') =>
  new DescribeInstanceTypeOfferingsCommand({ LocationType: locationType, Filters: [{ Name: 'instance-type', Values: ['g5.xlarge'] }] });
const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (e: { name?: string }) => e.name,
  );

describe('EC2 emulator (wire format)', () => {
  it('lists the Regions the account has enabled, and with AllRegions the opt-in ones it has not, each with its optInStatus', async () => {
    const ec2 = client();
    const enabled = (await ec2.send(new DescribeRegionsCommand({}))).Regions ?? [];
    // A new account's: every Region that needs no opt-in (catalogs/aws/regions.json), which the sandbox serves.
    expect(enabled.map((r) => r.RegionName).sort()).toEqual([...sandbox.ec2Regions.keys()].sort());
    expect(enabled.find((r) => r.RegionName === 'eu-west-3')).toEqual({
      RegionName: 'eu-west-3',
      Endpoint: 'ec2.eu-west-3.amazonaws.com',
      OptInStatus: 'opt-in-not-required',
    });
    const all = (await ec2.send(new DescribeRegionsCommand({ AllRegions: true }))).Regions ?? [];
    expect(all.find((r) => r.RegionName === 'ap-east-1')?.OptInStatus).toBe('not-opted-in');
    expect(all.find((r) => r.RegionName === 'eu-central-2')?.OptInStatus).toBe('not-opted-in');
    expect(all.some((r) => r.RegionName === 'eu-central-9')).toBe(false);
    expect(await codeOf(ec2.send(new DescribeRegionsCommand({ RegionNames: ['eu-central-9'] })))).toBe('InvalidParameterValue');
  });

  it('offers a GPU type in the zones an account option names only, pages the offerings, and refuses to launch it in another zone with Unsupported', async () => {
    // An explicit, narrower account: g5.xlarge in two of eu-central-1's three zones (the catalog offers it in all three).
    sandbox.close();
    sandbox = new Sandbox({ seed: 1, ec2: { describeLagMaxMs: 0, offerings: { 'g5.xlarge': ['eu-central-1a', 'eu-central-1b'] } } }).listen();
    const ec2 = client();
    const zones: string[] = [];
    let pages = 0;
    // The G5 family's offerings, 5 a page: a whole Region's take more pages than the Describe burst of 100 allows.
    const g5 = { LocationType: 'availability-zone' as const, Filters: [{ Name: 'instance-type', Values: ['g5.*'] }], MaxResults: 5 };
    for await (const page of paginateDescribeInstanceTypeOfferings({ client: ec2, pageSize: 5 }, g5)) {
      pages += 1;
      for (const o of page.InstanceTypeOfferings ?? []) if (o.InstanceType === 'g5.xlarge') zones.push(o.Location ?? '');
    }
    expect(pages).toBeGreaterThan(1);
    expect(zones.sort()).toEqual(['eu-central-1a', 'eu-central-1b']);
    const inRegion = await ec2.send(offeringsOfGpu('region'));
    expect(inRegion.InstanceTypeOfferings).toEqual([{ InstanceType: 'g5.xlarge', LocationType: 'region', Location: 'eu-central-1' }]);
    const launch = (zone: string) =>
      ec2.send(
        new RunInstancesCommand({
          MinCount: 1,
          MaxCount: 1,
          ImageId: 'ami-0965bd5ba4d59211c',
          InstanceType: 'g5.xlarge',
          Placement: { AvailabilityZone: zone },
        }),
      );
    expect(await codeOf(launch('eu-central-1c'))).toBe('Unsupported');
    expect(await codeOf(launch('eu-central-1b'))).toBe('ok');
  });

  it('describes only the instance types its own Region offers', async () => {
    const stockholm = new EC2Client({
      region: 'eu-north-1',
      credentials: { accessKeyId: SANDBOX_CREDENTIALS.awsAccessKeyId, secretAccessKey: SANDBOX_CREDENTIALS.awsSecretAccessKey },
      maxAttempts: 1,
    });
    const names: string[] = [];
    for await (const page of paginateDescribeInstanceTypes({ client: stockholm }, {}))
      names.push(...(page.InstanceTypes ?? []).map((t) => t.InstanceType ?? ''));
    expect(names).toContain('t3.medium');
    // P4de (A100 80 GB) is offered in Frankfurt, not in Stockholm (catalogs/aws/instance-types.json).
    expect(names).not.toContain('p4de.24xlarge');
    expect(await codeOf(stockholm.send(new DescribeInstanceTypesCommand({ InstanceTypes: ['p4de.24xlarge'] })))).toBe('InvalidInstanceType');
    expect(await codeOf(client().send(new DescribeInstanceTypesCommand({ InstanceTypes: ['p4de.24xlarge'] })))).toBe('ok');
  });

  it('returns the same instance for a repeated ClientToken and refuses it with other parameters', async () => {
    const ec2 = client();
    const a = await ec2.send(run('t1'));
    const b = await ec2.send(run('t1'));
    expect(b.Instances?.[0]?.InstanceId).toBe(a.Instances?.[0]?.InstanceId);
    expect(await codeOf(ec2.send(run('t1', { other: 'x' })))).toBe('IdempotentParameterMismatch');
  });

  it('pages DescribeInstances with NextToken and filters by tag', async () => {
    const ec2 = client();
    for (let i = 0; i < 12; i++) {
      sandbox.clock.advance(1000);
      await ec2.send(run(undefined, { 'kubeplane.dev/cluster-id': i < 11 ? 'c1' : 'c2' }));
    }
    const seen: Instance[] = [];
    let pages = 0;
    for await (const page of paginateDescribeInstances(
      { client: ec2, pageSize: 5 },
      { Filters: [{ Name: 'tag:kubeplane.dev/cluster-id', Values: ['c1'] }], MaxResults: 5 },
    )) {
      pages += 1;
      for (const r of page.Reservations ?? []) seen.push(...(r.Instances ?? []));
    }
    expect(pages).toBe(3);
    expect(seen).toHaveLength(11);
  });

  it('throttles RunInstances beyond its burst of 5 with RequestLimitExceeded', async () => {
    const ec2 = client();
    const codes = [];
    for (let i = 0; i < 6; i++) codes.push(await codeOf(ec2.send(run())));
    expect(codes).toEqual(['ok', 'ok', 'ok', 'ok', 'ok', 'RequestLimitExceeded']);
    sandbox.clock.advance(500);
    expect(await codeOf(ec2.send(run()))).toBe('ok');
  });

  it('limits user data to 16 KB before base64', async () => {
    expect(await codeOf(client().send(run(undefined, {}, 'x'.repeat(16 * 1024 + 1))))).toBe('InvalidParameterValue');
  });

  it('refuses a VPC delete while a subnet depends on it', async () => {
    const ec2 = client();
    const vpc = await ec2.send(new CreateVpcCommand({ CidrBlock: '10.0.0.0/16' }));
    await ec2.send(new CreateSubnetCommand({ VpcId: vpc.Vpc?.VpcId ?? '', CidrBlock: '10.0.1.0/24', AvailabilityZone: 'eu-central-1a' }));
    expect(await codeOf(ec2.send(new DeleteVpcCommand({ VpcId: vpc.Vpc?.VpcId ?? '' })))).toBe('DependencyViolation');
  });

  it('hides a new instance from Describe and Terminate for a while (eventual consistency)', async () => {
    sandbox.close();
    sandbox = new Sandbox({ seed: 4, ec2: { describeLagMaxMs: 5000 } }).listen();
    const ec2 = client();
    const id = (await ec2.send(run())).Instances?.[0]?.InstanceId ?? '';
    const instance = sandbox.ec2.instances.get(id);
    expect(instance && instance.visibleAt > sandbox.clock.now()).toBe(true);
    expect(await codeOf(ec2.send(new TerminateInstancesCommand({ InstanceIds: [id] })))).toBe('InvalidInstanceID.NotFound');
    sandbox.clock.advance(5000);
    expect(await codeOf(ec2.send(new TerminateInstancesCommand({ InstanceIds: [id] })))).toBe('ok');
  });

  it('rejects an unknown access key with AuthFailure', async () => {
    expect(await codeOf(client('x', 'AKIAUNKNOWN000000000').send(run()))).toBe('AuthFailure');
  });

  it('verifies the SigV4 signature: the right key id with a wrong secret fails', async () => {
    expect(await codeOf(client('not-the-secret').send(run()))).toBe('AuthFailure');
    expect(sandbox.inventory().filter((i) => i.kind === 'node')).toHaveLength(0);
  });
});

describe('EC2 emulator: instance metadata options', () => {
  const describeOne = async (ec2: EC2Client, id: string) =>
    (await ec2.send(new DescribeInstancesCommand({ InstanceIds: [id] }))).Reservations?.[0]?.Instances?.[0];

  it("reports EC2's defaults when RunInstances sets none: IMDSv1 allowed, hop limit 1, endpoint enabled", async () => {
    const ec2 = client();
    const id = (await ec2.send(run())).Instances?.[0]?.InstanceId ?? '';
    const pending = await describeOne(ec2, id);
    expect(pending?.MetadataOptions).toEqual({
      State: 'pending',
      HttpTokens: 'optional',
      HttpPutResponseHopLimit: 1,
      HttpEndpoint: 'enabled',
      HttpProtocolIpv6: 'disabled',
      InstanceMetadataTags: 'disabled',
    });
    sandbox.clock.advance(120_000);
    expect((await describeOne(ec2, id))?.MetadataOptions?.State).toBe('applied');
  });

  it('keeps and reports the options RunInstances was given', async () => {
    const ec2 = client();
    const out = await ec2.send(
      new RunInstancesCommand({ ...run().input, MetadataOptions: { HttpTokens: 'required', HttpPutResponseHopLimit: 1, HttpEndpoint: 'enabled' } }),
    );
    expect(out.Instances?.[0]?.MetadataOptions).toMatchObject({ HttpTokens: 'required', HttpPutResponseHopLimit: 1, HttpEndpoint: 'enabled' });
    const id = out.Instances?.[0]?.InstanceId ?? '';
    expect((await describeOne(ec2, id))?.MetadataOptions).toMatchObject({ HttpTokens: 'required', HttpPutResponseHopLimit: 1, HttpEndpoint: 'enabled' });
    expect(sandbox.ec2.instances.get(id)?.metadataOptions).toMatchObject({ httpTokens: 'required', httpPutResponseHopLimit: 1 });
  });

  it('refuses a hop limit outside 1-64 and an unknown token mode', async () => {
    const ec2 = client();
    expect(await codeOf(ec2.send(new RunInstancesCommand({ ...run().input, MetadataOptions: { HttpPutResponseHopLimit: 65 } })))).toBe('InvalidParameterValue');
    expect(await codeOf(ec2.send(new RunInstancesCommand({ ...run().input, MetadataOptions: { HttpTokens: 'sometimes' as never } })))).toBe(
      'InvalidParameterValue',
    );
  });
});

describe('EC2 emulator: the audit of calls (sandbox.onAwsCall)', () => {
  it('tells a listener of each signed request, before it is served, with the resources it names and their tags — never the user-data', async () => {
    const ec2 = client();
    const vpc =
      (
        await ec2.send(
          new CreateVpcCommand({
            CidrBlock: '10.1.0.0/16',
            TagSpecifications: [{ ResourceType: 'vpc', Tags: [{ Key: 'kubeplane.dev/cluster-id', Value: 'c1' }] }],
          }),
        )
      ).Vpc?.VpcId ?? '';
    const calls: AwsCall[] = [];
    const stop = sandbox.onAwsCall((c) => calls.push(c));
    const subnet =
      (
        await ec2.send(
          new CreateSubnetCommand({
            VpcId: vpc,
            CidrBlock: '10.1.1.0/24',
            TagSpecifications: [{ ResourceType: 'subnet', Tags: [{ Key: 'kubeplane.dev/cluster-id', Value: 'c1' }] }],
          }),
        )
      ).Subnet?.SubnetId ?? '';
    await ec2.send(new RunInstancesCommand({ ...run(undefined, { 'kubeplane.dev/cluster-id': 'c1' }, 'secret user-data').input, SubnetId: subnet }));
    await codeOf(ec2.send(new DeleteVpcCommand({ VpcId: 'vpc-0000000000000dead' })));
    stop();
    await ec2.send(new DescribeInstancesCommand({}));

    expect(calls.map((c) => `${c.service} ${c.action} ${c.region}`)).toEqual([
      'ec2 CreateSubnet eu-central-1',
      'ec2 RunInstances eu-central-1',
      'ec2 DeleteVpc eu-central-1',
    ]);
    expect(calls[0]?.resources).toEqual([
      { type: 'subnet', id: '*', tags: { 'kubeplane.dev/cluster-id': 'c1' }, created: true },
      { type: 'vpc', id: vpc, tags: { 'kubeplane.dev/cluster-id': 'c1' }, created: false },
    ]);
    expect(calls[1]?.resources).toEqual([
      { type: 'instance', id: '*', tags: { 'kubeplane.dev/cluster-id': 'c1' }, created: true },
      { type: 'volume', id: '*', tags: {}, created: true },
      { type: 'network-interface', id: '*', tags: {}, created: true },
      { type: 'subnet', id: subnet, tags: { 'kubeplane.dev/cluster-id': 'c1' }, created: false },
      { type: 'image', id: 'ami-0965bd5ba4d59211c', tags: {}, created: false, owner: '099720109477' },
    ]);
    expect(JSON.stringify(calls)).not.toContain(Buffer.from('secret user-data').toString('base64'));
    expect(calls[2]?.resources).toEqual([{ type: 'vpc', id: 'vpc-0000000000000dead', tags: {}, created: false, missing: true }]);
  });
});
