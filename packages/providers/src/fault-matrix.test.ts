// Every fault kind against both providers: the provider classifies it right, then either recovers or stops
// with an actionable error, and the sandbox never holds a duplicate node.
import { afterEach, describe, expect, it } from 'vitest';
import { KubeplaneError, Redacted } from '@kubeplane/sdk';
import { RateBudgets, settle, type NodeRequest, type Provider } from '@kubeplane/sdk/provider';
import type { FaultKind } from '@kubeplane/sdk/conformance';
import { AwsProvider } from './aws/provider.js';
import { HetznerProvider } from './hetzner/provider.js';
import { type CloudName, Sandbox, SANDBOX_CREDENTIALS } from '@kubeplane/sandbox';

interface Target {
  name: 'hetzner' | 'aws';
  cloud: CloudName;
  createOp: string;
  make(sandbox: Sandbox): Provider;
  request(cluster: string, index: number): NodeRequest;
}

const targets: Target[] = [
  {
    name: 'hetzner',
    cloud: 'hetzner',
    createOp: 'POST /servers',
    make: (s) =>
      new HetznerProvider({
        token: Redacted.of(SANDBOX_CREDENTIALS.hetznerToken),
        project: 'faults',
        clock: s.clock,
        budgets: new RateBudgets(s.clock),
        random: s.random,
      }),
    request: (cluster, i) => ({
      name: `${cluster}-w-${String(i).padStart(2, '0')}`,
      clusterId: cluster,
      nodepool: 'w',
      region: 'fsn1',
      serverType: 'cpx22',
      image: 'ubuntu-24.04',
      userData: '#cloud-config\n',
    }),
  },
  {
    name: 'aws',
    cloud: 'ec2',
    createOp: 'RunInstances',
    make: (s) =>
      new AwsProvider({
        region: 'eu-central-1',
        account: 'faults',
        credentials: { accessKeyId: Redacted.of(SANDBOX_CREDENTIALS.awsAccessKeyId), secretAccessKey: Redacted.of(SANDBOX_CREDENTIALS.awsSecretAccessKey) },
        clock: s.clock,
        budgets: new RateBudgets(s.clock),
        random: s.random,
      }),
    request: (cluster, i) => ({
      name: `${cluster}-w-${String(i).padStart(2, '0')}`,
      clusterId: cluster,
      nodepool: 'w',
      region: 'eu-central-1',
      zone: 'eu-central-1a',
      serverType: 't3.small',
      image: 'ami-0965bd5ba4d59211c',
      userData: '#cloud-config\n',
    }),
  },
];

const recoverable: Array<{ kind: FaultKind; reason: string; times: number }> = [
  { kind: 'throttled', reason: 'throttled', times: 1 },
  { kind: 'throttled-no-headers', reason: 'throttled', times: 3 },
  { kind: 'server-error', reason: 'retryable', times: 2 },
  { kind: 'timeout', reason: 'retryable', times: 2 },
  { kind: 'lost-response', reason: 'retryable', times: 2 },
];

const terminal: Array<{ kind: FaultKind; errorKind: KubeplaneError['kind']; advice: RegExp }> = [
  { kind: 'capacity', errorKind: 'capacity', advice: /another|retry later/i },
  { kind: 'quota', errorKind: 'quota', advice: /limit|quota/i },
  { kind: 'auth', errorKind: 'auth', advice: /secretRef|credentials|token/i },
];

let sandbox: Sandbox | undefined;
afterEach(() => sandbox?.close());

const liveNodes = (s: Sandbox, cluster: string) => s.inventory().filter((i) => i.kind === 'node' && i.clusterId === cluster);

describe.each(targets)('$name under injected faults', (target) => {
  it.each(recoverable)('classifies $kind on create as pending($reason) and recovers with exactly one node', async ({ kind, reason, times }) => {
    sandbox = new Sandbox({ seed: 5 }).listen();
    const provider = target.make(sandbox);
    sandbox.injectFault({ cloud: target.cloud, operation: target.createOp, kind, times });
    const first = await provider.compute!.createNode(target.request('c1', 1));
    expect(first).toMatchObject({ status: 'pending', reason });
    if (first.status === 'pending') {
      expect(first.retryAfterSeconds).toBeGreaterThan(0);
      expect(first.cause?.details.provider).toBe(target.name);
    }
    const node = await settle((attempt) => provider.compute!.createNode(target.request('c1', 1), { attempt }), { clock: sandbox.clock });
    expect(liveNodes(sandbox, 'c1').map((n) => n.id)).toEqual([node.id]);
    expect(sandbox.faults.fired.filter((f) => f.kind === kind)).toHaveLength(times);
  });

  it.each(terminal)('stops on $kind with an actionable $errorKind error and creates nothing', async ({ kind, errorKind, advice }) => {
    sandbox = new Sandbox({ seed: 5 }).listen();
    const provider = target.make(sandbox);
    sandbox.injectFault({ cloud: target.cloud, operation: target.createOp, kind, times: 1 });
    const error = await provider.compute!.createNode(target.request('c1', 1)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KubeplaneError);
    const k = error as KubeplaneError;
    expect(k.kind).toBe(errorKind);
    expect(k.retryable).toBe(false);
    expect(k.message).toMatch(advice);
    expect(k.details).toMatchObject({ provider: target.name, resource: 'c1-w-01' });
    expect(k.details.code).toBeTruthy();
    expect(k.details.requestId).toBeTruthy();
    expect(liveNodes(sandbox, 'c1')).toHaveLength(0);
  });

  it('honours a throttle on listing without sending more requests before the delay', async () => {
    sandbox = new Sandbox({ seed: 5 }).listen();
    const provider = target.make(sandbox);
    sandbox.injectFault({ cloud: target.cloud, operation: target.name === 'aws' ? 'DescribeInstances' : 'GET /servers', kind: 'throttled', times: 1 });
    const first = await provider.compute!.listNodes({ clusterId: 'c1' });
    expect(first).toMatchObject({ status: 'pending', reason: 'throttled' });
    const sent = sandbox.totalCalls();
    // Called again at once, the provider's own budget answers: no request reaches the cloud.
    const second = await provider.compute!.listNodes({ clusterId: 'c1' });
    expect(second).toMatchObject({ status: 'pending', reason: 'rate-budget' });
    expect(sandbox.totalCalls()).toBe(sent);
    expect(await settle(() => provider.compute!.listNodes({ clusterId: 'c1' }), { clock: sandbox.clock })).toEqual([]);
  });

  it('survives a random 30% mix of transient faults on every call with no duplicate nodes', async () => {
    sandbox = new Sandbox({ seed: 9 }).listen();
    const provider = target.make(sandbox);
    for (const kind of ['server-error', 'timeout', 'lost-response', 'throttled-no-headers'] as const)
      sandbox.injectFault({ cloud: target.cloud, operation: '*', kind, probability: 0.08 });
    for (let i = 1; i <= 8; i++)
      await settle((attempt) => provider.compute!.createNode(target.request('c2', i), { attempt }), { clock: sandbox.clock, maxAttempts: 100 });
    const names = liveNodes(sandbox, 'c2')
      .map((n) => n.name)
      .sort();
    expect(names).toEqual(Array.from({ length: 8 }, (_, i) => `c2-w-${String(i + 1).padStart(2, '0')}`));
    expect(sandbox.faults.fired.length).toBeGreaterThan(0);
    await settle((attempt) => provider.teardownCluster('c2', 'x', { attempt }), { clock: sandbox.clock, maxAttempts: 200 });
    expect(liveNodes(sandbox, 'c2')).toHaveLength(0);
  });
});

describe('EC2 eventual consistency', () => {
  const make = (s: Sandbox) =>
    new AwsProvider({
      region: 'eu-central-1',
      account: 'ec',
      credentials: { accessKeyId: Redacted.of(SANDBOX_CREDENTIALS.awsAccessKeyId), secretAccessKey: Redacted.of(SANDBOX_CREDENTIALS.awsSecretAccessKey) },
      clock: s.clock,
      budgets: new RateBudgets(s.clock),
      random: s.random,
    });
  const req = (i: number): NodeRequest => ({
    name: `ec-w-${String(i).padStart(2, '0')}`,
    clusterId: 'ec',
    nodepool: 'w',
    region: 'eu-central-1',
    serverType: 't3.small',
    image: 'ami-0965bd5ba4d59211c',
    userData: '',
  });

  it('reports a just-launched instance that Describe cannot see yet as pending, not missing', async () => {
    sandbox = new Sandbox({ seed: 2, ec2: { describeLagMaxMs: 5_000 } }).listen();
    const provider = make(sandbox);
    const node = await settle(() => provider.compute.createNode(req(1)), { clock: sandbox.clock });
    const [instance] = [...sandbox.ec2.instances.values()];
    expect(instance && instance.visibleAt > sandbox.clock.now()).toBe(true);
    const right = await provider.compute.getNode({ clusterId: 'ec', name: node.name, region: 'eu-central-1' });
    expect(right).toMatchObject({ status: 'pending', reason: 'dependency' });
    const found = await settle(() => provider.compute.getNode({ clusterId: 'ec', name: node.name, region: 'eu-central-1' }), { clock: sandbox.clock });
    expect(found?.id).toBe(node.id);
  });

  it('deletes and tears down instances that are not visible yet instead of leaking them', async () => {
    sandbox = new Sandbox({ seed: 2, ec2: { describeLagMaxMs: 5_000 } }).listen();
    const provider = make(sandbox);
    await settle(() => provider.compute.createNode(req(1)), { clock: sandbox.clock });
    await settle(() => provider.compute.createNode(req(2)), { clock: sandbox.clock });
    const deleted = await provider.compute.deleteNode({ clusterId: 'ec', name: 'ec-w-01', region: 'eu-central-1' });
    expect(deleted).toMatchObject({ status: 'pending', reason: 'dependency' });
    await settle(() => provider.compute.deleteNode({ clusterId: 'ec', name: 'ec-w-01', region: 'eu-central-1' }), { clock: sandbox.clock });
    await settle(() => provider.teardownCluster('ec', 'eu-central-1'), { clock: sandbox.clock });
    expect(sandbox.inventory().filter((i) => i.clusterId === 'ec')).toEqual([]);
  });

  it('does not launch a second instance when the first is not visible yet and createNode runs again', async () => {
    sandbox = new Sandbox({ seed: 2, ec2: { describeLagMaxMs: 5_000 } }).listen();
    const a = make(sandbox);
    const b = make(sandbox);
    const first = await settle(() => a.compute.createNode(req(1)), { clock: sandbox.clock });
    // Another process (no shared memory) runs the same step: the client token makes EC2 return the same instance.
    const second = await settle(() => b.compute.createNode(req(1)), { clock: sandbox.clock });
    expect(second.id).toBe(first.id);
    expect(sandbox.inventory().filter((i) => i.kind === 'node')).toHaveLength(1);
  });
});
