// The AWS provider: EC2 compute (compute.ts), its catalog (catalog.ts) and network (network.ts: VPC, subnets, internet
// gateway, security groups, Elastic IPs, key pairs), the teardown by tag (teardown.ts), and Route 53 DNS, over the AWS
// SDK v3. Every call first spends the matching EC2/Route 53 budget (ec2-calls.ts). This class wires them together.
import type { EC2Client } from '@aws-sdk/client-ec2';
import { KubeplaneError, type Clock } from '@kubeplane/sdk';
import {
  RATE_LIMITS,
  RateBudgets,
  done,
  forgettingStaleIds,
  guardedCall,
  type CallContext,
  type Capabilities,
  type ComputeApi,
  type DnsApi,
  type NetworkApi,
  type Outcome,
  type Provider,
  type RateBudgetSource,
  type TaggedResource,
} from '@kubeplane/sdk/provider';
import { loadEc2, loadRoute53 } from './sdk-modules.js';
import { AssumedRoleCredentials, renewingEndedSession, type AwsCredentialIdentity, type AwsKeys, type AwsRoleToAssume } from './assume-role.js';
import { AwsCatalog } from './catalog.js';
import { AwsCompute } from './compute.js';
import { Ec2Calls } from './ec2-calls.js';
import { AwsNetwork } from './network.js';
import { Route53Dns, type Route53DnsOptions } from './route53-dns.js';
import { OWN_ENDPOINTS } from './own-endpoints.js';
import { AwsTeardown } from './teardown.js';

export { INSTANCE_METADATA_OPTIONS } from './compute.js';

process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] = 'true';

/** EC2's answers for a VPC, subnet, security group, route table or gateway id that no longer exists. */
const STALE_ID_CODES = /^Invalid(Vpc|Subnet|Group|SecurityGroup|RouteTable|InternetGateway)(ID)?\.NotFound$/;

/** Static AWS credentials: access key id, secret and optional session token, all redacted. */
export type AwsCredentials = AwsKeys;

/** How the AWS provider is built: region, account, credentials or a role to assume, clock, rate budgets and endpoints. */
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
  /** A source of [0,1) randomness for backoff jitter; pass a seeded one in tests. */
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

/** The AWS provider: EC2 machines, VPC networks, security groups, Elastic IPs and key pairs, and Route 53 DNS. */
export class AwsProvider implements Provider {
  readonly name = 'aws';
  readonly capabilities: Capabilities;
  readonly compute: ComputeApi;
  readonly network: NetworkApi;
  readonly dns?: DnsApi;
  readonly #region: string;
  readonly #random: () => number;
  readonly #calls: Ec2Calls;
  readonly #machines: AwsCompute;
  readonly #teardown: AwsTeardown;
  /** Calls sent per EC2/Route 53 action (for the bench). */
  readonly sent: Map<string, number>;

  constructor(options: AwsProviderOptions) {
    this.#region = options.region;
    this.#random = options.random ?? Math.random;
    const credentials = this.#credentialsOf(options);
    // maxAttempts 1: retries are ours, as pending outcomes on the virtual clock, not sleeps inside the SDK.
    let ec2: Promise<EC2Client> | undefined;
    const endpoints = options.ownEndpoints ? OWN_ENDPOINTS : {};
    const budgets = options.budgets ?? new RateBudgets(options.clock);
    const key = `aws:${options.account}:${options.region}`;
    this.#calls = new Ec2Calls({
      region: options.region,
      clock: options.clock,
      ec2: () => (ec2 ??= loadEc2().then((sdk) => new sdk.EC2Client({ region: options.region, credentials, maxAttempts: 1, ...endpoints }))),
      budgets: {
        run: budgets.get(`${key}:run-instances`, RATE_LIMITS.ec2RunInstances),
        launches: budgets.get(`${key}:instance-launches`, RATE_LIMITS.ec2InstanceLaunches),
        terminate: budgets.get(`${key}:terminate-instances`, RATE_LIMITS.ec2TerminateInstances),
        describe: budgets.get(`${key}:describe`, RATE_LIMITS.ec2Describe),
        mutating: budgets.get(`${key}:mutating`, RATE_LIMITS.ec2Mutating),
        route53: budgets.get(`aws:${options.account}:route53`, RATE_LIMITS.route53),
      },
    });
    this.sent = this.#calls.sent;
    const network = new AwsNetwork(this.#calls);
    const machines = new AwsCompute(this.#calls, network);
    const catalog = new AwsCatalog(this.#calls);
    this.#machines = machines;
    this.#teardown = new AwsTeardown(this.#calls, machines, network);
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
      this.dns = new Route53Dns({ client, budget: this.#calls.budgets.route53, guard: (c, f) => this.#guard(c, f), count: (op) => this.#calls.count(op) });
    }
    this.compute = {
      createNode: (r, c) => this.#guard(c, () => machines.createNode(r)),
      listNodes: (s, c) => this.#guard(c, () => machines.listNodes(s)),
      getNode: (r, c) => this.#guard(c, () => machines.getNode(r)),
      deleteNode: (r, c) => this.#guard(c, () => machines.deleteNode(r)),
      serverTypes: (_r, c) => this.#guard(c, () => catalog.serverTypes()),
      regions: (c) => this.#guard(c, () => catalog.regions()),
      images: (_r, c) => this.#guard(c, () => catalog.images()),
      image: (_r, ref, c) => this.#guard(c, () => catalog.image(ref)),
      zones: (_r, c) => this.#guard(c, () => catalog.zones()),
    };
    this.network = {
      ensureNetwork: (r, c) => this.#guard(c, () => network.ensureNetwork(r)),
      deleteNetwork: (r, c) => this.#guard(c, () => network.deleteNetwork(r.clusterId, r.name)),
      ensureFirewall: (r, c) => this.#guard(c, () => network.ensureFirewall(r)),
      deleteFirewall: (r, c) => this.#guard(c, () => network.deleteFirewall(r)),
      ensureReservedIp: (r, c) => this.#guard(c, () => network.ensureReservedIp(r)),
      attachReservedIp: (ip, node, c) => this.#guard(c, () => network.attachReservedIp(ip, node)),
      deleteReservedIp: (r, c) => this.#guard(c, () => network.deleteReservedIp(r)),
      ensureSshKey: (r, c) => this.#guard(c, () => network.ensureSshKey(r)),
      deleteSshKey: (r, c) => this.#guard(c, () => network.deleteSshKey(r)),
    };
  }

  /** What the provider shows of itself in logs: its name, region and capabilities, never a credential. */
  toJSON(): Record<string, unknown> {
    return { provider: 'aws', region: this.#region, capabilities: this.capabilities };
  }

  listClusterResources(clusterId: string, _region: string, context?: CallContext): Promise<Outcome<TaggedResource[]>> {
    return this.#guard(context, async () => done(await this.#teardown.tagged(clusterId)));
  }

  teardownCluster(clusterId: string, _region: string, context?: CallContext): Promise<Outcome<void>> {
    return this.#guard(context, () => this.#teardown.teardown(clusterId));
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
    const ids = this.#calls.ids;
    const view = this.#machines.clusterView;
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
}
