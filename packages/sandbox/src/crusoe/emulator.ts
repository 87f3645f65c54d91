// The Crusoe Cloud API v1 emulator (crusoe-api-v1-swagger.json) on msw: v1.0 signatures verified as the real
// API does (wrong -> 401 bad_credentials, stale timestamp or unsorted query rejected), asynchronous operations
// on the virtual clock, VMs with paged lists, VPC networks/subnets/firewall rules, SSH keys, InfiniBand,
// CMK clusters and node pools, capacity (stock) and quota errors, and an inventory.
import { createHash, timingSafeEqual } from 'node:crypto';
import { http, HttpResponse, type HttpHandler } from 'msw';
import { type SandboxContext, countCall } from '../context.js';
import type { FaultKind } from '../faults.js';
import { refill } from '../state-entries.js';
import { LATENCY } from '../latency.js';
import { crusoeAuthorizationHeader as authorizationHeader, crusoeCanonicalQuery as canonicalQuery } from '@kubeplane/providers';
import { crusoeUserDataFromStartupScript as userDataFromStartupScript } from '@kubeplane/providers';
import type { SandboxManagedCluster, SandboxManagedNode, SandboxVm, SandboxVmSource } from '../kubernetes/vm-source.js';
import { CMK_API_PORT, cmkApiHost, cmkKubernetesVersion, issueCmkPki, type CmkPki } from './cmk-pki.js';
import {
  CMK_ADDON_IDS,
  CMK_CLUSTER_VERSIONS,
  CMK_NODE_POOL_VERSIONS,
  CRUSOE_IB_NETWORKS,
  CRUSOE_IMAGES,
  CRUSOE_LOCATIONS,
  CRUSOE_QUOTA,
  CRUSOE_TYPES,
  crusoeOffers,
  initialStock,
  type CrusoeTypeSpec,
} from './catalog.js';

/** The sandbox project's quota types (ProjectQuota.type); a capacity names the one its type counts against (CapacityV1.quota_type). */
const VMS_QUOTA = 'PROJECT_QUOTA_TYPE_MAXIMUM_VMS';
const GPU_VMS_QUOTA = 'PROJECT_QUOTA_TYPE_MAXIMUM_GPU_VMS';
import { sandboxPublicAddress } from '../public-addresses.js';

export const CRUSOE_API = 'https://api.cloud.crusoe.ai/v1';

/**
 * Virtual-time latencies. VM create is latency-model.md's figure (120 s, an estimate there); the CMK figures are
 * composed from the model's own rows (a VM create, kubeadm init, two control-plane joins and the CNI for a
 * cluster; a VM create, a worker join and the CNI for a node pool). The rest are estimates of ours, not in the model.
 * A pool VM is `running` after `vmCreate`; its join and CNI (`cmkNodeJoin`) are the Kubernetes simulation's
 * (KUBE_TIMINGS.kubeadmJoinMs + ciliumReadyMs), counted there only: the figure here is the sum, for the record.
 */
export const CRUSOE_LATENCY = {
  vmCreate: 120_000,
  vmDelete: 30_000,
  firewallRule: 5_000,
  diskCreate: 10_000,
  diskDelete: 5_000,
  networkDelete: 5_000,
  cmkClusterCreate: 120_000 + 45_000 + 2 * 40_000 + 30_000,
  cmkClusterDelete: 60_000,
  cmkNodePoolCreate: 10_000,
  cmkNodePoolUpdate: 5_000,
  cmkNodeJoin: 20_000 + 30_000,
  apiCall: LATENCY.apiCall,
} as const;

/** The cloud name this emulator counts calls and takes faults under (a CloudName). */
export const CRUSOE_CLOUD = 'crusoe';

type Json = Record<string, unknown>;

export interface CrusoeInventoryItem {
  cloud: 'crusoe';
  kind: string;
  id: string;
  name?: string;
  /** The kubeplane cluster id, when the name follows kubeplane's `<cluster>-<hash7>` ids (best effort; `owner` is exact). */
  clusterId?: string;
  /** The name whose prefix says whose it is: the resource's name, or the CMK cluster's name for what CMK made. */
  owner: string;
  state?: string;
}

export interface CrusoeEmulatorOptions {
  /** Access keys the project accepts: key id -> secret (unpadded base64url). */
  keys: Record<string, string>;
  projectId: string;
  /** Allowed difference between X-Crusoe-Timestamp and the clock (undocumented; 5 minutes here). */
  maxSkewSeconds?: number;
  quota?: { vms: number; gpuVms: number };
  /** Overrides the stock of a type in a location (`us-east1-a/h100-80gb-sxm-ib.8x` -> 0). */
  stock?: Record<string, number>;
}

class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * A request that conflicts with the project's state (a name taken, a resource in use or not ready): 400 with the
 * conflict's code. The API document has no 409 anywhere (its responses are 200/201/202/204, 400 badReqError, 401,
 * 403, 404, 429 and 500), so the bad-request envelope is where the API puts these; clients tell them apart by
 * `code` (already_exists, in_use, failed_precondition), as kubeplane's client does.
 */
function conflict(code: string, message: string): ApiError {
  return new ApiError(400, code, message);
}

interface Vm {
  id: string;
  name: string;
  type: CrusoeTypeSpec;
  location: string;
  image: string;
  state: 'STATE_PROVISIONING' | 'STATE_RUNNING' | 'STATE_DELETING';
  seq: number;
  createdAt: number;
  runningAt: number;
  subnetId: string;
  networkId: string;
  privateIp: string;
  publicIp?: { id: string; address: string; type: string };
  partitionId?: string;
  nodePoolId?: string;
  /** Data disks attached at creation. */
  diskIds: string[];
  /** Kept out of the inventory: user data may hold bootstrap secrets. */
  startupScript: string;
  /** A node-pool VM's Node as CMK registers it: the pool's labels and taints at the VM's creation (changes apply to new nodes only). */
  node?: SandboxManagedNode;
}
interface Network {
  id: string;
  name: string;
  cidr: string;
  isDefault: boolean;
  deleting: boolean;
}
interface Subnet {
  id: string;
  name: string;
  cidr: string;
  location: string;
  networkId: string;
  isDefault: boolean;
  deleting: boolean;
  nextHost: number;
}
interface FwRule {
  id: string;
  name: string;
  networkId: string;
  action: string;
  direction: string;
  protocols: string[];
  sources: Json[];
  sourcePorts: string[];
  destinations: Json[];
  destinationPorts: string[];
  state: 'active' | 'inactive';
  isDefault: boolean;
  owner: string;
}
interface SshKey {
  id: string;
  name: string;
  publicKey: string;
}
interface Disk {
  id: string;
  name: string;
  type: string;
  sizeGiB: number;
  location: string;
  attachedTo?: string;
  ready: boolean;
  /** Virtual ms of the create request (absent in states saved before it was kept). */
  createdAt?: number;
}
interface Partition {
  id: string;
  name: string;
  ibNetworkId: string;
}
interface Cluster {
  id: string;
  name: string;
  location: string;
  version: string;
  subnetId: string;
  addOns: string[];
  state: string;
  private: boolean;
  remediation: Record<string, string>;
  fallback: boolean;
  /** When the create operation finishes (virtual ms): STATE_RUNNING, and the API answers, from then on. */
  runningAt: number;
  /** The control plane's CA, admin and serving certificates and keys (secrets: never in the inventory). */
  pki: CmkPki;
}
interface Pool {
  id: string;
  name: string;
  clusterId: string;
  type: CrusoeTypeSpec;
  count: number;
  version: string;
  labels: Record<string, string>;
  taints: Json[];
  subnetId: string;
  partitionId?: string;
  state: string;
  nextIndex: number;
  hex: string;
}
/**
 * What finishing an operation does, as data, so that operations in flight can be snapshotted: `#complete` does it.
 * Each names its resource by id and finds it when the operation finishes; a resource gone by then is left alone
 * and the operation succeeds with a null result.
 */
type OpCompletion =
  | { kind: 'none' }
  | {
      kind:
        | 'vm-created'
        | 'vm-deleted'
        | 'disk-created'
        | 'disk-deleted'
        | 'network-deleted'
        | 'subnet-deleted'
        | 'firewall-rule-applied'
        | 'firewall-rule-deleted'
        | 'cluster-created'
        | 'cluster-deleted'
        | 'pool-updated'
        | 'pool-deleted';
      id: string;
    }
  | { kind: 'pool-created'; id: string; vmsCreated: number };
interface Op {
  id: string;
  family: string;
  resourceId: string;
  state: 'IN_PROGRESS' | 'SUCCEEDED' | 'FAILED';
  startedAt: number;
  finishAt: number;
  completion: OpCompletion;
  result?: unknown;
}

/**
 * Everything the emulator keeps, as plain data (sandbox snapshots): options but the keys, counters, stock, every
 * resource (copied with all its fields, whatever they are) and the operations in flight. Maps are arrays of entries.
 * Not in it: the access keys (given again on restore) and `rejected`, `signed` and `log`, which are for assertions.
 * SECRET: it holds the VMs' startup scripts (cluster keys, join tokens) and the CMK clusters' CA and admin keys:
 * write it with mode 0600, never log it.
 */
export interface CrusoeEmulatorState {
  projectId: string;
  maxSkewSeconds: number;
  quota: { vms: number; gpuVms: number };
  seq: number;
  ipSeq: number;
  /** Capacity left per `<location>/<type>`. */
  stock: Array<[string, number]>;
  vms: Array<[string, Vm]>;
  networks: Array<[string, Network]>;
  subnets: Array<[string, Subnet]>;
  firewallRules: Array<[string, FwRule]>;
  sshKeys: Array<[string, SshKey]>;
  disks: Array<[string, Disk]>;
  partitions: Array<[string, Partition]>;
  /** CMK clusters, with their AutoClusters settings (remediation overrides, fallback). */
  clusters: Array<[string, Cluster]>;
  pools: Array<[string, Pool]>;
  /** Asynchronous operations, finished and in flight, each with what finishing it does (OpCompletion). */
  operations: Array<[string, Op]>;
}

const REMEDIATION_ISSUES = ['XID_74', 'XID_79', 'GPU_FELL_OFF_THE_BUS', 'HCA_FELL_OFF_THE_BUS', 'VM_NOT_RUNNING'] as const;

/** AttachedDiskV1.block_size / DiskV1.block_size: bytes; the swagger's example and the default of DisksPostRequestV1. */
const DISK_BLOCK_SIZE = 4096;
/** The creation time of disks saved before the emulator kept one. */
const DISK_EPOCH = '2026-01-01T00:00:00Z';

/**
 * What a VM has of its own besides its id (its OS disk, its NIC, its MAC and its HCA GUID) follows from the VM's
 * creation number: unique in the project, and the same again when a seeded world is replayed (the emulator's ids
 * are its counter, which is part of its state). They need nothing stored, so saved worlds keep them too.
 */
function vmPartId(vm: Vm, part: 'os-disk' | 'nic'): string {
  // A UUID of the same form as the emulator's own, apart in its fourth group: unique beside them.
  return `00000000-0000-4000-${part === 'os-disk' ? '8d15' : '8e71'}-${vm.seq.toString(16).padStart(12, '0')}`;
}

/** A locally administered unicast MAC (first octet 02) holding the VM's number: never the same for two VMs. */
function vmMacAddress(vm: Vm): string {
  const n = vm.seq.toString(16).padStart(10, '0').slice(-10);
  return ['02', ...(n.match(/../g) ?? [])].join(':');
}

/** HostChannelAdapter.guid, in the swagger example's form (`946d:ae03:0021:69aa`): a fixed vendor half and the VM's number. */
function vmHcaGuid(vm: Vm): string {
  const n = vm.seq.toString(16).padStart(8, '0').slice(-8);
  return `946d:ae03:${n.slice(0, 4)}:${n.slice(4)}`;
}

/** DiskV1.serial_number, in the example's form (19 upper-case hex digits), from the disk's id. */
function diskSerialNumber(id: string): string {
  return createHash('sha256').update(`disk-serial/${id}`).digest('hex').slice(0, 19).toUpperCase();
}

export class CrusoeEmulator implements SandboxVmSource {
  readonly #ctx: SandboxContext;
  readonly #keys: Record<string, string>;
  readonly projectId: string;
  #maxSkewMs: number;
  #quota: { vms: number; gpuVms: number };
  readonly #stock = new Map<string, number>();
  #seq = 0;
  #ipSeq = 10;
  readonly vms = new Map<string, Vm>();
  readonly networks = new Map<string, Network>();
  readonly subnets = new Map<string, Subnet>();
  readonly firewallRules = new Map<string, FwRule>();
  readonly sshKeys = new Map<string, SshKey>();
  readonly disks = new Map<string, Disk>();
  readonly partitions = new Map<string, Partition>();
  readonly clusters = new Map<string, Cluster>();
  readonly pools = new Map<string, Pool>();
  readonly operations = new Map<string, Op>();
  /** Signed requests rejected, by reason, for assertions. */
  readonly rejected: Array<{ reason: string; path: string }> = [];
  /** Every correctly signed request's operation and X-Crusoe-Timestamp, faults included (for the retry tests). */
  readonly signed: Array<{ operation: string; timestamp: string }> = [];
  /** Every accepted request: method, path and the query as sent (for the pagination and PATCH tests). */
  readonly log: Array<{ method: string; path: string; query: string; body?: Json }> = [];

  constructor(ctx: SandboxContext, options: CrusoeEmulatorOptions) {
    this.#ctx = ctx;
    this.#keys = { ...options.keys };
    this.projectId = options.projectId;
    this.#maxSkewMs = (options.maxSkewSeconds ?? 300) * 1000;
    this.#quota = options.quota ?? CRUSOE_QUOTA;
    for (const location of CRUSOE_LOCATIONS) for (const type of CRUSOE_TYPES) this.#stock.set(`${location}/${type.product_name}`, initialStock(location, type));
    for (const [key, value] of Object.entries(options.stock ?? {})) this.#stock.set(key, value);
    // Each project starts with default-vpc-network 172.27.0.0/16, a /20 per location and its default rules.
    const net: Network = { id: this.#uuid(), name: 'default-vpc-network', cidr: '172.27.0.0/16', isDefault: true, deleting: false };
    this.networks.set(net.id, net);
    CRUSOE_LOCATIONS.forEach((location, i) => {
      const s: Subnet = {
        id: this.#uuid(),
        name: `default-subnet-${location}`,
        cidr: `172.27.${i * 16}.0/20`,
        location,
        networkId: net.id,
        isDefault: true,
        deleting: false,
        nextHost: 6,
      };
      this.subnets.set(s.id, s);
    });
    for (const [name, sources] of [
      ['default-allow-intra-vpc', [{ cidr: net.cidr }]],
      ['default-allow-ssh', [{ cidr: '0.0.0.0/0' }]],
    ] as const) {
      const r: FwRule = {
        id: this.#uuid(),
        name,
        networkId: net.id,
        action: 'allow',
        direction: 'ingress',
        protocols: ['tcp', 'udp', 'icmp'],
        sources: [...sources],
        sourcePorts: [],
        destinations: [{ cidr: net.cidr }],
        destinationPorts: name === 'default-allow-ssh' ? ['22'] : [],
        state: 'active',
        isDefault: true,
        owner: 'default',
      };
      this.firewallRules.set(r.id, r);
    }
  }

  /** A deep copy of the emulator's state (see CrusoeEmulatorState). */
  state(): CrusoeEmulatorState {
    return structuredClone({
      projectId: this.projectId,
      maxSkewSeconds: this.#maxSkewMs / 1000,
      quota: this.#quota,
      seq: this.#seq,
      ipSeq: this.#ipSeq,
      stock: [...this.#stock.entries()],
      vms: [...this.vms.entries()],
      networks: [...this.networks.entries()],
      subnets: [...this.subnets.entries()],
      firewallRules: [...this.firewallRules.entries()],
      sshKeys: [...this.sshKeys.entries()],
      disks: [...this.disks.entries()],
      partitions: [...this.partitions.entries()],
      clusters: [...this.clusters.entries()],
      pools: [...this.pools.entries()],
      operations: [...this.operations.entries()],
    });
  }

  /** Replaces the emulator's state with a copy of `state`, which must be of this emulator's project. */
  restore(state: CrusoeEmulatorState): void {
    if (state.projectId !== this.projectId)
      throw new Error(`cannot restore the Crusoe state of project ${state.projectId} into the emulator of project ${this.projectId}`);
    const s = structuredClone(state);
    this.#maxSkewMs = s.maxSkewSeconds * 1000;
    this.#quota = s.quota;
    this.#seq = s.seq;
    this.#ipSeq = s.ipSeq;
    refill(this.#stock, s.stock);
    refill(this.vms, s.vms);
    refill(this.networks, s.networks);
    refill(this.subnets, s.subnets);
    refill(this.firewallRules, s.firewallRules);
    refill(this.sshKeys, s.sshKeys);
    refill(this.disks, s.disks);
    refill(this.partitions, s.partitions);
    refill(this.clusters, s.clusters);
    refill(this.pools, s.pools);
    refill(this.operations, s.operations);
  }

  handlers(): HttpHandler[] {
    return [http.all(`${CRUSOE_API}/*`, async ({ request }) => this.#handle(request))];
  }

  /** Every live resource the project's users created (the default VPC and its rules are the project's own). */
  inventory(): CrusoeInventoryItem[] {
    this.#tick();
    const item = (kind: string, id: string, name: string, owner: string, state?: string): CrusoeInventoryItem => {
      // Best effort: kubeplane ids end in a 7-character base-36 hash, which (unlike pool names) nearly always has a digit.
      const clusterId = /^([a-z0-9-]*?-(?=[a-z]*[0-9])[0-9a-z]{7})(?:-|$)/.exec(owner)?.[1];
      return { cloud: 'crusoe', kind, id, name, owner, ...(clusterId ? { clusterId } : {}), ...(state ? { state } : {}) };
    };
    const clusterName = (id: string | undefined) => (id ? this.clusters.get(id)?.name : undefined);
    return [
      ...[...this.vms.values()].map((v) =>
        item('node', v.id, v.name, clusterName(v.nodePoolId ? this.pools.get(v.nodePoolId)?.clusterId : undefined) ?? v.name, v.state),
      ),
      ...[...this.networks.values()].filter((n) => !n.isDefault).map((n) => item('network', n.id, n.name, n.name)),
      ...[...this.subnets.values()].filter((s) => !s.isDefault).map((s) => item('subnet', s.id, s.name, s.name)),
      ...[...this.firewallRules.values()].filter((r) => !r.isDefault).map((r) => item('firewall', r.id, r.name, r.owner, r.state)),
      ...[...this.sshKeys.values()].map((k) => item('ssh-key', k.id, k.name, k.name)),
      ...[...this.disks.values()].map((d) => item('disk', d.id, d.name, d.name, d.attachedTo ? 'attached' : 'detached')),
      ...[...this.partitions.values()].map((p) => item('ib-partition', p.id, p.name, p.name)),
      ...[...this.clusters.values()].flatMap((c) => [
        item('managed-cluster', c.id, c.name, c.name, c.state),
        ...(c.state === 'STATE_RUNNING' || c.state === 'STATE_DELETING' ? [item('api-token', `token-${c.id}`, `cmk-${c.name}`, c.name)] : []),
      ]),
      ...[...this.pools.values()].map((p) => item('node-pool', p.id, p.name, clusterName(p.clusterId) ?? p.name, p.state)),
    ];
  }

  /**
   * The machines for the simulated kubelets: a kubeplane cloud-config comes back out of its startup script; a CMK
   * node-pool VM has none and registers its Node with the managed control plane itself.
   */
  listVms(): SandboxVm[] {
    this.#tick();
    return [...this.vms.values()].map((v) => ({
      cloud: CRUSOE_CLOUD,
      name: v.name,
      id: v.id,
      state: v.state === 'STATE_RUNNING' ? ('running' as const) : v.state === 'STATE_DELETING' ? ('stopping' as const) : ('pending' as const),
      ...(v.state === 'STATE_RUNNING' ? { runningSinceMs: v.runningAt } : {}),
      userData: v.node ? '' : (userDataFromStartupScript(v.startupScript) ?? ''),
      privateIPv4: v.privateIp,
      machine: {
        vcpus: v.type.cpu_cores,
        memoryMiB: v.type.memory_gb * 1024,
        ...(v.type.disk_gb > 0 ? { diskGiB: v.type.disk_gb } : {}),
        ...(v.type.num_gpu > 0 ? { gpus: v.type.num_gpu } : {}),
      },
      ...(v.publicIp ? { publicIPv4: v.publicIp.address } : {}),
      ...(v.node ? { managed: structuredClone(v.node) } : {}),
    }));
  }

  /** The CMK control planes, for the Kubernetes emulator: it serves a cluster's API while it runs. */
  listManagedClusters(): SandboxManagedCluster[] {
    this.#tick();
    return [...this.clusters.values()].map((c) => ({
      cloud: CRUSOE_CLOUD,
      name: c.name,
      endpoint: `${cmkApiHost(c.name)}:${CMK_API_PORT}`,
      kubernetesVersion: cmkKubernetesVersion(c.version),
      state: c.state === 'STATE_RUNNING' ? ('running' as const) : c.state === 'STATE_DELETING' ? ('deleting' as const) : ('provisioning' as const),
      ...(c.state !== 'STATE_PROVISIONING' ? { runningSinceMs: c.runningAt } : {}),
      caPem: c.pki.caPem,
      addons: [...c.addOns],
      serving: { certPem: c.pki.servingCertPem, keyPem: c.pki.servingKeyPem },
    }));
  }

  /** The startup script a VM was created with (for sandbox kubelets); never part of the inventory. */
  startupScript(vmId: string): string | undefined {
    return this.vms.get(vmId)?.startupScript;
  }

  // ---- plumbing ----------------------------------------------------------------------------------------

  #uuid(): string {
    this.#seq += 1;
    return `00000000-0000-4000-8000-${this.#seq.toString(16).padStart(12, '0')}`;
  }

  #timestampClock: { now(): number } | undefined;

  /**
   * Checks X-Crusoe-Timestamp against `clock` instead of the virtual clock: for real clients of the served sandbox,
   * which sign with the machine's time while the world runs on its own. Not part of the state.
   */
  checkTimestampsAgainst(clock: { now(): number } | undefined): void {
    this.#timestampClock = clock;
  }

  #now(): number {
    return this.#ctx.clock.now();
  }

  #iso(ms: number): string {
    return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
  }

  #errorId(): string {
    return createHash('sha256')
      .update(`err-${++this.#seq}`)
      .digest('hex')
      .slice(0, 16);
  }

  #error(status: number, code: string, message: string, headers: Record<string, string> = {}): Response {
    return HttpResponse.json({ code, message, error_id: this.#errorId() }, { status, headers });
  }

  /** Verifies a v1.0 signature; returns why it fails, or undefined. */
  #verify(request: Request, url: URL): string | undefined {
    const auth = request.headers.get('authorization') ?? '';
    const m = /^Bearer 1\.0:([^:]+):([A-Za-z0-9_-]+)$/.exec(auth);
    if (!m) return 'missing or malformed Authorization header';
    const [, keyId, sig] = m;
    const secret = keyId === undefined ? undefined : this.#keys[keyId];
    if (!secret || !sig) return 'unknown access key';
    const timestamp = request.headers.get('x-crusoe-timestamp') ?? '';
    if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(Z|[+-]\d\d:\d\d)$/.test(timestamp)) return 'X-Crusoe-Timestamp must be RFC 3339 to the second';
    const when = Date.parse(timestamp);
    if (!Number.isFinite(when) || Math.abs(when - (this.#timestampClock ?? { now: () => this.#now() }).now()) > this.#maxSkewMs)
      return 'request timestamp is outside the allowed window';
    const raw = url.search.replace(/^\?/, '');
    // The API wants the query sorted in the URL as well as in the signature.
    if (raw !== canonicalQuery(raw)) return 'query parameters must be lexicographically sorted and escaped';
    const expected = authorizationHeader({ method: request.method, path: url.pathname, rawQuery: raw, timestamp, accessKeyId: keyId ?? '', secretKey: secret });
    const a = Buffer.from(expected);
    const b = Buffer.from(auth);
    if (a.length !== b.length || !timingSafeEqual(a, b)) return 'signature mismatch';
    return undefined;
  }

  #fault(kind: FaultKind): Response | 'lost-response' {
    switch (kind) {
      case 'throttled':
        return this.#error(429, 'too_many_requests', 'rate limit exceeded, retry later', { 'Retry-After': '2' });
      case 'throttled-no-headers':
        return this.#error(429, '429', 'rate limit exceeded');
      case 'server-error':
        return this.#error(500, 'internal_error', 'internal error');
      case 'timeout':
        return HttpResponse.error();
      case 'lost-response':
        return 'lost-response';
      case 'capacity':
        return this.#error(
          400,
          'out_of_stock',
          'rpc error: code = ResourceExhausted desc = Out of stock: no capacity for the requested instance type in this location',
        );
      case 'quota':
        return this.#error(
          403,
          'quota_exceeded',
          'rpc error: code = ResourceExhausted desc = project quota exceeded for VM slices; contact support to raise PROJECT_QUOTA_TYPE_MAXIMUM_VM_SLICES',
        );
      case 'auth':
        return this.#error(401, 'bad_credentials', 'invalid credentials');
    }
  }

  async #handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const path = url.pathname.replace(/^\/v1/, '');
    const operation =
      `${request.method} ` +
      `${path.replace(`/projects/${this.projectId}`, '').replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '{id}')}`;
    countCall(this.#ctx, CRUSOE_CLOUD, operation);
    const reason = this.#verify(request, url);
    if (reason) {
      this.rejected.push({ reason, path: url.pathname });
      return this.#error(401, 'bad_credentials', reason);
    }
    this.signed.push({ operation, timestamp: request.headers.get('x-crusoe-timestamp') ?? '' });
    const fault = this.#ctx.faults.take(CRUSOE_CLOUD, operation);
    if (fault && fault !== 'lost-response') {
      const response = this.#fault(fault);
      if (response !== 'lost-response') return response;
    }
    let body: Json = {};
    if (request.method === 'POST' || request.method === 'PATCH' || request.method === 'PUT') {
      const text = await request.text();
      if (text) {
        try {
          body = JSON.parse(text) as Json;
        } catch {
          return this.#error(400, 'bad_request', 'request body is not JSON');
        }
      }
    }
    this.log.push({ method: request.method, path, query: url.search.replace(/^\?/, ''), ...(Object.keys(body).length ? { body } : {}) });
    this.#tick();
    try {
      const [status, result] = await this.#route(request.method, path, url.searchParams, body);
      if (fault === 'lost-response') return HttpResponse.error();
      return status === 204 || result === undefined ? new HttpResponse(null, { status }) : HttpResponse.json(result as Json, { status });
    } catch (e) {
      if (e instanceof ApiError) return this.#error(e.status, e.code, e.message);
      throw e;
    }
  }

  // ---- operations and time -----------------------------------------------------------------------------

  #op(family: string, resourceId: string, durationMs: number, completion: OpCompletion): Json {
    const op: Op = { id: this.#uuid(), family, resourceId, state: 'IN_PROGRESS', startedAt: this.#now(), finishAt: this.#now() + durationMs, completion };
    this.operations.set(op.id, op);
    return { operation: this.#opJson(op) };
  }

  #opJson(op: Op): Json {
    return {
      operation_id: op.id,
      state: op.state,
      metadata: { resource_id: op.resourceId },
      ...(op.result !== undefined ? { result: op.result } : {}),
      started_at: this.#iso(op.startedAt),
      completed_at: op.state === 'IN_PROGRESS' ? '' : this.#iso(op.finishAt),
    };
  }

  /** Does what finishing an operation does (see OpCompletion); returns the operation's result. */
  #complete(completion: OpCompletion): unknown {
    switch (completion.kind) {
      case 'none':
        return null;
      case 'vm-created': {
        const vm = this.vms.get(completion.id);
        return vm ? this.#vmJson(vm) : null;
      }
      case 'vm-deleted': {
        const vm = this.vms.get(completion.id);
        if (!vm) return null;
        this.vms.delete(vm.id);
        this.#allocate(vm.location, vm.type, -1);
        // Data disks outlive their VM (detached), as on Crusoe; the OS disk goes with it.
        for (const d of vm.diskIds) {
          const disk = this.disks.get(d);
          if (disk) delete disk.attachedTo;
        }
        return null;
      }
      case 'disk-created': {
        const d = this.disks.get(completion.id);
        if (!d) return null;
        d.ready = true;
        return this.#diskJson(d);
      }
      case 'disk-deleted':
        this.disks.delete(completion.id);
        return null;
      case 'network-deleted':
        this.networks.delete(completion.id);
        for (const r of this.firewallRules.values()) if (r.networkId === completion.id) this.firewallRules.delete(r.id);
        return null;
      case 'subnet-deleted':
        this.subnets.delete(completion.id);
        return null;
      case 'firewall-rule-applied': {
        const r = this.firewallRules.get(completion.id);
        if (!r) return null;
        r.state = 'active';
        return this.#ruleJson(r);
      }
      case 'firewall-rule-deleted':
        this.firewallRules.delete(completion.id);
        return null;
      case 'cluster-created': {
        const c = this.clusters.get(completion.id);
        if (!c) return null;
        c.state = 'STATE_RUNNING';
        const subnet = this.subnets.get(c.subnetId);
        if (subnet) this.#cmkRules(c, subnet);
        return this.#clusterJson(c);
      }
      case 'cluster-deleted': {
        const c = this.clusters.get(completion.id);
        if (!c) return null;
        this.clusters.delete(c.id);
        for (const r of this.firewallRules.values()) if (r.owner === c.name && r.name.startsWith('cmk-cp-')) this.firewallRules.delete(r.id);
        return null;
      }
      case 'pool-created':
      case 'pool-updated': {
        const p = this.pools.get(completion.id);
        if (!p) return null;
        p.state = 'STATE_RUNNING';
        // Raising the count creates VMs; lowering it deletes none (the caller deletes the VMs it chose).
        return { node_pool: this.#poolJson(p), details: { num_vms_created: completion.kind === 'pool-created' ? completion.vmsCreated : 0 } };
      }
      case 'pool-deleted':
        for (const v of [...this.vms.values()]) {
          if (v.nodePoolId !== completion.id) continue;
          this.vms.delete(v.id);
          this.#allocate(v.location, v.type, -1);
        }
        this.pools.delete(completion.id);
        return null;
    }
  }

  /** Completes due operations in order, boots VMs, and keeps node pools at their count. */
  #tick(): void {
    const now = this.#now();
    // Machines first, so an operation completing at the same instant reports its VM running.
    for (const vm of this.vms.values()) if (vm.state === 'STATE_PROVISIONING' && vm.runningAt <= now) vm.state = 'STATE_RUNNING';
    const due = [...this.operations.values()].filter((o) => o.state === 'IN_PROGRESS' && o.finishAt <= now).sort((a, b) => a.finishAt - b.finishAt);
    for (const op of due) {
      try {
        op.result = this.#complete(op.completion);
        op.state = 'SUCCEEDED';
      } catch (e) {
        op.state = 'FAILED';
        op.result = e instanceof ApiError ? { code: e.code, message: e.message } : { code: 'internal_error', message: 'operation failed' };
      }
    }
    // The platform "actively works to maintain" a pool's count: a VM deleted without lowering it is replaced.
    for (const pool of this.pools.values()) {
      if (pool.state !== 'STATE_RUNNING') continue;
      const live = [...this.vms.values()].filter((v) => v.nodePoolId === pool.id && v.state !== 'STATE_DELETING').length;
      for (let i = live; i < pool.count; i++) {
        try {
          this.#createPoolVm(pool);
        } catch {
          break;
        }
      }
    }
  }

  // ---- routing -----------------------------------------------------------------------------------------

  #route(method: string, path: string, query: URLSearchParams, body: Json): [number, unknown] | Promise<[number, unknown]> {
    const parts = path.split('/').filter(Boolean);
    if (parts[0] === 'locations' && method === 'GET') return [200, { items: [...CRUSOE_LOCATIONS] }];
    if (parts[0] === 'capacities' && method === 'GET') return [200, { items: this.#capacities(query.get('location'), query.get('product_name')) }];
    if (parts[0] === 'compute' && parts[1] === 'images' && method === 'GET')
      return [
        200,
        {
          items: CRUSOE_IMAGES.map((i) => ({
            id: i.id,
            name: i.name,
            tags: [...i.tags],
            locations: [...CRUSOE_LOCATIONS],
            description: i.description,
            created_at: '2025-01-01T00:00:00Z',
          })),
        },
      ];
    if (parts[0] === 'users' && parts[1] === 'ssh-keys') return this.#sshKeys(method, query, body);
    if (parts[0] !== 'projects' || parts.length < 3) throw new ApiError(404, 'not_found', `${method} ${path} is not an endpoint of this API`);
    if (parts[1] !== this.projectId) throw new ApiError(403, 'unauthorized', `no access to project ${parts[1] ?? ''}`);
    const rest = parts.slice(2);
    const [a, b, c, d, e] = rest;
    const family = (n: number) => rest.slice(0, n).join('/');
    // Operations: <family>/operations[/<id>]
    const opsAt = rest.indexOf('operations');
    if (opsAt > 0 && method === 'GET') {
      const fam = family(opsAt);
      const id = rest[opsAt + 1];
      if (id) {
        const op = this.operations.get(id);
        if (!op || op.family !== fam) throw new ApiError(403, 'unauthorized', 'operation does not exist, was not initiated by this user, or has expired');
        return [200, this.#opJson(op)];
      }
      const resourceId = query.get('resource_id');
      return [
        200,
        { items: [...this.operations.values()].filter((o) => o.family === fam && (!resourceId || o.resourceId === resourceId)).map((o) => this.#opJson(o)) },
      ];
    }
    if (a === 'compute' && b === 'vms' && c === 'types' && method === 'GET')
      return [200, { items: CRUSOE_TYPES.map((t) => ({ ...t, memory_type: 'DDR5', disk_type: 'NVMe' })) }];
    if (a === 'compute' && b === 'vms' && c === 'instances') return this.#instances(method, d, query, body);
    if (a === 'quotas' && method === 'GET') return [200, { quotas: this.#quotas() }];
    if (a === 'storage' && b === 'disks') return this.#disks(method, c, body);
    if (a === 'networking') {
      if (b === 'vpc-networks') return this.#networks(method, c, body);
      if (b === 'vpc-subnets') return this.#subnets(method, c, body);
      if (b === 'vpc-firewall-rules') return this.#firewall(method, c, body);
      if (b === 'ib-networks' && method === 'GET') return [200, { items: CRUSOE_IB_NETWORKS }];
      if (b === 'ib-partitions') return this.#partitions(method, c, body);
    }
    if (a === 'kubernetes') {
      if (b === 'versions' && method === 'GET') return [200, this.#versions()];
      if (b === 'clusters') return this.#clusters(method, c, d, e, query, body);
      if (b === 'nodepools') return this.#pools(method, c, d, query, body);
    }
    throw new ApiError(404, 'not_found', `${method} ${path} is not an endpoint of this API`);
  }

  // ---- compute -----------------------------------------------------------------------------------------

  #type(name: unknown): CrusoeTypeSpec {
    const type = CRUSOE_TYPES.find((t) => t.product_name === name);
    if (!type) throw new ApiError(400, 'bad_request', `unknown instance type "${String(name)}"; GET /projects/{id}/compute/vms/types lists them`);
    return type;
  }

  #location(value: unknown): string {
    if (typeof value !== 'string' || !(CRUSOE_LOCATIONS as readonly string[]).includes(value))
      throw new ApiError(400, 'bad_request', `unknown location "${String(value)}"`);
    return value;
  }

  #name(value: unknown, taken: Iterable<{ name: string }>, what: string): string {
    if (typeof value !== 'string' || !/^[a-zA-Z0-9][a-zA-Z0-9._-]{0,62}$/.test(value))
      throw new ApiError(400, 'bad_request', `invalid ${what} name "${String(value)}"`);
    for (const t of taken) if (t.name === value) throw conflict('already_exists', `a ${what} named ${value} already exists in this project`);
    return value;
  }

  #checkCapacity(location: string, type: CrusoeTypeSpec, count: number): void {
    const live = [...this.vms.values()].filter((v) => v.state !== 'STATE_DELETING');
    if (live.length + count > this.#quota.vms || (type.num_gpu > 0 && live.filter((v) => v.type.num_gpu > 0).length + count > this.#quota.gpuVms)) {
      throw new ApiError(
        403,
        'quota_exceeded',
        `rpc error: code = ResourceExhausted desc = project quota exceeded: ` +
          `${type.num_gpu > 0 ? `${this.#quota.gpuVms} GPU VMs` : `${this.#quota.vms} VMs`} allowed`,
      );
    }
    const stock = this.#stock.get(`${location}/${type.product_name}`) ?? 0;
    if (stock < count) throw new ApiError(400, 'out_of_stock', `rpc error: code = ResourceExhausted desc = Out of stock: ${type.product_name} in ${location}`);
  }

  #allocate(location: string, type: CrusoeTypeSpec, delta: number): void {
    const key = `${location}/${type.product_name}`;
    this.#stock.set(key, (this.#stock.get(key) ?? 0) - delta);
  }

  #defaultSubnet(location: string): Subnet {
    const s = [...this.subnets.values()].find((x) => x.isDefault && x.location === location);
    if (!s) throw new ApiError(400, 'bad_request', `no default subnet in ${location}`);
    return s;
  }

  #hostIp(subnet: Subnet): string {
    const [a, b, c] = subnet.cidr.split('/')[0]?.split('.').map(Number) ?? [10, 0, 0];
    const n = subnet.nextHost++;
    return `${a}.${b}.${(c ?? 0) + Math.floor(n / 256)}.${n % 256}`;
  }

  #newVm(args: {
    name: string;
    type: CrusoeTypeSpec;
    location: string;
    image: string;
    subnet: Subnet;
    publicIpType: string | undefined;
    partitionId?: string;
    nodePoolId?: string;
    diskIds?: string[];
    startupScript: string;
    bootMs: number;
  }): Vm {
    this.#ipSeq += 1;
    const vm: Vm = {
      id: this.#uuid(),
      name: args.name,
      type: args.type,
      location: args.location,
      image: args.image,
      state: 'STATE_PROVISIONING',
      seq: this.#seq,
      createdAt: this.#now(),
      runningAt: this.#now() + args.bootMs,
      subnetId: args.subnet.id,
      networkId: args.subnet.networkId,
      privateIp: this.#hostIp(args.subnet),
      ...(args.publicIpType === 'none'
        ? {}
        : { publicIp: { id: this.#uuid(), address: sandboxPublicAddress('crusoe', this.#ipSeq), type: args.publicIpType ?? 'dynamic' } }),
      ...(args.partitionId ? { partitionId: args.partitionId } : {}),
      ...(args.nodePoolId ? { nodePoolId: args.nodePoolId } : {}),
      diskIds: args.diskIds ?? [],
      startupScript: args.startupScript,
    };
    this.vms.set(vm.id, vm);
    for (const d of vm.diskIds) {
      const disk = this.disks.get(d);
      if (disk) disk.attachedTo = vm.id;
    }
    this.#allocate(vm.location, vm.type, 1);
    return vm;
  }

  #vmJson(vm: Vm): Json {
    const created = this.#iso(vm.createdAt);
    const partition = vm.partitionId ? this.partitions.get(vm.partitionId) : undefined;
    return {
      id: vm.id,
      name: vm.name,
      type: vm.type.product_name,
      location: vm.location,
      project_id: this.projectId,
      state: vm.state,
      created_at: created,
      updated_at: created,
      maintenance_policy: 'unspecified',
      // AttachedDiskV1 (crusoe-api-v1-swagger.json): the disk's own fields plus how it is attached.
      disks: [
        {
          ...this.#diskFields({
            id: vmPartId(vm, 'os-disk'),
            name: `${vm.name}-os`,
            type: 'persistent-ssd',
            sizeGiB: 128,
            location: vm.location,
            createdAt: vm.createdAt,
          }),
          attachment_type: 'os',
          mode: 'read-write',
        },
        ...vm.diskIds.flatMap((d) => {
          const disk = this.disks.get(d);
          return disk ? [{ ...this.#diskFields(disk), attachment_type: 'data', mode: 'read-write' }] : [];
        }),
      ],
      // NetworkInterface: every VM has its own interface id and MAC address.
      network_interfaces: [
        {
          id: vmPartId(vm, 'nic'),
          name: 'eth0',
          network: vm.networkId,
          subnet: vm.subnetId,
          interface_type: 'ethernet',
          mac_address: vmMacAddress(vm),
          external_dns_name: '',
          // IPAddresses requires public_ipv4; the gateway's model is a Go struct (x-go-package rest-gateway/internal/models),
          // so a VM without a public address carries its zero value (our reading: the swagger gives no example of one).
          ips: [{ private_ipv4: { address: vm.privateIp }, public_ipv4: vm.publicIp ?? { id: '', address: '', type: '' } }],
        },
      ],
      // HostChannelAdapter: every field is required; the partition's IB network is the transport network too
      // (the API names the same thing twice, `ib_*` and `transport_*`).
      host_channel_adapters: vm.partitionId
        ? [
            {
              type: 'infiniband',
              guid: vmHcaGuid(vm),
              ib_partition_id: vm.partitionId,
              transport_partition_id: vm.partitionId,
              ib_network_id: partition?.ibNetworkId ?? '',
              transport_network_id: partition?.ibNetworkId ?? '',
            },
          ]
        : [],
    };
  }

  #instances(method: string, id: string | undefined, query: URLSearchParams, body: Json): [number, unknown] {
    if (id === undefined && method === 'GET') return [200, this.#listVms(query)];
    if (id === undefined && method === 'POST') return [200, this.#createVm(body)];
    const vm = id ? this.vms.get(id) : undefined;
    if (!vm) throw new ApiError(404, 'not_found', `VM ${id ?? ''} not found`);
    if (method === 'GET') return [200, this.#vmJson(vm)];
    if (method === 'DELETE') {
      if (vm.state === 'STATE_DELETING') return [200, this.#op('compute/vms/instances', vm.id, CRUSOE_LATENCY.vmDelete, { kind: 'none' })];
      vm.state = 'STATE_DELETING';
      return [200, this.#op('compute/vms/instances', vm.id, CRUSOE_LATENCY.vmDelete, { kind: 'vm-deleted', id: vm.id })];
    }
    throw new ApiError(400, 'bad_request', `${method} on a VM is not modelled by the sandbox`);
  }

  #listVms(query: URLSearchParams): Json {
    const csv = (k: string) => (query.get(k) ? (query.get(k) ?? '').split(',') : undefined);
    const names = csv('names');
    const ids = csv('ids');
    const locations = csv('locations');
    const limit = Math.min(100, Math.max(1, Number(query.get('limit') ?? 25) || 25));
    let items = [...this.vms.values()].filter(
      (v) => (!names || names.includes(v.name)) && (!ids || ids.includes(v.id)) && (!locations || locations.includes(v.location)),
    );
    if (query.get('sort') === 'created_at') items.sort((x, y) => x.seq - y.seq);
    else {
      // Without a sort the order is not stable between pages (the support article's warning).
      items = items
        .map((v) => [this.#ctx.random(), v] as const)
        .sort((x, y) => x[0] - y[0])
        .map(([, v]) => v);
    }
    const offset = query.get('next_token')
      ? Number(
          Buffer.from(query.get('next_token') ?? '', 'base64')
            .toString('utf8')
            .replace('offset:', ''),
        ) || 0
      : 0;
    const page = items.slice(offset, offset + limit);
    const next = offset + limit < items.length ? Buffer.from(`offset:${offset + limit}`).toString('base64') : '';
    const prev = offset > 0 ? Buffer.from(`offset:${Math.max(0, offset - limit)}`).toString('base64') : '';
    return { items: page.map((v) => this.#vmJson(v)), next_page_token: next, prev_page_token: prev };
  }

  #image(body: Json, type: CrusoeTypeSpec): string {
    const image = body['image'];
    if (typeof image !== 'string') throw new ApiError(400, 'bad_request', 'image (name:tag) or custom_image is required');
    const [name, tag = 'latest'] = image.split(':');
    const found = CRUSOE_IMAGES.find((i) => i.name === name && (i.tags as readonly string[]).includes(tag));
    if (!found) throw new ApiError(400, 'bad_request', `image ${image} not found`);
    if (found.arm64 !== type.product_name.startsWith('gb200'))
      throw new ApiError(400, 'bad_request', `image ${image} does not match the architecture of ${type.product_name}`);
    return image;
  }

  #createVm(body: Json): Json {
    const type = this.#type(body['type']);
    const location = this.#location(body['location']);
    if (typeof body['ssh_public_key'] !== 'string' || !body['ssh_public_key']) throw new ApiError(400, 'bad_request', 'ssh_public_key is required');
    const image = this.#image(body, type);
    const name = this.#name(body['name'], this.vms.values(), 'VM');
    const nic = Array.isArray(body['network_interfaces']) ? (body['network_interfaces'][0] as Json | undefined) : undefined;
    const subnet = typeof nic?.['subnet'] === 'string' ? this.subnets.get(nic['subnet']) : this.#defaultSubnet(location);
    if (!subnet || subnet.location !== location) throw new ApiError(400, 'bad_request', `subnet ${String(nic?.['subnet'])} is not in ${location}`);
    const ips = Array.isArray(nic?.['ips']) ? (nic['ips'][0] as Json | undefined) : undefined;
    const publicIpv4 = ips?.['public_ipv4'] as Json | undefined;
    const publicType = typeof publicIpv4?.['type'] === 'string' ? publicIpv4['type'] : undefined;
    const hca = Array.isArray(body['host_channel_adapters']) ? (body['host_channel_adapters'][0] as Json | undefined) : undefined;
    const partitionId =
      typeof hca?.['transport_partition_id'] === 'string'
        ? hca['transport_partition_id']
        : typeof hca?.['ib_partition_id'] === 'string'
          ? hca['ib_partition_id']
          : undefined;
    this.#checkPartition(type, location, partitionId);
    const diskIds = (Array.isArray(body['disks']) ? (body['disks'] as Json[]) : []).map((d) => {
      const disk = this.disks.get(String(d['disk_id']));
      if (!disk) throw new ApiError(400, 'bad_request', `disk ${String(d['disk_id'])} not found`);
      if (disk.location !== location) throw new ApiError(400, 'bad_request', `disk ${disk.name} is in ${disk.location}, not ${location}`);
      if (!disk.ready) throw conflict('failed_precondition', `disk ${disk.name} is still being created`);
      if (disk.attachedTo) throw conflict('in_use', `disk ${disk.name} is attached to another VM`);
      return disk.id;
    });
    this.#checkCapacity(location, type, 1);
    const vm = this.#newVm({
      name,
      type,
      location,
      image,
      subnet,
      publicIpType: publicType,
      ...(partitionId ? { partitionId } : {}),
      diskIds,
      startupScript: typeof body['startup_script'] === 'string' ? body['startup_script'] : '',
      bootMs: CRUSOE_LATENCY.vmCreate,
    });
    return this.#op('compute/vms/instances', vm.id, CRUSOE_LATENCY.vmCreate, { kind: 'vm-created', id: vm.id });
  }

  #checkPartition(type: CrusoeTypeSpec, location: string, partitionId: string | undefined): void {
    const ib = /-ib\./.test(type.product_name);
    if (!ib) {
      if (partitionId) throw new ApiError(400, 'bad_request', `${type.product_name} has no InfiniBand adapter; remove the partition`);
      return;
    }
    if (!partitionId)
      throw new ApiError(400, 'bad_request', `${type.product_name} needs an InfiniBand partition (host_channel_adapters[].transport_partition_id)`);
    const partition = this.partitions.get(partitionId);
    const network = CRUSOE_IB_NETWORKS.find((n) => n.id === partition?.ibNetworkId);
    if (!partition || !network) throw new ApiError(400, 'bad_request', `IB partition ${partitionId} not found`);
    if (network.location !== location) throw new ApiError(400, 'bad_request', `IB partition ${partition.name} is in ${network.location}, not ${location}`);
  }

  /** The fields DiskV1 and AttachedDiskV1 share (crusoe-api-v1-swagger.json), all of them required there. */
  #diskFields(d: Pick<Disk, 'id' | 'name' | 'type' | 'sizeGiB' | 'location' | 'createdAt'>): Json {
    const created = d.createdAt === undefined ? DISK_EPOCH : this.#iso(d.createdAt);
    return {
      id: d.id,
      name: d.name,
      type: d.type,
      size: `${d.sizeGiB}GiB`,
      location: d.location,
      block_size: DISK_BLOCK_SIZE,
      serial_number: diskSerialNumber(d.id),
      created_at: created,
      updated_at: created,
    };
  }

  #diskJson(d: Disk): Json {
    return { ...this.#diskFields(d), attached_to: d.attachedTo ? [{ vm_id: d.attachedTo, attachment_type: 'data', mode: 'read-write' }] : [] };
  }

  #disks(method: string, id: string | undefined, body: Json): [number, unknown] {
    const fam = 'storage/disks';
    if (id === undefined && method === 'GET') return [200, { items: [...this.disks.values()].map((d) => this.#diskJson(d)) }];
    if (id === undefined && method === 'POST') {
      const type = String(body['type'] ?? 'persistent-ssd');
      if (type !== 'persistent-ssd' && type !== 'shared-volume') throw new ApiError(400, 'bad_request', `disk type must be persistent-ssd or shared-volume`);
      const m = /^(\d+)(GiB|TiB)$/.exec(String(body['size'] ?? ''));
      if (!m) throw new ApiError(400, 'bad_request', 'size must look like 100GiB or 1TiB');
      const sizeGiB = Number(m[1]) * (m[2] === 'TiB' ? 1024 : 1);
      // Limits from the CSI driver, which cites the docs (crusoe-notes.md §2.4).
      if (type === 'persistent-ssd' && (sizeGiB < 1 || sizeGiB > 10 * 1024)) throw new ApiError(400, 'bad_request', 'persistent-ssd disks are 1 GiB to 10 TiB');
      if (type === 'shared-volume' && (sizeGiB < 1024 || sizeGiB % 1024 !== 0))
        throw new ApiError(400, 'bad_request', 'shared volumes are at least 1 TiB, in whole TiB');
      const d: Disk = {
        id: this.#uuid(),
        name: this.#name(body['name'], this.disks.values(), 'disk'),
        type,
        sizeGiB,
        location: this.#location(body['location']),
        ready: false,
        createdAt: this.#now(),
      };
      this.disks.set(d.id, d);
      return [200, this.#op(fam, d.id, CRUSOE_LATENCY.diskCreate, { kind: 'disk-created', id: d.id })];
    }
    const d = id ? this.disks.get(id) : undefined;
    if (!d) throw new ApiError(404, 'not_found', `disk ${id ?? ''} not found`);
    if (method === 'GET') return [200, this.#diskJson(d)];
    if (method === 'DELETE') {
      if (d.attachedTo) throw conflict('in_use', `disk ${d.name} is attached to VM ${d.attachedTo}; detach it or delete the VM first`);
      return [200, this.#op(fam, d.id, CRUSOE_LATENCY.diskDelete, { kind: 'disk-deleted', id: d.id })];
    }
    throw new ApiError(400, 'bad_request', `${method} on a disk is not modelled by the sandbox`);
  }

  /**
   * `GET /capacities` (crusoe-api-v1-swagger.json, listSliceCapacities: "Lists available Crusoe Cloud capacity with
   * optional filters on location and product name"): one `CapacityV1` per type a location offers, `quantity` the VMs
   * of it that can start there now. A type a location does not offer has no entry.
   */
  #capacities(location: string | null, product: string | null): Json[] {
    return CRUSOE_LOCATIONS.flatMap((l) =>
      CRUSOE_TYPES.filter((t) => crusoeOffers(l, t.product_name) && (!location || l === location) && (!product || t.product_name === product)).map((t) => ({
        type: t.product_name,
        location: l,
        quantity: Math.max(0, this.#stock.get(`${l}/${t.product_name}`) ?? 0),
        num_slices: 1,
        quota_type: t.num_gpu > 0 ? GPU_VMS_QUOTA : VMS_QUOTA,
      })),
    );
  }

  #quotas(): Json[] {
    const live = [...this.vms.values()].filter((v) => v.state !== 'STATE_DELETING');
    return [
      {
        type: VMS_QUOTA,
        programmatic_name: 'vms',
        category: 'compute',
        description: 'VMs',
        max: this.#quota.vms,
        used: live.length,
        available: this.#quota.vms - live.length,
      },
      {
        type: GPU_VMS_QUOTA,
        programmatic_name: 'gpu_vms',
        category: 'compute',
        description: 'GPU VMs',
        max: this.#quota.gpuVms,
        used: live.filter((v) => v.type.num_gpu > 0).length,
        available: this.#quota.gpuVms - live.filter((v) => v.type.num_gpu > 0).length,
      },
    ];
  }

  // ---- networking --------------------------------------------------------------------------------------

  #networkJson(n: Network): Json {
    return {
      id: n.id,
      name: n.name,
      cidr: n.cidr,
      gateway: n.cidr.replace(/\.0\/\d+$/, '.1'),
      subnets: [...this.subnets.values()].filter((s) => s.networkId === n.id).map((s) => s.id),
    };
  }

  #subnetJson(s: Subnet): Json {
    return { id: s.id, name: s.name, cidr: s.cidr, location: s.location, vpc_network_id: s.networkId, nat_gateways: [] };
  }

  #cidr(value: unknown): string {
    if (typeof value !== 'string' || !/^\d{1,3}(\.\d{1,3}){3}\/\d{1,2}$/.test(value)) throw new ApiError(400, 'bad_request', `invalid cidr "${String(value)}"`);
    return value;
  }

  #networks(method: string, id: string | undefined, body: Json): [number, unknown] {
    if (id === undefined && method === 'GET') return [200, { items: [...this.networks.values()].map((n) => this.#networkJson(n)) }];
    if (id === undefined && method === 'POST') {
      const n: Network = {
        id: this.#uuid(),
        name: this.#name(body['name'], this.networks.values(), 'VPC network'),
        cidr: this.#cidr(body['cidr']),
        isDefault: false,
        deleting: false,
      };
      this.networks.set(n.id, n);
      return [200, { network: this.#networkJson(n) }];
    }
    const n = id ? this.networks.get(id) : undefined;
    if (!n) throw new ApiError(404, 'not_found', `VPC network ${id ?? ''} not found`);
    if (method === 'GET') return [200, this.#networkJson(n)];
    if (method === 'DELETE') {
      if ([...this.subnets.values()].some((s) => s.networkId === n.id)) throw conflict('in_use', `VPC network ${n.name} still has subnets`);
      n.deleting = true;
      return [200, this.#op('networking/vpc-networks', n.id, CRUSOE_LATENCY.networkDelete, { kind: 'network-deleted', id: n.id })];
    }
    throw new ApiError(400, 'bad_request', `${method} on a VPC network is not modelled by the sandbox`);
  }

  #subnets(method: string, id: string | undefined, body: Json): [number, unknown] {
    if (id === undefined && method === 'GET') return [200, { items: [...this.subnets.values()].map((s) => this.#subnetJson(s)) }];
    if (id === undefined && method === 'POST') {
      const network = this.networks.get(String(body['vpc_network_id']));
      if (!network) throw new ApiError(400, 'bad_request', `VPC network ${String(body['vpc_network_id'])} not found`);
      if (typeof body['nat_gateway_enabled'] !== 'boolean') throw new ApiError(400, 'bad_request', 'nat_gateway_enabled is required');
      const s: Subnet = {
        id: this.#uuid(),
        name: this.#name(body['name'], this.subnets.values(), 'VPC subnet'),
        cidr: this.#cidr(body['cidr']),
        location: this.#location(body['location']),
        networkId: network.id,
        isDefault: false,
        deleting: false,
        nextHost: 6,
      };
      this.subnets.set(s.id, s);
      return [200, { subnet: this.#subnetJson(s) }];
    }
    const s = id ? this.subnets.get(id) : undefined;
    if (!s) throw new ApiError(404, 'not_found', `VPC subnet ${id ?? ''} not found`);
    if (method === 'GET') return [200, this.#subnetJson(s)];
    if (method === 'DELETE') {
      if ([...this.vms.values()].some((v) => v.subnetId === s.id)) throw conflict('in_use', `VPC subnet ${s.name} still has VMs`);
      if ([...this.clusters.values()].some((c) => c.subnetId === s.id)) throw conflict('in_use', `VPC subnet ${s.name} still has a Kubernetes cluster`);
      s.deleting = true;
      return [200, this.#op('networking/vpc-subnets', s.id, CRUSOE_LATENCY.networkDelete, { kind: 'subnet-deleted', id: s.id })];
    }
    throw new ApiError(400, 'bad_request', `${method} on a VPC subnet is not modelled by the sandbox`);
  }

  #ruleJson(r: FwRule): Json {
    return {
      id: r.id,
      name: r.name,
      vpc_network_id: r.networkId,
      action: r.action,
      direction: r.direction,
      protocols: r.protocols,
      sources: r.sources,
      source_ports: r.sourcePorts,
      destinations: r.destinations,
      destination_ports: r.destinationPorts,
      state: r.state,
    };
  }

  #ruleFields(body: Json, partial: boolean): Partial<FwRule> {
    const out: Partial<FwRule> = {};
    const list = (k: string): unknown[] | undefined => (Array.isArray(body[k]) ? (body[k] as unknown[]) : undefined);
    const protocols = list('protocols');
    if (protocols) {
      if (!protocols.every((p) => p === 'tcp' || p === 'udp' || p === 'icmp')) throw new ApiError(400, 'bad_request', 'protocols must be tcp, udp or icmp');
      out.protocols = protocols as string[];
    } else if (!partial) throw new ApiError(400, 'bad_request', 'protocols is required');
    for (const [k, f] of [
      ['sources', 'sources'],
      ['destinations', 'destinations'],
    ] as const) {
      const v = list(k);
      if (v) {
        for (const e of v) if (typeof (e as Json)['cidr'] === 'string') this.#cidr((e as Json)['cidr']);
        out[f] = v as Json[];
      } else if (!partial) throw new ApiError(400, 'bad_request', `${k} is required`);
    }
    for (const [k, f] of [
      ['source_ports', 'sourcePorts'],
      ['destination_ports', 'destinationPorts'],
    ] as const) {
      const v = list(k);
      if (v) {
        if (!v.every((p) => typeof p === 'string' && /^\d{1,5}(-\d{1,5})?$/.test(p)))
          throw new ApiError(400, 'bad_request', `${k} must be port strings like "22" or "3000-8080"`);
        out[f] = v as string[];
      }
    }
    return out;
  }

  #firewall(method: string, id: string | undefined, body: Json): [number, unknown] {
    const fam = 'networking/vpc-firewall-rules';
    if (id === undefined && method === 'GET') return [200, { items: [...this.firewallRules.values()].map((r) => this.#ruleJson(r)) }];
    if (id === undefined && method === 'POST') {
      const network = this.networks.get(String(body['vpc_network_id']));
      if (!network) throw new ApiError(400, 'bad_request', `VPC network ${String(body['vpc_network_id'])} not found`);
      if (body['action'] !== 'allow' && body['action'] !== 'deny') throw new ApiError(400, 'bad_request', 'action must be allow or deny');
      if (body['direction'] !== 'ingress' && body['direction'] !== 'egress') throw new ApiError(400, 'bad_request', 'direction must be ingress or egress');
      const name = this.#name(body['name'], this.firewallRules.values(), 'firewall rule');
      const fields = this.#ruleFields(body, false);
      const r: FwRule = {
        id: this.#uuid(),
        name,
        networkId: network.id,
        action: body['action'],
        direction: body['direction'],
        protocols: [],
        sources: [],
        sourcePorts: [],
        destinations: [],
        destinationPorts: [],
        ...fields,
        state: 'inactive',
        isDefault: false,
        owner: name,
      };
      this.firewallRules.set(r.id, r);
      return [200, this.#op(fam, r.id, CRUSOE_LATENCY.firewallRule, { kind: 'firewall-rule-applied', id: r.id })];
    }
    const r = id ? this.firewallRules.get(id) : undefined;
    if (!r) throw new ApiError(404, 'not_found', `firewall rule ${id ?? ''} not found`);
    if (method === 'GET') return [200, this.#ruleJson(r)];
    if (method === 'PATCH') {
      Object.assign(r, this.#ruleFields(body, true), { state: 'inactive' as const });
      return [200, this.#op(fam, r.id, CRUSOE_LATENCY.firewallRule, { kind: 'firewall-rule-applied', id: r.id })];
    }
    if (method === 'DELETE') {
      return [200, this.#op(fam, r.id, CRUSOE_LATENCY.firewallRule, { kind: 'firewall-rule-deleted', id: r.id })];
    }
    throw new ApiError(400, 'bad_request', `${method} on a firewall rule is not modelled by the sandbox`);
  }

  #sshKeys(method: string, query: URLSearchParams, body: Json): [number, unknown] {
    // SSHKey.fingerprints: both required; OpenSSH's forms (`ssh-keygen -l`) of the key blob, MD5 as colon-separated hex.
    const json = (k: SshKey) => {
      const blob = Buffer.from(k.publicKey.split(/\s+/)[1] ?? '', 'base64');
      const md5 = createHash('md5').update(blob).digest('hex').match(/../g)?.join(':') ?? '';
      return {
        id: k.id,
        name: k.name,
        public_key: k.publicKey,
        created_at: '2026-01-01T00:00:00Z',
        fingerprints: { md5, sha256: createHash('sha256').update(blob).digest('base64').replace(/=+$/, '') },
      };
    };
    if (method === 'GET') return [200, { items: [...this.sshKeys.values()].map(json) }];
    if (method === 'POST') {
      if (typeof body['public_key'] !== 'string' || !/^ssh-(ed25519|rsa) /.test(body['public_key']))
        throw new ApiError(400, 'bad_request', 'public_key must be an OpenSSH public key');
      const k: SshKey = { id: this.#uuid(), name: this.#name(body['name'], this.sshKeys.values(), 'SSH key'), publicKey: body['public_key'] };
      this.sshKeys.set(k.id, k);
      // CreateSSHKeyResponse wraps the key: `{"ssh_key": SSHKey}`.
      return [200, { ssh_key: json(k) }];
    }
    if (method === 'DELETE') {
      const id = query.get('id') ?? '';
      if (!this.sshKeys.delete(id)) throw new ApiError(404, 'not_found', `SSH key ${id} not found`);
      // 200 emptyResponse in the swagger ("Empty Response", no schema): no body.
      return [200, undefined];
    }
    throw new ApiError(400, 'bad_request', `${method} on SSH keys is not modelled`);
  }

  #partitions(method: string, id: string | undefined, body: Json): [number, unknown] {
    const json = (p: Partition) => ({ id: p.id, name: p.name, ib_network_id: p.ibNetworkId });
    if (id === undefined && method === 'GET') return [200, { items: [...this.partitions.values()].map(json) }];
    if (id === undefined && method === 'POST') {
      if (!CRUSOE_IB_NETWORKS.some((n) => n.id === body['ib_network_id']))
        throw new ApiError(400, 'bad_request', `IB network ${String(body['ib_network_id'])} not found`);
      const p: Partition = {
        id: this.#uuid(),
        name: this.#name(body['name'], this.partitions.values(), 'IB partition'),
        ibNetworkId: String(body['ib_network_id']),
      };
      this.partitions.set(p.id, p);
      return [200, json(p)];
    }
    const p = id ? this.partitions.get(id) : undefined;
    if (!p) throw new ApiError(404, 'not_found', `IB partition ${id ?? ''} not found`);
    if (method === 'GET') return [200, json(p)];
    if (method === 'DELETE') {
      if ([...this.vms.values()].some((v) => v.partitionId === p.id)) throw conflict('in_use', `IB partition ${p.name} still has VMs`);
      if ([...this.pools.values()].some((x) => x.partitionId === p.id)) throw conflict('in_use', `IB partition ${p.name} is used by a node pool`);
      this.partitions.delete(p.id);
      // 200 emptyResponse in the swagger (DELETE /projects/{project_id}/networking/ib-partitions/{ib_partition_id}):
      // "Empty Response", no schema, so no body.
      return [200, undefined];
    }
    throw new ApiError(400, 'bad_request', `${method} on an IB partition is not modelled`);
  }

  // ---- CMK ---------------------------------------------------------------------------------------------

  #versions(): Json {
    const details = (v: string) => {
      const [mm, build] = v.split('-cmk.');
      return { MajorMinorVersion: mm?.split('.').slice(0, 2).join('.'), PatchVersion: mm?.split('.')[2], BuildVersion: build };
    };
    return {
      kubernetes_cluster_versions: CMK_CLUSTER_VERSIONS.map((v) => ({
        cluster_version_name: v,
        tags: [],
        supported_features: ['oidc', ...(this.#autoclusters(v) ? ['autoclusters'] : [])],
        version_details: details(v),
      })),
      kubernetes_node_pool_versions: CMK_NODE_POOL_VERSIONS.map((v) => ({
        node_pool_version_name: v,
        tags: v.endsWith('-gb200') ? ['gb200'] : [],
        supported_features: ['node_taints', 'ephemeral_storage_for_containerd'],
        version_details: details(v),
      })),
    };
  }

  #autoclusters(version: string): boolean {
    const min: Record<string, number> = { '1.33': 20, '1.32': 22, '1.31': 24 };
    const m = /^(\d+\.\d+)\.\d+-cmk\.(\d+)/.exec(version);
    return !!m && m[1] !== undefined && min[m[1]] !== undefined && Number(m[2]) >= (min[m[1]] ?? Infinity);
  }

  #clusterJson(c: Cluster): Json {
    return {
      id: c.id,
      name: c.name,
      project_id: this.projectId,
      location: c.location,
      version: c.version,
      configuration: 'ha',
      state: c.state,
      subnet_id: c.subnetId,
      dns_name: `${c.name}.crusoecloudcompute.com`,
      add_ons: c.addOns,
      node_pools: [...this.pools.values()].filter((p) => p.clusterId === c.id).map((p) => p.id),
      private: c.private,
      kubelogin_args: {},
      created_at: '2026-01-01T00:00:00Z',
      updated_at: '2026-01-01T00:00:00Z',
    };
  }

  #clusters(
    method: string,
    id: string | undefined,
    sub: string | undefined,
    subsub: string | undefined,
    query: URLSearchParams,
    body: Json,
  ): [number, unknown] | Promise<[number, unknown]> {
    const fam = 'kubernetes/clusters';
    if (id === undefined && method === 'GET') {
      const name = query.get('cluster_name');
      return [200, { items: [...this.clusters.values()].filter((c) => !name || c.name === name).map((c) => this.#clusterJson(c)) }];
    }
    if (id === undefined && method === 'POST') {
      const checked = () => {
        const location = this.#location(body['location']);
        const version = String(body['version'] ?? '');
        if (!CMK_CLUSTER_VERSIONS.includes(version))
          throw new ApiError(400, 'bad_request', `unsupported cluster version "${version}"; available: ${CMK_CLUSTER_VERSIONS.join(', ')}`);
        const addOns = Array.isArray(body['add_ons']) ? (body['add_ons'] as unknown[]).map(String) : [];
        const unknown = addOns.filter((a) => !(CMK_ADDON_IDS as readonly string[]).includes(a));
        if (unknown.length) throw new ApiError(400, 'bad_request', `unknown add-ons: ${unknown.join(', ')}`);
        const subnet = typeof body['subnet_id'] === 'string' ? this.subnets.get(body['subnet_id']) : this.#defaultSubnet(location);
        if (!subnet || subnet.location !== location) throw new ApiError(400, 'bad_request', `subnet ${String(body['subnet_id'])} is not in ${location}`);
        return { location, version, addOns, subnet, name: this.#name(body['name'], this.clusters.values(), 'Kubernetes cluster') };
      };
      const request = checked();
      // The control plane's keys take real time: generated before anything changes, then the request is checked
      // again (another may have taken the name meanwhile) and applied at once, so ids keep the order of requests.
      return issueCmkPki({ seed: `${this.projectId}/${request.name}`, name: request.name, version: request.version, nowMs: this.#now() }).then(
        (pki): [number, unknown] => {
          const { location, version, addOns, subnet, name } = checked();
          const c: Cluster = {
            id: this.#uuid(),
            name,
            location,
            version,
            subnetId: subnet.id,
            addOns,
            state: 'STATE_PROVISIONING',
            private: body['private'] === true,
            remediation: {},
            fallback: false,
            runningAt: this.#now() + CRUSOE_LATENCY.cmkClusterCreate,
            pki,
          };
          this.clusters.set(c.id, c);
          return [200, this.#op(fam, c.id, CRUSOE_LATENCY.cmkClusterCreate, { kind: 'cluster-created', id: c.id })];
        },
      );
    }
    const c = id ? this.clusters.get(id) : undefined;
    if (!c) throw new ApiError(404, 'not_found', `Kubernetes cluster ${id ?? ''} not found`);
    if (sub === undefined && method === 'GET') return [200, this.#clusterJson(c)];
    if (sub === undefined && method === 'DELETE') {
      if ([...this.pools.values()].some((p) => p.clusterId === c.id))
        throw conflict('failed_precondition', `cluster ${c.name} still has node pools; delete them first`);
      if (c.state === 'STATE_DELETING') return [200, this.#op(fam, c.id, 1_000, { kind: 'none' })];
      c.state = 'STATE_DELETING';
      return [200, this.#op(fam, c.id, CRUSOE_LATENCY.cmkClusterDelete, { kind: 'cluster-deleted', id: c.id })];
    }
    if (sub === 'get-credentials' && method === 'POST') {
      if (c.state !== 'STATE_RUNNING') throw conflict('failed_precondition', `cluster ${c.name} is ${c.state}`);
      if (query.get('auth_type') && query.get('auth_type') !== 'admin_cert')
        throw new ApiError(400, 'bad_request', 'the sandbox models auth_type=admin_cert only');
      const server = `https://${cmkApiHost(c.name)}:${CMK_API_PORT}`;
      const { caPem, adminCertPem, adminKeyPem } = c.pki;
      const b64 = (s: string) => Buffer.from(s).toString('base64');
      const kubeConfig = [
        'apiVersion: v1',
        'kind: Config',
        `current-context: ${c.name}-admin`,
        'clusters:',
        `- name: ${c.name}`,
        '  cluster:',
        `    server: ${server}`,
        `    certificate-authority-data: ${b64(caPem)}`,
        'users:',
        `- name: ${c.name}-admin`,
        '  user:',
        `    client-certificate-data: ${b64(adminCertPem)}`,
        `    client-key-data: ${b64(adminKeyPem)}`,
        'contexts:',
        `- name: ${c.name}-admin`,
        '  context:',
        `    cluster: ${c.name}`,
        `    user: ${c.name}-admin`,
        '',
      ].join('\n');
      return [
        200,
        {
          kube_config: kubeConfig,
          cluster_name: c.name,
          cluster_address: server,
          cluster_ca_certificate: caPem,
          user_name: 'admin',
          user_client_certificate: adminCertPem,
          user_client_key: adminKeyPem,
        },
      ];
    }
    if (sub === 'autoclusters' && subsub === 'config') {
      if (!this.#autoclusters(c.version)) throw new ApiError(400, 'failed_precondition', `AutoClusters needs a newer cluster version than ${c.version}`);
      if (method === 'PATCH') {
        if (typeof body['fallback_to_project_reservations'] === 'boolean') c.fallback = body['fallback_to_project_reservations'];
        for (const o of Array.isArray(body['set_remediation_overrides']) ? (body['set_remediation_overrides'] as Json[]) : []) {
          const issue = String(o['issue_name']);
          if (!(REMEDIATION_ISSUES as readonly string[]).includes(issue)) throw new ApiError(400, 'bad_request', `unknown issue ${issue}`);
          if (o['action'] !== 'REPLACE_NODE' && o['action'] !== 'OFF') throw new ApiError(400, 'bad_request', 'action must be REPLACE_NODE or OFF');
          c.remediation[issue] = o['action'];
        }
        for (const issue of Array.isArray(body['remove_remediation_overrides']) ? (body['remove_remediation_overrides'] as unknown[]) : [])
          delete c.remediation[String(issue)];
      }
      if (method === 'GET' || method === 'PATCH') {
        return [
          200,
          {
            fallback_to_project_reservations: c.fallback,
            remediation_configs: REMEDIATION_ISSUES.map((issue) => ({
              issue_name: issue,
              default_action: 'REPLACE_NODE',
              ...(c.remediation[issue] ? { user_override: c.remediation[issue] } : {}),
              effective_action: c.remediation[issue] ?? 'REPLACE_NODE',
            })),
            updated_at: this.#iso(this.#now()),
          },
        ];
      }
    }
    throw new ApiError(400, 'bad_request', `${method} ${sub ?? ''} on a cluster is not modelled by the sandbox`);
  }

  /** The four rules CMK creates with a cluster (cmk-cluster-details.txt), in the cluster subnet's VPC. */
  #cmkRules(c: Cluster, subnet: Subnet): void {
    const short = c.id.slice(-8);
    const rules: Array<[string, string[], string]> = [
      [`cmk-cp-api-access-cp-${short}`, ['6443'], '0.0.0.0/0'],
      [`cmk-cp-metrics-access-cp-${short}`, ['24224'], subnet.cidr],
      [`cmk-cp-fluent-bit-access-cp-${short}`, ['24224'], subnet.cidr],
      [`cmk-cp-ssh-access-cp-${short}`, ['22'], '192.0.2.0/24'],
    ];
    for (const [name, ports, source] of rules) {
      const r: FwRule = {
        id: this.#uuid(),
        name,
        networkId: subnet.networkId,
        action: 'allow',
        direction: 'ingress',
        protocols: ['tcp'],
        sources: [{ cidr: source }],
        sourcePorts: [],
        destinations: [{ resource_id: c.id }],
        destinationPorts: ports,
        state: 'active',
        isDefault: false,
        owner: c.name,
      };
      this.firewallRules.set(r.id, r);
    }
  }

  #poolJson(p: Pool): Json {
    const vms = [...this.vms.values()].filter((v) => v.nodePoolId === p.id);
    return {
      id: p.id,
      name: p.name,
      cluster_id: p.clusterId,
      project_id: this.projectId,
      type: p.type.product_name,
      count: p.count,
      image_id: `cmk-${p.version}`,
      instance_ids: vms.map((v) => v.id),
      instance_details: vms.map((v) => ({ id: v.id, using_latest_config: v.image === `cmk-worker:${p.version}` })),
      node_labels: p.labels,
      node_taints: p.taints,
      subnet_id: p.subnetId,
      reservation_id: '',
      ephemeral_storage_for_containerd: false,
      state: p.state,
      created_at: '2026-01-01T00:00:00Z',
      updated_at: '2026-01-01T00:00:00Z',
    };
  }

  #createPoolVm(p: Pool): Vm {
    const cluster = this.clusters.get(p.clusterId);
    const subnet = this.subnets.get(p.subnetId);
    if (!cluster || !subnet) throw conflict('failed_precondition', 'cluster or subnet gone');
    this.#checkCapacity(cluster.location, p.type, 1);
    p.nextIndex += 1;
    // Running after the VM create; joining and the CNI are the Kubernetes simulation's (see CRUSOE_LATENCY).
    const vm = this.#newVm({
      name: `np-${p.hex}-${p.nextIndex}`,
      type: p.type,
      location: cluster.location,
      image: `cmk-worker:${p.version}`,
      subnet,
      publicIpType: 'dynamic',
      ...(p.partitionId ? { partitionId: p.partitionId } : {}),
      nodePoolId: p.id,
      startupScript: '',
      bootMs: CRUSOE_LATENCY.vmCreate,
    });
    // CMK's node identity (crusoe-notes.md, "Node identity"): the pool's labels and taints as they are now, CMK's own
    // labels, and the providerID the autoscaler matches VMs by. Named as the VM (real nodes add `.<location>.compute.internal`).
    const type = p.type.product_name;
    vm.node = {
      endpoint: `${cmkApiHost(cluster.name)}:${CMK_API_PORT}`,
      nodeName: vm.name,
      labels: {
        ...p.labels,
        'crusoe.ai/instance.id': vm.id,
        'crusoe.ai/nodepool.id': p.id,
        'crusoe.ai/nodepool.name': p.name,
        'crusoe.ai/project.id': this.projectId,
        'beta.kubernetes.io/instance-type': type,
        'node.kubernetes.io/instance-type': type,
        ...(type.startsWith('gb200') ? { 'kubernetes.io/arch': 'arm64' } : {}),
      },
      taints: p.taints.map((t) => ({
        key: String(t['key']),
        ...(t['value'] !== undefined && t['value'] !== null ? { value: String(t['value']) } : {}),
        effect: String(t['effect']),
      })),
      providerId: `crusoe://${vm.id}`,
      kubeletVersion: cmkKubernetesVersion(p.version),
    };
    return vm;
  }

  #taints(value: unknown): Json[] {
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value) || value.length > 50) throw new ApiError(400, 'bad_request', 'node_taints must be a list of at most 50 taints');
    for (const t of value as Json[]) {
      if (typeof t['key'] !== 'string' || t['key'].startsWith('crusoe.ai/'))
        throw new ApiError(400, 'bad_request', `taint key ${String(t['key'])} is invalid or reserved (crusoe.ai/)`);
      if (!['NoSchedule', 'PreferNoSchedule', 'NoExecute'].includes(String(t['effect'])))
        throw new ApiError(400, 'bad_request', `taint effect ${String(t['effect'])} is invalid`);
    }
    return value as Json[];
  }

  #pools(method: string, id: string | undefined, sub: string | undefined, query: URLSearchParams, body: Json): [number, unknown] {
    const fam = 'kubernetes/nodepools';
    if (id === undefined && method === 'GET') {
      const clusterId = query.get('cluster_id');
      return [200, { items: [...this.pools.values()].filter((p) => !clusterId || p.clusterId === clusterId).map((p) => this.#poolJson(p)) }];
    }
    if (id === undefined && method === 'POST') {
      const cluster = this.clusters.get(String(body['cluster_id']));
      if (!cluster) throw new ApiError(404, 'not_found', `cluster ${String(body['cluster_id'])} not found`);
      if (cluster.state !== 'STATE_RUNNING') throw conflict('failed_precondition', `cluster ${cluster.name} is ${cluster.state}; add node pools once it runs`);
      const type = this.#type(body['product_name']);
      const count = Number(body['count']);
      if (!Number.isInteger(count) || count < 0) throw new ApiError(400, 'bad_request', 'count must be a non-negative integer');
      const version =
        typeof body['node_pool_version'] === 'string'
          ? body['node_pool_version']
          : (CMK_NODE_POOL_VERSIONS.filter((v) => v.startsWith(cluster.version.split('.').slice(0, 2).join('.')) && !v.endsWith('-gb200')).at(-1) ?? '');
      if (!CMK_NODE_POOL_VERSIONS.includes(version)) throw new ApiError(400, 'bad_request', `unsupported node pool version "${version}"`);
      const partitionId =
        typeof body['transport_partition_id'] === 'string'
          ? body['transport_partition_id']
          : typeof body['ib_partition_id'] === 'string'
            ? body['ib_partition_id']
            : undefined;
      this.#checkPartition(type, cluster.location, partitionId);
      this.#checkCapacity(cluster.location, type, count);
      const subnetId = typeof body['subnet_id'] === 'string' ? body['subnet_id'] : cluster.subnetId;
      const p: Pool = {
        id: this.#uuid(),
        name: this.#name(
          body['name'],
          [...this.pools.values()].filter((x) => x.clusterId === cluster.id),
          'node pool',
        ),
        clusterId: cluster.id,
        type,
        count,
        version,
        labels: (body['node_labels'] as Record<string, string> | undefined) ?? {},
        taints: this.#taints(body['node_taints']),
        subnetId,
        ...(partitionId ? { partitionId } : {}),
        state: 'STATE_PROVISIONING',
        nextIndex: 0,
        hex: createHash('sha256')
          .update(`${cluster.id}/${String(body['name'])}`)
          .digest('hex')
          .slice(0, 8),
      };
      this.pools.set(p.id, p);
      let created = 0;
      for (let i = 0; i < count; i++) {
        this.#createPoolVm(p);
        created += 1;
      }
      return [200, this.#op(fam, p.id, CRUSOE_LATENCY.cmkNodePoolCreate, { kind: 'pool-created', id: p.id, vmsCreated: created })];
    }
    const p = id ? this.pools.get(id) : undefined;
    if (!p) throw new ApiError(404, 'not_found', `node pool ${id ?? ''} not found`);
    if (sub === 'vms' && method === 'GET') {
      const vms = [...this.vms.values()].filter((v) => v.nodePoolId === p.id).sort((x, y) => x.seq - y.seq);
      const limit = Math.min(100, Number(query.get('limit') ?? 25) || 25);
      const offset =
        Number(
          Buffer.from(query.get('next_token') ?? '', 'base64')
            .toString('utf8')
            .replace('offset:', ''),
        ) || 0;
      return [
        200,
        {
          items: vms.slice(offset, offset + limit).map((v) => this.#vmJson(v)),
          next_token: offset + limit < vms.length ? Buffer.from(`offset:${offset + limit}`).toString('base64') : '',
          prev_token: '',
        },
      ];
    }
    if (sub === undefined && method === 'GET') return [200, this.#poolJson(p)];
    if (sub === undefined && method === 'PATCH') {
      const action = body['action'] ?? 'UPDATE';
      if (action !== 'UPDATE') throw new ApiError(400, 'bad_request', `action ${String(action)} is not modelled by the sandbox`);
      // The Go client sends every field; a missing count arrives as Go's zero value, and the pool scales to 0.
      const count = body['count'] === undefined ? 0 : Number(body['count']);
      if (!Number.isInteger(count) || count < 0) throw new ApiError(400, 'bad_request', 'count must be a non-negative integer');
      const cluster = this.clusters.get(p.clusterId);
      const liveVms = [...this.vms.values()].filter((v) => v.nodePoolId === p.id && v.state !== 'STATE_DELETING').length;
      if (cluster && count > liveVms) this.#checkCapacity(cluster.location, p.type, count - liveVms);
      if (body['node_pool_version'] !== undefined && body['node_pool_version'] !== null && body['node_pool_version'] !== '') {
        if (!CMK_NODE_POOL_VERSIONS.includes(String(body['node_pool_version'])))
          throw new ApiError(400, 'bad_request', `unsupported node pool version "${String(body['node_pool_version'])}"`);
        p.version = String(body['node_pool_version']);
      }
      if (body['node_labels'] !== undefined && body['node_labels'] !== null) p.labels = body['node_labels'] as Record<string, string>;
      // null keeps the taints, [] clears them, a list replaces them (crusoe-notes.md §2.8).
      if (body['node_taints'] !== null && body['node_taints'] !== undefined) p.taints = this.#taints(body['node_taints']);
      p.count = count;
      p.state = 'STATE_UPDATING';
      return [200, this.#op(fam, p.id, CRUSOE_LATENCY.cmkNodePoolUpdate, { kind: 'pool-updated', id: p.id })];
    }
    if (sub === undefined && method === 'DELETE') {
      p.state = 'STATE_DELETING';
      for (const v of this.vms.values()) if (v.nodePoolId === p.id) v.state = 'STATE_DELETING';
      return [200, this.#op(fam, p.id, CRUSOE_LATENCY.vmDelete, { kind: 'pool-deleted', id: p.id })];
    }
    throw new ApiError(400, 'bad_request', `${method} ${sub ?? ''} on a node pool is not modelled by the sandbox`);
  }
}
