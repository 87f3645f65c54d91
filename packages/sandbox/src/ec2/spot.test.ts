// The EC2 emulator's spot market, through the AWS SDK: RunInstances' InstanceMarketOptions as EC2 checks them,
// DescribeInstances' InstanceLifecycle and SpotInstanceRequestId (and their filters), and a capacity fault that refuses
// spot launches only.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DescribeInstancesCommand, EC2Client, type InstanceMarketOptionsRequest, RunInstancesCommand } from '@aws-sdk/client-ec2';
import { Sandbox, SANDBOX_CREDENTIALS } from '../sandbox.js';

process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] = 'true';
let sandbox: Sandbox;
beforeEach(() => {
  sandbox = new Sandbox({ seed: 3, ec2: { describeLagMaxMs: 0 } }).listen();
});
afterEach(() => sandbox.close());

const ec2 = () =>
  new EC2Client({
    region: 'eu-central-1',
    credentials: { accessKeyId: SANDBOX_CREDENTIALS.awsAccessKeyId, secretAccessKey: SANDBOX_CREDENTIALS.awsSecretAccessKey },
    maxAttempts: 1,
  });
const SPOT: InstanceMarketOptionsRequest = { MarketType: 'spot', SpotOptions: { SpotInstanceType: 'one-time', InstanceInterruptionBehavior: 'terminate' } };
const launch = (market?: InstanceMarketOptionsRequest, count = 1) =>
  ec2().send(
    new RunInstancesCommand({
      MinCount: count,
      MaxCount: count,
      ImageId: 'ami-0965bd5ba4d59211c',
      InstanceType: 't3.small',
      ...(market ? { InstanceMarketOptions: market } : {}),
    }),
  );
const failure = (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (e: { name?: string; message?: string }) => `${e.name ?? ''}: ${e.message ?? ''}`,
  );

describe('EC2 emulator: spot instances', () => {
  it('reports a spot launch as InstanceLifecycle spot with a spot request id of its own, and an on-demand one with neither', async () => {
    const spot = (await launch(SPOT, 2)).Instances ?? [];
    const onDemand = (await launch()).Instances?.[0];
    expect(spot.map((i) => i.InstanceLifecycle)).toEqual(['spot', 'spot']);
    expect(spot.map((i) => i.SpotInstanceRequestId)).toEqual([expect.stringMatching(/^sir-[0-9a-f]{8}$/), expect.stringMatching(/^sir-[0-9a-f]{8}$/)]);
    expect(new Set(spot.map((i) => i.SpotInstanceRequestId)).size).toBe(2);
    expect(onDemand?.InstanceLifecycle).toBeUndefined();
    expect(onDemand?.SpotInstanceRequestId).toBeUndefined();

    const described = (await ec2().send(new DescribeInstancesCommand({ InstanceIds: [spot[0]?.InstanceId ?? ''] }))).Reservations?.[0]?.Instances?.[0];
    expect(described).toMatchObject({ InstanceLifecycle: 'spot', SpotInstanceRequestId: spot[0]?.SpotInstanceRequestId });
    const bySpot = await ec2().send(new DescribeInstancesCommand({ Filters: [{ Name: 'instance-lifecycle', Values: ['spot'] }] }));
    expect((bySpot.Reservations ?? []).flatMap((r) => r.Instances ?? []).map((i) => i.InstanceId)).toEqual(spot.map((i) => i.InstanceId));
  });

  it('takes the market type alone (a one-time request, terminated on interruption, as EC2 defaults)', async () => {
    const instance = (await launch({ MarketType: 'spot' })).Instances?.[0];
    expect(instance?.InstanceLifecycle).toBe('spot');
  });

  it('refuses what EC2 refuses: a persistent request that terminates, spot options without the spot market, an unknown market, a price of nothing', async () => {
    expect(await failure(launch({ MarketType: 'spot', SpotOptions: { SpotInstanceType: 'persistent', InstanceInterruptionBehavior: 'terminate' } }))).toMatch(
      /^InvalidParameterCombination: .*persistent Spot Instance requests are only supported when the instance interruption behavior is either hibernate or stop/,
    );
    expect(await failure(launch({ SpotOptions: { SpotInstanceType: 'one-time' } }))).toMatch(/^InvalidParameterCombination: SpotOptions/);
    expect(await failure(launch({ MarketType: 'bargain' as 'spot' }))).toMatch(
      /^InvalidParameterValue: Value \(bargain\) for parameter InstanceMarketOptions.MarketType/,
    );
    expect(await failure(launch({ MarketType: 'spot', SpotOptions: { MaxPrice: '0.0005' } }))).toMatch(/^InvalidParameterValue: The maximum price/);
    expect(sandbox.inventory()).toEqual([]);
  });

  it('a spot capacity fault refuses spot launches with EC2 words for spot, and on-demand launches still succeed', async () => {
    sandbox.faults.add({ cloud: 'ec2', operation: 'RunInstances', kind: 'capacity', market: 'spot' });
    expect(await failure(launch(SPOT))).toBe('InsufficientInstanceCapacity: There is no Spot capacity available that matches your request.');
    expect(await failure(launch())).toBe('ok');
    expect(sandbox.faults.fired).toEqual([{ cloud: 'ec2', operation: 'RunInstances', kind: 'capacity' }]);
  });
});
