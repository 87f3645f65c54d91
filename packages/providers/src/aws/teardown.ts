// Everything of a cluster in one AWS region, found by its tag: listed, and torn down in the order EC2 lets go of it
// (instances, addresses, security groups, key pairs, VPCs, stray gateways), whatever state the cluster was left in.
import type { Filter, SecurityGroup, Tag } from '@aws-sdk/client-ec2';
import { CLUSTER_ID_TAG, NAME_TAG, done, pending, type Outcome, type TaggedResource } from '@kubeplane/sdk/provider';
import { KubeplaneError } from '@kubeplane/sdk';
import type { AwsCompute } from './compute.js';
import { type Ec2Calls, GATEWAY_DETACHED, GATEWAY_GONE, LIVE_STATES, tagValue } from './ec2-calls.js';
import type { AwsNetwork } from './network.js';

export class AwsTeardown {
  readonly #calls: Ec2Calls;
  readonly #compute: AwsCompute;
  readonly #network: AwsNetwork;

  constructor(calls: Ec2Calls, compute: AwsCompute, network: AwsNetwork) {
    this.#calls = calls;
    this.#compute = compute;
    this.#network = network;
  }

  /** Every resource carrying the cluster's tag. */
  async tagged(clusterId: string): Promise<TaggedResource[]> {
    const filters: Filter[] = [{ Name: `tag:${CLUSTER_ID_TAG}`, Values: [clusterId] }];
    const out: TaggedResource[] = [];
    const nameOf = (tags: Tag[] | undefined) => tagValue(tags, NAME_TAG);
    for (const i of await this.#calls.describeInstances([...filters, { Name: 'instance-state-name', Values: LIVE_STATES }]))
      out.push({ kind: 'node', id: i.InstanceId ?? '', ...(nameOf(i.Tags) ? { name: nameOf(i.Tags) ?? '' } : {}) });
    for (const a of await this.#network.addresses(filters))
      out.push({ kind: 'reserved-ip', id: a.AllocationId ?? '', ...(nameOf(a.Tags) ? { name: nameOf(a.Tags) ?? '' } : {}) });
    for (const g of (
      await this.#calls.send<{ SecurityGroups?: SecurityGroup[] }>(
        'describe',
        'DescribeSecurityGroups',
        (sdk) => new sdk.DescribeSecurityGroupsCommand({ Filters: filters }),
      )
    ).SecurityGroups ?? [])
      out.push({ kind: 'firewall', id: g.GroupId ?? '', ...(nameOf(g.Tags) ? { name: nameOf(g.Tags) ?? '' } : {}) });
    for (const k of (
      await this.#calls.send<{ KeyPairs?: Array<{ KeyPairId?: string; Tags?: Tag[] }> }>(
        'describe',
        'DescribeKeyPairs',
        (sdk) => new sdk.DescribeKeyPairsCommand({ Filters: filters }),
      )
    ).KeyPairs ?? [])
      out.push({ kind: 'ssh-key', id: k.KeyPairId ?? '', ...(nameOf(k.Tags) ? { name: nameOf(k.Tags) ?? '' } : {}) });
    for (const s of (
      await this.#calls.send<{ Subnets?: Array<{ SubnetId?: string; Tags?: Tag[] }> }>(
        'describe',
        'DescribeSubnets',
        (sdk) => new sdk.DescribeSubnetsCommand({ Filters: filters }),
      )
    ).Subnets ?? [])
      out.push({ kind: 'subnet', id: s.SubnetId ?? '', ...(nameOf(s.Tags) ? { name: nameOf(s.Tags) ?? '' } : {}) });
    for (const g of (
      await this.#calls.send<{ InternetGateways?: Array<{ InternetGatewayId?: string; Tags?: Tag[] }> }>(
        'describe',
        'DescribeInternetGateways',
        (sdk) => new sdk.DescribeInternetGatewaysCommand({ Filters: filters }),
      )
    ).InternetGateways ?? [])
      out.push({ kind: 'other', id: g.InternetGatewayId ?? '', ...(nameOf(g.Tags) ? { name: nameOf(g.Tags) ?? '' } : {}) });
    for (const v of (
      await this.#calls.send<{ Vpcs?: Array<{ VpcId?: string; Tags?: Tag[] }> }>(
        'describe',
        'DescribeVpcs',
        (sdk) => new sdk.DescribeVpcsCommand({ Filters: filters }),
      )
    ).Vpcs ?? [])
      out.push({ kind: 'network', id: v.VpcId ?? '', ...(nameOf(v.Tags) ? { name: nameOf(v.Tags) ?? '' } : {}) });
    return out;
  }

  async teardown(clusterId: string): Promise<Outcome<void>> {
    const filters: Filter[] = [{ Name: `tag:${CLUSTER_ID_TAG}`, Values: [clusterId] }];
    const instances = await this.#calls.describeInstances([...filters, { Name: 'instance-state-name', Values: LIVE_STATES }]);
    const launchedHere = [...this.#compute.launched.entries()].filter(([k]) => k.startsWith(`${clusterId}/`));
    const toTerminate = instances.filter((i) => i.State?.Name !== 'shutting-down').map((i) => i.InstanceId ?? '');
    for (let i = 0; i < toTerminate.length; i += 1000) {
      await this.#calls.send(
        'terminate',
        'TerminateInstances',
        (sdk) => new sdk.TerminateInstancesCommand({ InstanceIds: toTerminate.slice(i, i + 1000) }),
        clusterId,
      );
    }
    if (instances.length > 0) {
      for (const [k, id] of launchedHere) if (instances.some((i) => i.InstanceId === id)) this.#compute.launched.delete(k);
      this.#compute.clusterView.delete(clusterId);
      return pending('in-progress', 15, `${instances.length} instance(s) of cluster ${clusterId} are shutting down`);
    }
    // Instances launched moments ago may not be listed yet (eventual consistency): check them by id.
    for (const [key, id] of launchedHere) {
      try {
        await this.#calls.send('terminate', 'TerminateInstances', (sdk) => new sdk.TerminateInstancesCommand({ InstanceIds: [id] }), key);
        this.#compute.launched.delete(key);
        return pending('in-progress', 15, `instance ${id} was not listed yet; terminating it`);
      } catch (error) {
        if (error instanceof KubeplaneError && error.details.code === 'InvalidInstanceID.NotFound')
          return pending('dependency', 2, `instance ${id} is not visible yet`);
        throw error;
      }
    }
    await this.#network.releaseAll(await this.#network.addresses(filters), clusterId);
    const groups =
      (
        await this.#calls.send<{ SecurityGroups?: SecurityGroup[] }>(
          'describe',
          'DescribeSecurityGroups',
          (sdk) => new sdk.DescribeSecurityGroupsCommand({ Filters: filters }),
        )
      ).SecurityGroups ?? [];
    // Rules that reference other groups of the cluster block their deletion: revoke those first.
    for (const g of groups) {
      const refs = (g.IpPermissions ?? []).filter((p) => (p.UserIdGroupPairs ?? []).some((pair) => pair.GroupId !== g.GroupId));
      if (refs.length > 0)
        await this.#calls.send(
          'mutating',
          'RevokeSecurityGroupIngress',
          (sdk) =>
            new sdk.RevokeSecurityGroupIngressCommand({
              GroupId: g.GroupId ?? '',
              IpPermissions: refs.map((p) => ({
                IpProtocol: p.IpProtocol ?? '-1',
                FromPort: p.FromPort ?? -1,
                ToPort: p.ToPort ?? -1,
                UserIdGroupPairs: (p.UserIdGroupPairs ?? []).filter((pair) => pair.GroupId !== g.GroupId).map((pair) => ({ GroupId: pair.GroupId ?? '' })),
              })),
            }),
          clusterId,
        );
    }
    for (const g of groups) {
      const outcome = await this.#network.deleteGroup(g.GroupId ?? '', g.GroupName ?? '');
      if (outcome.status === 'pending') return outcome;
    }
    for (const k of (
      await this.#calls.send<{ KeyPairs?: Array<{ KeyPairId?: string }> }>(
        'describe',
        'DescribeKeyPairs',
        (sdk) => new sdk.DescribeKeyPairsCommand({ Filters: filters }),
      )
    ).KeyPairs ?? []) {
      await this.#calls.send('mutating', 'DeleteKeyPair', (sdk) => new sdk.DeleteKeyPairCommand({ KeyPairId: k.KeyPairId ?? '' }), clusterId);
    }
    for (const v of (
      await this.#calls.send<{ Vpcs?: Array<{ VpcId?: string }> }>('describe', 'DescribeVpcs', (sdk) => new sdk.DescribeVpcsCommand({ Filters: filters }))
    ).Vpcs ?? []) {
      const outcome = await this.#network.deleteVpc(v.VpcId ?? '', clusterId);
      if (outcome.status === 'pending') return outcome;
    }
    // Gateways left detached by an interrupted network delete.
    for (const g of (
      await this.#calls.send<{ InternetGateways?: Array<{ InternetGatewayId?: string; Attachments?: Array<{ VpcId?: string }> }> }>(
        'describe',
        'DescribeInternetGateways',
        (sdk) => new sdk.DescribeInternetGatewaysCommand({ Filters: filters }),
      )
    ).InternetGateways ?? []) {
      for (const a of g.Attachments ?? [])
        await this.#calls.alreadyDoneIs(GATEWAY_DETACHED, () =>
          this.#calls.send(
            'mutating',
            'DetachInternetGateway',
            (sdk) => new sdk.DetachInternetGatewayCommand({ InternetGatewayId: g.InternetGatewayId ?? '', VpcId: a.VpcId ?? '' }),
            clusterId,
          ),
        );
      await this.#calls.alreadyDoneIs(GATEWAY_GONE, () =>
        this.#calls.send(
          'mutating',
          'DeleteInternetGateway',
          (sdk) => new sdk.DeleteInternetGatewayCommand({ InternetGatewayId: g.InternetGatewayId ?? '' }),
          clusterId,
        ),
      );
    }
    return done(undefined);
  }
}
