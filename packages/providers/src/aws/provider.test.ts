import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DescribeInstancesCommand, EC2Client } from '@aws-sdk/client-ec2';
import { isPending, RateBudgets, settle, type NetworkRequest } from '@kubeplane/sdk/provider';
import { Redacted } from '@kubeplane/sdk';
import { Sandbox, SANDBOX_CREDENTIALS } from '@kubeplane/sandbox';
import { AwsProvider } from './provider.js';

process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] = 'true';
let sandbox: Sandbox;
beforeEach(() => {
  sandbox = new Sandbox({ seed: 7, ec2: { describeLagMaxMs: 0 } }).listen();
});
afterEach(() => sandbox.close());

const credentials = { accessKeyId: Redacted.of(SANDBOX_CREDENTIALS.awsAccessKeyId), secretAccessKey: Redacted.of(SANDBOX_CREDENTIALS.awsSecretAccessKey) };

describe('AWS provider machines', () => {
  it('require IMDSv2 with a hop limit of 1, as EC2 reports back (pods cannot read user-data from the metadata service)', async () => {
    const provider = new AwsProvider({
      region: 'eu-central-1',
      account: 'imds',
      credentials,
      clock: sandbox.clock,
      budgets: new RateBudgets(sandbox.clock),
      random: sandbox.random,
    });
    const created = await provider.compute!.createNode({
      name: 'c1-cp-1',
      clusterId: 'c1',
      nodepool: 'cp',
      region: 'eu-central-1',
      zone: 'eu-central-1a',
      serverType: 't3.small',
      image: 'ami-0965bd5ba4d59211c',
      userData: '#cloud-config\n',
    });
    expect(isPending(created)).toBe(false);
    const id = isPending(created) ? '' : created.value.id;
    const ec2 = new EC2Client({
      region: 'eu-central-1',
      credentials: { accessKeyId: SANDBOX_CREDENTIALS.awsAccessKeyId, secretAccessKey: SANDBOX_CREDENTIALS.awsSecretAccessKey },
      maxAttempts: 1,
    });
    const described = (await ec2.send(new DescribeInstancesCommand({ InstanceIds: [id] }))).Reservations?.[0]?.Instances?.[0];
    expect(described?.MetadataOptions).toMatchObject({ HttpTokens: 'required', HttpPutResponseHopLimit: 1, HttpEndpoint: 'enabled' });
  });
});

describe('AWS provider spot machines', () => {
  it('launches a spot node as a one-time spot instance terminated on interruption, and an on-demand node without market options', async () => {
    const provider = new AwsProvider({
      region: 'eu-central-1',
      account: 'spot',
      credentials,
      clock: sandbox.clock,
      budgets: new RateBudgets(sandbox.clock),
      random: sandbox.random,
    });
    const markets: Array<string | undefined> = [];
    sandbox.onAwsCall((call) => {
      if (call.action === 'RunInstances') markets.push(JSON.stringify(Object.entries(call.params).filter(([k]) => k.startsWith('InstanceMarketOptions.'))));
    });
    const node = (name: string, spot: boolean) => ({
      name,
      clusterId: 'c3',
      nodepool: spot ? 'batch' : 'general',
      region: 'eu-central-1',
      zone: 'eu-central-1a',
      serverType: 't3.small',
      image: 'ami-0965bd5ba4d59211c',
      userData: '#cloud-config\n',
      ...(spot ? { spot: true } : {}),
    });
    const run = <T>(call: () => Promise<import('@kubeplane/sdk/provider').Outcome<T>>) => settle(() => call(), { clock: sandbox.clock, maxAttempts: 20 });
    const spot = await run(() => provider.compute!.createNode(node('c3-batch-01', true)));
    const onDemand = await run(() => provider.compute!.createNode(node('c3-general-01', false)));
    expect(markets).toEqual([
      JSON.stringify([
        ['InstanceMarketOptions.MarketType', 'spot'],
        ['InstanceMarketOptions.SpotOptions.SpotInstanceType', 'one-time'],
        ['InstanceMarketOptions.SpotOptions.InstanceInterruptionBehavior', 'terminate'],
      ]),
      '[]',
    ]);
    const ec2 = new EC2Client({
      region: 'eu-central-1',
      credentials: { accessKeyId: SANDBOX_CREDENTIALS.awsAccessKeyId, secretAccessKey: SANDBOX_CREDENTIALS.awsSecretAccessKey },
      maxAttempts: 1,
    });
    const described = async (id: string) => (await ec2.send(new DescribeInstancesCommand({ InstanceIds: [id] }))).Reservations?.[0]?.Instances?.[0];
    expect(await described(spot.id)).toMatchObject({ InstanceLifecycle: 'spot', SpotInstanceRequestId: expect.stringMatching(/^sir-/) });
    expect((await described(onDemand.id))?.InstanceLifecycle).toBeUndefined();
    // The provider reads the market back: listNodes says which machines are spot.
    const listed = await run(() => provider.compute!.listNodes({ clusterId: 'c3' }));
    expect(listed.map((n) => [n.name, n.spot ?? false])).toEqual([
      ['c3-batch-01', true],
      ['c3-general-01', false],
    ]);
  });
});

describe('AWS provider networks seen by two workers', () => {
  // Two workers (warm Lambda containers) each keep the ids they looked up. One deletes the cluster's VPC and makes it
  // again, with a subnet in a zone added since; the other must not place a machine by what it remembers (it failed
  // with "network ... has no subnet in eu-central-1a": its VPC id was the deleted VPC's).
  it('places a machine in the network as it is now, not as this worker last saw it', async () => {
    const worker = () =>
      new AwsProvider({
        region: 'eu-central-1',
        account: 'two-workers',
        credentials,
        clock: sandbox.clock,
        budgets: new RateBudgets(sandbox.clock),
        random: sandbox.random,
      });
    const [a, b] = [worker(), worker()];
    const network = (subnets: NetworkRequest['subnets']): NetworkRequest => ({
      name: 'c2-eu',
      clusterId: 'c2',
      region: 'eu-central-1',
      cidr: '10.20.0.0/16',
      subnets,
    });
    const run = <T>(call: () => Promise<import('@kubeplane/sdk/provider').Outcome<T>>) => settle(() => call(), { clock: sandbox.clock, maxAttempts: 50 });
    const node = (name: string, zone: string) => ({
      name,
      clusterId: 'c2',
      nodepool: 'p',
      region: 'eu-central-1',
      zone,
      serverType: 't3.small',
      image: 'ami-0965bd5ba4d59211c',
      userData: '#cloud-config\n',
      networkName: 'c2-eu',
    });
    await run(() => b.network!.ensureNetwork(network([{ cidr: '10.20.1.0/24', zone: 'eu-central-1b' }])));
    // Worker a learns the VPC's id (a security group goes into it), not its subnets.
    const firewall = { name: 'c2-eu-fw', clusterId: 'c2', region: 'eu-central-1', networkName: 'c2-eu', rules: [] };
    await run(() => a.network!.ensureFirewall(firewall));
    // Worker b: the cluster's next life, its network made again with a subnet in eu-central-1a too.
    await run(() => b.network!.deleteFirewall({ clusterId: 'c2', name: 'c2-eu-fw', region: 'eu-central-1' }));
    await run(() => b.network!.deleteNetwork({ clusterId: 'c2', name: 'c2-eu', region: 'eu-central-1' }));
    const again = await run(() =>
      b.network!.ensureNetwork(
        network([
          { cidr: '10.20.1.0/24', zone: 'eu-central-1b' },
          { cidr: '10.20.2.0/24', zone: 'eu-central-1a' },
        ]),
      ),
    );
    const created = await run(() => a.compute!.createNode(node('c2-p-02', 'eu-central-1a')));
    const ec2 = new EC2Client({
      region: 'eu-central-1',
      credentials: { accessKeyId: SANDBOX_CREDENTIALS.awsAccessKeyId, secretAccessKey: SANDBOX_CREDENTIALS.awsSecretAccessKey },
      maxAttempts: 1,
    });
    const described = (await ec2.send(new DescribeInstancesCommand({ InstanceIds: [created.id] }))).Reservations?.[0]?.Instances?.[0];
    expect(described?.SubnetId).toBe(again.subnets.find((x) => x.zone === 'eu-central-1a')?.id);
  });
});

describe('the instance types of a Region', () => {
  it('reports the GPUs DescribeInstanceTypes lists as gpuInfo, and none for the other types', async () => {
    const provider = new AwsProvider({
      region: 'eu-central-1',
      account: 'gpus',
      credentials,
      clock: sandbox.clock,
      budgets: new RateBudgets(sandbox.clock),
      random: sandbox.random,
    });
    const types = await settle(() => provider.compute!.serverTypes('eu-central-1'), { clock: sandbox.clock, maxAttempts: 10 });
    expect(types.find((t) => t.name === 'g5.xlarge')).toMatchObject({ vcpus: 4, gpus: 1 });
    expect(types.find((t) => t.name === 't3.large')?.gpus).toBeUndefined();
  });
});

describe('AWS provider catalog listing', () => {
  it('goes on from the page that failed when asked again, so a cloud that fails some calls still answers the whole catalog', async () => {
    const provider = new AwsProvider({
      region: 'eu-central-1',
      account: 'paging',
      credentials,
      clock: sandbox.clock,
      budgets: new RateBudgets(sandbox.clock),
      random: sandbox.random,
    });
    // Three in ten pages fail: starting over after each, thirteen pages in a row would come once in a hundred tries.
    sandbox.faults.add({ cloud: 'ec2', operation: 'DescribeInstanceTypes', kind: 'server-error', probability: 0.3 });
    const tokens: Array<string | undefined> = [];
    sandbox.onAwsCall((call) => {
      if (call.action === 'DescribeInstanceTypes') tokens.push(call.params['NextToken']);
    });
    const types = await settle(() => provider.compute!.serverTypes('eu-central-1'), { clock: sandbox.clock, maxAttempts: 40 });
    const failed = sandbox.faults.fired.filter((f) => f.operation === 'DescribeInstanceTypes').length;
    expect(failed).toBeGreaterThan(0);
    expect(types.length).toBeGreaterThan(1000);
    expect(new Set(types.map((t) => t.name)).size).toBe(types.length);
    // Every page was asked for once, and once more for each fault: none was read twice.
    const pages = Math.ceil(types.length / 100);
    expect(tokens).toHaveLength(pages + failed);
  });
});
