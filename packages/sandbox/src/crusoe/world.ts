// What the Crusoe emulator's endpoints share: the project's resources (one store: collections and counters), its
// settings (quota, stock), its operations, the virtual clock, and the checks every family makes of names, locations,
// types and CIDRs.
import { createHash } from 'node:crypto';
import type { SandboxContext } from '../context.js';
import { Collection, type Completed, EmulatorError, type Json, type LongRunningOperation, Operations, ResourceStore } from '../emulator/index.js';
import { CRUSOE_LOCATIONS, CRUSOE_QUOTA, CRUSOE_TYPES, type CrusoeTypeSpec, initialStock } from './catalog.js';
import { badRequest, conflict } from './dialect.js';
import type { Cluster, CrusoeEmulatorOptions, Disk, FwRule, Network, OpCompletion, OperationFamily, Partition, Pool, SshKey, Subnet, Vm } from './model.js';

export type CrusoeOperation = LongRunningOperation<OpCompletion>;

export class CrusoeWorld {
  readonly store = new ResourceStore();
  /** The project's creation counter: UUIDs, VM numbers and error ids all take the next. */
  readonly seq = this.store.counter('seq');
  /** The public addresses handed out. */
  readonly ipSeq = this.store.counter('ipSeq', 10);
  /** Capacity left per `<location>/<type>`. */
  readonly stock = this.store.collection<string, number>('stock');
  readonly vms = this.store.collection<string, Vm>('vms');
  readonly networks = this.store.collection<string, Network>('networks');
  readonly subnets = this.store.collection<string, Subnet>('subnets');
  readonly firewallRules = this.store.collection<string, FwRule>('firewallRules');
  readonly sshKeys = this.store.collection<string, SshKey>('sshKeys');
  readonly disks = this.store.collection<string, Disk>('disks');
  readonly partitions = this.store.collection<string, Partition>('partitions');
  /** CMK clusters, with their AutoClusters settings (remediation overrides, fallback). */
  readonly clusters = this.store.collection<string, Cluster>('clusters');
  readonly pools = this.store.collection<string, Pool>('pools');
  /**
   * Asynchronous operations, finished and in flight, each with what finishing it does (OpCompletion). Kept beside
   * the store: the state saves them in the form snapshots have always had (operations.ts).
   */
  readonly operationItems = new Collection<string, CrusoeOperation>('operation');
  readonly operations: Operations<OpCompletion>;
  readonly projectId: string;
  maxSkewMs: number;
  quota: { vms: number; gpuVms: number };

  constructor(
    readonly ctx: SandboxContext,
    options: CrusoeEmulatorOptions,
    complete: (operation: CrusoeOperation) => Completed,
  ) {
    this.projectId = options.projectId;
    this.maxSkewMs = (options.maxSkewSeconds ?? 300) * 1000;
    this.quota = options.quota ?? CRUSOE_QUOTA;
    this.operations = new Operations(
      this.operationItems,
      () => this.now(),
      () => this.uuid(),
      complete,
    );
    for (const location of CRUSOE_LOCATIONS) for (const type of CRUSOE_TYPES) this.stock.set(`${location}/${type.product_name}`, initialStock(location, type));
    for (const [key, value] of Object.entries(options.stock ?? {})) this.stock.set(key, value);
  }

  uuid(): string {
    return `00000000-0000-4000-8000-${this.seq.next().toString(16).padStart(12, '0')}`;
  }

  /** An error answer's `error_id` (it takes a number of the creation counter, as it always has). */
  errorId(): string {
    return createHash('sha256').update(`err-${this.seq.next()}`).digest('hex').slice(0, 16);
  }

  now(): number {
    return this.ctx.clock.now();
  }

  iso(ms: number): string {
    return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
  }

  // ---- operations --------------------------------------------------------------------------------------

  /** Starts an operation of `family` (the frame's `kind`) on `resourceId` (its `target`); the answer is the API's `{operation: …}`. */
  startOperation(family: OperationFamily, resourceId: string, durationMs: number, completion: OpCompletion): Json {
    return { operation: this.operationJson(this.operations.start(family, resourceId, durationMs, completion)) };
  }

  /** An operation as the API shows it (IN_PROGRESS, SUCCEEDED with the resource as its result, or FAILED with {code, message}). */
  operationJson(op: CrusoeOperation): Json {
    const result = op.state === 'failed' ? op.error : op.result;
    return {
      operation_id: op.id,
      state: op.state === 'running' ? 'IN_PROGRESS' : op.state === 'succeeded' ? 'SUCCEEDED' : 'FAILED',
      metadata: { resource_id: op.target },
      ...(result !== undefined ? { result } : {}),
      started_at: this.iso(op.startedAt),
      completed_at: op.state === 'running' ? '' : this.iso(op.finishAt),
    };
  }

  // ---- what every family checks ------------------------------------------------------------------------

  type(name: unknown): CrusoeTypeSpec {
    const type = CRUSOE_TYPES.find((t) => t.product_name === name);
    if (!type) throw badRequest(`unknown instance type "${String(name)}"; GET /projects/{id}/compute/vms/types lists them`);
    return type;
  }

  location(value: unknown): string {
    if (typeof value !== 'string' || !(CRUSOE_LOCATIONS as readonly string[]).includes(value)) throw badRequest(`unknown location "${String(value)}"`);
    return value;
  }

  name(value: unknown, taken: Iterable<{ name: string }>, what: string): string {
    if (typeof value !== 'string' || !/^[a-zA-Z0-9][a-zA-Z0-9._-]{0,62}$/.test(value)) throw badRequest(`invalid ${what} name "${String(value)}"`);
    for (const t of taken) if (t.name === value) throw conflict('already_exists', `a ${what} named ${value} already exists in this project`);
    return value;
  }

  cidr(value: unknown): string {
    if (typeof value !== 'string' || !/^\d{1,3}(\.\d{1,3}){3}\/\d{1,2}$/.test(value)) throw badRequest(`invalid cidr "${String(value)}"`);
    return value;
  }

  /** The VMs that count against the quota (all but those being deleted). */
  liveVms(): Vm[] {
    return this.vms.filter((v) => v.state !== 'STATE_DELETING');
  }

  /** Refuses `count` more VMs of `type` in `location` over the quota (403) or the stock (400 out_of_stock). */
  checkCapacity(location: string, type: CrusoeTypeSpec, count: number): void {
    const live = this.liveVms();
    if (live.length + count > this.quota.vms || (type.num_gpu > 0 && live.filter((v) => v.type.num_gpu > 0).length + count > this.quota.gpuVms)) {
      throw new EmulatorError(
        403,
        'quota_exceeded',
        `rpc error: code = ResourceExhausted desc = project quota exceeded: ` +
          `${type.num_gpu > 0 ? `${this.quota.gpuVms} GPU VMs` : `${this.quota.vms} VMs`} allowed`,
      );
    }
    const stock = this.stock.get(`${location}/${type.product_name}`) ?? 0;
    if (stock < count)
      throw new EmulatorError(400, 'out_of_stock', `rpc error: code = ResourceExhausted desc = Out of stock: ${type.product_name} in ${location}`);
  }

  /** The location's default subnet (of default-vpc-network). */
  defaultSubnet(location: string): Subnet {
    const s = this.subnets.find((x) => x.isDefault && x.location === location);
    if (!s) throw badRequest(`no default subnet in ${location}`);
    return s;
  }

  /** Takes `delta` VMs of `type` from the stock of `location` (a negative delta gives them back). */
  allocate(location: string, type: CrusoeTypeSpec, delta: number): void {
    const key = `${location}/${type.product_name}`;
    this.stock.set(key, (this.stock.get(key) ?? 0) - delta);
  }
}
