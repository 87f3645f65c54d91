// The AWS provider's network: VPCs with their subnets, internet gateway and default route, security groups (the
// firewalls), Elastic IPs (reserved IPs) and key pairs; and the lookups of their ids that machines are placed by.
import type { Filter, SecurityGroup, Tag } from '@aws-sdk/client-ec2';
import {
  CLUSTER_ID_TAG,
  done,
  pending,
  type FirewallInfo,
  type FirewallRequest,
  type NetworkInfo,
  type NetworkRequest,
  type NodeRef,
  type NodeRequest,
  type Outcome,
  type ReservedIpInfo,
  type ReservedIpRequest,
  type ScopedRef,
  type SshKeyInfo,
  type SshKeyRequest,
} from '@kubeplane/sdk/provider';
import { KubeplaneError } from '@kubeplane/sdk';
import { CREATED_TAG, type Ec2Calls, GATEWAY_DETACHED, GATEWAY_GONE, LIVE_STATES, tagValue } from './ec2-calls.js';
import { currentAtoms, ruleAtoms, rulesFromAtoms } from './security-group-rules.js';

export class AwsNetwork {
  readonly #calls: Ec2Calls;

  constructor(calls: Ec2Calls) {
    this.#calls = calls;
  }

  async idByTag(kind: 'vpc' | 'subnet' | 'sg', clusterId: string, name: string): Promise<string> {
    const cacheKey = `${kind}/${clusterId}/${name}`;
    const cached = this.#calls.ids.get(cacheKey);
    if (cached) return cached;
    let id: string | undefined;
    if (kind === 'vpc') id = (await this.#vpcsByName(clusterId, name))[0];
    if (kind === 'subnet')
      id = (
        await this.#calls.send<{ Subnets?: Array<{ SubnetId?: string }> }>(
          'describe',
          'DescribeSubnets',
          (sdk) => new sdk.DescribeSubnetsCommand({ Filters: this.#calls.byName(clusterId, name) }),
        )
      ).Subnets?.[0]?.SubnetId;
    if (kind === 'sg')
      id = (
        await this.#calls.send<{ SecurityGroups?: SecurityGroup[] }>(
          'describe',
          'DescribeSecurityGroups',
          (sdk) => new sdk.DescribeSecurityGroupsCommand({ Filters: this.#calls.byName(clusterId, name) }),
        )
      ).SecurityGroups?.[0]?.GroupId;
    if (!id)
      throw new KubeplaneError('not-found', `aws ${kind} ${name} of cluster ${clusterId} does not exist; ensure it before the nodes that use it`, {
        provider: 'aws',
        code: 'NotFound',
        resource: name,
      });
    this.#calls.ids.set(cacheKey, id);
    return id;
  }

  async subnetFor(request: NodeRequest): Promise<string | undefined> {
    if (!request.networkName) return undefined;
    const pick = (subnets: Array<{ id: string; zone: string }>) => subnets.find((s) => !request.zone || s.zone === request.zone) ?? subnets[0];
    let match = pick(await this.#networkSubnets(request.clusterId, request.networkName));
    if (!match || (request.zone && match.zone !== request.zone)) {
      // What this process remembers of the network may be another life's: another worker (a warm Lambda container
      // beside this one) deleted and re-created the VPC, or added the subnet of a new zone, since this one looked.
      this.#calls.ids.delete(`vpc/${request.clusterId}/${request.networkName}`);
      this.#calls.ids.delete(`subnets/${request.clusterId}/${request.networkName}`);
      match = pick(await this.#networkSubnets(request.clusterId, request.networkName));
    }
    if (!match)
      throw new KubeplaneError('not-found', `network ${request.networkName} has no subnet${request.zone ? ` in ${request.zone}` : ''}`, {
        provider: 'aws',
        code: 'NoSubnet',
        resource: request.name,
      });
    return match.id;
  }

  async #networkSubnets(clusterId: string, networkName: string): Promise<Array<{ id: string; zone: string; cidr: string }>> {
    const cacheKey = `subnets/${clusterId}/${networkName}`;
    const cached = this.#calls.ids.get(cacheKey);
    if (cached) return JSON.parse(cached) as Array<{ id: string; zone: string; cidr: string }>;
    const vpcId = await this.idByTag('vpc', clusterId, networkName);
    const out = await this.#calls.send<{ Subnets?: Array<{ SubnetId?: string; AvailabilityZone?: string; CidrBlock?: string }> }>(
      'describe',
      'DescribeSubnets',
      (sdk) => new sdk.DescribeSubnetsCommand({ Filters: [{ Name: 'vpc-id', Values: [vpcId] }] }),
    );
    const subnets = (out.Subnets ?? []).map((s) => ({ id: s.SubnetId ?? '', zone: s.AvailabilityZone ?? '', cidr: s.CidrBlock ?? '' }));
    if (subnets.length > 0) this.#calls.ids.set(cacheKey, JSON.stringify(subnets));
    return subnets;
  }

  /**
   * The VPCs of a cluster under one name, the one to use first: the oldest by its `kubeplane:created` tag (the
   * id breaks ties; a VPC without the tag, from an older kubeplane, counts as oldest). CreateVpc takes no
   * ClientToken, so two invocations that overlap (a lease that ran out mid-step) can each make one; every worker
   * then picks the same one, and ensureNetwork removes the others.
   */
  async #vpcsByName(clusterId: string, name: string): Promise<string[]> {
    const vpcs =
      (
        await this.#calls.send<{ Vpcs?: Array<{ VpcId?: string; Tags?: Tag[] }> }>(
          'describe',
          'DescribeVpcs',
          (sdk) => new sdk.DescribeVpcsCommand({ Filters: this.#calls.byName(clusterId, name) }),
        )
      ).Vpcs ?? [];
    const created = (v: { Tags?: Tag[] }) => Number(tagValue(v.Tags, CREATED_TAG) ?? 0) || 0;
    return vpcs
      .sort((a, b) => created(a) - created(b) || (a.VpcId ?? '').localeCompare(b.VpcId ?? ''))
      .map((v) => v.VpcId ?? '')
      .filter((id) => id !== '');
  }

  async ensureNetwork(request: NetworkRequest): Promise<Outcome<NetworkInfo>> {
    const { clusterId, name } = request;
    let vpcs = await this.#vpcsByName(clusterId, name);
    if (vpcs.length === 0) {
      const tags = this.#calls.tagSpecs(['vpc'], clusterId, name, { ...request.labels, [CREATED_TAG]: String(this.#calls.clock.now()) });
      const created = await this.#calls.send<{ Vpc?: { VpcId?: string } }>(
        'mutating',
        'CreateVpc',
        (sdk) => new sdk.CreateVpcCommand({ CidrBlock: request.cidr, TagSpecifications: tags }),
        name,
      );
      // Another invocation may have made one at the same time: look again, and use the oldest.
      vpcs = await this.#vpcsByName(clusterId, name);
      if (vpcs.length === 0) vpcs = [created.Vpc?.VpcId ?? ''];
    }
    const [vpcId = '', ...extra] = vpcs;
    // A duplicate with something still in it (a machine placed there meanwhile: DependencyViolation, a pending
    // outcome) stays until teardown, which removes every tagged VPC; any other error reaches the step.
    for (const duplicate of extra) await this.deleteVpc(duplicate, name, true);
    this.#calls.ids.set(`vpc/${clusterId}/${name}`, vpcId);
    // Internet gateway, attached, and the default route in the VPC's main route table.
    const igws = await this.#calls.send<{ InternetGateways?: Array<{ InternetGatewayId?: string; Attachments?: Array<{ VpcId?: string }> }> }>(
      'describe',
      'DescribeInternetGateways',
      (sdk) => new sdk.DescribeInternetGatewaysCommand({ Filters: this.#calls.byName(clusterId, `${name}-igw`) }),
    );
    // The gateway attached to this VPC, else a free one of the name; one that overlapping invocations made twice is
    // left to teardown (a VPC takes one gateway).
    let igw =
      igws.InternetGateways?.find((g) => (g.Attachments ?? []).some((a) => a.VpcId === vpcId)) ??
      igws.InternetGateways?.find((g) => (g.Attachments ?? []).length === 0);
    if (!igw) {
      const created = await this.#calls.send<{ InternetGateway?: { InternetGatewayId?: string } }>(
        'mutating',
        'CreateInternetGateway',
        (sdk) =>
          new sdk.CreateInternetGatewayCommand({ TagSpecifications: this.#calls.tagSpecs(['internet-gateway'], clusterId, `${name}-igw`, request.labels) }),
        name,
      );
      igw = { InternetGatewayId: created.InternetGateway?.InternetGatewayId ?? '', Attachments: [] };
    }
    const igwId = igw.InternetGatewayId ?? '';
    if (!(igw.Attachments ?? []).some((a) => a.VpcId === vpcId)) {
      try {
        await this.#calls.send(
          'mutating',
          'AttachInternetGateway',
          (sdk) => new sdk.AttachInternetGatewayCommand({ InternetGatewayId: igwId, VpcId: vpcId }),
          name,
        );
      } catch (error) {
        // An overlapping invocation attached its own gateway first (a VPC takes one): use that one next time.
        if (error instanceof KubeplaneError && error.details.code === 'Resource.AlreadyAssociated')
          return pending('retryable', 1, `network ${name} got its gateway from another call; looking again`);
        throw error;
      }
    } else {
      // Gateways of this name that overlapping invocations made and never attached.
      for (const spare of igws.InternetGateways ?? []) {
        if (spare === igw || (spare.Attachments ?? []).length > 0) continue;
        await this.#calls.alreadyDoneIs(GATEWAY_GONE, () =>
          this.#calls.send(
            'mutating',
            'DeleteInternetGateway',
            (sdk) => new sdk.DeleteInternetGatewayCommand({ InternetGatewayId: spare.InternetGatewayId ?? '' }),
            name,
          ),
        );
      }
    }
    const tables = await this.#calls.send<{
      RouteTables?: Array<{ RouteTableId?: string; Routes?: Array<{ DestinationCidrBlock?: string; GatewayId?: string }> }>;
    }>(
      'describe',
      'DescribeRouteTables',
      (sdk) =>
        new sdk.DescribeRouteTablesCommand({
          Filters: [
            { Name: 'vpc-id', Values: [vpcId] },
            { Name: 'association.main', Values: ['true'] },
          ],
        }),
    );
    const main = tables.RouteTables?.[0];
    if (main && !(main.Routes ?? []).some((r) => r.DestinationCidrBlock === '0.0.0.0/0' && r.GatewayId === igwId)) {
      try {
        await this.#calls.send(
          'mutating',
          'CreateRoute',
          (sdk) => new sdk.CreateRouteCommand({ RouteTableId: main.RouteTableId ?? '', DestinationCidrBlock: '0.0.0.0/0', GatewayId: igwId }),
          name,
        );
      } catch (error) {
        // Added by an overlapping invocation since the listing (to the VPC's one gateway).
        if (!(error instanceof KubeplaneError && error.details.code === 'RouteAlreadyExists')) throw error;
      }
    }
    const existing = await this.#calls.send<{ Subnets?: Array<{ SubnetId?: string; CidrBlock?: string; AvailabilityZone?: string }> }>(
      'describe',
      'DescribeSubnets',
      (sdk) => new sdk.DescribeSubnetsCommand({ Filters: [{ Name: 'vpc-id', Values: [vpcId] }] }),
    );
    const subnets = (existing.Subnets ?? []).map((s) => ({ id: s.SubnetId ?? '', cidr: s.CidrBlock ?? '', zone: s.AvailabilityZone ?? '' }));
    for (const [index, s] of request.subnets.entries()) {
      if (subnets.some((x) => x.cidr === s.cidr)) continue;
      const zone = s.zone ?? `${this.#calls.region}a`;
      let created: { Subnet?: { SubnetId?: string } };
      try {
        created = await this.#calls.send<{ Subnet?: { SubnetId?: string } }>(
          'mutating',
          'CreateSubnet',
          (sdk) =>
            new sdk.CreateSubnetCommand({
              VpcId: vpcId,
              CidrBlock: s.cidr,
              AvailabilityZone: zone,
              TagSpecifications: this.#calls.tagSpecs(['subnet'], clusterId, `${name}-${index}`, request.labels),
            }),
          name,
        );
      } catch (error) {
        // Made by an overlapping invocation since the listing: look again next time.
        if (error instanceof KubeplaneError && error.details.code === 'InvalidSubnet.Conflict')
          return pending('retryable', 1, `subnet ${s.cidr} of ${name} was created meanwhile; listing again`);
        throw error;
      }
      subnets.push({ id: created.Subnet?.SubnetId ?? '', cidr: s.cidr, zone });
    }
    this.#calls.ids.set(`subnets/${clusterId}/${name}`, JSON.stringify(subnets));
    return done({ name, id: vpcId, clusterId, cidr: request.cidr, subnets });
  }

  async deleteNetwork(clusterId: string, name: string): Promise<Outcome<void>> {
    const vpcs = await this.#calls.send<{ Vpcs?: Array<{ VpcId?: string }> }>(
      'describe',
      'DescribeVpcs',
      (sdk) => new sdk.DescribeVpcsCommand({ Filters: this.#calls.byName(clusterId, name) }),
    );
    for (const vpc of vpcs.Vpcs ?? []) {
      const outcome = await this.deleteVpc(vpc.VpcId ?? '', name);
      if (outcome.status === 'pending') return outcome;
    }
    this.#calls.ids.delete(`vpc/${clusterId}/${name}`);
    this.#calls.ids.delete(`subnets/${clusterId}/${name}`);
    return done(undefined);
  }

  /** Deletes a VPC with its subnets and gateway, and (`withGroups`: a duplicate's) its security groups. */
  async deleteVpc(vpcId: string, name: string, withGroups = false): Promise<Outcome<void>> {
    const dependency = (error: unknown): Outcome<void> => {
      if (error instanceof KubeplaneError && error.details.code === 'DependencyViolation')
        return pending('dependency', 10, `network ${name} still has dependents (instances shutting down?)`);
      if (error instanceof KubeplaneError && error.kind === 'not-found') return done(undefined);
      throw error;
    };
    if (withGroups) {
      const groups = await this.#calls.send<{ SecurityGroups?: SecurityGroup[] }>(
        'describe',
        'DescribeSecurityGroups',
        (sdk) => new sdk.DescribeSecurityGroupsCommand({ Filters: [{ Name: 'vpc-id', Values: [vpcId] }] }),
      );
      for (const g of groups.SecurityGroups ?? []) {
        if (g.GroupName === 'default') continue;
        try {
          await this.#calls.send('mutating', 'DeleteSecurityGroup', (sdk) => new sdk.DeleteSecurityGroupCommand({ GroupId: g.GroupId ?? '' }), name);
        } catch (error) {
          const o = dependency(error);
          if (o.status === 'pending') return o;
        }
      }
    }
    const subnets = await this.#calls.send<{ Subnets?: Array<{ SubnetId?: string }> }>(
      'describe',
      'DescribeSubnets',
      (sdk) => new sdk.DescribeSubnetsCommand({ Filters: [{ Name: 'vpc-id', Values: [vpcId] }] }),
    );
    for (const s of subnets.Subnets ?? []) {
      try {
        await this.#calls.send('mutating', 'DeleteSubnet', (sdk) => new sdk.DeleteSubnetCommand({ SubnetId: s.SubnetId ?? '' }), name);
      } catch (error) {
        const o = dependency(error);
        if (o.status === 'pending') return o;
      }
    }
    const igws = await this.#calls.send<{ InternetGateways?: Array<{ InternetGatewayId?: string }> }>(
      'describe',
      'DescribeInternetGateways',
      (sdk) => new sdk.DescribeInternetGatewaysCommand({ Filters: [{ Name: 'attachment.vpc-id', Values: [vpcId] }] }),
    );
    for (const g of igws.InternetGateways ?? []) {
      await this.#calls.alreadyDoneIs(GATEWAY_DETACHED, () =>
        this.#calls.send(
          'mutating',
          'DetachInternetGateway',
          (sdk) => new sdk.DetachInternetGatewayCommand({ InternetGatewayId: g.InternetGatewayId ?? '', VpcId: vpcId }),
          name,
        ),
      );
      await this.#calls.alreadyDoneIs(GATEWAY_GONE, () =>
        this.#calls.send(
          'mutating',
          'DeleteInternetGateway',
          (sdk) => new sdk.DeleteInternetGatewayCommand({ InternetGatewayId: g.InternetGatewayId ?? '' }),
          name,
        ),
      );
    }
    try {
      await this.#calls.send('mutating', 'DeleteVpc', (sdk) => new sdk.DeleteVpcCommand({ VpcId: vpcId }), name);
    } catch (error) {
      return dependency(error);
    }
    return done(undefined);
  }

  async ensureFirewall(request: FirewallRequest): Promise<Outcome<FirewallInfo>> {
    if (!request.networkName)
      throw new KubeplaneError('invalid', `firewall ${request.name}: AWS security groups belong to a VPC; set networkName`, {
        provider: 'aws',
        code: 'MissingNetwork',
        resource: request.name,
      });
    const vpcId = await this.idByTag('vpc', request.clusterId, request.networkName);
    const describe = async () =>
      (
        await this.#calls.send<{ SecurityGroups?: SecurityGroup[] }>(
          'describe',
          'DescribeSecurityGroups',
          (sdk) =>
            new sdk.DescribeSecurityGroupsCommand({
              Filters: [
                { Name: 'vpc-id', Values: [vpcId] },
                { Name: 'group-name', Values: [request.name] },
              ],
            }),
        )
      ).SecurityGroups?.[0];
    let group = await describe();
    if (!group) {
      try {
        const created = await this.#calls.send<{ GroupId?: string }>(
          'mutating',
          'CreateSecurityGroup',
          (sdk) =>
            new sdk.CreateSecurityGroupCommand({
              GroupName: request.name,
              Description: `kubeplane ${request.clusterId} ${request.name}`,
              VpcId: vpcId,
              TagSpecifications: this.#calls.tagSpecs(['security-group'], request.clusterId, request.name, request.labels),
            }),
          request.name,
        );
        group = { GroupId: created.GroupId ?? '', GroupName: request.name, IpPermissions: [], Tags: [{ Key: CLUSTER_ID_TAG, Value: request.clusterId }] };
      } catch (error) {
        if (!(error instanceof KubeplaneError && error.details.code === 'InvalidGroup.Duplicate')) throw error;
        group = await describe();
        if (!group) return pending('dependency', 2, `security group ${request.name} exists but is not visible yet`);
      }
    }
    if (tagValue(group.Tags, CLUSTER_ID_TAG) !== request.clusterId)
      throw new KubeplaneError('conflict', `security group ${request.name} belongs to cluster ${tagValue(group.Tags, CLUSTER_ID_TAG) ?? '(none)'}`, {
        provider: 'aws',
        code: 'NameTaken',
        resource: request.name,
      });
    const groupId = group.GroupId ?? '';
    this.#calls.ids.set(`sg/${request.clusterId}/${request.name}`, groupId);
    const wanted = ruleAtoms(request.rules, groupId);
    const current = currentAtoms(group);
    const revoke = [...current.entries()].filter(([k]) => !wanted.has(k)).map(([, v]) => v);
    const authorize = [...wanted.entries()].filter(([k]) => !current.has(k)).map(([, v]) => v);
    if (revoke.length > 0)
      await this.#calls.send(
        'mutating',
        'RevokeSecurityGroupIngress',
        (sdk) => new sdk.RevokeSecurityGroupIngressCommand({ GroupId: groupId, IpPermissions: revoke }),
        request.name,
      );
    if (authorize.length > 0) {
      try {
        await this.#calls.send(
          'mutating',
          'AuthorizeSecurityGroupIngress',
          (sdk) => new sdk.AuthorizeSecurityGroupIngressCommand({ GroupId: groupId, IpPermissions: authorize }),
          request.name,
        );
      } catch (error) {
        // A retry after a lost response: the rules are there already. Re-read and converge next time.
        if (!(error instanceof KubeplaneError && error.details.code === 'InvalidPermission.Duplicate')) throw error;
        return pending('retryable', 1, `security group ${request.name}: rules changed concurrently; converging again`);
      }
    }
    return done({ name: request.name, id: groupId, clusterId: request.clusterId, rules: rulesFromAtoms(wanted, groupId) });
  }

  async deleteFirewall(ref: ScopedRef): Promise<Outcome<void>> {
    const groups = await this.#calls.send<{ SecurityGroups?: SecurityGroup[] }>(
      'describe',
      'DescribeSecurityGroups',
      (sdk) => new sdk.DescribeSecurityGroupsCommand({ Filters: this.#calls.byName(ref.clusterId, ref.name) }),
    );
    for (const g of groups.SecurityGroups ?? []) {
      const outcome = await this.deleteGroup(g.GroupId ?? '', ref.name);
      if (outcome.status === 'pending') return outcome;
    }
    this.#calls.ids.delete(`sg/${ref.clusterId}/${ref.name}`);
    return done(undefined);
  }

  async deleteGroup(groupId: string, name: string): Promise<Outcome<void>> {
    try {
      await this.#calls.send('mutating', 'DeleteSecurityGroup', (sdk) => new sdk.DeleteSecurityGroupCommand({ GroupId: groupId }), name);
      return done(undefined);
    } catch (error) {
      if (error instanceof KubeplaneError && error.details.code === 'DependencyViolation')
        return pending('dependency', 10, `security group ${name} is still used by instances that are shutting down`);
      if (error instanceof KubeplaneError && error.kind === 'not-found') return done(undefined);
      throw error;
    }
  }

  async addresses(filters: Filter[]): Promise<Array<{ AllocationId?: string; PublicIp?: string; InstanceId?: string; AssociationId?: string; Tags?: Tag[] }>> {
    return (
      (
        await this.#calls.send<{ Addresses?: Array<{ AllocationId?: string; PublicIp?: string; InstanceId?: string; AssociationId?: string; Tags?: Tag[] }> }>(
          'describe',
          'DescribeAddresses',
          (sdk) => new sdk.DescribeAddressesCommand({ Filters: filters }),
        )
      ).Addresses ?? []
    );
  }

  async ensureReservedIp(request: ReservedIpRequest): Promise<Outcome<ReservedIpInfo>> {
    const found = (await this.addresses(this.#calls.byName(request.clusterId, request.name))).sort((a, b) =>
      (a.AllocationId ?? '').localeCompare(b.AllocationId ?? ''),
    );
    const [keep, ...duplicates] = found;
    // AllocateAddress has no client token: a lost response can leave a second address. Keep the oldest.
    for (const d of duplicates)
      if (!d.AssociationId)
        await this.#calls.send('mutating', 'ReleaseAddress', (sdk) => new sdk.ReleaseAddressCommand({ AllocationId: d.AllocationId ?? '' }), request.name);
    if (keep)
      return done({
        name: request.name,
        id: keep.AllocationId ?? '',
        clusterId: request.clusterId,
        ip: keep.PublicIp ?? '',
        ...(keep.InstanceId ? { attachedTo: keep.InstanceId } : {}),
      });
    const created = await this.#calls.send<{ AllocationId?: string; PublicIp?: string }>(
      'mutating',
      'AllocateAddress',
      (sdk) =>
        new sdk.AllocateAddressCommand({
          Domain: 'vpc',
          TagSpecifications: this.#calls.tagSpecs(['elastic-ip'], request.clusterId, request.name, request.labels),
        }),
      request.name,
    );
    return done({ name: request.name, id: created.AllocationId ?? '', clusterId: request.clusterId, ip: created.PublicIp ?? '' });
  }

  async attachReservedIp(ip: ScopedRef, node: NodeRef): Promise<Outcome<ReservedIpInfo>> {
    const [address] = await this.addresses(this.#calls.byName(ip.clusterId, ip.name));
    if (!address)
      throw new KubeplaneError('not-found', `elastic IP ${ip.name} does not exist; ensure it first`, { provider: 'aws', code: 'NotFound', resource: ip.name });
    const instance = (
      await this.#calls.describeInstances([...this.#calls.byName(node.clusterId, node.name), { Name: 'instance-state-name', Values: LIVE_STATES }])
    )[0];
    if (!instance) return pending('dependency', 5, `node ${node.name} is not visible yet`);
    const info = (): ReservedIpInfo => ({
      name: ip.name,
      id: address.AllocationId ?? '',
      clusterId: ip.clusterId,
      ip: address.PublicIp ?? '',
      attachedTo: `aws:///${instance.Placement?.AvailabilityZone ?? ''}/${instance.InstanceId ?? ''}`,
    });
    if (address.InstanceId === instance.InstanceId) return done(info());
    if (instance.State?.Name !== 'running')
      return pending('in-progress', 5, `node ${node.name} is ${instance.State?.Name ?? 'starting'}; the address is attached once it runs`);
    try {
      await this.#calls.send(
        'mutating',
        'AssociateAddress',
        (sdk) => new sdk.AssociateAddressCommand({ AllocationId: address.AllocationId ?? '', InstanceId: instance.InstanceId ?? '' }),
        ip.name,
      );
    } catch (error) {
      if (error instanceof KubeplaneError && error.details.code === 'IncorrectInstanceState')
        return pending('in-progress', 5, `node ${node.name} cannot take an address yet`);
      throw error;
    }
    return done(info());
  }

  async releaseAll(addresses: Array<{ AllocationId?: string; AssociationId?: string }>, name: string): Promise<Outcome<void>> {
    for (const a of addresses) {
      if (a.AssociationId)
        await this.#calls.send('mutating', 'DisassociateAddress', (sdk) => new sdk.DisassociateAddressCommand({ AssociationId: a.AssociationId }), name);
      try {
        await this.#calls.send('mutating', 'ReleaseAddress', (sdk) => new sdk.ReleaseAddressCommand({ AllocationId: a.AllocationId ?? '' }), name);
      } catch (error) {
        if (!(error instanceof KubeplaneError && error.kind === 'not-found')) throw error;
      }
    }
    return done(undefined);
  }

  async deleteReservedIp(ref: ScopedRef): Promise<Outcome<void>> {
    return this.releaseAll(await this.addresses(this.#calls.byName(ref.clusterId, ref.name)), ref.name);
  }

  async ensureSshKey(request: SshKeyRequest): Promise<Outcome<SshKeyInfo>> {
    const find = async () =>
      (
        await this.#calls.send<{ KeyPairs?: Array<{ KeyPairId?: string; KeyName?: string; KeyFingerprint?: string; Tags?: Tag[] }> }>(
          'describe',
          'DescribeKeyPairs',
          (sdk) => new sdk.DescribeKeyPairsCommand({ Filters: [{ Name: 'key-name', Values: [request.name] }] }),
        )
      ).KeyPairs?.[0];
    let key = await find();
    if (!key) {
      try {
        const created = await this.#calls.send<{ KeyPairId?: string; KeyName?: string; KeyFingerprint?: string }>(
          'mutating',
          'ImportKeyPair',
          (sdk) =>
            new sdk.ImportKeyPairCommand({
              KeyName: request.name,
              PublicKeyMaterial: new TextEncoder().encode(request.publicKey),
              TagSpecifications: this.#calls.tagSpecs(['key-pair'], request.clusterId, request.name, request.labels),
            }),
          request.name,
        );
        key = { ...created, Tags: [{ Key: CLUSTER_ID_TAG, Value: request.clusterId }] };
      } catch (error) {
        if (!(error instanceof KubeplaneError && error.details.code === 'InvalidKeyPair.Duplicate')) throw error;
        key = await find();
        if (!key) return pending('dependency', 2, `key pair ${request.name} exists but is not visible yet`);
      }
    }
    if (tagValue(key.Tags, CLUSTER_ID_TAG) !== request.clusterId)
      throw new KubeplaneError('conflict', `key pair ${request.name} belongs to cluster ${tagValue(key.Tags, CLUSTER_ID_TAG) ?? '(none)'}`, {
        provider: 'aws',
        code: 'NameTaken',
        resource: request.name,
      });
    return done({
      name: request.name,
      id: key.KeyPairId ?? '',
      clusterId: request.clusterId,
      ...(key.KeyFingerprint ? { fingerprint: key.KeyFingerprint } : {}),
    });
  }

  async deleteSshKey(ref: ScopedRef): Promise<Outcome<void>> {
    const keys =
      (
        await this.#calls.send<{ KeyPairs?: Array<{ KeyPairId?: string; Tags?: Tag[] }> }>(
          'describe',
          'DescribeKeyPairs',
          (sdk) => new sdk.DescribeKeyPairsCommand({ Filters: this.#calls.byName(ref.clusterId, ref.name) }),
        )
      ).KeyPairs ?? [];
    for (const k of keys)
      await this.#calls.send('mutating', 'DeleteKeyPair', (sdk) => new sdk.DeleteKeyPairCommand({ KeyPairId: k.KeyPairId ?? '' }), ref.name);
    return done(undefined);
  }
}
