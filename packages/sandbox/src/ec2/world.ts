// One Region's EC2 world: the store of its resources and what every family of routes asks of it (ids, virtual time,
// an instance's state and visibility, zones, the taggable resources, lookups that fail as EC2 fails).
import type { SandboxContext } from '../context.js';
import { type Collection, type Counter, ResourceStore } from '../emulator/index.js';
import type { InventoryItem } from '../inventory.js';
import type { AwsKeyring } from '../sts/emulator.js';
import { sandboxPublicAddress } from '../public-addresses.js';
import { awsRegion, ec2TypeOfferedIn, regionCode } from './catalog.js';
import { checkIdShape, type Ec2IdKind, notFound } from './ids.js';
import {
  type Address,
  CLUSTER_TAG,
  type ClientTokenUse,
  type Igw,
  type Instance,
  type InstanceState,
  type KeyPair,
  type RouteTable,
  type SecurityGroup,
  type Subnet,
  type Taggable,
  type Tags,
  type Volume,
  type Vpc,
} from './resources.js';

/**
 * How one emulated EC2 Region starts: the account's key, its Region and zones, the Regions enabled, and its default VPC.
 */
export interface Ec2EmulatorOptions {
  /** The access key id the account accepts. */
  accessKeyId: string;
  /** Its secret, to verify request signatures. */
  secretAccessKey: string;
  region: string;
  zones: string[];
  /** Max spread of the DescribeInstances lag for new instances (eventual consistency), ms. */
  describeLagMaxMs: number;
  /**
   * The Regions enabled for the account, as DescribeRegions lists them (default: every Region that needs no opt-in, as
   * in a new account). A narrower or wider account is an explicit option of a test or of the CLI.
   */
  accountRegions?: readonly string[];
  /**
   * Per instance type, the zones of this Region that offer it, replacing the catalog's answer (every zone of a Region
   * that has the type) for the types named: an explicit, odd account (`[]`: the type is not offered here at all).
   */
  offerings?: Readonly<Record<string, readonly string[]>>;
  /** The account's keys and STS sessions (the sandbox's STS); without it, only accessKeyId is accepted. */
  keyring?: AwsKeyring;
  /** Whether the Region starts with its default VPC, as every account's Regions do (default: true). */
  defaultVpc?: boolean;
}

function item(kind: string, id: string, tags: Tags, state?: string): InventoryItem {
  const name = tags['kubeplane.dev/name'] ?? tags['Name'];
  return {
    cloud: 'ec2',
    kind,
    id,
    ...(name ? { name } : {}),
    ...(tags[CLUSTER_TAG] ? { clusterId: tags[CLUSTER_TAG] } : {}),
    ...(state ? { state } : {}),
  };
}

/** How long a terminated instance stays visible to Describe calls (about an hour on AWS). */
const TERMINATED_VISIBLE_MS = 3_600_000;

export class Ec2World {
  readonly store = new ResourceStore();
  // The inventory lists what kubeplane made: not terminated instances, and not the default VPC and its parts, which
  // are the account's, made by AWS. Collections are listed in the order they are made here.
  readonly instances: Collection<string, Instance> = this.store.collection('instances', {
    kind: 'node',
    inventory: (i) => (this.state(i).name === 'terminated' ? undefined : item('node', i.id, i.tags, this.state(i).name)),
  });
  readonly vpcs: Collection<string, Vpc> = this.store.collection('vpcs', {
    kind: 'network',
    inventory: (v) => (v.isDefault ? undefined : item('network', v.id, v.tags)),
  });
  readonly subnets: Collection<string, Subnet> = this.store.collection('subnets', {
    kind: 'subnet',
    inventory: (s) => (s.defaultForAz ? undefined : item('subnet', s.id, s.tags)),
  });
  readonly igws: Collection<string, Igw> = this.store.collection('igws', {
    kind: 'internet-gateway',
    inventory: (g) => (g.isDefault ? undefined : item('internet-gateway', g.id, g.tags)),
  });
  readonly routeTables: Collection<string, RouteTable> = this.store.collection('routeTables', {
    kind: 'route-table',
    inventory: (r) => (r.main ? undefined : item('route-table', r.id, r.tags)),
  });
  readonly securityGroups: Collection<string, SecurityGroup> = this.store.collection('securityGroups', {
    kind: 'firewall',
    inventory: (g) => (g.name === 'default' ? undefined : item('firewall', g.id, g.tags)),
  });
  readonly addresses: Collection<string, Address> = this.store.collection('addresses', {
    kind: 'reserved-ip',
    inventory: (a) => item('reserved-ip', a.allocationId, a.tags),
  });
  readonly keyPairs: Collection<string, KeyPair> = this.store.collection('keyPairs', {
    kind: 'ssh-key',
    inventory: (k) => item('ssh-key', k.id, k.tags),
  });
  /** EBS volumes made with instances; gone from the inventory once deleted with their instance (DeleteOnTermination). */
  readonly volumes: Collection<string, Volume> = this.store.collection('volumes', {
    kind: 'volume',
    inventory: (v) => (this.volumeState(v) === 'deleted' ? undefined : item('volume', v.id, v.tags, this.volumeState(v))),
  });
  /** RunInstances ClientTokens seen, for idempotency. */
  readonly clientTokens: Collection<string, ClientTokenUse> = this.store.collection('clientTokens');
  readonly #seq: Counter = this.store.counter('seq');
  /** A DryRun request is being checked (dry-run.ts): what the store does not hold (budgets) must not change. */
  dryRun = false;
  readonly #ipSeq: Counter = this.store.counter('ipSeq');

  constructor(
    readonly ctx: SandboxContext,
    readonly options: Ec2EmulatorOptions,
  ) {}

  get region(): string {
    return this.options.region;
  }

  get zones(): string[] {
    return this.options.zones;
  }

  now(): number {
    return this.ctx.clock.now();
  }

  /** A new id of EC2's long form (`vpc-0000000000000000a`), from the Region's one counter. */
  id(prefix: string): string {
    return `${prefix}-${this.#seq.next().toString(16).padStart(17, '0')}`;
  }

  /** A new spot instance request id (`sir-` and 8 characters, the form EC2's have: `sir-08b93456`). */
  spotRequestId(): string {
    return `sir-${this.#seq.next().toString(16).padStart(8, '0')}`;
  }

  /** The next public IPv4 address of the Region (Elastic IPs and the addresses instances get on launch). */
  publicAddress(): string {
    return sandboxPublicAddress(`ec2:${this.options.region}`, this.#ipSeq.next());
  }

  state(i: Instance): InstanceState {
    const now = this.now();
    if (i.terminatedAt !== undefined) return now >= i.terminatedAt ? { code: 48, name: 'terminated' } : { code: 32, name: 'shutting-down' };
    if (i.stoppedAt !== undefined) return now >= i.stoppedAt ? { code: 80, name: 'stopped' } : { code: 64, name: 'stopping' };
    return now >= i.runningAt ? { code: 16, name: 'running' } : { code: 0, name: 'pending' };
  }

  /** A volume is `deleted` once its instance terminated and DeleteOnTermination held, `available` when it outlived it, else `in-use`. */
  volumeState(v: Volume): 'in-use' | 'available' | 'deleted' {
    const instance = this.instances.get(v.instanceId);
    const gone = instance?.terminatedAt !== undefined && this.now() >= instance.terminatedAt;
    if (!instance || gone) return v.deleteOnTermination ? 'deleted' : 'available';
    return 'in-use';
  }

  /** Whether DescribeInstances shows the instance: after its launch's lag, and until an hour after it terminated. */
  visible(i: Instance): boolean {
    return this.now() >= i.visibleAt && !(i.terminatedAt !== undefined && this.now() > i.terminatedAt + TERMINATED_VISIBLE_MS);
  }

  /** The instance `id` names if DescribeInstances would show it. */
  visibleInstance(id: string): Instance | undefined {
    const i = this.instances.get(id);
    return i && this.visible(i) ? i : undefined;
  }

  liveInstances(): Instance[] {
    return this.instances.filter((i) => this.state(i).name !== 'terminated');
  }

  /** The Elastic IP associated with the instance, if any. */
  addressOf(instanceId: string): Address | undefined {
    return this.addresses.find((a) => a.instanceId === instanceId);
  }

  /**
   * A zone's AZ ID (`euc1-az2`), as the Regions snapshot pairs them (AWS maps zone names to AZ IDs per account in its
   * oldest Regions: https://docs.aws.amazon.com/global-infrastructure/latest/regions/az-ids.html); a zone the snapshot
   * does not have gets the Region's short code and its letter's place (a is 1, b is 2, …).
   */
  zoneId(zone: string): string {
    const known = awsRegion(this.options.region)?.zones.find((z) => z.name === zone);
    if (known) return known.id;
    const letter = zone.slice(this.options.region.length);
    return `${regionCode(this.options.region)}-az${letter.charCodeAt(0) - 'a'.charCodeAt(0) + 1}`;
  }

  /** The zones of the Region that offer an instance type (the catalog's, or the account's `offerings` option). */
  offeredZones(type: string): string[] {
    return ec2TypeOfferedIn(type, this.options.region, this.options.zones, this.options.offerings);
  }

  /** Every resource tags can be put on, as CreateTags and DescribeTags see them (instances while they are visible). */
  taggables(): Taggable[] {
    const of =
      (type: string) =>
      (x: { id: string; tags: Tags }): Taggable => ({ id: x.id, type, tags: x.tags });
    return [
      ...this.instances.filter((i) => this.visible(i)).map(of('instance')),
      ...[...this.vpcs.values()].map(of('vpc')),
      ...[...this.subnets.values()].map(of('subnet')),
      ...[...this.securityGroups.values()].map(of('security-group')),
      ...[...this.igws.values()].map(of('internet-gateway')),
      ...[...this.routeTables.values()].map(of('route-table')),
      ...[...this.addresses.values()].map((a) => ({ id: a.allocationId, type: 'elastic-ip', tags: a.tags })),
      ...[...this.keyPairs.values()].map(of('key-pair')),
      ...this.volumes.filter((v) => this.volumeState(v) !== 'deleted').map(of('volume')),
    ];
  }

  /** The resource `id` names, or EC2's Malformed or NotFound error for its kind. */
  mustId<T>(kind: Ec2IdKind, map: Map<string, T>, id: string | null): T {
    checkIdShape(kind, id ?? '');
    const found = map.get(id ?? '');
    if (!found) throw notFound(kind, [id ?? '']);
    return found;
  }
}
