// The AWS provider: EC2 compute and network (VPC, subnets, internet gateway, security groups, Elastic IPs,
// key pairs) and Route 53 DNS, over the AWS SDK v3. Every call first spends the matching EC2/Route 53 budget.
import { createHash } from 'node:crypto';
import type {
  EC2Client,
  Filter,
  DescribeInstanceTypeOfferingsCommandOutput,
  DescribeInstanceTypesCommandOutput,
  DescribeRegionsCommandOutput,
  DescribeImagesCommandOutput,
  DescribeAvailabilityZonesCommandOutput,
  Instance,
  IpPermission,
  SecurityGroup,
  Tag,
  TagSpecification,
  ResourceType,
} from '@aws-sdk/client-ec2';

/** EC2's error codes for a gateway that another call already detached, or deleted. */
const GATEWAY_DETACHED = ['Gateway.NotAttached', 'InvalidInternetGatewayID.NotFound'] as const;
const GATEWAY_GONE = ['InvalidInternetGatewayID.NotFound'] as const;
import {
  CLUSTER_ID_TAG,
  KubeplaneError,
  NAME_TAG,
  NODEPOOL_TAG,
  RATE_LIMITS,
  RateBudgetWait,
  RateBudgets,
  done,
  pending,
  forgettingStaleIds,
  guardedCall,
  type CallContext,
  type Capabilities,
  type Clock,
  type ComputeApi,
  type DnsApi,
  type FirewallInfo,
  type FirewallRequest,
  type FirewallRule,
  type NetworkApi,
  type NetworkInfo,
  type NetworkRequest,
  type NodeInfo,
  type NodeRef,
  type NodeRequest,
  type NodeState,
  type Outcome,
  type Provider,
  type RateBudget,
  type RateBudgetSource,
  type ReservedIpInfo,
  type ReservedIpRequest,
  type ScopedRef,
  type SshKeyInfo,
  type SshKeyRequest,
  type TaggedResource,
  USER_DATA_RULES,
} from '@kubeplane/sdk';
import { loadEc2, loadRoute53, type Ec2Module } from './sdk-modules.js';
import { toKubeplaneError } from './errors.js';
import { AssumedRoleCredentials, renewingEndedSession, type AwsCredentialIdentity, type AwsKeys, type AwsRoleToAssume } from './assume-role.js';
import { Route53Dns, type Route53DnsOptions } from './route53-dns.js';
import { OWN_ENDPOINTS } from './own-endpoints.js';

process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] = 'true';

/** EC2's answers for a VPC, subnet, security group, route table or gateway id that no longer exists. */
const STALE_ID_CODES = /^Invalid(Vpc|Subnet|Group|SecurityGroup|RouteTable|InternetGateway)(ID)?\.NotFound$/;
const USER_DATA_LIMIT = USER_DATA_RULES['aws']?.limit ?? 16_384;
export const INSTANCE_METADATA_OPTIONS = { HttpTokens: 'required', HttpPutResponseHopLimit: 1, HttpEndpoint: 'enabled' } as const;
const LIVE_STATES = ['pending', 'running', 'stopping', 'stopped', 'shutting-down'];

export type AwsCredentials = AwsKeys;

export interface AwsProviderOptions {
  region: string;
  /** Keys to sign with, or (with assumeRole) to ask STS for the role's session with; none: the SDK's default chain. */
  credentials?: AwsCredentials;
  /** Work as a session of this role (short-lived credentials, tagged with the cluster), asked for with `credentials`. */
  assumeRole?: AwsRoleToAssume;
  /** The account (or a name for it): providers for the same account and region share budgets. */
  account: string;
  clock: Clock;
  /** Shared budgets (in-process RateBudgets, or a store shared by every worker); pass the same source to every provider. */
  budgets?: RateBudgetSource;
  random?: () => number;
  /** Route 53 on/off (default on). */
  dns?: boolean;
  /**
   * Send every request to AWS's own endpoint for the region, whatever the environment and the shared config file say
   * (AWS_ENDPOINT_URL and AWS_ENDPOINT_URL_<SERVICE>, a profile's endpoint_url, AWS_USE_FIPS_ENDPOINT,
   * AWS_USE_DUALSTACK_ENDPOINT): the sandbox's in-process clouds answer there, and only there. Default false: a run
   * against real clouds honours them (a served sandbox, a proxy, FIPS endpoints).
   */
  ownEndpoints?: boolean;
}

type Bucket = 'run' | 'launches' | 'terminate' | 'describe' | 'mutating' | 'route53';

function tagValue(tags: Tag[] | undefined, key: string): string | undefined {
  return tags?.find((t) => t.Key === key)?.Value;
}

function tagMap(tags: Tag[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const t of tags ?? []) if (t.Key !== undefined) out[t.Key] = t.Value ?? '';
  return out;
}

/** When kubeplane made a VPC (ms since the epoch): tells the oldest of duplicates. */
const CREATED_TAG = 'kubeplane.dev/created';

export class AwsProvider implements Provider {
  readonly name = 'aws';
  readonly capabilities: Capabilities;
  readonly compute: ComputeApi;
  readonly network: NetworkApi;
  readonly dns?: DnsApi;
  readonly #region: string;
  readonly #ec2: () => Promise<EC2Client>;
  readonly #budgets: Record<Bucket, RateBudget>;
  readonly #random: () => number;
  readonly #clock: Clock;
  /** Instance ids this provider launched, by node name: EC2 Describe is eventually consistent. */
  readonly #launched = new Map<string, string>();
  /** Resource ids by kind/name (VPCs, subnets, security groups): they never change once created. */
  readonly #ids = new Map<string, string>();
  /** A short-lived view of the cluster's instances, so that creating N nodes costs ~N calls, not 2N. */
  readonly #clusterView = new Map<string, { at: number; instances: Instance[] }>();
  readonly #viewRefresh = new Map<string, Promise<Instance[]>>();
  /** Calls sent per EC2/Route 53 action (for the bench). */
  readonly sent = new Map<string, number>();

  constructor(options: AwsProviderOptions) {
    this.#region = options.region;
    this.#clock = options.clock;
    this.#random = options.random ?? Math.random;
    const credentials = this.#credentialsOf(options);
    // maxAttempts 1: retries are ours, as pending outcomes on the virtual clock, not sleeps inside the SDK.
    let ec2: Promise<EC2Client> | undefined;
    const endpoints = options.ownEndpoints ? OWN_ENDPOINTS : {};
    this.#ec2 = () => (ec2 ??= loadEc2().then((sdk) => new sdk.EC2Client({ region: options.region, credentials, maxAttempts: 1, ...endpoints })));
    const budgets = options.budgets ?? new RateBudgets(options.clock);
    const key = `aws:${options.account}:${options.region}`;
    this.#budgets = {
      run: budgets.get(`${key}:run-instances`, RATE_LIMITS.ec2RunInstances),
      launches: budgets.get(`${key}:instance-launches`, RATE_LIMITS.ec2InstanceLaunches),
      terminate: budgets.get(`${key}:terminate-instances`, RATE_LIMITS.ec2TerminateInstances),
      describe: budgets.get(`${key}:describe`, RATE_LIMITS.ec2Describe),
      mutating: budgets.get(`${key}:mutating`, RATE_LIMITS.ec2Mutating),
      route53: budgets.get(`aws:${options.account}:route53`, RATE_LIMITS.route53),
    };
    const withDns = options.dns ?? true;
    // Key pairs, security groups and VPCs are per region: "The key pair returned to you is available only in the
    // Amazon Web Services Region in which you create it" (EC2 API reference, CreateKeyPair); a security group belongs
    // to its VPC, a VPC to its region. Route 53 is global (one client in us-east-1 above).
    this.capabilities = {
      compute: true,
      network: true,
      dns: withDns,
      dnsFailover: withDns,
      attachReservedIpAfterCreate: true,
      managedKubernetes: false,
      scopes: { sshKey: 'region' },
    };
    if (withDns) {
      let route53: ReturnType<Route53DnsOptions['client']> | undefined;
      const client = () => (route53 ??= loadRoute53().then((sdk) => new sdk.Route53Client({ region: 'us-east-1', credentials, maxAttempts: 1, ...endpoints })));
      this.dns = new Route53Dns({ client, budget: this.#budgets.route53, guard: (c, f) => this.#guard(c, f), count: (op) => this.#count(op) });
    }
    this.compute = {
      createNode: (r, c) => this.#guard(c, () => this.#createNode(r)),
      listNodes: (s, c) =>
        this.#guard(c, async () =>
          done((await this.#describeCluster(s.clusterId, s.nodepool)).map((i) => this.#nodeInfo(i)).sort((a, b) => a.name.localeCompare(b.name))),
        ),
      getNode: (r, c) => this.#guard(c, () => this.#getNode(r)),
      deleteNode: (r, c) => this.#guard(c, () => this.#deleteNode(r)),
      // The types of the provider's Region (DescribeInstanceTypes lists "all instance types for the current Region"),
      // each with the zones that offer it (DescribeInstanceTypeOfferings by availability-zone): a GPU type is often
      // offered in some zones only, and RunInstances in another fails with Unsupported. The Region itself is listed
      // too, for pools that name no zone. Both calls are paged (NextToken).
      serverTypes: (_r, c) =>
        this.#guard(c, async () => {
          const types = await this.#pages<DescribeInstanceTypesCommandOutput>(
            'DescribeInstanceTypes',
            (NextToken, sdk) => new sdk.DescribeInstanceTypesCommand({ MaxResults: 100, ...(NextToken ? { NextToken } : {}) }),
          );
          const offerings = await this.#pages<DescribeInstanceTypeOfferingsCommandOutput>(
            'DescribeInstanceTypeOfferings',
            (NextToken, sdk) =>
              new sdk.DescribeInstanceTypeOfferingsCommand({ LocationType: 'availability-zone', MaxResults: 1000, ...(NextToken ? { NextToken } : {}) }),
          );
          const zonesOf = new Map<string, string[]>();
          for (const o of offerings.flatMap((page) => page.InstanceTypeOfferings ?? [])) {
            if (!o.InstanceType || !o.Location) continue;
            zonesOf.set(o.InstanceType, [...(zonesOf.get(o.InstanceType) ?? []), o.Location]);
          }
          return done(
            types
              .flatMap((page) => page.InstanceTypes ?? [])
              .map((t) => {
                const zones = (zonesOf.get(t.InstanceType ?? '') ?? []).sort();
                return {
                  name: t.InstanceType ?? '',
                  vcpus: t.VCpuInfo?.DefaultVCpus ?? 0,
                  memoryGiB: (t.MemoryInfo?.SizeInMiB ?? 0) / 1024,
                  architecture: t.ProcessorInfo?.SupportedArchitectures?.includes('arm64') ? ('arm64' as const) : ('x86_64' as const),
                  // GpuInfo.Gpus: one entry per accelerator model, each with its count (DescribeInstanceTypes, GpuDeviceInfo).
                  ...((n) => (n > 0 ? { gpus: n } : {}))((t.GpuInfo?.Gpus ?? []).reduce((sum, g) => sum + (g.Count ?? 0), 0)),
                  availableIn: zones.length > 0 ? [this.#region, ...zones] : [],
                };
              }),
          );
        }),
      // DescribeRegions with AllRegions: the Regions enabled for the account, and those that exist but need opting in
      // (optInStatus not-opted-in), so that preflight can tell a Region that does not exist from one not enabled.
      regions: (c) =>
        this.#guard(c, async () => {
          const out = await this.#send<DescribeRegionsCommandOutput>(
            'describe',
            'DescribeRegions',
            (sdk) => new sdk.DescribeRegionsCommand({ AllRegions: true }),
          );
          return done((out.Regions ?? []).map((r) => ({ name: r.RegionName ?? '', enabled: r.OptInStatus !== 'not-opted-in' })));
        }),
      images: (_r, c) =>
        this.#guard(c, async () => {
          const out = await this.#send<DescribeImagesCommandOutput>(
            'describe',
            'DescribeImages',
            (sdk) => new sdk.DescribeImagesCommand({ Owners: ['099720109477'] }),
          );
          return done(
            (out.Images ?? []).map((i) => ({
              id: i.ImageId ?? '',
              name: i.Name ?? '',
              architecture: i.Architecture === 'arm64' ? ('arm64' as const) : ('x86_64' as const),
            })),
          );
        }),
      // DescribeImages by id: an AMI id names one image in one region, whoever owns it; InvalidAMIID.* means none.
      image: (_r, ref, c) =>
        this.#guard(c, async () => {
          if (!ref.startsWith('ami-')) return done(null);
          try {
            const out = await this.#send<DescribeImagesCommandOutput>(
              'describe',
              'DescribeImages',
              (sdk) => new sdk.DescribeImagesCommand({ ImageIds: [ref] }),
            );
            const i = out.Images?.[0];
            return done(
              i
                ? {
                    id: i.ImageId ?? ref,
                    name: i.Name ?? ref,
                    architecture: i.Architecture === 'arm64' ? ('arm64' as const) : ('x86_64' as const),
                    ...(i.DeprecationTime ? { deprecation: { announced: i.DeprecationTime } } : {}),
                  }
                : null,
            );
          } catch (e) {
            if (e instanceof KubeplaneError && /^InvalidAMIID\./.test(e.details.code ?? '')) return done(null);
            throw e;
          }
        }),
      zones: (_r, c) =>
        this.#guard(c, async () => {
          const out = await this.#send<DescribeAvailabilityZonesCommandOutput>(
            'describe',
            'DescribeAvailabilityZones',
            (sdk) => new sdk.DescribeAvailabilityZonesCommand({}),
          );
          return done((out.AvailabilityZones ?? []).map((z) => ({ name: z.ZoneName ?? '', region: z.RegionName ?? this.#region })));
        }),
    };
    this.network = {
      ensureNetwork: (r, c) => this.#guard(c, () => this.#ensureNetwork(r)),
      deleteNetwork: (r, c) => this.#guard(c, () => this.#deleteNetwork(r.clusterId, r.name)),
      ensureFirewall: (r, c) => this.#guard(c, () => this.#ensureFirewall(r)),
      deleteFirewall: (r, c) => this.#guard(c, () => this.#deleteFirewall(r)),
      ensureReservedIp: (r, c) => this.#guard(c, () => this.#ensureReservedIp(r)),
      attachReservedIp: (ip, node, c) => this.#guard(c, () => this.#attachReservedIp(ip, node)),
      deleteReservedIp: (r, c) => this.#guard(c, () => this.#deleteReservedIp(r)),
      ensureSshKey: (r, c) => this.#guard(c, () => this.#ensureSshKey(r)),
      deleteSshKey: (r, c) => this.#guard(c, () => this.#deleteSshKey(r)),
    };
  }

  toJSON(): Record<string, unknown> {
    return { provider: 'aws', region: this.#region, capabilities: this.capabilities };
  }

  listClusterResources(clusterId: string, _region: string, context?: CallContext): Promise<Outcome<TaggedResource[]>> {
    return this.#guard(context, async () => done(await this.#tagged(clusterId)));
  }

  teardownCluster(clusterId: string, _region: string, context?: CallContext): Promise<Outcome<void>> {
    return this.#guard(context, () => this.#teardown(clusterId));
  }

  #session: AssumedRoleCredentials | undefined;

  /** A function either way, so the SDK never holds the values in a printable config object. */
  #credentialsOf(options: AwsProviderOptions): () => Promise<AwsCredentialIdentity> {
    if (options.assumeRole) {
      this.#session = new AssumedRoleCredentials({
        role: options.assumeRole,
        region: options.region,
        clock: options.clock,
        ...(options.credentials ? { base: options.credentials } : {}),
        ...(options.ownEndpoints ? { ownEndpoints: true } : {}),
      });
      return this.#session.provider;
    }
    const keys = options.credentials;
    if (!keys) throw new KubeplaneError('auth', 'the AWS provider needs keys or a role to assume');
    return async () => ({
      accessKeyId: keys.accessKeyId.reveal(),
      secretAccessKey: keys.secretAccessKey.reveal(),
      ...(keys.sessionToken ? { sessionToken: keys.sessionToken.reveal() } : {}),
    });
  }

  /** Budget waits, throttles and transient failures become pending; terminal errors propagate. */
  #guard<T>(context: CallContext | undefined, call: () => Promise<Outcome<T>>): Promise<Outcome<T>> {
    // A stale cached id also drops the cached views of instances (they name the same resources).
    const ids = this.#ids;
    const view = this.#clusterView;
    const caches = {
      get size() {
        return ids.size;
      },
      clear: () => {
        ids.clear();
        view.clear();
      },
    };
    const renewing = this.#session ? renewingEndedSession(this.#session, call) : call;
    return guardedCall(
      () => forgettingStaleIds(renewing, caches, (e) => STALE_ID_CODES.test(e.details.code ?? ''), 'aws'),
      context?.attempt ?? 0,
      this.#random,
    );
  }

  #count(operation: string): void {
    this.sent.set(operation, (this.sent.get(operation) ?? 0) + 1);
  }

  /**
   * A teardown call another delivery of the same step may have made first (steps run at least once, sometimes side by
   * side): EC2's answer that it is already done is success, not a failure of the teardown.
   */
  async #alreadyDoneIs(codes: readonly string[], call: () => Promise<unknown>): Promise<void> {
    try {
      await call();
    } catch (error) {
      if (error instanceof KubeplaneError && codes.includes(String(error.details.code))) return;
      throw error;
    }
  }

  async #send<O>(bucket: Bucket, operation: string, command: (ec2: Ec2Module) => object, resource?: string, cost = 1): Promise<O> {
    const wait = await this.#budgets[bucket].take(1);
    if (wait > 0) throw new RateBudgetWait(`aws ${bucket}`, wait);
    if (bucket === 'run') {
      const launchWait = await this.#budgets.launches.take(cost);
      if (launchWait > 0) throw new RateBudgetWait('aws instance-launches', launchWait);
    }
    this.#count(operation);
    try {
      const [client, module] = await Promise.all([this.#ec2(), loadEc2()]);
      return (await client.send(command(module) as never)) as O;
    } catch (error) {
      const k = toKubeplaneError(error, 'ec2', operation, resource);
      if (k.kind === 'throttled') await this.#budgets[bucket].observeRemaining(0);
      throw k;
    }
  }

  /** Every page of a paged Describe call, following NextToken. */
  async #pages<O extends { NextToken?: string | undefined }>(operation: string, command: (token: string | undefined, ec2: Ec2Module) => object): Promise<O[]> {
    const out: O[] = [];
    let token: string | undefined;
    do {
      const page = await this.#send<O>('describe', operation, (m) => command(token, m));
      out.push(page);
      token = page.NextToken;
    } while (token);
    return out;
  }

  #tagSpecs(types: ResourceType[], clusterId: string, name: string, extra: Record<string, string> = {}): TagSpecification[] {
    const tags: Tag[] = Object.entries({ ...extra, Name: name, [NAME_TAG]: name, [CLUSTER_ID_TAG]: clusterId }).map(([Key, Value]) => ({ Key, Value }));
    return types.map((ResourceType) => ({ ResourceType, Tags: tags }));
  }

  #byName(clusterId: string, name: string): Filter[] {
    return [
      { Name: `tag:${CLUSTER_ID_TAG}`, Values: [clusterId] },
      { Name: `tag:${NAME_TAG}`, Values: [name] },
    ];
  }

  #nodeInfo(i: Instance): NodeInfo {
    const stateName = i.State?.Name ?? 'unknown';
    const state: NodeState =
      stateName === 'pending'
        ? 'pending'
        : stateName === 'running'
          ? 'running'
          : stateName === 'shutting-down'
            ? 'deleting'
            : stateName === 'terminated'
              ? 'deleted'
              : stateName === 'stopping'
                ? 'stopping'
                : stateName === 'stopped'
                  ? 'stopped'
                  : 'unknown';
    const zone = i.Placement?.AvailabilityZone ?? '';
    const labels = tagMap(i.Tags);
    return {
      name: labels[NAME_TAG] ?? i.InstanceId ?? '',
      id: i.InstanceId ?? '',
      providerId: `aws:///${zone}/${i.InstanceId ?? ''}`,
      clusterId: labels[CLUSTER_ID_TAG] ?? '',
      nodepool: labels[NODEPOOL_TAG] ?? '',
      state,
      region: this.#region,
      zone,
      serverType: i.InstanceType ?? '',
      ...(i.PublicIpAddress ? { publicIPv4: i.PublicIpAddress } : {}),
      ...(i.PrivateIpAddress ? { privateIPv4: i.PrivateIpAddress } : {}),
      labels,
      ...(i.LaunchTime ? { createdAt: new Date(i.LaunchTime).toISOString() } : {}),
    };
  }

  async #describe(filters: Filter[]): Promise<Instance[]> {
    const out: Instance[] = [];
    let token: string | undefined;
    do {
      const page = await this.#send<{ Reservations?: Array<{ Instances?: Instance[] }>; NextToken?: string }>(
        'describe',
        'DescribeInstances',
        (sdk) => new sdk.DescribeInstancesCommand({ Filters: filters, MaxResults: 1000, ...(token ? { NextToken: token } : {}) }),
      );
      for (const r of page.Reservations ?? []) out.push(...(r.Instances ?? []));
      token = page.NextToken;
    } while (token);
    return out;
  }

  async #describeCluster(clusterId: string, nodepool?: string): Promise<Instance[]> {
    const filters: Filter[] = [
      { Name: `tag:${CLUSTER_ID_TAG}`, Values: [clusterId] },
      { Name: 'instance-state-name', Values: LIVE_STATES },
    ];
    if (nodepool) filters.push({ Name: `tag:${NODEPOOL_TAG}`, Values: [nodepool] });
    const instances = await this.#describe(filters);
    if (!nodepool) this.#clusterView.set(clusterId, { at: this.#clock.now(), instances });
    return instances;
  }

  /** Instances of the cluster carrying this name, from a cluster view at most 10 s old. */
  async #instancesNamed(clusterId: string, name: string, fresh = false): Promise<Instance[]> {
    const view = this.#clusterView.get(clusterId);
    if (fresh || !view || this.#clock.now() - view.at > 10_000) {
      // Single flight: concurrent creates for one cluster share one Describe.
      let refresh = this.#viewRefresh.get(clusterId);
      if (!refresh) {
        refresh = this.#describe([{ Name: `tag:${CLUSTER_ID_TAG}`, Values: [clusterId] }]).finally(() => this.#viewRefresh.delete(clusterId));
        this.#viewRefresh.set(clusterId, refresh);
      }
      const all = await refresh;
      this.#clusterView.set(clusterId, { at: this.#clock.now(), instances: all });
      return all.filter((i) => tagValue(i.Tags, NAME_TAG) === name);
    }
    return view.instances.filter((i) => tagValue(i.Tags, NAME_TAG) === name);
  }

  async #idByTag(kind: 'vpc' | 'subnet' | 'sg', clusterId: string, name: string): Promise<string> {
    const cacheKey = `${kind}/${clusterId}/${name}`;
    const cached = this.#ids.get(cacheKey);
    if (cached) return cached;
    let id: string | undefined;
    if (kind === 'vpc') id = (await this.#vpcsByName(clusterId, name))[0];
    if (kind === 'subnet')
      id = (
        await this.#send<{ Subnets?: Array<{ SubnetId?: string }> }>(
          'describe',
          'DescribeSubnets',
          (sdk) => new sdk.DescribeSubnetsCommand({ Filters: this.#byName(clusterId, name) }),
        )
      ).Subnets?.[0]?.SubnetId;
    if (kind === 'sg')
      id = (
        await this.#send<{ SecurityGroups?: SecurityGroup[] }>(
          'describe',
          'DescribeSecurityGroups',
          (sdk) => new sdk.DescribeSecurityGroupsCommand({ Filters: this.#byName(clusterId, name) }),
        )
      ).SecurityGroups?.[0]?.GroupId;
    if (!id)
      throw new KubeplaneError('not-found', `aws ${kind} ${name} of cluster ${clusterId} does not exist; ensure it before the nodes that use it`, {
        provider: 'aws',
        code: 'NotFound',
        resource: name,
      });
    this.#ids.set(cacheKey, id);
    return id;
  }

  async #subnetFor(request: NodeRequest): Promise<string | undefined> {
    if (!request.networkName) return undefined;
    const pick = (subnets: Array<{ id: string; zone: string }>) => subnets.find((s) => !request.zone || s.zone === request.zone) ?? subnets[0];
    let match = pick(await this.#networkSubnets(request.clusterId, request.networkName));
    if (!match || (request.zone && match.zone !== request.zone)) {
      // What this process remembers of the network may be another life's: another worker (a warm Lambda container
      // beside this one) deleted and re-created the VPC, or added the subnet of a new zone, since this one looked.
      this.#ids.delete(`vpc/${request.clusterId}/${request.networkName}`);
      this.#ids.delete(`subnets/${request.clusterId}/${request.networkName}`);
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
    const cached = this.#ids.get(cacheKey);
    if (cached) return JSON.parse(cached) as Array<{ id: string; zone: string; cidr: string }>;
    const vpcId = await this.#idByTag('vpc', clusterId, networkName);
    const out = await this.#send<{ Subnets?: Array<{ SubnetId?: string; AvailabilityZone?: string; CidrBlock?: string }> }>(
      'describe',
      'DescribeSubnets',
      (sdk) => new sdk.DescribeSubnetsCommand({ Filters: [{ Name: 'vpc-id', Values: [vpcId] }] }),
    );
    const subnets = (out.Subnets ?? []).map((s) => ({ id: s.SubnetId ?? '', zone: s.AvailabilityZone ?? '', cidr: s.CidrBlock ?? '' }));
    if (subnets.length > 0) this.#ids.set(cacheKey, JSON.stringify(subnets));
    return subnets;
  }

  /**
   * The creation's token from the engine's ledger when it gives one; otherwise one per generation (terminated
   * instances still listed), which breaks once they leave DescribeInstances (about an hour) while EC2 still
   * remembers the token (IdempotentParameterMismatch when the node is created again).
   */
  #clientToken(request: NodeRequest, generation: number): string {
    const basis =
      request.idempotencyToken !== undefined
        ? `${request.clusterId}/${request.name}/token/${request.idempotencyToken}`
        : `${request.clusterId}/${request.name}/${generation}`;
    return createHash('sha256').update(basis).digest('hex').slice(0, 48);
  }

  async #createNode(request: NodeRequest): Promise<Outcome<NodeInfo>> {
    const bytes = Buffer.byteLength(request.userData);
    if (bytes > USER_DATA_LIMIT) {
      throw new KubeplaneError(
        'invalid',
        `node ${request.name}: user data is ${bytes} bytes; EC2 accepts at most 16 KB before base64 (compress it or move files to a download)`,
        { provider: 'aws', code: 'UserDataTooLarge', resource: request.name },
      );
    }
    // RunInstances' bucket (2/s) is the narrow one: wait for it before spending a Describe on the lookup.
    const runAvailable = await this.#budgets.run.available();
    if (runAvailable < 1) throw new RateBudgetWait('aws run', (1 - runAvailable) / this.#budgets.run.limits.refillPerSecond);
    const named = await this.#instancesNamed(request.clusterId, request.name);
    const live = named.find((i) => LIVE_STATES.includes(i.State?.Name ?? '') && i.State?.Name !== 'shutting-down');
    if (live) {
      this.#launched.set(`${request.clusterId}/${request.name}`, live.InstanceId ?? '');
      return done(this.#nodeInfo(live));
    }
    // The token is the same for every retry of one creation, so a retry after a lost response or a duplicate delivery
    // returns the same instance; a node created again gets a new one (see #clientToken).
    const generation = named.filter((i) => i.State?.Name === 'terminated' || i.State?.Name === 'shutting-down').length;
    const subnetId = await this.#subnetFor(request);
    const groupIds = await Promise.all((request.firewallNames ?? []).map((f) => this.#idByTag('sg', request.clusterId, f)));
    const extra = { ...(request.labels ?? {}), [NODEPOOL_TAG]: request.nodepool };
    const token = this.#clientToken(request, generation);
    let out: { Instances?: Instance[] };
    try {
      out = await this.#send<{ Instances?: Instance[] }>(
        'run',
        'RunInstances',
        (sdk) =>
          new sdk.RunInstancesCommand({
            MinCount: 1,
            MaxCount: 1,
            ClientToken: token,
            ImageId: request.image,
            InstanceType: request.serverType as never,
            UserData: Buffer.from(request.userData).toString('base64'),
            // IMDSv2 only, and a hop limit of 1 so that pods (one hop further, behind the node's network namespace)
            // cannot fetch a token: control-plane user-data holds the cluster's CA keys (docs/bootstrap.md).
            MetadataOptions: INSTANCE_METADATA_OPTIONS,
            ...(subnetId ? { SubnetId: subnetId } : {}),
            ...(groupIds.length ? { SecurityGroupIds: groupIds } : {}),
            ...(request.sshKeyName ? { KeyName: request.sshKeyName } : {}),
            ...(request.zone && !subnetId ? { Placement: { AvailabilityZone: request.zone } } : {}),
            // The interface too: a policy that confines a session to its cluster can then require the tag on everything made.
            TagSpecifications: this.#tagSpecs(['instance', 'volume', 'network-interface'], request.clusterId, request.name, extra),
          }),
        request.name,
      );
    } catch (error) {
      // The token launched this node before, from a request with other parameters (user-data rendered again
      // after a lost response). That instance is this node: adopt it rather than fail or launch a second one.
      if (!(error instanceof KubeplaneError && error.details.code === 'IdempotentParameterMismatch')) throw error;
      const earlier = await this.#send<{ Reservations?: Array<{ Instances?: Instance[] }> }>(
        'describe',
        'DescribeInstances',
        (sdk) => new sdk.DescribeInstancesCommand({ Filters: [{ Name: 'client-token', Values: [token] }] }),
        request.name,
      );
      const adopted = (earlier.Reservations ?? [])
        .flatMap((r) => r.Instances ?? [])
        .find((i) => LIVE_STATES.includes(i.State?.Name ?? '') && i.State?.Name !== 'shutting-down');
      if (!adopted) return pending('dependency', 2, `node ${request.name}: the instance an earlier attempt launched is not visible yet`);
      this.#launched.set(`${request.clusterId}/${request.name}`, adopted.InstanceId ?? '');
      return done(this.#nodeInfo(adopted));
    }
    const instance = out.Instances?.[0];
    if (!instance?.InstanceId)
      throw new KubeplaneError('retryable', `aws RunInstances for ${request.name} returned no instance`, {
        provider: 'aws',
        code: 'EmptyResponse',
        resource: request.name,
      });
    if (instance.State?.Name === 'terminated' || instance.State?.Name === 'shutting-down') {
      // Our view was stale: that generation is gone. Look again, then launch the next one.
      await this.#instancesNamed(request.clusterId, request.name, true);
      return pending('dependency', 1, `node ${request.name}: a previous instance is terminated; launching its replacement`);
    }
    this.#launched.set(`${request.clusterId}/${request.name}`, instance.InstanceId);
    return done(this.#nodeInfo(instance));
  }

  async #getNode(ref: NodeRef): Promise<Outcome<NodeInfo | null>> {
    const found = (await this.#describe([...this.#byName(ref.clusterId, ref.name), { Name: 'instance-state-name', Values: LIVE_STATES }]))[0];
    if (found) return done(this.#nodeInfo(found));
    const launched = this.#launched.get(`${ref.clusterId}/${ref.name}`);
    if (!launched) return done(null);
    try {
      const byId = await this.#send<{ Reservations?: Array<{ Instances?: Instance[] }> }>(
        'describe',
        'DescribeInstances',
        (sdk) => new sdk.DescribeInstancesCommand({ InstanceIds: [launched] }),
        ref.name,
      );
      const instance = byId.Reservations?.[0]?.Instances?.[0];
      return done(instance && instance.State?.Name !== 'terminated' ? this.#nodeInfo(instance) : null);
    } catch (error) {
      // Launched by us but not visible yet: EC2's eventual consistency, not a missing node.
      if (error instanceof KubeplaneError && error.details.code === 'InvalidInstanceID.NotFound')
        return pending('dependency', 2, `instance ${launched} (${ref.name}) is not visible yet`);
      throw error;
    }
  }

  async #deleteNode(ref: NodeRef): Promise<Outcome<void>> {
    const key = `${ref.clusterId}/${ref.name}`;
    const found = await this.#describe([
      ...this.#byName(ref.clusterId, ref.name),
      { Name: 'instance-state-name', Values: ['pending', 'running', 'stopping', 'stopped'] },
    ]);
    const ids = new Set(found.map((i) => i.InstanceId ?? ''));
    const launched = this.#launched.get(key);
    if (launched) ids.add(launched);
    if (ids.size === 0) return done(undefined);
    try {
      await this.#send('terminate', 'TerminateInstances', (sdk) => new sdk.TerminateInstancesCommand({ InstanceIds: [...ids] }), ref.name);
    } catch (error) {
      if (error instanceof KubeplaneError && error.details.code === 'InvalidInstanceID.NotFound') {
        if (found.length === 0 && launched) return pending('dependency', 2, `instance ${launched} (${ref.name}) is not visible yet; terminating it once it is`);
        throw error;
      }
      throw error;
    }
    this.#launched.delete(key);
    this.#clusterView.delete(ref.clusterId);
    return done(undefined);
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
        await this.#send<{ Vpcs?: Array<{ VpcId?: string; Tags?: Tag[] }> }>(
          'describe',
          'DescribeVpcs',
          (sdk) => new sdk.DescribeVpcsCommand({ Filters: this.#byName(clusterId, name) }),
        )
      ).Vpcs ?? [];
    const created = (v: { Tags?: Tag[] }) => Number(tagValue(v.Tags, CREATED_TAG) ?? 0) || 0;
    return vpcs
      .sort((a, b) => created(a) - created(b) || (a.VpcId ?? '').localeCompare(b.VpcId ?? ''))
      .map((v) => v.VpcId ?? '')
      .filter((id) => id !== '');
  }

  async #ensureNetwork(request: NetworkRequest): Promise<Outcome<NetworkInfo>> {
    const { clusterId, name } = request;
    let vpcs = await this.#vpcsByName(clusterId, name);
    if (vpcs.length === 0) {
      const tags = this.#tagSpecs(['vpc'], clusterId, name, { ...request.labels, [CREATED_TAG]: String(this.#clock.now()) });
      const created = await this.#send<{ Vpc?: { VpcId?: string } }>(
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
    for (const duplicate of extra) await this.#deleteVpc(duplicate, name, true);
    this.#ids.set(`vpc/${clusterId}/${name}`, vpcId);
    // Internet gateway, attached, and the default route in the VPC's main route table.
    const igws = await this.#send<{ InternetGateways?: Array<{ InternetGatewayId?: string; Attachments?: Array<{ VpcId?: string }> }> }>(
      'describe',
      'DescribeInternetGateways',
      (sdk) => new sdk.DescribeInternetGatewaysCommand({ Filters: this.#byName(clusterId, `${name}-igw`) }),
    );
    // The gateway attached to this VPC, else a free one of the name; one that overlapping invocations made twice is
    // left to teardown (a VPC takes one gateway).
    let igw =
      igws.InternetGateways?.find((g) => (g.Attachments ?? []).some((a) => a.VpcId === vpcId)) ??
      igws.InternetGateways?.find((g) => (g.Attachments ?? []).length === 0);
    if (!igw) {
      const created = await this.#send<{ InternetGateway?: { InternetGatewayId?: string } }>(
        'mutating',
        'CreateInternetGateway',
        (sdk) => new sdk.CreateInternetGatewayCommand({ TagSpecifications: this.#tagSpecs(['internet-gateway'], clusterId, `${name}-igw`, request.labels) }),
        name,
      );
      igw = { InternetGatewayId: created.InternetGateway?.InternetGatewayId ?? '', Attachments: [] };
    }
    const igwId = igw.InternetGatewayId ?? '';
    if (!(igw.Attachments ?? []).some((a) => a.VpcId === vpcId)) {
      try {
        await this.#send('mutating', 'AttachInternetGateway', (sdk) => new sdk.AttachInternetGatewayCommand({ InternetGatewayId: igwId, VpcId: vpcId }), name);
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
        await this.#alreadyDoneIs(GATEWAY_GONE, () =>
          this.#send(
            'mutating',
            'DeleteInternetGateway',
            (sdk) => new sdk.DeleteInternetGatewayCommand({ InternetGatewayId: spare.InternetGatewayId ?? '' }),
            name,
          ),
        );
      }
    }
    const tables = await this.#send<{ RouteTables?: Array<{ RouteTableId?: string; Routes?: Array<{ DestinationCidrBlock?: string; GatewayId?: string }> }> }>(
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
        await this.#send(
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
    const existing = await this.#send<{ Subnets?: Array<{ SubnetId?: string; CidrBlock?: string; AvailabilityZone?: string }> }>(
      'describe',
      'DescribeSubnets',
      (sdk) => new sdk.DescribeSubnetsCommand({ Filters: [{ Name: 'vpc-id', Values: [vpcId] }] }),
    );
    const subnets = (existing.Subnets ?? []).map((s) => ({ id: s.SubnetId ?? '', cidr: s.CidrBlock ?? '', zone: s.AvailabilityZone ?? '' }));
    for (const [index, s] of request.subnets.entries()) {
      if (subnets.some((x) => x.cidr === s.cidr)) continue;
      const zone = s.zone ?? `${this.#region}a`;
      let created: { Subnet?: { SubnetId?: string } };
      try {
        created = await this.#send<{ Subnet?: { SubnetId?: string } }>(
          'mutating',
          'CreateSubnet',
          (sdk) =>
            new sdk.CreateSubnetCommand({
              VpcId: vpcId,
              CidrBlock: s.cidr,
              AvailabilityZone: zone,
              TagSpecifications: this.#tagSpecs(['subnet'], clusterId, `${name}-${index}`, request.labels),
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
    this.#ids.set(`subnets/${clusterId}/${name}`, JSON.stringify(subnets));
    return done({ name, id: vpcId, clusterId, cidr: request.cidr, subnets });
  }

  async #deleteNetwork(clusterId: string, name: string): Promise<Outcome<void>> {
    const vpcs = await this.#send<{ Vpcs?: Array<{ VpcId?: string }> }>(
      'describe',
      'DescribeVpcs',
      (sdk) => new sdk.DescribeVpcsCommand({ Filters: this.#byName(clusterId, name) }),
    );
    for (const vpc of vpcs.Vpcs ?? []) {
      const outcome = await this.#deleteVpc(vpc.VpcId ?? '', name);
      if (outcome.status === 'pending') return outcome;
    }
    this.#ids.delete(`vpc/${clusterId}/${name}`);
    this.#ids.delete(`subnets/${clusterId}/${name}`);
    return done(undefined);
  }

  /** Deletes a VPC with its subnets and gateway, and (`withGroups`: a duplicate's) its security groups. */
  async #deleteVpc(vpcId: string, name: string, withGroups = false): Promise<Outcome<void>> {
    const dependency = (error: unknown): Outcome<void> => {
      if (error instanceof KubeplaneError && error.details.code === 'DependencyViolation')
        return pending('dependency', 10, `network ${name} still has dependents (instances shutting down?)`);
      if (error instanceof KubeplaneError && error.kind === 'not-found') return done(undefined);
      throw error;
    };
    if (withGroups) {
      const groups = await this.#send<{ SecurityGroups?: SecurityGroup[] }>(
        'describe',
        'DescribeSecurityGroups',
        (sdk) => new sdk.DescribeSecurityGroupsCommand({ Filters: [{ Name: 'vpc-id', Values: [vpcId] }] }),
      );
      for (const g of groups.SecurityGroups ?? []) {
        if (g.GroupName === 'default') continue;
        try {
          await this.#send('mutating', 'DeleteSecurityGroup', (sdk) => new sdk.DeleteSecurityGroupCommand({ GroupId: g.GroupId ?? '' }), name);
        } catch (error) {
          const o = dependency(error);
          if (o.status === 'pending') return o;
        }
      }
    }
    const subnets = await this.#send<{ Subnets?: Array<{ SubnetId?: string }> }>(
      'describe',
      'DescribeSubnets',
      (sdk) => new sdk.DescribeSubnetsCommand({ Filters: [{ Name: 'vpc-id', Values: [vpcId] }] }),
    );
    for (const s of subnets.Subnets ?? []) {
      try {
        await this.#send('mutating', 'DeleteSubnet', (sdk) => new sdk.DeleteSubnetCommand({ SubnetId: s.SubnetId ?? '' }), name);
      } catch (error) {
        const o = dependency(error);
        if (o.status === 'pending') return o;
      }
    }
    const igws = await this.#send<{ InternetGateways?: Array<{ InternetGatewayId?: string }> }>(
      'describe',
      'DescribeInternetGateways',
      (sdk) => new sdk.DescribeInternetGatewaysCommand({ Filters: [{ Name: 'attachment.vpc-id', Values: [vpcId] }] }),
    );
    for (const g of igws.InternetGateways ?? []) {
      await this.#alreadyDoneIs(GATEWAY_DETACHED, () =>
        this.#send(
          'mutating',
          'DetachInternetGateway',
          (sdk) => new sdk.DetachInternetGatewayCommand({ InternetGatewayId: g.InternetGatewayId ?? '', VpcId: vpcId }),
          name,
        ),
      );
      await this.#alreadyDoneIs(GATEWAY_GONE, () =>
        this.#send('mutating', 'DeleteInternetGateway', (sdk) => new sdk.DeleteInternetGatewayCommand({ InternetGatewayId: g.InternetGatewayId ?? '' }), name),
      );
    }
    try {
      await this.#send('mutating', 'DeleteVpc', (sdk) => new sdk.DeleteVpcCommand({ VpcId: vpcId }), name);
    } catch (error) {
      return dependency(error);
    }
    return done(undefined);
  }

  /** Firewall rules as atoms (protocol, from, to, source), the unit EC2 authorizes and revokes. */
  #atoms(rules: FirewallRule[], selfGroupId: string): Map<string, IpPermission> {
    const atoms = new Map<string, IpPermission>();
    for (const r of rules) {
      const protocol = r.protocol;
      const [from, to] = r.port === undefined ? [-1, -1] : typeof r.port === 'number' ? [r.port, r.port] : [r.port[0], r.port[1]];
      for (const cidr of r.sourceCidrs)
        atoms.set(`${protocol}|${from}|${to}|${cidr}`, {
          IpProtocol: protocol,
          FromPort: from,
          ToPort: to,
          IpRanges: [{ CidrIp: cidr, ...(r.description ? { Description: r.description } : {}) }],
        });
      if (r.fromClusterNodes)
        atoms.set(`${protocol}|${from}|${to}|${selfGroupId}`, {
          IpProtocol: protocol,
          FromPort: from,
          ToPort: to,
          UserIdGroupPairs: [{ GroupId: selfGroupId }],
        });
    }
    return atoms;
  }

  #currentAtoms(group: SecurityGroup): Map<string, IpPermission> {
    const atoms = new Map<string, IpPermission>();
    for (const p of group.IpPermissions ?? []) {
      const protocol = p.IpProtocol ?? '-1';
      const from = p.FromPort ?? -1;
      const to = p.ToPort ?? -1;
      for (const range of p.IpRanges ?? [])
        atoms.set(`${protocol}|${from}|${to}|${range.CidrIp ?? ''}`, {
          IpProtocol: protocol,
          FromPort: from,
          ToPort: to,
          IpRanges: [{ CidrIp: range.CidrIp ?? '' }],
        });
      for (const pair of p.UserIdGroupPairs ?? [])
        atoms.set(`${protocol}|${from}|${to}|${pair.GroupId ?? ''}`, {
          IpProtocol: protocol,
          FromPort: from,
          ToPort: to,
          UserIdGroupPairs: [{ GroupId: pair.GroupId ?? '' }],
        });
    }
    return atoms;
  }

  #rulesFromAtoms(atoms: Map<string, IpPermission>, selfGroupId: string): FirewallRule[] {
    const byPort = new Map<string, FirewallRule>();
    for (const a of atoms.values()) {
      const key = `${a.IpProtocol}|${a.FromPort}|${a.ToPort}`;
      let rule = byPort.get(key);
      if (!rule) {
        const from = a.FromPort ?? -1;
        const to = a.ToPort ?? -1;
        rule = {
          protocol: (a.IpProtocol ?? 'tcp') as FirewallRule['protocol'],
          ...(from >= 0 ? { port: from === to ? from : ([from, to] as const) } : {}),
          sourceCidrs: [],
        };
        byPort.set(key, rule);
      }
      for (const r of a.IpRanges ?? []) rule.sourceCidrs.push(r.CidrIp ?? '');
      if ((a.UserIdGroupPairs ?? []).some((p) => p.GroupId === selfGroupId)) rule.fromClusterNodes = true;
    }
    return [...byPort.values()];
  }

  async #ensureFirewall(request: FirewallRequest): Promise<Outcome<FirewallInfo>> {
    if (!request.networkName)
      throw new KubeplaneError('invalid', `firewall ${request.name}: AWS security groups belong to a VPC; set networkName`, {
        provider: 'aws',
        code: 'MissingNetwork',
        resource: request.name,
      });
    const vpcId = await this.#idByTag('vpc', request.clusterId, request.networkName);
    const describe = async () =>
      (
        await this.#send<{ SecurityGroups?: SecurityGroup[] }>(
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
        const created = await this.#send<{ GroupId?: string }>(
          'mutating',
          'CreateSecurityGroup',
          (sdk) =>
            new sdk.CreateSecurityGroupCommand({
              GroupName: request.name,
              Description: `kubeplane ${request.clusterId} ${request.name}`,
              VpcId: vpcId,
              TagSpecifications: this.#tagSpecs(['security-group'], request.clusterId, request.name, request.labels),
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
    this.#ids.set(`sg/${request.clusterId}/${request.name}`, groupId);
    const wanted = this.#atoms(request.rules, groupId);
    const current = this.#currentAtoms(group);
    const revoke = [...current.entries()].filter(([k]) => !wanted.has(k)).map(([, v]) => v);
    const authorize = [...wanted.entries()].filter(([k]) => !current.has(k)).map(([, v]) => v);
    if (revoke.length > 0)
      await this.#send(
        'mutating',
        'RevokeSecurityGroupIngress',
        (sdk) => new sdk.RevokeSecurityGroupIngressCommand({ GroupId: groupId, IpPermissions: revoke }),
        request.name,
      );
    if (authorize.length > 0) {
      try {
        await this.#send(
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
    return done({ name: request.name, id: groupId, clusterId: request.clusterId, rules: this.#rulesFromAtoms(wanted, groupId) });
  }

  async #deleteFirewall(ref: ScopedRef): Promise<Outcome<void>> {
    const groups = await this.#send<{ SecurityGroups?: SecurityGroup[] }>(
      'describe',
      'DescribeSecurityGroups',
      (sdk) => new sdk.DescribeSecurityGroupsCommand({ Filters: this.#byName(ref.clusterId, ref.name) }),
    );
    for (const g of groups.SecurityGroups ?? []) {
      const outcome = await this.#deleteGroup(g.GroupId ?? '', ref.name);
      if (outcome.status === 'pending') return outcome;
    }
    this.#ids.delete(`sg/${ref.clusterId}/${ref.name}`);
    return done(undefined);
  }

  async #deleteGroup(groupId: string, name: string): Promise<Outcome<void>> {
    try {
      await this.#send('mutating', 'DeleteSecurityGroup', (sdk) => new sdk.DeleteSecurityGroupCommand({ GroupId: groupId }), name);
      return done(undefined);
    } catch (error) {
      if (error instanceof KubeplaneError && error.details.code === 'DependencyViolation')
        return pending('dependency', 10, `security group ${name} is still used by instances that are shutting down`);
      if (error instanceof KubeplaneError && error.kind === 'not-found') return done(undefined);
      throw error;
    }
  }

  async #addresses(filters: Filter[]): Promise<Array<{ AllocationId?: string; PublicIp?: string; InstanceId?: string; AssociationId?: string; Tags?: Tag[] }>> {
    return (
      (
        await this.#send<{ Addresses?: Array<{ AllocationId?: string; PublicIp?: string; InstanceId?: string; AssociationId?: string; Tags?: Tag[] }> }>(
          'describe',
          'DescribeAddresses',
          (sdk) => new sdk.DescribeAddressesCommand({ Filters: filters }),
        )
      ).Addresses ?? []
    );
  }

  async #ensureReservedIp(request: ReservedIpRequest): Promise<Outcome<ReservedIpInfo>> {
    const found = (await this.#addresses(this.#byName(request.clusterId, request.name))).sort((a, b) =>
      (a.AllocationId ?? '').localeCompare(b.AllocationId ?? ''),
    );
    const [keep, ...duplicates] = found;
    // AllocateAddress has no client token: a lost response can leave a second address. Keep the oldest.
    for (const d of duplicates)
      if (!d.AssociationId)
        await this.#send('mutating', 'ReleaseAddress', (sdk) => new sdk.ReleaseAddressCommand({ AllocationId: d.AllocationId ?? '' }), request.name);
    if (keep)
      return done({
        name: request.name,
        id: keep.AllocationId ?? '',
        clusterId: request.clusterId,
        ip: keep.PublicIp ?? '',
        ...(keep.InstanceId ? { attachedTo: keep.InstanceId } : {}),
      });
    const created = await this.#send<{ AllocationId?: string; PublicIp?: string }>(
      'mutating',
      'AllocateAddress',
      (sdk) =>
        new sdk.AllocateAddressCommand({ Domain: 'vpc', TagSpecifications: this.#tagSpecs(['elastic-ip'], request.clusterId, request.name, request.labels) }),
      request.name,
    );
    return done({ name: request.name, id: created.AllocationId ?? '', clusterId: request.clusterId, ip: created.PublicIp ?? '' });
  }

  async #attachReservedIp(ip: ScopedRef, node: NodeRef): Promise<Outcome<ReservedIpInfo>> {
    const [address] = await this.#addresses(this.#byName(ip.clusterId, ip.name));
    if (!address)
      throw new KubeplaneError('not-found', `elastic IP ${ip.name} does not exist; ensure it first`, { provider: 'aws', code: 'NotFound', resource: ip.name });
    const instance = (await this.#describe([...this.#byName(node.clusterId, node.name), { Name: 'instance-state-name', Values: LIVE_STATES }]))[0];
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
      await this.#send(
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

  async #releaseAll(addresses: Array<{ AllocationId?: string; AssociationId?: string }>, name: string): Promise<Outcome<void>> {
    for (const a of addresses) {
      if (a.AssociationId)
        await this.#send('mutating', 'DisassociateAddress', (sdk) => new sdk.DisassociateAddressCommand({ AssociationId: a.AssociationId }), name);
      try {
        await this.#send('mutating', 'ReleaseAddress', (sdk) => new sdk.ReleaseAddressCommand({ AllocationId: a.AllocationId ?? '' }), name);
      } catch (error) {
        if (!(error instanceof KubeplaneError && error.kind === 'not-found')) throw error;
      }
    }
    return done(undefined);
  }

  async #deleteReservedIp(ref: ScopedRef): Promise<Outcome<void>> {
    return this.#releaseAll(await this.#addresses(this.#byName(ref.clusterId, ref.name)), ref.name);
  }

  async #ensureSshKey(request: SshKeyRequest): Promise<Outcome<SshKeyInfo>> {
    const find = async () =>
      (
        await this.#send<{ KeyPairs?: Array<{ KeyPairId?: string; KeyName?: string; KeyFingerprint?: string; Tags?: Tag[] }> }>(
          'describe',
          'DescribeKeyPairs',
          (sdk) => new sdk.DescribeKeyPairsCommand({ Filters: [{ Name: 'key-name', Values: [request.name] }] }),
        )
      ).KeyPairs?.[0];
    let key = await find();
    if (!key) {
      try {
        const created = await this.#send<{ KeyPairId?: string; KeyName?: string; KeyFingerprint?: string }>(
          'mutating',
          'ImportKeyPair',
          (sdk) =>
            new sdk.ImportKeyPairCommand({
              KeyName: request.name,
              PublicKeyMaterial: new TextEncoder().encode(request.publicKey),
              TagSpecifications: this.#tagSpecs(['key-pair'], request.clusterId, request.name, request.labels),
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

  async #deleteSshKey(ref: ScopedRef): Promise<Outcome<void>> {
    const keys =
      (
        await this.#send<{ KeyPairs?: Array<{ KeyPairId?: string; Tags?: Tag[] }> }>(
          'describe',
          'DescribeKeyPairs',
          (sdk) => new sdk.DescribeKeyPairsCommand({ Filters: this.#byName(ref.clusterId, ref.name) }),
        )
      ).KeyPairs ?? [];
    for (const k of keys) await this.#send('mutating', 'DeleteKeyPair', (sdk) => new sdk.DeleteKeyPairCommand({ KeyPairId: k.KeyPairId ?? '' }), ref.name);
    return done(undefined);
  }

  async #tagged(clusterId: string): Promise<TaggedResource[]> {
    const filters: Filter[] = [{ Name: `tag:${CLUSTER_ID_TAG}`, Values: [clusterId] }];
    const out: TaggedResource[] = [];
    const nameOf = (tags: Tag[] | undefined) => tagValue(tags, NAME_TAG);
    for (const i of await this.#describe([...filters, { Name: 'instance-state-name', Values: LIVE_STATES }]))
      out.push({ kind: 'node', id: i.InstanceId ?? '', ...(nameOf(i.Tags) ? { name: nameOf(i.Tags) ?? '' } : {}) });
    for (const a of await this.#addresses(filters))
      out.push({ kind: 'reserved-ip', id: a.AllocationId ?? '', ...(nameOf(a.Tags) ? { name: nameOf(a.Tags) ?? '' } : {}) });
    for (const g of (
      await this.#send<{ SecurityGroups?: SecurityGroup[] }>(
        'describe',
        'DescribeSecurityGroups',
        (sdk) => new sdk.DescribeSecurityGroupsCommand({ Filters: filters }),
      )
    ).SecurityGroups ?? [])
      out.push({ kind: 'firewall', id: g.GroupId ?? '', ...(nameOf(g.Tags) ? { name: nameOf(g.Tags) ?? '' } : {}) });
    for (const k of (
      await this.#send<{ KeyPairs?: Array<{ KeyPairId?: string; Tags?: Tag[] }> }>(
        'describe',
        'DescribeKeyPairs',
        (sdk) => new sdk.DescribeKeyPairsCommand({ Filters: filters }),
      )
    ).KeyPairs ?? [])
      out.push({ kind: 'ssh-key', id: k.KeyPairId ?? '', ...(nameOf(k.Tags) ? { name: nameOf(k.Tags) ?? '' } : {}) });
    for (const s of (
      await this.#send<{ Subnets?: Array<{ SubnetId?: string; Tags?: Tag[] }> }>(
        'describe',
        'DescribeSubnets',
        (sdk) => new sdk.DescribeSubnetsCommand({ Filters: filters }),
      )
    ).Subnets ?? [])
      out.push({ kind: 'subnet', id: s.SubnetId ?? '', ...(nameOf(s.Tags) ? { name: nameOf(s.Tags) ?? '' } : {}) });
    for (const g of (
      await this.#send<{ InternetGateways?: Array<{ InternetGatewayId?: string; Tags?: Tag[] }> }>(
        'describe',
        'DescribeInternetGateways',
        (sdk) => new sdk.DescribeInternetGatewaysCommand({ Filters: filters }),
      )
    ).InternetGateways ?? [])
      out.push({ kind: 'other', id: g.InternetGatewayId ?? '', ...(nameOf(g.Tags) ? { name: nameOf(g.Tags) ?? '' } : {}) });
    for (const v of (
      await this.#send<{ Vpcs?: Array<{ VpcId?: string; Tags?: Tag[] }> }>(
        'describe',
        'DescribeVpcs',
        (sdk) => new sdk.DescribeVpcsCommand({ Filters: filters }),
      )
    ).Vpcs ?? [])
      out.push({ kind: 'network', id: v.VpcId ?? '', ...(nameOf(v.Tags) ? { name: nameOf(v.Tags) ?? '' } : {}) });
    return out;
  }

  async #teardown(clusterId: string): Promise<Outcome<void>> {
    const filters: Filter[] = [{ Name: `tag:${CLUSTER_ID_TAG}`, Values: [clusterId] }];
    const instances = await this.#describe([...filters, { Name: 'instance-state-name', Values: LIVE_STATES }]);
    const launchedHere = [...this.#launched.entries()].filter(([k]) => k.startsWith(`${clusterId}/`));
    const toTerminate = instances.filter((i) => i.State?.Name !== 'shutting-down').map((i) => i.InstanceId ?? '');
    for (let i = 0; i < toTerminate.length; i += 1000) {
      await this.#send(
        'terminate',
        'TerminateInstances',
        (sdk) => new sdk.TerminateInstancesCommand({ InstanceIds: toTerminate.slice(i, i + 1000) }),
        clusterId,
      );
    }
    if (instances.length > 0) {
      for (const [k, id] of launchedHere) if (instances.some((i) => i.InstanceId === id)) this.#launched.delete(k);
      this.#clusterView.delete(clusterId);
      return pending('in-progress', 15, `${instances.length} instance(s) of cluster ${clusterId} are shutting down`);
    }
    // Instances launched moments ago may not be listed yet (eventual consistency): check them by id.
    for (const [key, id] of launchedHere) {
      try {
        await this.#send('terminate', 'TerminateInstances', (sdk) => new sdk.TerminateInstancesCommand({ InstanceIds: [id] }), key);
        this.#launched.delete(key);
        return pending('in-progress', 15, `instance ${id} was not listed yet; terminating it`);
      } catch (error) {
        if (error instanceof KubeplaneError && error.details.code === 'InvalidInstanceID.NotFound')
          return pending('dependency', 2, `instance ${id} is not visible yet`);
        throw error;
      }
    }
    await this.#releaseAll(await this.#addresses(filters), clusterId);
    const groups =
      (
        await this.#send<{ SecurityGroups?: SecurityGroup[] }>(
          'describe',
          'DescribeSecurityGroups',
          (sdk) => new sdk.DescribeSecurityGroupsCommand({ Filters: filters }),
        )
      ).SecurityGroups ?? [];
    // Rules that reference other groups of the cluster block their deletion: revoke those first.
    for (const g of groups) {
      const refs = (g.IpPermissions ?? []).filter((p) => (p.UserIdGroupPairs ?? []).some((pair) => pair.GroupId !== g.GroupId));
      if (refs.length > 0)
        await this.#send(
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
      const outcome = await this.#deleteGroup(g.GroupId ?? '', g.GroupName ?? '');
      if (outcome.status === 'pending') return outcome;
    }
    for (const k of (
      await this.#send<{ KeyPairs?: Array<{ KeyPairId?: string }> }>(
        'describe',
        'DescribeKeyPairs',
        (sdk) => new sdk.DescribeKeyPairsCommand({ Filters: filters }),
      )
    ).KeyPairs ?? []) {
      await this.#send('mutating', 'DeleteKeyPair', (sdk) => new sdk.DeleteKeyPairCommand({ KeyPairId: k.KeyPairId ?? '' }), clusterId);
    }
    for (const v of (
      await this.#send<{ Vpcs?: Array<{ VpcId?: string }> }>('describe', 'DescribeVpcs', (sdk) => new sdk.DescribeVpcsCommand({ Filters: filters }))
    ).Vpcs ?? []) {
      const outcome = await this.#deleteVpc(v.VpcId ?? '', clusterId);
      if (outcome.status === 'pending') return outcome;
    }
    // Gateways left detached by an interrupted network delete.
    for (const g of (
      await this.#send<{ InternetGateways?: Array<{ InternetGatewayId?: string; Attachments?: Array<{ VpcId?: string }> }> }>(
        'describe',
        'DescribeInternetGateways',
        (sdk) => new sdk.DescribeInternetGatewaysCommand({ Filters: filters }),
      )
    ).InternetGateways ?? []) {
      for (const a of g.Attachments ?? [])
        await this.#alreadyDoneIs(GATEWAY_DETACHED, () =>
          this.#send(
            'mutating',
            'DetachInternetGateway',
            (sdk) => new sdk.DetachInternetGatewayCommand({ InternetGatewayId: g.InternetGatewayId ?? '', VpcId: a.VpcId ?? '' }),
            clusterId,
          ),
        );
      await this.#alreadyDoneIs(GATEWAY_GONE, () =>
        this.#send(
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
