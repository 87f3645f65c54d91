// The Hetzner Cloud provider: compute (servers) and network (networks, firewalls, primary IPs, SSH keys,
// placement groups) over the typed got + zod client, polite to the project's 3600 requests/hour budget.
import { createHash } from 'node:crypto';
import * as z from 'zod';
import {
  CLUSTER_ID_TAG,
  NODEPOOL_TAG,
  RATE_LIMITS,
  RateBudgetWait,
  RateBudgets,
  type RateBudgetSource,
  done,
  pending,
  forgettingStaleIds,
  guardedCall,
  type CallContext,
  type Capabilities,
  type ComputeApi,
  type FirewallInfo,
  type FirewallRequest,
  type FirewallRule,
  type NetworkApi,
  type NetworkInfo,
  type NetworkRequest,
  type NodeInfo,
  type NodeRef,
  type NodeRequest,
  type NodeSelector,
  type NodeState,
  type Outcome,
  type Provider,
  type ReservedIpInfo,
  type ReservedIpRequest,
  type ScopedRef,
  type ServerTypeInfo,
  type SshKeyInfo,
  type SshKeyRequest,
  type TaggedResource,
} from '@kubeplane/sdk/provider';
import { KubeplaneError, type Clock, type Redacted } from '@kubeplane/sdk';
import { USER_DATA_RULES } from '@kubeplane/sdk/internal';
import { HetznerClient } from './client.js';
import { HetznerDns } from './dns.js';
import {
  firewallSchema,
  imageSchema,
  datacenterSchema,
  locationSchema,
  networkSchema,
  primaryIpSchema,
  serverSchema,
  serverTypeSchema,
  sshKeySchema,
  volumeSchema,
  type HetznerFirewall,
  type HetznerFirewallRule,
  type HetznerServer,
} from './schemas.js';

const PROVIDER = 'hetzner';
const USER_DATA_LIMIT = USER_DATA_RULES['hetzner']?.limit ?? 32_768;
const CLUSTER_NODES_MARK = '[cluster-nodes]';
/** Servers a teardown call deletes at most; the rest on the next call (the delete step's next run). */
export const TEARDOWN_BATCH = 25;

/** How the Hetzner provider is built: the project's API token and name, clock, rate budgets and base URL. */
export interface HetznerProviderOptions {
  /** The project's API token (from a SecretResolver). */
  token: Redacted<string>;
  /** A name for the project, used as the rate-budget key: providers for the same project share one budget. */
  project: string;
  clock: Clock;
  /** Shared budgets; pass the same instance to every provider of a process. */
  budgets?: RateBudgetSource;
  baseUrl?: string;
  /** A source of [0,1) randomness for backoff jitter; pass a seeded one in tests. */
  random?: () => number;
}

const anyObject = z.object({}).passthrough();

/** A node's storage volume: named after its server (volume names are unique per project). */
export function storageVolumeName(node: string): string {
  return `${node}-storage`;
}

/**
 * Hetzner places servers and primary IPs by location (`fsn1`). A zone written as a datacenter (`fsn1-dc14`,
 * Claudie's habit) names a datacenter inside that location; the location is what the API needs.
 */
export function locationOf(region: string, zone: string | undefined): string {
  if (!zone) return region;
  const dc = /^([a-z]+\d*)-dc\d+$/.exec(zone);
  return dc ? (dc[1] ?? region) : zone;
}

/** The MD5 fingerprint Hetzner gives an SSH key: of the key's decoded blob, as colon-separated hex (the API's `fingerprint`). */
export function sshFingerprint(publicKey: string): string {
  const hex = createHash('md5')
    .update(Buffer.from(publicKey.trim().split(/\s+/)[1] ?? '', 'base64'))
    .digest('hex');
  return hex.match(/../g)?.join(':') ?? '';
}

/** The Hetzner Cloud provider: servers, networks, firewalls, primary IPs, SSH keys, placement groups and DNS. */
export class HetznerProvider implements Provider {
  readonly name = PROVIDER;
  /**
   * SSH keys belong to the project, not a location, and the API keeps their fingerprints unique per project (a second
   * upload of the same key under another name is `uniqueness_error`): one key serves every location. Sources: the
   * Cloud API's SSH key schema (`reference/hetzner-cloud-openapi.json`: `fingerprint` filter "the SSH key matching the
   * specified fingerprint"), hetznercloud/terraform-provider-hcloud#12 ("SSH key with the same fingerprint already exists").
   */
  readonly capabilities: Capabilities = {
    compute: true,
    network: true,
    dns: true,
    dnsFailover: false,
    attachReservedIpAfterCreate: false,
    managedKubernetes: false,
    scopes: { sshKey: 'project' },
  };
  readonly compute: ComputeApi;
  readonly network: NetworkApi;
  readonly dns: HetznerDns;
  readonly client: HetznerClient;
  readonly #random: () => number;
  /** name -> id of resources this provider created or saw; ids never change, so lookups are spent once. */
  readonly #ids = new Map<string, number>();

  constructor(options: HetznerProviderOptions) {
    const budgets = options.budgets ?? new RateBudgets(options.clock);
    this.client = new HetznerClient({
      token: options.token,
      budget: budgets.get(`hetzner:${options.project}`, RATE_LIMITS.hetznerProject),
      clock: options.clock,
      ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
    });
    this.#random = options.random ?? Math.random;
    this.dns = new HetznerDns({ client: this.client, guard: (c, f) => this.#guard(c, f) });
    this.compute = {
      createNode: (r, c) => this.#guard(c, () => this.#createNode(r), this.#createRequests(r)),
      listNodes: (s, c) => this.#guard(c, async () => done(await this.#listNodes(s))),
      getNode: (r, c) => this.#guard(c, async () => done(await this.#getNode(r))),
      deleteNode: (r, c) => this.#guard(c, () => this.#deleteNode(r), this.#ids.has(`servers/${r.name}`) ? 1 : 2),
      serverTypes: (_region, c) =>
        this.#guard(c, async () => done((await this.client.list('server_types', 'server_types', serverTypeSchema)).map((t) => serverTypeInfo(t)))),
      // GET /images leaves deprecated images out unless asked (include_deprecated); servers can still be created from
      // them, so preflight sees them and warns instead of refusing.
      images: (_region, c) =>
        this.#guard(c, async () =>
          done(
            (await this.client.list('images', 'images', imageSchema, { type: 'system', include_deprecated: 'true' })).map((i) => ({
              id: String(i.id),
              name: i.name ?? String(i.id),
              description: i.description,
              architecture: i.architecture === 'arm' ? ('arm64' as const) : ('x86_64' as const),
              ...(i.deprecated ? { deprecation: { announced: i.deprecated } } : {}),
            })),
          ),
        ),
      // A pool's region is a Hetzner location (fsn1) and its zone a data center there (fsn1-dc14), as in Claudie.
      zones: (region, c) =>
        this.#guard(c, async () =>
          done(
            (await this.client.list('datacenters', 'datacenters', datacenterSchema))
              .filter((d) => d.location.name === region)
              .map((d) => ({ name: d.name, region: d.location.name })),
          ),
        ),
      regions: (c) => this.#guard(c, async () => done((await this.client.list('locations', 'locations', locationSchema)).map((l) => ({ name: l.name })))),
    };
    this.network = {
      ensureNetwork: (r, c) => this.#guard(c, () => this.#ensureNetwork(r), 2),
      deleteNetwork: (r, c) => this.#guard(c, () => this.#deleteNamed('networks', 'networks', networkSchema, r), 2),
      ensureFirewall: (r, c) => this.#guard(c, () => this.#ensureFirewall(r), r.networkName && r.rules.some((x) => x.fromClusterNodes) ? 3 : 2),
      deleteFirewall: (r, c) => this.#guard(c, () => this.#deleteNamed('firewalls', 'firewalls', firewallSchema, r), 2),
      ensureReservedIp: (r, c) => this.#guard(c, () => this.#ensureReservedIp(r), 2),
      attachReservedIp: (ip, node, c) => this.#guard(c, () => this.#attachReservedIp(ip, node), 2),
      deleteReservedIp: (r, c) => this.#guard(c, () => this.#deleteNamed('primary_ips', 'primary_ips', primaryIpSchema, r), 2),
      ensureSshKey: (r, c) => this.#guard(c, () => this.#ensureSshKey(r), 2),
      deleteSshKey: (r, c) => this.#guard(c, () => this.#deleteNamed('ssh_keys', 'ssh_keys', sshKeySchema, r), 2),
    };
  }

  /** What the provider shows of itself in logs: never the token. */
  toJSON(): Record<string, unknown> {
    return { provider: PROVIDER, capabilities: this.capabilities };
  }

  listClusterResources(clusterId: string, _region: string, context?: CallContext): Promise<Outcome<TaggedResource[]>> {
    return this.#guard(context, async () => done(await this.#tagged(clusterId)));
  }

  teardownCluster(clusterId: string, _region: string, context?: CallContext): Promise<Outcome<void>> {
    return this.#guard(context, () => this.#teardown(clusterId));
  }

  /**
   * Budget waits, throttles and transient failures become pending; terminal errors propagate. A call of
   * several `requests` takes their tokens at once (HetznerClient.prepaid), so it makes progress on a spent budget.
   */
  #guard<T>(context: CallContext | undefined, call: () => Promise<Outcome<T>>, requests = 1): Promise<Outcome<T>> {
    return guardedCall(
      () => this.client.prepaid(requests, () => forgettingStaleIds(call, this.#ids, (e) => e.kind === 'not-found', PROVIDER)),
      context?.attempt ?? 0,
      this.#random,
    );
  }

  /** The create, and a lookup for each id this provider does not know yet. */
  #createRequests(r: NodeRequest): number {
    const ids = [
      ...(r.networkName ? [`networks/${r.networkName}`] : []),
      ...(r.firewallNames ?? []).map((f) => `firewalls/${f}`),
      ...(r.placementGroupName ? [`placement_groups/${r.placementGroupName}`] : []),
      ...(r.reservedIpName ? [`primary_ips/${r.reservedIpName}`] : []),
    ];
    // The storage volume: a lookup by name and its create.
    const volume = r.storageDiskGiB && r.storageDiskGiB > 0 ? 2 : 0;
    return 1 + volume + ids.filter((id) => !this.#ids.has(id)).length;
  }

  #selector(clusterId: string, nodepool?: string): string {
    return `${CLUSTER_ID_TAG}=${clusterId}${nodepool ? `,${NODEPOOL_TAG}=${nodepool}` : ''}`;
  }

  #labels(clusterId: string, extra: Record<string, string> | undefined): Record<string, string> {
    return { ...(extra ?? {}), [CLUSTER_ID_TAG]: clusterId };
  }

  #ownedBy(labels: Record<string, string>, clusterId: string, kind: string, name: string): void {
    if (labels[CLUSTER_ID_TAG] !== clusterId) {
      throw new KubeplaneError(
        'conflict',
        `hetzner ${kind} ${name} exists but belongs to cluster ${labels[CLUSTER_ID_TAG] ?? '(none)'}; choose another cluster id or remove it`,
        { provider: PROVIDER, code: 'name_taken', resource: name },
      );
    }
  }

  async #findByName<S extends z.ZodType>(path: string, key: string, schema: S, name: string): Promise<z.infer<S> | undefined> {
    const [found] = await this.client.list(path, key, schema, { name });
    return found;
  }

  /**
   * Creates a resource whose name must be unique in the project, after a lookup found none. Another call (a
   * duplicate delivery, a lease holder that woke late) may have created it in between: Hetzner then answers
   * uniqueness_error, and `adopt` looks again and takes what is there. If the look finds nothing by that name, the
   * clash is on something else (an SSH key's fingerprint) and `adopt` throws the error it is given.
   */
  async #createNamed<T, R>(
    create: () => Promise<T>,
    created: (t: T) => Outcome<R>,
    adopt: (clash: KubeplaneError) => Promise<Outcome<R>>,
  ): Promise<Outcome<R>> {
    try {
      return created(await create());
    } catch (error) {
      if (!(error instanceof KubeplaneError) || error.details.code !== 'uniqueness_error') throw error;
      return adopt(error);
    }
  }

  async #idOf(path: string, key: string, name: string, kind: string): Promise<number> {
    const cacheKey = `${path}/${name}`;
    const cached = this.#ids.get(cacheKey);
    if (cached !== undefined) return cached;
    const found = (await this.#findByName(path, key, z.object({ id: z.number() }), name)) as { id: number } | undefined;
    if (!found)
      throw new KubeplaneError('not-found', `hetzner ${kind} ${name} does not exist; ensure it before the nodes that use it`, {
        provider: PROVIDER,
        code: 'not_found',
        resource: name,
      });
    this.#ids.set(cacheKey, found.id);
    return found.id;
  }

  #nodeInfo(s: HetznerServer): NodeInfo {
    const state: NodeState =
      s.status === 'running'
        ? 'running'
        : s.status === 'initializing' || s.status === 'starting'
          ? 'pending'
          : s.status === 'deleting'
            ? 'deleting'
            : s.status === 'off'
              ? 'stopped'
              : s.status === 'stopping'
                ? 'stopping'
                : 'unknown';
    return {
      name: s.name,
      id: String(s.id),
      providerId: `hcloud://${s.id}`,
      clusterId: s.labels[CLUSTER_ID_TAG] ?? '',
      nodepool: s.labels[NODEPOOL_TAG] ?? '',
      state,
      region: s.location.name,
      zone: s.location.name,
      serverType: s.server_type.name,
      ...(s.public_net.ipv4 ? { publicIPv4: s.public_net.ipv4.ip } : {}),
      ...(s.private_net[0] ? { privateIPv4: s.private_net[0].ip } : {}),
      labels: s.labels,
      createdAt: s.created,
    };
  }

  async #createNode(request: NodeRequest): Promise<Outcome<NodeInfo>> {
    // The manifest rules refuse spot here first; an on-demand machine in its place would be a silent change of price.
    if (request.spot) {
      throw new KubeplaneError('invalid', `node ${request.name}: Hetzner Cloud has no spot servers; it cannot be made as a spot machine`, {
        provider: PROVIDER,
        code: 'spot_unsupported',
        resource: request.name,
      });
    }
    if (typeof request.userData !== 'string') {
      throw new KubeplaneError(
        'invalid',
        `node ${request.name}: Hetzner takes user data as text, not bytes (packUserData compresses only for providers whose API carries bytes)`,
        { provider: PROVIDER, code: 'user_data_too_large', resource: request.name },
      );
    }
    if (Buffer.byteLength(request.userData) > USER_DATA_LIMIT) {
      throw new KubeplaneError(
        'invalid',
        `node ${request.name}: user data is ${Buffer.byteLength(request.userData)} bytes; Hetzner accepts at most ${USER_DATA_LIMIT} bytes of text`,
        { provider: PROVIDER, code: 'user_data_too_large', resource: request.name },
      );
    }
    const body = {
      name: request.name,
      server_type: request.serverType,
      image: request.image,
      location: locationOf(request.region, request.zone),
      user_data: request.userData,
      labels: { ...(request.labels ?? {}), [CLUSTER_ID_TAG]: request.clusterId, [NODEPOOL_TAG]: request.nodepool },
      start_after_create: true,
      ...(request.sshKeyName ? { ssh_keys: [request.sshKeyName] } : {}),
      ...(request.networkName ? { networks: [await this.#idOf('networks', 'networks', request.networkName, 'network')] } : {}),
      ...(request.firewallNames?.length
        ? { firewalls: await Promise.all(request.firewallNames.map(async (f) => ({ firewall: await this.#idOf('firewalls', 'firewalls', f, 'firewall') }))) }
        : {}),
      ...(request.placementGroupName
        ? { placement_group: await this.#idOf('placement_groups', 'placement_groups', request.placementGroupName, 'placement group') }
        : {}),
      ...(request.reservedIpName
        ? { public_net: { enable_ipv4: true, enable_ipv6: false, ipv4: await this.#idOf('primary_ips', 'primary_ips', request.reservedIpName, 'primary ip') } }
        : { public_net: { enable_ipv4: true, enable_ipv6: false } }),
    };
    // Names are unique per project and the API enforces it, so "create, and adopt on uniqueness_error" is
    // find-before-create without the extra call on the happy path: a lost response or a duplicate delivery
    // ends in the adopt branch, never in a second server.
    try {
      const created = await this.client.request('POST', 'servers', z.object({ server: serverSchema }), { body, resource: request.name });
      this.#ids.set(`servers/${request.name}`, created.server.id);
      const volume = await this.#ensureStorageVolume(request, created.server.id);
      if (volume) return volume;
      return done(this.#nodeInfo(created.server));
    } catch (error) {
      if (!(error instanceof KubeplaneError) || error.details.code !== 'uniqueness_error') throw this.#withResource(error, request.name);
      const existing = await this.#findByName('servers', 'servers', serverSchema, request.name);
      if (!existing) return pending('dependency', 2, `server ${request.name} is being created by another call`);
      this.#ownedBy(existing.labels, request.clusterId, 'server', request.name);
      // The machine this node replaces still holds the name while it is deleted: never adopted, made once it is gone.
      if (existing.status === 'deleting')
        return pending('dependency', 5, `server ${request.name} is being deleted; its replacement is created once it is gone`);
      this.#ids.set(`servers/${request.name}`, existing.id);
      const volume = await this.#ensureStorageVolume(request, existing.id);
      if (volume) return volume;
      return done(this.#nodeInfo(existing));
    }
  }

  /**
   * The node's storage disk (NodeRequest.storageDiskGiB) as a Hetzner volume named `<node>-storage`, labelled like the
   * server, created attached to it (POST /volumes with `server`). ext4 from the API (`format`), so the node finds a
   * filesystem; `automount: false`, because the node mounts it itself at Claudie's /opt/claudie/data by its
   * filesystem UUID (docs/bootstrap.md), where automount would put it under /mnt. A volume of that name left detached
   * (a server made again after a crash) is attached rather than made twice. Pending while it cannot be done yet.
   */
  async #ensureStorageVolume(request: NodeRequest, serverId: number): Promise<Outcome<NodeInfo> | undefined> {
    const size = request.storageDiskGiB ?? 0;
    if (size <= 0) return undefined;
    const name = storageVolumeName(request.name);
    const labels = { ...(request.labels ?? {}), [CLUSTER_ID_TAG]: request.clusterId, [NODEPOOL_TAG]: request.nodepool };
    const existing = await this.#findByName('volumes', 'volumes', volumeSchema, name);
    if (existing) {
      this.#ownedBy(existing.labels, request.clusterId, 'volume', name);
      if (existing.server === serverId) return undefined;
      if (existing.server !== null) return pending('dependency', 5, `volume ${name} is still attached to the server this node replaces`);
      await this.client.request('POST', `volumes/${existing.id}/actions/attach`, anyObject, { body: { server: serverId, automount: false }, resource: name });
      return undefined;
    }
    try {
      await this.client.request('POST', 'volumes', anyObject, {
        body: { name, size, server: serverId, format: 'ext4', automount: false, labels },
        resource: name,
      });
    } catch (error) {
      if (!(error instanceof KubeplaneError) || error.details.code !== 'uniqueness_error') throw this.#withResource(error, name);
      return pending('dependency', 2, `volume ${name} is being created by another call`);
    }
    return undefined;
  }

  /**
   * A deleted node's storage volume goes with it: DELETE /servers detaches it ("Volumes ... are detached"), and a
   * volume can be deleted only once detached (DELETE /volumes/{id}: "must not be attached to a Server"). Pending while
   * it is still attached; done when there is none.
   */
  async #deleteStorageVolume(ref: NodeRef): Promise<Outcome<void>> {
    const name = storageVolumeName(ref.name);
    const volume = await this.#findByName('volumes', 'volumes', volumeSchema, name);
    if (!volume) return done(undefined);
    this.#ownedBy(volume.labels, ref.clusterId, 'volume', name);
    if (volume.server !== null) {
      await this.client.request('POST', `volumes/${volume.id}/actions/detach`, anyObject, { resource: name });
      return pending('in-progress', 3, `volume ${name} is being detached from ${ref.name} before it is deleted`);
    }
    return this.#deleteId('volumes', volume.id, name);
  }

  #withResource(error: unknown, resource: string): unknown {
    if (error instanceof KubeplaneError && !error.details.resource) return new KubeplaneError(error.kind, error.message, { ...error.details, resource });
    return error;
  }

  async #listNodes(selector: NodeSelector): Promise<NodeInfo[]> {
    const servers = await this.client.list('servers', 'servers', serverSchema, { label_selector: this.#selector(selector.clusterId, selector.nodepool) });
    for (const s of servers) this.#ids.set(`servers/${s.name}`, s.id);
    // The project's servers are listed from every location (the API has no location filter): a region's listing
    // keeps that location's (or, for a network zone, its locations'), so a cluster over fsn1 and nbg1 gets each once.
    const inRegion = (s: HetznerServer) => !selector.region || s.location.name === selector.region || s.location.network_zone === selector.region;
    return servers
      .filter(inRegion)
      .map((s) => this.#nodeInfo(s))
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  async #getNode(ref: NodeRef): Promise<NodeInfo | null> {
    const found = await this.#findByName('servers', 'servers', serverSchema, ref.name);
    if (!found || found.labels[CLUSTER_ID_TAG] !== ref.clusterId) return null;
    return this.#nodeInfo(found);
  }

  async #deleteNode(ref: NodeRef): Promise<Outcome<void>> {
    let id = this.#ids.get(`servers/${ref.name}`);
    if (id === undefined) {
      const found = await this.#findByName('servers', 'servers', serverSchema, ref.name);
      if (!found) return this.#deleteStorageVolume(ref);
      this.#ownedBy(found.labels, ref.clusterId, 'server', ref.name);
      id = found.id;
    }
    try {
      await this.client.request('DELETE', `servers/${id}`, anyObject, { resource: ref.name });
    } catch (error) {
      if (!(error instanceof KubeplaneError && error.kind === 'not-found')) throw error;
    }
    this.#ids.delete(`servers/${ref.name}`);
    return this.#deleteStorageVolume(ref);
  }

  async #ensureNetwork(request: NetworkRequest, clash?: KubeplaneError): Promise<Outcome<NetworkInfo>> {
    const info = (n: z.infer<typeof networkSchema>): NetworkInfo => ({
      name: n.name,
      id: String(n.id),
      clusterId: n.labels[CLUSTER_ID_TAG] ?? '',
      cidr: n.ip_range,
      subnets: n.subnets.map((s, i) => ({ id: `${n.id}-${i}`, cidr: s.ip_range, zone: s.network_zone })),
    });
    const existing = await this.#findByName('networks', 'networks', networkSchema, request.name);
    if (existing) {
      this.#ownedBy(existing.labels, request.clusterId, 'network', request.name);
      this.#ids.set(`networks/${request.name}`, existing.id);
      return done(info(existing));
    }
    const zone = request.region === 'ash' ? 'us-east' : request.region === 'hil' ? 'us-west' : request.region === 'sin' ? 'ap-southeast' : 'eu-central';
    if (clash) throw clash;
    return this.#createNamed(
      () =>
        this.client.request('POST', 'networks', z.object({ network: networkSchema }), {
          resource: request.name,
          body: {
            name: request.name,
            ip_range: request.cidr,
            labels: this.#labels(request.clusterId, request.labels),
            subnets: request.subnets.map((s) => ({ type: 'cloud', ip_range: s.cidr, network_zone: zone })),
          },
        }),
      (created) => {
        this.#ids.set(`networks/${request.name}`, created.network.id);
        return done(info(created.network));
      },
      (error) => this.#ensureNetwork(request, error),
    );
  }

  #toHetznerRules(rules: FirewallRule[], clusterCidr: string | undefined): HetznerFirewallRule[] {
    return rules.map((r) => {
      const sources = [...r.sourceCidrs, ...(r.fromClusterNodes && clusterCidr ? [clusterCidr] : [])];
      const port = r.port === undefined ? null : typeof r.port === 'number' ? String(r.port) : `${r.port[0]}-${r.port[1]}`;
      return {
        direction: 'in' as const,
        protocol: r.protocol,
        port,
        source_ips: sources,
        description: `${r.description ?? ''}${r.fromClusterNodes ? ` ${CLUSTER_NODES_MARK}` : ''}`.trim() || null,
      };
    });
  }

  #fromHetznerRules(f: HetznerFirewall, clusterCidr: string | undefined): FirewallRule[] {
    return f.rules
      .filter((r) => r.direction === 'in')
      .map((r) => {
        const fromClusterNodes = (r.description ?? '').includes(CLUSTER_NODES_MARK);
        const description = (r.description ?? '').replace(CLUSTER_NODES_MARK, '').trim();
        const [a, b] = (r.port ?? '').split('-').map(Number);
        return {
          protocol: r.protocol as FirewallRule['protocol'],
          ...(r.port ? { port: b !== undefined ? ([a ?? 0, b] as const) : (a ?? 0) } : {}),
          sourceCidrs: (r.source_ips ?? []).filter((s) => !(fromClusterNodes && s === clusterCidr)),
          ...(fromClusterNodes ? { fromClusterNodes } : {}),
          ...(description ? { description } : {}),
        };
      });
  }

  async #ensureFirewall(request: FirewallRequest, clash?: KubeplaneError): Promise<Outcome<FirewallInfo>> {
    let clusterCidr: string | undefined;
    if (request.networkName && request.rules.some((r) => r.fromClusterNodes)) {
      clusterCidr = (await this.#findByName('networks', 'networks', networkSchema, request.networkName))?.ip_range;
    }
    const wanted = this.#toHetznerRules(request.rules, clusterCidr);
    const info = (f: HetznerFirewall): FirewallInfo => ({
      name: f.name,
      id: String(f.id),
      clusterId: f.labels[CLUSTER_ID_TAG] ?? '',
      rules: this.#fromHetznerRules(f, clusterCidr),
    });
    const existing = await this.#findByName('firewalls', 'firewalls', firewallSchema, request.name);
    if (existing) {
      this.#ownedBy(existing.labels, request.clusterId, 'firewall', request.name);
      this.#ids.set(`firewalls/${request.name}`, existing.id);
      const canon = (rules: HetznerFirewallRule[]) =>
        JSON.stringify(rules.map((r) => [r.direction, r.protocol, r.port ?? null, [...(r.source_ips ?? [])].sort(), r.description ?? null]).sort());
      if (canon(existing.rules) !== canon(wanted)) {
        await this.client.request('POST', `firewalls/${existing.id}/actions/set_rules`, anyObject, { body: { rules: wanted }, resource: request.name });
        return done(info({ ...existing, rules: wanted }));
      }
      return done(info(existing));
    }
    if (clash) throw clash;
    return this.#createNamed(
      () =>
        this.client.request('POST', 'firewalls', z.object({ firewall: firewallSchema }), {
          resource: request.name,
          body: { name: request.name, labels: this.#labels(request.clusterId, request.labels), rules: wanted },
        }),
      (created) => {
        this.#ids.set(`firewalls/${request.name}`, created.firewall.id);
        return done(info(created.firewall));
      },
      (error) => this.#ensureFirewall(request, error),
    );
  }

  #ipInfo(p: z.infer<typeof primaryIpSchema>): ReservedIpInfo {
    return {
      name: p.name,
      id: String(p.id),
      clusterId: p.labels[CLUSTER_ID_TAG] ?? '',
      ip: p.ip,
      ...(p.assignee_id !== null ? { attachedTo: `hcloud://${p.assignee_id}` } : {}),
    };
  }

  async #ensureReservedIp(request: ReservedIpRequest, clash?: KubeplaneError): Promise<Outcome<ReservedIpInfo>> {
    const existing = await this.#findByName('primary_ips', 'primary_ips', primaryIpSchema, request.name);
    if (existing) {
      this.#ownedBy(existing.labels, request.clusterId, 'primary ip', request.name);
      this.#ids.set(`primary_ips/${request.name}`, existing.id);
      return done(this.#ipInfo(existing));
    }
    if (clash) throw clash;
    return this.#createNamed(
      () =>
        this.client.request('POST', 'primary_ips', z.object({ primary_ip: primaryIpSchema }), {
          resource: request.name,
          body: {
            name: request.name,
            type: 'ipv4',
            assignee_type: 'server',
            location: locationOf(request.region, request.zone),
            auto_delete: false,
            labels: this.#labels(request.clusterId, request.labels),
          },
        }),
      (created) => {
        this.#ids.set(`primary_ips/${request.name}`, created.primary_ip.id);
        return done(this.#ipInfo(created.primary_ip));
      },
      (error) => this.#ensureReservedIp(request, error),
    );
  }

  async #attachReservedIp(ip: ScopedRef, node: NodeRef): Promise<Outcome<ReservedIpInfo>> {
    const found = await this.#findByName('primary_ips', 'primary_ips', primaryIpSchema, ip.name);
    if (!found)
      throw new KubeplaneError('not-found', `hetzner primary ip ${ip.name} does not exist`, { provider: PROVIDER, code: 'not_found', resource: ip.name });
    const server = await this.#findByName('servers', 'servers', serverSchema, node.name);
    if (!server) return pending('dependency', 5, `server ${node.name} does not exist yet`);
    if (found.assignee_id === server.id) return done(this.#ipInfo(found));
    throw new KubeplaneError(
      'invalid',
      `hetzner assigns a primary IP when the server is created: pass reservedIpName=${ip.name} in the node request for ${node.name}`,
      { provider: PROVIDER, code: 'attach_after_create_unsupported', resource: node.name },
    );
  }

  async #ensureSshKey(request: SshKeyRequest, clash?: KubeplaneError): Promise<Outcome<SshKeyInfo>> {
    const info = (k: z.infer<typeof sshKeySchema>): SshKeyInfo => ({
      name: k.name,
      id: String(k.id),
      clusterId: k.labels[CLUSTER_ID_TAG] ?? '',
      fingerprint: k.fingerprint,
    });
    const existing = await this.#findByName('ssh_keys', 'ssh_keys', sshKeySchema, request.name);
    if (existing) {
      this.#ownedBy(existing.labels, request.clusterId, 'ssh key', request.name);
      return done(info(existing));
    }
    if (clash) {
      // Not a name clash: the project holds this very key under another name (the project keeps fingerprints unique).
      // The cluster's own key under an earlier name (one made per location before keys were made once per project)
      // is taken as it is; anyone else's is not ours to use or delete.
      const [same] = await this.client.list('ssh_keys', 'ssh_keys', sshKeySchema, { fingerprint: sshFingerprint(request.publicKey) });
      if (!same) throw clash;
      if (same.labels[CLUSTER_ID_TAG] !== request.clusterId) {
        throw new KubeplaneError(
          'conflict',
          `hetzner SSH key ${request.name}: the project already holds this public key as ${same.name}, ` +
            `which is not cluster ${request.clusterId}'s; remove it or give the cluster its own key`,
          { provider: PROVIDER, code: 'uniqueness_error', resource: request.name },
        );
      }
      return done(info(same));
    }
    return this.#createNamed(
      () =>
        this.client.request('POST', 'ssh_keys', z.object({ ssh_key: sshKeySchema }), {
          resource: request.name,
          body: { name: request.name, public_key: request.publicKey, labels: this.#labels(request.clusterId, request.labels) },
        }),
      (created) => done(info(created.ssh_key)),
      (error) => this.#ensureSshKey(request, error),
    );
  }

  async #deleteNamed<S extends z.ZodType>(path: string, key: string, schema: S, ref: ScopedRef): Promise<Outcome<void>> {
    const found = (await this.#findByName(path, key, schema, ref.name)) as { id: number; labels: Record<string, string> } | undefined;
    if (!found) {
      this.#ids.delete(`${path}/${ref.name}`);
      return done(undefined);
    }
    this.#ownedBy(found.labels, ref.clusterId, path, ref.name);
    return this.#deleteId(path, found.id, ref.name);
  }

  async #deleteId(path: string, id: number, name: string): Promise<Outcome<void>> {
    try {
      await this.client.request('DELETE', `${path}/${id}`, z.unknown(), { resource: name });
    } catch (error) {
      if (error instanceof KubeplaneError && error.kind === 'not-found') return done(undefined);
      if (error instanceof KubeplaneError && error.kind === 'conflict' && (error.details.code === 'resource_in_use' || error.details.code === 'conflict')) {
        return pending('dependency', 5, `${name} is still in use (${error.message}); deleting again after what uses it is gone`);
      }
      throw error;
    }
    this.#ids.delete(`${path}/${name}`);
    return done(undefined);
  }

  async #tagged(clusterId: string): Promise<TaggedResource[]> {
    const selector = { label_selector: this.#selector(clusterId) };
    const item = z.object({ id: z.number(), name: z.string() });
    const kinds: Array<[string, TaggedResource['kind']]> = [
      ['servers', 'node'],
      ['volumes', 'volume'],
      ['primary_ips', 'reserved-ip'],
      ['firewalls', 'firewall'],
      ['ssh_keys', 'ssh-key'],
      ['placement_groups', 'placement-group'],
      ['networks', 'network'],
    ];
    const out: TaggedResource[] = [];
    for (const [path, kind] of kinds) {
      for (const r of await this.client.list(path, path, item, selector)) out.push({ kind, id: String(r.id), name: r.name });
    }
    for (const r of await this.dns.tagged(clusterId)) out.push({ kind: 'dns-record', id: `${r.zone}/${r.name}/${r.type}`, name: r.name });
    return out;
  }

  async #teardown(clusterId: string): Promise<Outcome<void>> {
    const selector = { label_selector: this.#selector(clusterId) };
    const item = z.object({ id: z.number(), name: z.string() });
    // Dependency order: servers first (they hold IPs, firewalls and network attachments). A bounded batch per
    // call, as far as the budget goes: one run of the step stays short, and the rest goes on the next run.
    const servers = await this.client.list('servers', 'servers', item.extend({ status: z.string().optional() }), selector);
    if (servers.length > 0) {
      let deleted = 0;
      for (const s of servers.filter((x) => x.status !== 'deleting').slice(0, TEARDOWN_BATCH)) {
        try {
          await this.#deleteId('servers', s.id, s.name);
        } catch (error) {
          if (error instanceof RateBudgetWait && deleted > 0)
            return pending(
              'rate-budget',
              error.retryAfterSeconds,
              `deleted ${deleted} of ${servers.length} server(s) of cluster ${clusterId}; the rest when the rate budget allows`,
            );
          throw error;
        }
        deleted += 1;
      }
      return pending('in-progress', 5, `deleting ${servers.length} server(s) of cluster ${clusterId} (${deleted} in this call, at most ${TEARDOWN_BATCH})`);
    }
    for (const record of await this.dns.tagged(clusterId)) await this.dns.deleteTagged(record);
    let waiting = 0;
    // Volumes after their servers: a deleted server's volumes are detached, and only a detached volume can be deleted.
    for (const v of await this.client.list('volumes', 'volumes', volumeSchema, selector)) {
      if (v.server !== null) {
        await this.client.request('POST', `volumes/${v.id}/actions/detach`, anyObject, { resource: v.name });
        waiting += 1;
        continue;
      }
      if ((await this.#deleteId('volumes', v.id, v.name)).status === 'pending') waiting += 1;
    }
    for (const path of ['primary_ips', 'firewalls', 'ssh_keys', 'placement_groups', 'networks']) {
      for (const r of await this.client.list(path, path, item, selector)) {
        const outcome = await this.#deleteId(path, r.id, r.name);
        if (outcome.status === 'pending') waiting += 1;
      }
    }
    if (waiting > 0) return pending('dependency', 5, `${waiting} resource(s) of cluster ${clusterId} are still in use`);
    return done(undefined);
  }
}

/** A server type with its per-location support and deprecation (`server_types[].locations`, the current fields). */
function serverTypeInfo(t: z.infer<typeof serverTypeSchema>): ServerTypeInfo {
  const info: ServerTypeInfo = { name: t.name, vcpus: t.cores, memoryGiB: t.memory, architecture: t.architecture === 'arm' ? 'arm64' : 'x86_64' };
  const deprecation = (d: { announced: string; unavailable_after: string }) => ({ announced: d.announced, unavailableAfter: d.unavailable_after });
  if (t.locations) {
    info.availableIn = t.locations.map((l) => l.name);
    const per = Object.fromEntries(t.locations.flatMap((l) => (l.deprecation ? [[l.name, deprecation(l.deprecation)]] : [])));
    if (Object.keys(per).length > 0) info.deprecationIn = per;
  } else if (t.deprecation) {
    info.deprecation = deprecation(t.deprecation);
  }
  return info;
}
