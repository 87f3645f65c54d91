// The Crusoe Cloud API v1 emulator (crusoe-api-v1-swagger.json) on msw: v1.0 signatures verified as the real
// API does (wrong -> 401 bad_credentials, stale timestamp or unsorted query rejected), asynchronous operations
// on the virtual clock, VMs with paged lists, VPC networks/subnets/firewall rules, SSH keys, InfiniBand,
// CMK clusters and node pools, capacity (stock) and quota errors, and an inventory. The endpoints live in one file
// per family (compute, storage, networking, cmk-clusters, cmk-node-pools, operations); this class wires them to the
// frame's pipeline and holds the public API.
import type { HttpHandler } from 'msw';
import type { SandboxContext } from '../context.js';
import { type Collection, EmulatorError, type EmulatorFrame, frameHandlers, type Json, type StoreState } from '../emulator/index.js';
import { crusoeUserDataFromStartupScript as userDataFromStartupScript } from '@kubeplane/providers';
import type { SandboxManagedCluster, SandboxVm, SandboxVmSource } from '../kubernetes/vm-source.js';
import { compareCmkVersions, parseCmkVersion } from '@kubeplane/sdk/internal';
import { CMK_CLUSTER_VERSIONS } from './catalog.js';
import { cmkAddonReleases, cmkClusterRoutes, cmkNetwork } from './cmk-clusters.js';
import { cmkNodePoolRoutes, maintainPools } from './cmk-node-pools.js';
import { CMK_API_PORT, cmkApiHost, cmkKubernetesVersion } from './cmk-pki.js';
import { computeRoutes } from './compute.js';
import { crusoeDialect } from './dialect.js';
import { CRUSOE_DOCUMENT, crusoeRefusal } from './document.js';
import { documentValidator, requestChecker } from '../openapi/request-check.js';
import {
  CRUSOE_API,
  CRUSOE_CLOUD,
  type Cluster,
  type CrusoeEmulatorOptions,
  type CrusoeInventoryItem,
  type Disk,
  type FwRule,
  type Network,
  type Partition,
  type Pool,
  type SshKey,
  type Subnet,
  type Vm,
} from './model.js';
import { createDefaultVpc, networkingRoutes } from './networking.js';
import { completeOperation, loadOperation, operationRoutes, type SavedOperation, saveOperation } from './operations.js';
import { CrusoeRouter } from './router.js';
import { signatureFault } from './signature.js';
import { diskSerialNumber, storageRoutes } from './storage.js';
import { type CrusoeOperation, CrusoeWorld } from './world.js';

export { CRUSOE_API, CRUSOE_CLOUD, CRUSOE_LATENCY, type CrusoeEmulatorOptions, type CrusoeInventoryItem } from './model.js';

/**
 * Everything the emulator keeps, as plain data (sandbox snapshots): options but the keys, the store (counters,
 * stock and every resource, copied with all its fields, whatever they are) and the operations, finished and in
 * flight. Maps are arrays of entries. Not in it: the access keys (given again on restore) and `rejected`, `signed`
 * and `log`, which are for assertions.
 * SECRET: it holds the VMs' startup scripts (cluster keys, join tokens) and the CMK clusters' CA and admin keys:
 * write it with mode 0600, never log it.
 */
export interface CrusoeEmulatorState {
  projectId: string;
  maxSkewSeconds: number;
  quota: { vms: number; gpuVms: number };
  /** Counters (`seq`, `ipSeq`), the stock per `<location>/<type>`, and the resources by kind. */
  store: StoreState;
  /** Asynchronous operations, finished and in flight, each with what finishing it does (OpCompletion). */
  operations: Array<[string, SavedOperation]>;
}

/** A CMK cluster's pod and Service ranges as the Kubernetes emulator takes them. */
function networkOf(c: Cluster): Pick<SandboxManagedCluster, 'podSubnet' | 'serviceSubnet' | 'nodeCidrMaskSize'> {
  const n = cmkNetwork(c);
  return { podSubnet: n.clusterCidr, serviceSubnet: n.serviceRange, nodeCidrMaskSize: n.nodeCidrMaskSize };
}

/**
 * The Crusoe Cloud API v1 (at CRUSOE_API) of one project, as `sandbox.crusoe`: v1.0 request signatures checked as the
 * real API does, asynchronous operations on the virtual clock, VMs, VPC networks, firewall rules, SSH keys, disks,
 * InfiniBand partitions, CMK clusters and node pools, stock and quota. Under the conformance check its traffic is
 * validated against crusoe-api-v1-swagger.json.
 */
export class CrusoeEmulator implements SandboxVmSource {
  readonly #ctx: SandboxContext;
  readonly #keys: Record<string, string>;
  readonly #world: CrusoeWorld;
  readonly #frame: EmulatorFrame<Json>;
  readonly projectId: string;
  readonly vms: Collection<string, Vm>;
  readonly networks: Collection<string, Network>;
  readonly subnets: Collection<string, Subnet>;
  readonly firewallRules: Collection<string, FwRule>;
  readonly sshKeys: Collection<string, SshKey>;
  readonly disks: Collection<string, Disk>;
  readonly partitions: Collection<string, Partition>;
  readonly clusters: Collection<string, Cluster>;
  readonly pools: Collection<string, Pool>;
  readonly operations: Collection<string, CrusoeOperation>;
  /** Signed requests rejected, by reason, for assertions. */
  readonly rejected: Array<{ reason: string; path: string }> = [];
  /** Every correctly signed request's operation and X-Crusoe-Timestamp, faults included (for the retry tests). */
  readonly signed: Array<{ operation: string; timestamp: string }> = [];
  /** Every accepted request: method, path and the query as sent (for the pagination and PATCH tests). */
  readonly log: Array<{ method: string; path: string; query: string; body?: Json }> = [];
  #timestampClock: { now(): number } | undefined;

  constructor(ctx: SandboxContext, options: CrusoeEmulatorOptions) {
    this.#ctx = ctx;
    this.#keys = { ...options.keys };
    this.projectId = options.projectId;
    const world: CrusoeWorld = new CrusoeWorld(ctx, options, (op) => completeOperation(world, op));
    this.#world = world;
    this.vms = world.vms;
    this.networks = world.networks;
    this.subnets = world.subnets;
    this.firewallRules = world.firewallRules;
    this.sshKeys = world.sshKeys;
    this.disks = world.disks;
    this.partitions = world.partitions;
    this.clusters = world.clusters;
    this.pools = world.pools;
    this.operations = world.operationItems;
    createDefaultVpc(world);
    const router = new CrusoeRouter(this.projectId);
    for (const routes of [computeRoutes, storageRoutes, networkingRoutes, cmkClusterRoutes, cmkNodePoolRoutes, operationRoutes]) routes(router, world);
    this.#frame = {
      cloud: CRUSOE_CLOUD,
      base: CRUSOE_API,
      dialect: crusoeDialect(() => world.errorId()),
      routes: router.routes,
      unroutedOperation: (call) => router.unroutedOperation(call),
      authenticate: (call) => {
        const reason = signatureFault(call.request, call.url, {
          keys: this.#keys,
          nowMs: (this.#timestampClock ?? ctx.clock).now(),
          maxSkewMs: world.maxSkewMs,
        });
        if (!reason) return undefined;
        this.rejected.push({ reason, path: call.url.pathname });
        return new EmulatorError(401, 'bad_credentials', reason);
      },
      observe: (call) => this.signed.push({ operation: call.operation, timestamp: call.request.headers.get('x-crusoe-timestamp') ?? '' }),
      beforeRoute: (call, body) => {
        this.log.push({ method: call.method, path: call.path, query: call.url.search.replace(/^\?/, ''), ...(Object.keys(body).length ? { body } : {}) });
        this.#tick();
      },
      // An operation of Crusoe's document the sandbox does not serve is refused in the sealed sandbox's words (400
      // bad_request, an answer clients do not retry), never 404, which a client reads as "the resource is gone".
      unknown: (call) => {
        const refused = router.unknown(call);
        const documented = refused.status === 404 ? documentValidator(CRUSOE_DOCUMENT)?.operationName(call.method, call.url.pathname) : undefined;
        return documented
          ? new EmulatorError(
              400,
              'bad_request',
              `the sandbox does not serve ${documented}: Crusoe's API has it, the sandbox does not emulate it (docs/sandbox.md)`,
            )
          : refused;
      },
      // Query parameters and bodies as Crusoe's Swagger document has them, refused in the API's envelope.
      ...(options.checkRequests === false ? {} : { checkRequest: requestChecker(CRUSOE_DOCUMENT, { unknownFields: false, refuse: crusoeRefusal }) }),
    };
  }

  /** The wire operations the emulator serves (`GET /projects/{project_id}/compute/vms/instances`), for the coverage table. */
  servedOperations(): string[] {
    return this.#frame.routes.operations();
  }

  /**
   * What Crusoe support does when asked for an upgrade (cmk-cluster-details.txt, "Cluster Upgrades": you reach out to
   * support, who upgrade the control plane in a window): the cluster runs `version` from now on. There is no API call for
   * it, so it is an operator's action on the sandbox, for tests of a manifest that then records the new version.
   */
  supportUpgrade(clusterName: string, version: string): void {
    const c = [...this.#world.clusters.values()].find((x) => x.name === clusterName);
    if (!c) throw new EmulatorError(404, 'not_found', `Kubernetes cluster ${clusterName} not found`);
    if (!CMK_CLUSTER_VERSIONS.includes(version)) throw new EmulatorError(400, 'bad_request', `unsupported cluster version "${version}"`);
    const from = parseCmkVersion(c.version);
    const to = parseCmkVersion(version);
    if (!from || !to || compareCmkVersions(to, from) <= 0) throw new EmulatorError(400, 'bad_request', `${version} is not newer than ${c.version}`);
    c.version = version;
  }

  /** A deep copy of the emulator's state (see CrusoeEmulatorState). */
  state(): CrusoeEmulatorState {
    const w = this.#world;
    return {
      projectId: this.projectId,
      maxSkewSeconds: w.maxSkewMs / 1000,
      quota: { ...w.quota },
      store: w.store.state(),
      operations: structuredClone([...w.operationItems.values()].map((op): [string, SavedOperation] => [op.id, saveOperation(op)])),
    };
  }

  /** Replaces the emulator's state with a copy of `state`, which must be of this emulator's project. */
  restore(state: CrusoeEmulatorState): void {
    if (state.projectId !== this.projectId)
      throw new Error(`cannot restore the Crusoe state of project ${state.projectId} into the emulator of project ${this.projectId}`);
    const s = structuredClone(state);
    const w = this.#world;
    w.maxSkewMs = s.maxSkewSeconds * 1000;
    w.quota = s.quota;
    w.store.restore(s.store);
    w.operationItems.refill(s.operations.map(([id, op]) => [id, loadOperation(op)]));
  }

  /** The msw handlers serving CRUSOE_API (a CMK cluster's own API is the KubernetesEmulator's); the Sandbox installs them. */
  handlers(): HttpHandler[] {
    return frameHandlers(this.#ctx, this.#frame);
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
      ...this.networks.filter((n) => !n.isDefault).map((n) => item('network', n.id, n.name, n.name)),
      ...this.subnets.filter((s) => !s.isDefault).map((s) => item('subnet', s.id, s.name, s.name)),
      ...this.firewallRules.filter((r) => !r.isDefault).map((r) => item('firewall', r.id, r.name, r.owner, r.state)),
      ...[...this.sshKeys.values()].map((k) => item('ssh-key', k.id, k.name, k.name)),
      ...[...this.disks.values()].map((d) => item('disk', d.id, d.name, d.name, d.attachedTo ? 'attached' : 'detached')),
      ...[...this.partitions.values()].map((p) => item('ib-partition', p.id, p.name, p.name)),
      // A running cluster has an API token as well (CMK's, for its control plane).
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
      ...this.#dataDisks(v.id),
    }));
  }

  /** A VM's data disks as virtio disks named by their serial number (udev's by-id `virtio-<serial>`). */
  #dataDisks(vmId: string): Pick<SandboxVm, 'dataDisks'> {
    const disks = this.disks.filter((d) => d.attachedTo === vmId).map((d) => ({ byId: `virtio-${diskSerialNumber(d.id)}`, sizeGB: d.sizeGiB }));
    return disks.length ? { dataDisks: disks } : {};
  }

  /** The CMK control planes, for the Kubernetes emulator: it serves a cluster's API while it runs. */
  listManagedClusters(): SandboxManagedCluster[] {
    this.#tick();
    return [...this.clusters.values()].map((c) => ({
      ...networkOf(c),
      cloud: CRUSOE_CLOUD,
      name: c.name,
      endpoint: `${cmkApiHost(c.name)}:${CMK_API_PORT}`,
      kubernetesVersion: cmkKubernetesVersion(c.version),
      state: c.state === 'STATE_RUNNING' ? ('running' as const) : c.state === 'STATE_DELETING' ? ('deleting' as const) : ('provisioning' as const),
      ...(c.state !== 'STATE_PROVISIONING' ? { runningSinceMs: c.runningAt } : {}),
      caPem: c.pki.caPem,
      addons: [...c.addOns],
      addonReleases: cmkAddonReleases(c),
      serving: { certPem: c.pki.servingCertPem, keyPem: c.pki.servingKeyPem },
    }));
  }

  /** The startup script a VM was created with (for sandbox kubelets); never part of the inventory. */
  startupScript(vmId: string): string | undefined {
    return this.vms.get(vmId)?.startupScript;
  }

  /**
   * Checks X-Crusoe-Timestamp against `clock` instead of the virtual clock: for real clients of the served sandbox,
   * which sign with the machine's time while the world runs on its own. Not part of the state.
   */
  checkTimestampsAgainst(clock: { now(): number } | undefined): void {
    this.#timestampClock = clock;
  }

  /** Boots VMs, completes due operations in order, and keeps node pools at their count. */
  #tick(): void {
    const now = this.#ctx.clock.now();
    // Machines first, so an operation completing at the same instant reports its VM running.
    for (const vm of this.vms.values()) if (vm.state === 'STATE_PROVISIONING' && vm.runningAt <= now) vm.state = 'STATE_RUNNING';
    this.#world.operations.settle();
    maintainPools(this.#world);
  }
}
