// The Crusoe Cloud provider: compute (VMs with startup scripts, GPU and InfiniBand types), network (VPC networks,
// subnets, firewall rules, SSH keys), InfiniBand partitions, and managed Kubernetes (CMK clusters and node pools).
// Crusoe resources carry no labels: ownership is the name, which always starts with the kubeplane cluster id.
import * as z from 'zod';
import {
  CLUSTER_ID_TAG,
  NODEPOOL_TAG,
  RateBudgets,
  type RateBudgetSource,
  done,
  pending,
  guardedCall,
  type CallContext,
  type Capabilities,
  type ComputeApi,
  type FirewallInfo,
  type FirewallRequest,
  type FirewallRule,
  type ManagedKubernetesApi,
  type NetworkApi,
  type NetworkInfo,
  type NetworkRequest,
  type NodeInfo,
  type NodeRef,
  type NodeRequest,
  type NodeSelector,
  type Outcome,
  type Provider,
  type ScopedRef,
  type SshKeyInfo,
  type SshKeyRequest,
  type TaggedResource,
} from '@kubeplane/sdk/provider';
import { KubeplaneError, type Clock, type Redacted } from '@kubeplane/sdk';
import { USER_DATA_RULES } from '@kubeplane/sdk/internal';
import { CRUSOE_RATE_LIMIT, CrusoeClient, operationError } from './client.js';
import { CrusoeManagedKubernetes } from './managed.js';
import {
  firewallRuleSchema,
  ibNetworkSchema,
  ibPartitionSchema,
  imageSchema,
  instanceTypeSchema,
  itemsOf,
  kubernetesClusterSchema,
  capacitiesSchema,
  projectQuotasSchema,
  locationsSchema,
  nodePoolSchema,
  sshKeySchema,
  vpcNetworkSchema,
  vpcSubnetSchema,
  asyncOperationSchema,
  diskSchema,
  operationSchema,
  type CrusoeDisk,
  type CrusoeFirewallRule,
  type CrusoeInstance,
  type CrusoeNetwork,
} from './schemas.js';
import { STARTUP_SCRIPT_LIMIT, startupScript } from './startup-script.js';
import { nodeState } from './node-state.js';

export { nodeState };

export const PROVIDER = 'crusoe';
const anything = z.unknown();
/** A rule name kubeplane gave a firewall's rule: `<firewall>-<protocol>-<port|all>[-n]` (`-n`: from the cluster's nodes). */
const RULE_SUFFIX = /-(tcp|udp|icmp)-(all|\d+(?:-\d+)?)(-n)?$/;

/** How the Crusoe provider is built: the access key and secret, project, clock, default SSH key, rate budgets and base URL. */
export interface CrusoeProviderOptions {
  accessKeyId: Redacted<string>;
  secretKey: Redacted<string>;
  projectId: string;
  clock: Clock;
  /** The OpenSSH public key machines get when a request names no ensured key (Crusoe requires one on every VM). */
  /** The key for VMs and node pools whose request names none (the engine always names the cluster's own). */
  sshPublicKey?: string;
  /** Shared budgets; pass the same instance to every provider of a process. */
  budgets?: RateBudgetSource;
  baseUrl?: string;
  /** A source of [0,1) randomness for backoff jitter; pass a seeded one in tests. */
  random?: () => number;
  /** got-level retries for idempotent requests (see CrusoeClientOptions.retries). */
  retries?: number;
}

/** Whose a name is: `<clusterId>` or `<clusterId>-…`. */
export function ownedBy(name: string, clusterId: string): boolean {
  return name === clusterId || name.startsWith(`${clusterId}-`);
}

/** The node pool of a node name `<clusterId>-<pool>-<nn>`. */
export function poolOf(name: string, clusterId: string): string {
  return name.slice(clusterId.length + 1).replace(/-[0-9a-f]{2}$/, '');
}

/** The Crusoe Cloud provider: VMs, VPC networks, firewall rules, SSH keys, InfiniBand partitions and Crusoe Managed Kubernetes. */
export class CrusoeProvider implements Provider {
  readonly name = PROVIDER;
  /**
   * SSH keys are the user's, not a location's or even the project's (`/users/ssh-keys` in
   * reference/crusoe-api-v1-swagger.json): one serves every location. Firewall rules belong to their VPC network.
   */
  readonly capabilities: Capabilities = {
    compute: true,
    network: true,
    dns: false,
    dnsFailover: false,
    attachReservedIpAfterCreate: false,
    managedKubernetes: true,
    reservedIps: false,
    networkWideFirewalls: true,
    scopes: { sshKey: 'project' },
  };
  readonly compute: ComputeApi;
  readonly network: NetworkApi;
  readonly managedKubernetes: ManagedKubernetesApi;
  /** Crusoe-specific: InfiniBand partitions for GPU pools, and CMK AutoClusters. */
  readonly infiniband: {
    /** Creates an InfiniBand partition for a GPU pool, or finds it when it exists. */
    ensurePartition(
      request: { name: string; clusterId: string; region: string; serverType: string },
      context?: CallContext,
    ): Promise<Outcome<{ id: string; name: string; ibNetworkId: string }>>;
    /** Deletes an InfiniBand partition; done when it is gone. */
    deletePartition(ref: ScopedRef, context?: CallContext): Promise<Outcome<void>>;
  };
  readonly client: CrusoeClient;
  readonly managed: CrusoeManagedKubernetes;
  readonly #random: () => number;
  readonly #sshPublicKey: string | undefined;

  constructor(options: CrusoeProviderOptions) {
    const budgets = options.budgets ?? new RateBudgets(options.clock);
    this.client = new CrusoeClient({
      accessKeyId: options.accessKeyId,
      secretKey: options.secretKey,
      projectId: options.projectId,
      clock: options.clock,
      budget: budgets.get(`crusoe:${options.projectId}`, CRUSOE_RATE_LIMIT),
      ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
      ...(options.retries !== undefined ? { retries: options.retries } : {}),
    });
    this.#random = options.random ?? Math.random;
    this.#sshPublicKey = options.sshPublicKey;
    const g = <T>(c: CallContext | undefined, call: () => Promise<Outcome<T>>) => this.#guard(c, call);
    this.compute = {
      createNode: (r, c) => g(c, () => this.#createNode(r)),
      listNodes: (s, c) => g(c, async () => done(await this.#listNodes(s))),
      getNode: (r, c) => g(c, async () => done(await this.#getNode(r))),
      deleteNode: (r, c) => g(c, () => this.#deleteNode(r)),
      // The project's types, each with the locations that offer it: `GET /capacities` lists a capacity per type and
      // location offering it (none where it is not offered), so a GPU type of another data center is caught before a
      // create, and the message can say where it is.
      serverTypes: (_region, c) =>
        g(c, async () => {
          const types = (await this.client.request('GET', this.client.project('compute/vms/types'), itemsOf(instanceTypeSchema))).items;
          const capacities = (await this.client.request('GET', 'capacities', capacitiesSchema)).items;
          const locationsOf = (type: string): string[] => [...new Set(capacities.filter((x) => x.type === type).map((x) => x.location))].sort();
          return done(
            types.map((t) => ({
              name: t.product_name,
              vcpus: t.cpu_cores ?? 0,
              memoryGiB: t.memory_gb ?? 0,
              architecture: t.product_name.startsWith('gb200') ? ('arm64' as const) : ('x86_64' as const),
              ...(t.num_gpu ? { gpus: t.num_gpu } : {}),
              availableIn: locationsOf(t.product_name),
              stockIn: Object.fromEntries(capacities.filter((x) => x.type === t.product_name).map((x) => [x.location, x.quantity])),
              ...withQuota(capacities.find((x) => x.type === t.product_name && x.quota_type)?.quota_type),
            })),
          );
        }),
      // The project's limits; a capacity names the quota type its machines count against (CapacityV1.quota_type).
      quotas: (c) =>
        g(c, async () =>
          done(
            (await this.client.request('GET', this.client.project('quotas'), projectQuotasSchema)).quotas
              .filter((q) => q.type !== undefined && q.max !== undefined)
              .map((q) => ({
                name: q.type ?? '',
                description: q.description ?? q.programmatic_name ?? q.type ?? '',
                max: q.max ?? 0,
                available: q.available ?? q.max ?? 0,
              })),
          ),
        ),
      // Crusoe's locations (`us-east1-a`) are what a manifest's region names.
      regions: (c) => g(c, async () => done((await this.client.request('GET', 'locations', locationsSchema)).items.map((name) => ({ name })))),
      images: (region, c) =>
        g(c, async () =>
          done(
            (await this.client.request('GET', 'compute/images', itemsOf(imageSchema))).items
              .filter((i) => i.locations.length === 0 || i.locations.includes(region))
              .flatMap((i) =>
                (i.tags.length ? i.tags : ['latest']).map((tag) => ({
                  id: `${i.name}:${tag}`,
                  name: `${i.name}:${tag}`,
                  architecture: /arm64|gb200/.test(i.name) ? ('arm64' as const) : ('x86_64' as const),
                  ...(i.description ? { description: i.description } : {}),
                })),
              ),
          ),
        ),
      zones: (region, c) =>
        g(c, async () =>
          done(
            (await this.client.request('GET', 'locations', locationsSchema)).items
              .filter((l) => l === region || l.startsWith(region))
              .map((l) => ({ name: l, region })),
          ),
        ),
    };
    this.network = {
      ensureNetwork: (r, c) => g(c, () => this.#ensureNetwork(r)),
      deleteNetwork: (r, c) => g(c, () => this.#deleteNetwork(r)),
      ensureFirewall: (r, c) => g(c, () => this.#ensureFirewall(r)),
      deleteFirewall: (r, c) => g(c, () => this.#deleteFirewall(r.name)),
      ensureReservedIp: (r) =>
        Promise.reject(
          new KubeplaneError(
            'invalid',
            `crusoe has no standalone reserved IPs: ${r.name} cannot exist before its VM; pass reservedIpName ` +
              `in the node request to give that VM a static public IPv4, or put a load balancer in front`,
            { provider: PROVIDER, code: 'reserved_ip_unsupported', resource: r.name },
          ),
        ),
      attachReservedIp: (ip) =>
        Promise.reject(
          new KubeplaneError('invalid', `crusoe allocates a static public IPv4 with the VM; ${ip.name} cannot be attached afterwards`, {
            provider: PROVIDER,
            code: 'reserved_ip_unsupported',
            resource: ip.name,
          }),
        ),
      // Nothing standalone was ever created, so there is nothing to delete (rule C9).
      deleteReservedIp: () => Promise.resolve(done(undefined)),
      ensureSshKey: (r, c) => g(c, () => this.#ensureSshKey(r)),
      deleteSshKey: (r, c) => g(c, () => this.#deleteSshKey(r.name)),
    };
    this.infiniband = {
      ensurePartition: (r, c) => g(c, async () => done(await this.ensurePartition(r.name, r.region, r.serverType))),
      deletePartition: (r, c) => g(c, () => this.#deletePartition(r.name)),
    };
    this.managed = new CrusoeManagedKubernetes(this.client, {
      guard: (c, call) => this.#guard(c, call),
      findNetwork: (name) => this.#findNetwork(name),
      subnetIn: (network, location) => this.#subnetIn(network, location),
      ensurePartition: (name, location, type) => this.ensurePartition(name, location, type),
      defaultSshPublicKey: (resource) => requireSshKey(this.#sshPublicKey, resource),
    });
    this.managedKubernetes = this.managed.api;
  }

  /** What the provider shows of itself in logs: never a credential. */
  toJSON(): Record<string, unknown> {
    return { provider: PROVIDER, projectId: this.client.projectId, capabilities: this.capabilities };
  }

  listClusterResources(clusterId: string, _region: string, context?: CallContext): Promise<Outcome<TaggedResource[]>> {
    return this.#guard(context, async () => done(await this.#tagged(clusterId)));
  }

  teardownCluster(clusterId: string, _region: string, context?: CallContext): Promise<Outcome<void>> {
    return this.#guard(context, () => this.#teardown(clusterId));
  }

  /** Budget waits, throttles and transient failures become pending; terminal errors propagate. */
  #guard<T>(context: CallContext | undefined, call: () => Promise<Outcome<T>>): Promise<Outcome<T>> {
    return guardedCall(call, context?.attempt ?? 0, this.#random);
  }

  // ---- compute -----------------------------------------------------------------------------------------

  #nodeInfo(vm: CrusoeInstance, clusterId: string, extraLabels: Record<string, string> = {}): NodeInfo {
    const nodepool = poolOf(vm.name, clusterId);
    const ips = vm.network_interfaces[0]?.ips?.[0];
    return {
      name: vm.name,
      id: vm.id,
      providerId: `crusoe://${vm.id}`,
      clusterId,
      nodepool,
      state: nodeState(vm.state),
      region: vm.location,
      zone: vm.location,
      serverType: vm.type,
      ...(ips?.public_ipv4?.address ? { publicIPv4: ips.public_ipv4.address } : {}),
      ...(ips?.private_ipv4?.address ? { privateIPv4: ips.private_ipv4.address } : {}),
      // Crusoe VMs have no labels: the identity labels are derived from the name; caller labels live in the request.
      labels: { ...extraLabels, [CLUSTER_ID_TAG]: clusterId, [NODEPOOL_TAG]: nodepool },
      ...(vm.created_at ? { createdAt: vm.created_at } : {}),
    };
  }

  async #findVm(name: string): Promise<CrusoeInstance | undefined> {
    return (await this.client.listInstances({ names: [name] })).find((v) => v.name === name);
  }

  async #createNode(request: NodeRequest): Promise<Outcome<NodeInfo>> {
    // The manifest rules refuse spot here first; an on-demand machine in its place would be a silent change of price.
    if (request.spot) {
      throw new KubeplaneError('invalid', `node ${request.name}: Crusoe's create-VM request has no spot field; it cannot be made as a spot machine`, {
        provider: PROVIDER,
        code: 'spot_unsupported',
        resource: request.name,
      });
    }
    if (typeof request.userData !== 'string') {
      throw new KubeplaneError('invalid', `node ${request.name}: crusoe takes the startup script as text; send uncompressed user data`, {
        provider: PROVIDER,
        code: 'user_data_binary',
        resource: request.name,
      });
    }
    const limit = USER_DATA_RULES['crusoe']?.limit ?? STARTUP_SCRIPT_LIMIT;
    if (!request.userData.startsWith('#!') && Buffer.byteLength(request.userData) > limit) {
      throw new KubeplaneError(
        'invalid',
        `node ${request.name}: user data is ${Buffer.byteLength(request.userData)} bytes; wrapped into a startup script ` +
          `it would exceed kubeplane's ${STARTUP_SCRIPT_LIMIT}-byte bound for Crusoe (at most ${limit} bytes of user data)`,
        { provider: PROVIDER, code: 'startup_script_too_large', resource: request.name },
      );
    }
    const script = startupScript(request.userData);
    if (Buffer.byteLength(script) > STARTUP_SCRIPT_LIMIT) {
      throw new KubeplaneError(
        'invalid',
        `node ${request.name}: the startup script is ${Buffer.byteLength(script)} bytes, over ` +
          `kubeplane's ${STARTUP_SCRIPT_LIMIT}-byte bound for Crusoe; move large files to a download`,
        { provider: PROVIDER, code: 'startup_script_too_large', resource: request.name },
      );
    }
    if (!ownedBy(request.name, request.clusterId)) {
      throw new KubeplaneError(
        'invalid',
        `node ${request.name}: names must start with the cluster id ${request.clusterId} (Crusoe has no labels; the name is the ownership)`,
        { provider: PROVIDER, code: 'name_not_owned', resource: request.name },
      );
    }
    const existing = await this.#findVm(request.name);
    // The VM this node replaces still holds the name while it is deleted: never adopted, made once it is gone.
    if (existing && beingDeleted(existing)) return pending('dependency', 5, `VM ${request.name} is being deleted; its replacement is created once it is gone`);
    if (existing) return done(this.#nodeInfo(existing, request.clusterId, request.labels));
    const location = request.zone ?? request.region;
    const interfaces: Array<Record<string, unknown>> = [];
    if (request.subnetId) {
      interfaces.push({ subnet: request.subnetId, ips: [{ public_ipv4: { type: request.reservedIpName ? 'static' : 'dynamic' } }] });
    } else if (request.networkName) {
      const network = await this.#findNetwork(request.networkName);
      if (!network)
        throw new KubeplaneError('not-found', `crusoe VPC network ${request.networkName} does not exist; ensure it before the nodes that use it`, {
          provider: PROVIDER,
          code: 'not_found',
          resource: request.networkName,
        });
      const subnet = await this.#subnetIn(network, location);
      interfaces.push({ subnet: subnet.id, ips: [{ public_ipv4: { type: request.reservedIpName ? 'static' : 'dynamic' } }] });
    } else if (request.reservedIpName) {
      const subnet = await this.#defaultSubnet(location);
      interfaces.push({ subnet: subnet.id, ips: [{ public_ipv4: { type: 'static' } }] });
    }
    const hcas = /-ib(\.|$)/.test(request.serverType)
      ? [{ transport_partition_id: (await this.ensurePartition(`${request.clusterId}-${request.nodepool}-ib`, location, request.serverType)).id }]
      : [];
    let disks: Array<Record<string, string>> = [];
    if (request.storageDiskGiB && request.storageDiskGiB > 0) {
      const disk = await this.#ensureDisk(`${request.name}-storage`, location, request.storageDiskGiB);
      if (disk.status === 'pending') return disk;
      disks = [{ disk_id: disk.value.id, mode: 'read-write', attachment_type: 'data' }];
    }
    const sshPublicKey = request.sshKeyName ? await this.#sshPublicKeyOf(request.sshKeyName) : requireSshKey(this.#sshPublicKey, request.name);
    const body = {
      name: request.name,
      type: request.serverType,
      location,
      image: request.image.includes(':') ? request.image : `${request.image}:latest`,
      ssh_public_key: sshPublicKey,
      startup_script: script,
      ...(interfaces.length ? { network_interfaces: interfaces } : {}),
      ...(hcas.length ? { host_channel_adapters: hcas } : {}),
      ...(disks.length ? { disks } : {}),
    };
    // Names are unique per project: a lost response or a concurrent duplicate ends in the adopt branch.
    try {
      await this.client.request('POST', this.client.project('compute/vms/instances'), asyncOperationSchema, { body, resource: request.name });
    } catch (error) {
      if (!(error instanceof KubeplaneError) || error.kind !== 'conflict') throw error;
    }
    const created = await this.#findVm(request.name);
    if (!created) return pending('dependency', 2, `VM ${request.name} was accepted but is not listed yet`);
    if (beingDeleted(created)) return pending('dependency', 5, `VM ${request.name} is being deleted; its replacement is created once it is gone`);
    return done(this.#nodeInfo(created, request.clusterId, request.labels));
  }

  async #listNodes(selector: NodeSelector): Promise<NodeInfo[]> {
    const vms = await this.client.listInstances();
    return vms
      .filter((v) => v.name.startsWith(`${selector.clusterId}-`))
      .map((v) => this.#nodeInfo(v, selector.clusterId))
      .filter(
        (n) =>
          (!selector.nodepool || n.nodepool === selector.nodepool) &&
          (!selector.region || n.region === selector.region || n.region.startsWith(selector.region)),
      )
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  async #getNode(ref: NodeRef): Promise<NodeInfo | null> {
    const vm = await this.#findVm(ref.name);
    if (!vm || !ownedBy(vm.name, ref.clusterId)) return null;
    return this.#nodeInfo(vm, ref.clusterId);
  }

  async #deleteVm(id: string, name: string): Promise<void> {
    try {
      await this.client.request('DELETE', this.client.project(`compute/vms/instances/${id}`), anything, { resource: name });
    } catch (error) {
      if (!(error instanceof KubeplaneError && error.kind === 'not-found')) throw error;
    }
  }

  async #deleteNode(ref: NodeRef): Promise<Outcome<void>> {
    const vm = await this.#findVm(ref.name);
    if (vm && !ownedBy(vm.name, ref.clusterId))
      throw new KubeplaneError('conflict', `crusoe VM ${ref.name} does not belong to cluster ${ref.clusterId}`, {
        provider: PROVIDER,
        code: 'not_owned',
        resource: ref.name,
      });
    if (vm && nodeState(vm.state) !== 'deleting') await this.#deleteVm(vm.id, vm.name);
    // A node's storage disk outlives its VM on Crusoe: it goes once the VM has released it.
    const disk = (await this.#disks()).find((d) => d.name === `${ref.name}-storage`);
    if (!disk) return done(undefined);
    if (disk.attached_to.length > 0) return pending('in-progress', 10, `VM ${ref.name} is being deleted; its storage disk follows`);
    await this.#deleteDisk(disk);
    return done(undefined);
  }

  async #disks(): Promise<CrusoeDisk[]> {
    return (await this.client.request('GET', this.client.project('storage/disks'), itemsOf(diskSchema))).items;
  }

  /** The node's data disk, created once; pending until its create operation has finished. */
  async #ensureDisk(name: string, location: string, sizeGiB: number): Promise<Outcome<CrusoeDisk>> {
    const disk = (await this.#disks()).find((d) => d.name === name);
    if (!disk) {
      try {
        await this.client.request('POST', this.client.project('storage/disks'), asyncOperationSchema, {
          body: { name, type: 'persistent-ssd', size: `${sizeGiB}GiB`, location },
          resource: name,
        });
      } catch (error) {
        if (!(error instanceof KubeplaneError && error.kind === 'conflict')) throw error;
      }
      return pending('in-progress', 5, `storage disk ${name} is being created`);
    }
    const ops = await this.client.request('GET', this.client.project('storage/disks/operations'), itemsOf(operationSchema), {
      query: { resource_id: disk.id },
    });
    const failed = ops.items.find((o) => o.state === 'FAILED');
    if (failed) throw operationError(failed, name);
    if (ops.items.some((o) => o.state === 'IN_PROGRESS')) return pending('in-progress', 5, `storage disk ${name} is being created`);
    if (disk.location && disk.location !== location)
      throw new KubeplaneError('conflict', `crusoe disk ${name} exists in ${disk.location}, not ${location}`, {
        provider: PROVIDER,
        code: 'disk_location',
        resource: name,
      });
    return done(disk);
  }

  async #deleteDisk(disk: CrusoeDisk): Promise<void> {
    try {
      await this.client.request('DELETE', this.client.project(`storage/disks/${disk.id}`), anything, { resource: disk.name });
    } catch (error) {
      if (!(error instanceof KubeplaneError && error.kind === 'not-found')) throw error;
    }
  }

  async #sshPublicKeyOf(name: string): Promise<string> {
    const key = (await this.client.request('GET', 'users/ssh-keys', itemsOf(sshKeySchema))).items.find((k) => k.name === name);
    if (!key)
      throw new KubeplaneError('not-found', `crusoe SSH key ${name} does not exist; ensure it before the nodes that use it`, {
        provider: PROVIDER,
        code: 'not_found',
        resource: name,
      });
    return key.public_key;
  }

  /** Ensures an InfiniBand partition on an IB network of the location with capacity for the type (synchronous API). */
  async ensurePartition(name: string, location: string, serverType: string): Promise<{ id: string; name: string; ibNetworkId: string }> {
    const existing = (await this.client.request('GET', this.client.project('networking/ib-partitions'), itemsOf(ibPartitionSchema))).items.find(
      (p) => p.name === name,
    );
    if (existing) return { id: existing.id, name: existing.name, ibNetworkId: existing.ib_network_id };
    const networks = (await this.client.request('GET', this.client.project('networking/ib-networks'), itemsOf(ibNetworkSchema))).items;
    const network = networks.find((n) => n.location === location && n.capacities.some((c) => c.slice_type === serverType && c.quantity > 0));
    if (!network)
      throw new KubeplaneError('capacity', `crusoe has no InfiniBand network in ${location} with capacity for ${serverType}; choose another location or type`, {
        provider: PROVIDER,
        code: 'no_ib_capacity',
        resource: name,
      });
    try {
      const created = await this.client.request('POST', this.client.project('networking/ib-partitions'), ibPartitionSchema, {
        body: { name, ib_network_id: network.id },
        resource: name,
      });
      return { id: created.id, name: created.name, ibNetworkId: created.ib_network_id };
    } catch (error) {
      if (!(error instanceof KubeplaneError && error.kind === 'conflict')) throw error;
      const again = (await this.client.request('GET', this.client.project('networking/ib-partitions'), itemsOf(ibPartitionSchema))).items.find(
        (p) => p.name === name,
      );
      if (!again) throw error;
      return { id: again.id, name: again.name, ibNetworkId: again.ib_network_id };
    }
  }

  async #deletePartition(name: string): Promise<Outcome<void>> {
    const found = (await this.client.request('GET', this.client.project('networking/ib-partitions'), itemsOf(ibPartitionSchema))).items.find(
      (p) => p.name === name,
    );
    if (!found) return done(undefined);
    try {
      await this.client.request('DELETE', this.client.project(`networking/ib-partitions/${found.id}`), anything, { resource: name });
    } catch (error) {
      if (error instanceof KubeplaneError && error.kind === 'not-found') return done(undefined);
      if (error instanceof KubeplaneError && error.kind === 'conflict') return pending('dependency', 10, `IB partition ${name} is still used by VMs`);
      throw error;
    }
    return done(undefined);
  }

  // ---- network -----------------------------------------------------------------------------------------

  async #networks(): Promise<CrusoeNetwork[]> {
    return (await this.client.request('GET', this.client.project('networking/vpc-networks'), itemsOf(vpcNetworkSchema))).items;
  }

  async #findNetwork(name: string): Promise<CrusoeNetwork | undefined> {
    return (await this.#networks()).find((n) => n.name === name);
  }

  async #subnets() {
    return (await this.client.request('GET', this.client.project('networking/vpc-subnets'), itemsOf(vpcSubnetSchema))).items;
  }

  async #subnetIn(network: CrusoeNetwork, location: string) {
    const subnet = (await this.#subnets()).find((s) => s.vpc_network_id === network.id && s.location === location);
    if (!subnet)
      throw new KubeplaneError('not-found', `crusoe VPC network ${network.name} has no subnet in ${location}; add one to the network request`, {
        provider: PROVIDER,
        code: 'not_found',
        resource: network.name,
      });
    return subnet;
  }

  async #defaultSubnet(location: string) {
    const subnet = (await this.#subnets()).find((s) => s.name === `default-subnet-${location}`);
    if (!subnet)
      throw new KubeplaneError('not-found', `crusoe has no default subnet in ${location}; pass networkName`, {
        provider: PROVIDER,
        code: 'not_found',
        resource: location,
      });
    return subnet;
  }

  async #rules(): Promise<CrusoeFirewallRule[]> {
    return (await this.client.request('GET', this.client.project('networking/vpc-firewall-rules'), itemsOf(firewallRuleSchema))).items;
  }

  async #ensureNetwork(request: NetworkRequest): Promise<Outcome<NetworkInfo>> {
    if (!ownedBy(request.name, request.clusterId))
      throw new KubeplaneError('invalid', `network ${request.name} must start with the cluster id ${request.clusterId}`, {
        provider: PROVIDER,
        code: 'name_not_owned',
        resource: request.name,
      });
    if (request.existingSubnet) return this.#adoptSubnet(request, request.existingSubnet);
    let network = await this.#findNetwork(request.name);
    if (network && network.cidr !== request.cidr) {
      throw new KubeplaneError(
        'invalid',
        `crusoe VPC network ${request.name} exists with range ${network.cidr}, the request asks ` +
          `for ${request.cidr}; a network's range cannot change (delete it, or keep ${network.cidr})`,
        { provider: PROVIDER, code: 'network_cidr_immutable', resource: request.name },
      );
    }
    if (!network) {
      try {
        network = (
          await this.client.request('POST', this.client.project('networking/vpc-networks'), z.object({ network: vpcNetworkSchema }), {
            body: { name: request.name, cidr: request.cidr },
            resource: request.name,
          })
        ).network;
      } catch (error) {
        if (!(error instanceof KubeplaneError && error.kind === 'conflict')) throw error;
        network = await this.#findNetwork(request.name);
        if (!network) return pending('dependency', 2, `VPC network ${request.name} is being created by another call`);
      }
    }
    const existing = await this.#subnets();
    const subnets: NetworkInfo['subnets'] = [];
    for (const [i, s] of request.subnets.entries()) {
      const name = `${request.name}-${i + 1}`;
      const location = s.zone ?? request.region;
      let found = existing.find((x) => x.name === name);
      if (!found) {
        try {
          found = (
            await this.client.request('POST', this.client.project('networking/vpc-subnets'), z.object({ subnet: vpcSubnetSchema }), {
              body: { name, cidr: s.cidr, location, vpc_network_id: network.id, nat_gateway_enabled: true },
              resource: name,
            })
          ).subnet;
        } catch (error) {
          if (!(error instanceof KubeplaneError && error.kind === 'conflict')) throw error;
          return pending('dependency', 2, `subnet ${name} is being created by another call`);
        }
      }
      subnets.push({ id: found.id, cidr: found.cidr, zone: found.location });
    }
    const settling = await this.#ensureVpcRules(request.name, network);
    if (settling > 0) return pending('in-progress', 5, `intra-VPC firewall rules of ${request.name} are being applied`);
    return done({ name: network.name, id: network.id, clusterId: request.clusterId, cidr: network.cidr, subnets });
  }

  /**
   * An existing subnet the manifest names (by id or name, in the request's location): its VPC is used as it is and never
   * deleted (it is not the cluster's); only the intra-VPC and egress rules CMK asks for are added, named after the
   * cluster's network, so teardown removes them with the cluster.
   */
  async #adoptSubnet(request: NetworkRequest, wanted: string): Promise<Outcome<NetworkInfo>> {
    const subnets = await this.#subnets();
    const subnet = subnets.find((s) => s.id === wanted) ?? subnets.find((s) => s.name === wanted && s.location === request.region);
    if (!subnet || subnet.location !== request.region) {
      const here = subnets.filter((s) => s.location === request.region).map((s) => s.name);
      throw new KubeplaneError(
        'not-found',
        `crusoe has no subnet ${wanted} in ${request.region} (providerSpec.subnet names an existing one); ` +
          `${here.length > 0 ? `subnets there: ${here.join(', ')}` : 'the project has no subnet there'}`,
        { provider: PROVIDER, code: 'subnet_not_found', resource: wanted },
      );
    }
    const network = (await this.#networks()).find((n) => n.id === subnet.vpc_network_id);
    if (!network)
      throw new KubeplaneError('not-found', `crusoe subnet ${subnet.name} belongs to VPC network ${subnet.vpc_network_id}, which is not listed`, {
        provider: PROVIDER,
        code: 'not_found',
        resource: subnet.name,
      });
    const settling = await this.#ensureVpcRules(request.name, network);
    if (settling > 0) return pending('in-progress', 5, `intra-VPC firewall rules of ${request.name} are being applied in ${network.name}`);
    return done({
      name: network.name,
      id: network.id,
      clusterId: request.clusterId,
      cidr: network.cidr,
      subnets: [{ id: subnet.id, cidr: subnet.cidr, zone: subnet.location }],
      adopted: true,
    });
  }

  /**
   * A non-default VPC comes without rules, and CMK and kubeadm need the nodes to reach each other: allow intra-VPC
   * traffic and egress, as the CMK docs ask and the Terraform example does. The count of rules still being applied.
   */
  async #ensureVpcRules(name: string, network: CrusoeNetwork): Promise<number> {
    const request = { name };
    const rules = (await this.#rules()).filter((r) => r.vpc_network_id === network.id);
    const wanted = [
      { name: `${request.name}-intra-vpc`, direction: 'ingress', sources: [{ cidr: network.cidr }], destinations: [{ cidr: network.cidr }] },
      { name: `${request.name}-egress`, direction: 'egress', sources: [{ cidr: network.cidr }], destinations: [{ cidr: '0.0.0.0/0' }] },
    ];
    let settling = 0;
    for (const w of wanted) {
      const have = rules.find((r) => r.name === w.name);
      if (have) {
        if (have.state !== 'active') settling += 1;
        continue;
      }
      await this.#createRule({
        vpc_network_id: network.id,
        name: w.name,
        action: 'allow',
        direction: w.direction,
        protocols: ['tcp', 'udp', 'icmp'],
        sources: w.sources,
        source_ports: [],
        destinations: w.destinations,
        destination_ports: [],
      });
      settling += 1;
    }
    return settling;
  }

  async #createRule(body: Record<string, unknown>): Promise<void> {
    try {
      await this.client.request('POST', this.client.project('networking/vpc-firewall-rules'), asyncOperationSchema, { body, resource: String(body['name']) });
    } catch (error) {
      if (!(error instanceof KubeplaneError && error.kind === 'conflict')) throw error;
    }
  }

  async #deleteRule(rule: CrusoeFirewallRule): Promise<void> {
    try {
      await this.client.request('DELETE', this.client.project(`networking/vpc-firewall-rules/${rule.id}`), anything, { resource: rule.name });
    } catch (error) {
      if (!(error instanceof KubeplaneError && error.kind === 'not-found')) throw error;
    }
  }

  async #deleteNetwork(ref: ScopedRef): Promise<Outcome<void>> {
    const network = await this.#findNetwork(ref.name);
    if (!network) {
      // None of that name: the cluster used an existing subnet's VPC, which stays; only its rules there go.
      const own = (await this.#rules()).filter((r) => r.name === `${ref.name}-intra-vpc` || r.name === `${ref.name}-egress`);
      for (const r of own) await this.#deleteRule(r);
      return own.length === 0 ? done(undefined) : pending('in-progress', 5, `deleting the rules of ${ref.name}`);
    }
    const own = (await this.#rules()).filter((r) => r.vpc_network_id === network.id && (r.name === `${ref.name}-intra-vpc` || r.name === `${ref.name}-egress`));
    for (const r of own) await this.#deleteRule(r);
    const subnets = (await this.#subnets()).filter((s) => s.vpc_network_id === network.id);
    for (const s of subnets) {
      try {
        await this.client.request('DELETE', this.client.project(`networking/vpc-subnets/${s.id}`), anything, { resource: s.name });
      } catch (error) {
        if (error instanceof KubeplaneError && error.kind === 'not-found') continue;
        if (error instanceof KubeplaneError && error.kind === 'conflict')
          return pending('dependency', 10, `subnet ${s.name} is still in use (${error.message})`);
        throw error;
      }
    }
    if (subnets.length > 0) return pending('in-progress', 5, `deleting ${subnets.length} subnet(s) of ${ref.name}`);
    try {
      await this.client.request('DELETE', this.client.project(`networking/vpc-networks/${network.id}`), anything, { resource: ref.name });
    } catch (error) {
      if (error instanceof KubeplaneError && error.kind === 'not-found') return done(undefined);
      if (error instanceof KubeplaneError && error.kind === 'conflict') return pending('dependency', 5, `VPC network ${ref.name} is still in use`);
      throw error;
    }
    return pending('in-progress', 5, `VPC network ${ref.name} is being deleted`);
  }

  #ruleKey(firewall: string, r: FirewallRule): string {
    const port = r.port === undefined ? 'all' : typeof r.port === 'number' ? String(r.port) : `${r.port[0]}-${r.port[1]}`;
    return `${firewall}-${r.protocol}-${port}${r.fromClusterNodes ? '-n' : ''}`;
  }

  #ruleFromCrusoe(r: CrusoeFirewallRule, networkCidr: string): FirewallRule {
    const m = RULE_SUFFIX.exec(r.name);
    const fromClusterNodes = m?.[3] === '-n';
    const ports = r.destination_ports[0];
    const [a, b] = (ports ?? '').split('-').map(Number);
    return {
      protocol: (r.protocols[0] ?? 'tcp') as FirewallRule['protocol'],
      ...(ports ? { port: b !== undefined ? ([a ?? 0, b] as const) : (a ?? 0) } : {}),
      sourceCidrs: r.sources.flatMap((s) => (s.cidr ? [s.cidr] : [])).filter((c) => !(fromClusterNodes && c === networkCidr)),
      ...(fromClusterNodes ? { fromClusterNodes } : {}),
    };
  }

  async #ensureFirewall(request: FirewallRequest): Promise<Outcome<FirewallInfo>> {
    if (!ownedBy(request.name, request.clusterId))
      throw new KubeplaneError('invalid', `firewall ${request.name} must start with the cluster id ${request.clusterId}`, {
        provider: PROVIDER,
        code: 'name_not_owned',
        resource: request.name,
      });
    const network = request.networkName ? await this.#findNetwork(request.networkName) : (await this.#networks()).find((n) => n.name === 'default-vpc-network');
    if (!network)
      throw new KubeplaneError(
        'not-found',
        `crusoe VPC network ${request.networkName ?? 'default-vpc-network'} does not exist; ensure it before its firewall`,
        { provider: PROVIDER, code: 'not_found', resource: request.name },
      );
    // Crusoe rules are VPC-wide, one per (protocol, port); they apply to the network's range.
    const wanted = new Map<string, { rule: FirewallRule; sources: Set<string> }>();
    for (const r of request.rules) {
      const key = this.#ruleKey(request.name, r);
      const entry = wanted.get(key) ?? { rule: r, sources: new Set<string>() };
      for (const c of r.sourceCidrs) entry.sources.add(c);
      if (r.fromClusterNodes) entry.sources.add(network.cidr);
      wanted.set(key, entry);
    }
    const mine = (await this.#rules()).filter(
      (r) =>
        r.vpc_network_id === network.id &&
        r.name.startsWith(`${request.name}-`) &&
        RULE_SUFFIX.test(r.name) &&
        r.name.replace(RULE_SUFFIX, '') === request.name,
    );
    let changes = 0;
    let settling = 0;
    for (const r of mine) {
      const w = wanted.get(r.name);
      if (!w) {
        await this.#deleteRule(r);
        changes += 1;
        continue;
      }
      const have = r.sources
        .flatMap((s) => (s.cidr ? [s.cidr] : []))
        .sort()
        .join(',');
      if (have !== [...w.sources].sort().join(',')) {
        await this.client.request('PATCH', this.client.project(`networking/vpc-firewall-rules/${r.id}`), asyncOperationSchema, {
          body: {
            name: r.name,
            protocols: [w.rule.protocol],
            sources: [...w.sources].map((cidr) => ({ cidr })),
            source_ports: [],
            destinations: [{ cidr: network.cidr }],
            destination_ports: r.destination_ports,
          },
          resource: r.name,
        });
        changes += 1;
      } else if (r.state !== undefined && r.state !== 'active') settling += 1;
    }
    for (const [key, w] of wanted) {
      if (mine.some((r) => r.name === key)) continue;
      const port = w.rule.port === undefined ? [] : [typeof w.rule.port === 'number' ? String(w.rule.port) : `${w.rule.port[0]}-${w.rule.port[1]}`];
      await this.#createRule({
        vpc_network_id: network.id,
        name: key,
        action: 'allow',
        direction: 'ingress',
        protocols: [w.rule.protocol],
        sources: [...w.sources].map((cidr) => ({ cidr })),
        source_ports: [],
        destinations: [{ cidr: network.cidr }],
        destination_ports: port,
      });
      changes += 1;
    }
    if (changes + settling > 0) return pending('in-progress', 5, `firewall ${request.name}: ${changes} rule change(s) sent, ${settling} still applying`);
    return done({
      name: request.name,
      id: `${network.id}/${request.name}`,
      clusterId: request.clusterId,
      rules: mine.map((r) => this.#ruleFromCrusoe(r, network.cidr)),
    });
  }

  async #deleteFirewall(name: string): Promise<Outcome<void>> {
    const mine = (await this.#rules()).filter((r) => RULE_SUFFIX.test(r.name) && r.name.replace(RULE_SUFFIX, '') === name);
    for (const r of mine) await this.#deleteRule(r);
    return mine.length === 0 ? done(undefined) : pending('in-progress', 5, `deleting ${mine.length} rule(s) of firewall ${name}`);
  }

  async #ensureSshKey(request: SshKeyRequest): Promise<Outcome<SshKeyInfo>> {
    const keys = (await this.client.request('GET', 'users/ssh-keys', itemsOf(sshKeySchema))).items;
    const existing = keys.find((k) => k.name === request.name);
    if (existing) return done({ name: existing.name, id: existing.id, clusterId: request.clusterId });
    try {
      // CreateSSHKeyResponse (crusoe-api-v1-swagger.json) wraps the new key in `ssh_key`.
      const created = (
        await this.client.request('POST', 'users/ssh-keys', z.object({ ssh_key: sshKeySchema }), {
          body: { name: request.name, public_key: request.publicKey },
          resource: request.name,
        })
      ).ssh_key;
      return done({ name: created.name, id: created.id, clusterId: request.clusterId });
    } catch (error) {
      if (!(error instanceof KubeplaneError && error.kind === 'conflict')) throw error;
      return pending('dependency', 2, `SSH key ${request.name} is being created by another call`);
    }
  }

  async #deleteSshKey(name: string): Promise<Outcome<void>> {
    const found = (await this.client.request('GET', 'users/ssh-keys', itemsOf(sshKeySchema))).items.find((k) => k.name === name);
    if (!found) return done(undefined);
    try {
      await this.client.request('DELETE', 'users/ssh-keys', anything, { query: { id: found.id }, resource: name });
    } catch (error) {
      if (!(error instanceof KubeplaneError && error.kind === 'not-found')) throw error;
    }
    return done(undefined);
  }

  // ---- cluster-wide ------------------------------------------------------------------------------------

  async #tagged(clusterId: string): Promise<TaggedResource[]> {
    const out: TaggedResource[] = [];
    const own = <T extends { name: string }>(items: T[]) => items.filter((i) => ownedBy(i.name, clusterId));
    for (const c of own((await this.client.request('GET', this.client.project('kubernetes/clusters'), itemsOf(kubernetesClusterSchema))).items)) {
      out.push({ kind: 'other', detail: 'managed-cluster', id: c.id, name: c.name });
      for (const p of (await this.client.request('GET', this.client.project('kubernetes/nodepools'), itemsOf(nodePoolSchema), { query: { cluster_id: c.id } }))
        .items)
        out.push({ kind: 'other', detail: 'node-pool', id: p.id, name: p.name });
    }
    for (const v of own(await this.client.listInstances())) out.push({ kind: 'node', id: v.id, name: v.name });
    for (const d of own(await this.#disks())) out.push({ kind: 'other', detail: 'disk', id: d.id, name: d.name });
    for (const r of own(await this.#rules())) out.push({ kind: 'firewall', id: r.id, name: r.name });
    for (const s of own(await this.#subnets())) out.push({ kind: 'subnet', id: s.id, name: s.name });
    for (const n of own(await this.#networks())) out.push({ kind: 'network', id: n.id, name: n.name });
    for (const p of own((await this.client.request('GET', this.client.project('networking/ib-partitions'), itemsOf(ibPartitionSchema))).items))
      out.push({ kind: 'other', detail: 'ib-partition', id: p.id, name: p.name });
    for (const k of own((await this.client.request('GET', 'users/ssh-keys', itemsOf(sshKeySchema))).items))
      out.push({ kind: 'ssh-key', id: k.id, name: k.name });
    return out;
  }

  async #teardown(clusterId: string): Promise<Outcome<void>> {
    const own = <T extends { name: string }>(items: T[]) => items.filter((i) => ownedBy(i.name, clusterId));
    // Managed clusters first (their pools, then the cluster), then VMs, rules, subnets, networks, partitions, keys.
    const clusters = own((await this.client.request('GET', this.client.project('kubernetes/clusters'), itemsOf(kubernetesClusterSchema))).items);
    if (clusters.length > 0) {
      for (const c of clusters) {
        const outcome = await this.managed.deleteClusterById(c);
        if (outcome.status === 'pending' && outcome.reason !== 'in-progress') return outcome;
      }
      return pending('in-progress', 15, `deleting ${clusters.length} managed cluster(s) of ${clusterId}`);
    }
    const vms = own(await this.client.listInstances());
    if (vms.length > 0) {
      for (const v of vms) if (nodeState(v.state) !== 'deleting') await this.#deleteVm(v.id, v.name);
      return pending('in-progress', 10, `deleting ${vms.length} VM(s) of cluster ${clusterId}`);
    }
    const disks = own(await this.#disks());
    if (disks.length > 0) {
      for (const d of disks) await this.#deleteDisk(d);
      return pending('in-progress', 5, `deleting ${disks.length} disk(s) of cluster ${clusterId}`);
    }
    const rules = own(await this.#rules());
    if (rules.length > 0) {
      for (const r of rules) await this.#deleteRule(r);
      return pending('in-progress', 5, `deleting ${rules.length} firewall rule(s) of cluster ${clusterId}`);
    }
    const networks = own(await this.#networks());
    for (const n of networks) {
      const outcome = await this.#deleteNetwork({ clusterId, name: n.name, region: '' });
      if (outcome.status === 'pending' && outcome.reason === 'dependency') return outcome;
    }
    if (networks.length > 0) return pending('in-progress', 5, `deleting ${networks.length} network(s) of cluster ${clusterId}`);
    for (const p of own((await this.client.request('GET', this.client.project('networking/ib-partitions'), itemsOf(ibPartitionSchema))).items)) {
      const outcome = await this.#deletePartition(p.name);
      if (outcome.status === 'pending') return outcome;
    }
    for (const k of own((await this.client.request('GET', 'users/ssh-keys', itemsOf(sshKeySchema))).items)) await this.#deleteSshKey(k.name);
    return done(undefined);
  }
}

/** A VM on its way out (DELETING, or DELETED while still listed). */
function beingDeleted(vm: CrusoeInstance): boolean {
  const state = nodeState(vm.state);
  return state === 'deleting' || state === 'deleted';
}

function requireSshKey(key: string | undefined, resource: string): string {
  if (!key)
    throw new KubeplaneError(
      'invalid',
      `crusoe requires an SSH public key on every VM and node pool; ${resource} names none and the provider has no sshPublicKey`,
      { provider: PROVIDER, code: 'ssh_key_required', resource },
    );
  return key;
}

function withQuota(quota: string | undefined): { quota?: string } {
  return quota === undefined ? {} : { quota };
}
