// The EC2 Query API emulator (form-encoded requests, XML responses, real error codes) of one Region, on the emulator
// frame: instances with ClientToken idempotency and eventual consistency, VPC/subnet/internet gateway/route table,
// security groups, Elastic IPs, key pairs, images, instance types and zones; EC2's request buckets per action category.
// Each family of actions has its own file; this class wires the store, the dialect, the routes and the public API.
import type { HttpHandler } from 'msw';
import { TokenBucket, RATE_LIMITS, type TokenBucketState } from '@kubeplane/sdk/provider';
import type { SandboxContext } from '../context.js';
import { type Collection, type EmulatorFrame, EmulatorError, frameHandlers, RouteTable, type StoreState, type WireCall } from '../emulator/index.js';
import type { InventoryItem } from '../inventory.js';
import type { SandboxVm, SandboxVmSource } from '../kubernetes/vm-source.js';
import { LATENCY } from '../latency.js';
import { verifySigV4 } from '../sigv4.js';
import { AwsCallAudit, type AwsCallListener } from '../aws-calls.js';
import { notEmulatedMessage } from '../aws-not-emulated.js';
import { EC2_OPERATIONS } from '../aws-operations.js';
import { addressRoutes } from './addresses.js';
import { auditRecord } from './audit.js';
import { catalogRoutes } from './catalog-routes.js';
import { awsRegion } from './catalog.js';
import { actionOf, authFailure, EC2_DIALECT, type Query, requestExpired, requestLimitExceeded } from './dialect.js';
import { withDryRun } from './dry-run.js';
import { asksForSpot } from './market.js';
import { gatewayRoutes } from './gateways.js';
import { instanceRoutes, instanceVm } from './instances.js';
import { volumeRoutes } from './volumes.js';
import { keyPairRoutes } from './key-pairs.js';
import type { Address, Igw, Instance, KeyPair, RouteTable as Ec2RouteTable, SecurityGroup, Subnet, Volume, Vpc } from './resources.js';
import { securityGroupRoutes } from './security-groups.js';
import { tagRoutes } from './tags.js';
import { makeDefaultVpc, vpcRoutes } from './vpcs.js';
import { type Ec2EmulatorOptions, Ec2World } from './world.js';

export {
  AWS_DEFAULT_ENABLED_REGIONS,
  AWS_REGIONS,
  type AwsRegion,
  EC2_INSTANCE_TYPES,
  type Ec2Image,
  type Ec2InstanceType,
  ec2ImagesIn,
} from './catalog.js';
export { DEFAULT_METADATA_OPTIONS } from './resources.js';
export type { Address, Igw, Instance, KeyPair, MetadataOptions, Permission, RouteTable, SecurityGroup, Subnet, Vpc } from './resources.js';
export type { Ec2EmulatorOptions } from './world.js';

type BucketName = 'run' | 'launches' | 'terminate' | 'describe' | 'mutating';

/**
 * Everything one region's emulator keeps, as plain data (sandbox snapshots), except the credentials. It includes
 * the instances' user-data, which holds cluster private keys: written to disk with mode 0600, never logged.
 */
export interface Ec2EmulatorState {
  region: string;
  zones: string[];
  describeLagMaxMs: number;
  /** The resources (instances, vpcs, subnets, igws, routeTables, securityGroups, addresses, keyPairs, clientTokens) and id counters. */
  store: StoreState;
  buckets: Record<BucketName, TokenBucketState>;
  throttled: number;
  requests: number;
  /** Whether the default VPC was made (a snapshot from before the emulator had one gets it on restore). */
  defaultVpcMade?: boolean;
  /** The Regions enabled for the account (a snapshot from before the catalogs keeps the emulator's). */
  accountRegions?: string[];
  /** The account's explicit offerings option, if it was given. */
  offerings?: Record<string, string[]>;
}

/** The state as emulators before the frame wrote it: each collection and counter at the top level. */
type FlatEc2EmulatorState = Omit<Ec2EmulatorState, 'store'> & { seq: number; ipSeq: number } & Record<
    'instances' | 'vpcs' | 'subnets' | 'igws' | 'routeTables' | 'securityGroups' | 'addresses' | 'keyPairs' | 'clientTokens',
    Array<[string, unknown]>
  >;

const FLAT_COLLECTIONS = ['instances', 'vpcs', 'subnets', 'igws', 'routeTables', 'securityGroups', 'addresses', 'keyPairs', 'clientTokens'] as const;

/** The store of a state in either shape (snapshots written before the frame keep their resources at the top level). */
function storeOf(state: Ec2EmulatorState | FlatEc2EmulatorState): StoreState {
  if ('store' in state) return state.store;
  return {
    collections: Object.fromEntries(FLAT_COLLECTIONS.map((name) => [name, state[name]])),
    counters: { seq: state.seq, ipSeq: state.ipSeq },
  };
}

/**
 * The EC2 Query API of one Region (form-encoded requests, XML responses, EC2's error codes), as `sandbox.ec2Regions`
 * (by Region) and `sandbox.ec2`: instances with ClientToken idempotency and eventual consistency, VPCs, subnets,
 * security groups, Elastic IPs, key pairs, volumes; SigV4 signatures and EC2's request buckets. No vendored document
 * covers it.
 */
export class Ec2Emulator implements SandboxVmSource {
  readonly #world: Ec2World;
  readonly #options: Ec2EmulatorOptions;
  readonly instances: Collection<string, Instance>;
  readonly vpcs: Collection<string, Vpc>;
  readonly subnets: Collection<string, Subnet>;
  readonly igws: Collection<string, Igw>;
  readonly routeTables: Collection<string, Ec2RouteTable>;
  readonly securityGroups: Collection<string, SecurityGroup>;
  readonly addresses: Collection<string, Address>;
  readonly keyPairs: Collection<string, KeyPair>;
  readonly volumes: Collection<string, Volume>;
  readonly #buckets: Record<BucketName, TokenBucket>;
  readonly #audit = new AwsCallAudit();
  readonly #frame: EmulatorFrame<Query>;
  readonly #ctx: SandboxContext;
  throttled = 0;
  requests = 0;

  constructor(ctx: SandboxContext, options: Partial<Ec2EmulatorOptions> & { accessKeyId: string; secretAccessKey: string }) {
    this.#ctx = ctx;
    const region = options.region ?? 'eu-central-1';
    this.#options = {
      region,
      // The Region's zones as the snapshot has them (catalogs/aws/regions.json); a Region it lacks gets a, b and c.
      zones: awsRegion(region)?.zones.map((z) => z.name) ?? [`${region}a`, `${region}b`, `${region}c`],
      describeLagMaxMs: LATENCY.ec2DescribeLag.maxMs,
      ...options,
    };
    const w = (this.#world = new Ec2World(ctx, this.#options));
    this.instances = w.instances;
    this.vpcs = w.vpcs;
    this.subnets = w.subnets;
    this.igws = w.igws;
    this.routeTables = w.routeTables;
    this.securityGroups = w.securityGroups;
    this.addresses = w.addresses;
    this.keyPairs = w.keyPairs;
    this.volumes = w.volumes;
    this.#buckets = {
      run: new TokenBucket(RATE_LIMITS.ec2RunInstances, ctx.clock),
      launches: new TokenBucket(RATE_LIMITS.ec2InstanceLaunches, ctx.clock),
      terminate: new TokenBucket(RATE_LIMITS.ec2TerminateInstances, ctx.clock),
      describe: new TokenBucket(RATE_LIMITS.ec2Describe, ctx.clock),
      mutating: new TokenBucket(RATE_LIMITS.ec2Mutating, ctx.clock),
    };
    // A dry run launches nothing, so it takes nothing of the launch budget.
    const launches = { take: (count: number) => w.dryRun || this.#buckets.launches.tryTake(count) === 0 };
    this.#frame = {
      cloud: 'ec2',
      base: `https://ec2.${this.#options.region}.amazonaws.com/`,
      accepts: 'post',
      dialect: EC2_DIALECT,
      routes: new RouteTable<Query>(
        withDryRun(w, [
          ...instanceRoutes(w, launches),
          ...volumeRoutes(w),
          ...vpcRoutes(w),
          ...gatewayRoutes(w),
          ...securityGroupRoutes(w),
          ...addressRoutes(w),
          ...keyPairRoutes(w),
          ...catalogRoutes(w),
          ...tagRoutes(w),
        ]),
      ),
      // Routes are bare action names; an Action that is not one word (`a/b`, `x y`) must match none of them.
      routeKey: (call) => (/^\w+$/.test(actionOf(call)) ? actionOf(call) : ''),
      unroutedOperation: actionOf,
      asksForSpot,
      received: () => {
        this.requests += 1;
      },
      authenticate: (call) => this.#authenticate(call),
      observe: (call) => this.#audit.emit(() => auditRecord(w, call)),
      rateLimit: (call) => (this.#bucket(call.operation).tryTake(1) > 0 ? requestLimitExceeded() : undefined),
      throttled: () => {
        this.throttled += 1;
      },
      // An action of EC2's model the sandbox does not serve is refused in the sealed sandbox's words; any other name is
      // refused as EC2 refuses it.
      unknown: (call) =>
        EC2_OPERATIONS.has(call.operation)
          ? new EmulatorError(400, 'UnsupportedOperation', notEmulatedMessage(`EC2 ${call.operation}`))
          : new EmulatorError(400, 'InvalidAction', `The action ${call.operation} is not valid for this web service.`),
    };
    if (this.#options.defaultVpc !== false) makeDefaultVpc(w);
  }

  /** The EC2 actions the emulator serves, for the coverage table. */
  servedOperations(): string[] {
    return this.#frame.routes.operations();
  }

  get region(): string {
    return this.#options.region;
  }

  /** A deep copy of the emulator's state. */
  state(): Ec2EmulatorState {
    const b = this.#buckets;
    return {
      region: this.#options.region,
      zones: [...this.#options.zones],
      describeLagMaxMs: this.#options.describeLagMaxMs,
      store: this.#world.store.state(),
      buckets: { run: b.run.state(), launches: b.launches.state(), terminate: b.terminate.state(), describe: b.describe.state(), mutating: b.mutating.state() },
      throttled: this.throttled,
      requests: this.requests,
      defaultVpcMade: true,
      ...(this.#options.accountRegions ? { accountRegions: [...this.#options.accountRegions] } : {}),
      ...(this.#options.offerings ? { offerings: Object.fromEntries(Object.entries(this.#options.offerings).map(([type, zones]) => [type, [...zones]])) } : {}),
    };
  }

  /** Replaces the emulator's state with a copy of `state`, which must be of this emulator's region. */
  restore(state: Ec2EmulatorState | FlatEc2EmulatorState): void {
    if (state.region !== this.#options.region) throw new Error(`cannot restore EC2 state of ${state.region} into the emulator of ${this.#options.region}`);
    this.#options.zones = [...state.zones];
    this.#options.describeLagMaxMs = state.describeLagMaxMs;
    if (state.accountRegions) this.#options.accountRegions = [...state.accountRegions];
    if (state.offerings) this.#options.offerings = state.offerings;
    this.#world.store.restore(storeOf(state));
    for (const name of Object.keys(this.#buckets) as BucketName[]) this.#buckets[name].restore(state.buckets[name]);
    this.throttled = state.throttled;
    this.requests = state.requests;
    if (state.defaultVpcMade !== true && this.#options.defaultVpc !== false) makeDefaultVpc(this.#world);
  }

  /**
   * Tells `listener` of every signed request before it is served (as IAM authorizes it: throttled and failing calls
   * too), with the resources it names and their tags. Returns the function that stops it.
   */
  onCall(listener: AwsCallListener): () => void {
    return this.#audit.add(listener);
  }

  /**
   * The msw handlers serving this Region's endpoint (`https://ec2.<region>.amazonaws.com`); the Sandbox installs them.
   */
  handlers(): HttpHandler[] {
    return frameHandlers(this.#ctx, this.#frame);
  }

  /**
   * What kubeplane made in the Region (instances not yet terminated, VPCs, subnets, security groups, addresses,
   * volumes…; not the default VPC and its parts), read from its state.
   */
  inventory(): InventoryItem[] {
    return this.#world.store.inventory();
  }

  /** The instances as machines for the simulated kubelets (vm-source.ts). */
  listVms(): SandboxVm[] {
    return [...this.instances.values()].map((i) => instanceVm(this.#world, i));
  }

  /** EC2's request buckets: RunInstances and TerminateInstances have their own, Describe* share one, the rest another. */
  #bucket(action: string): TokenBucket {
    if (action === 'RunInstances') return this.#buckets.run;
    if (action === 'TerminateInstances') return this.#buckets.terminate;
    if (action.startsWith('Describe')) return this.#buckets.describe;
    return this.#buckets.mutating;
  }

  /** SigV4 against the account's keys and STS sessions (or the one key pair); a session past its expiry is RequestExpired. */
  #authenticate(call: WireCall): EmulatorError | undefined {
    const keyring = this.#options.keyring;
    const signed = keyring
      ? keyring.verify(call.request, call.text)
      : verifySigV4(call.request, call.text, new Map([[this.#options.accessKeyId, this.#options.secretAccessKey]]));
    if (signed === 'expired') return requestExpired();
    return signed === 'ok' ? undefined : authFailure();
  }
}
