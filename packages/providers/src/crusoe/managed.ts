// Crusoe Managed Kubernetes (CMK) behind the contract's ManagedKubernetesApi: clusters from the provider's version
// list with their add-ons, node pools (every PATCH sends the current count; scale-down lowers the count, then
// deletes the VMs the engine chose), the admin kubeconfig, and AutoClusters remediation settings.
import * as z from 'zod';
import { KubeplaneError } from '@kubeplane/sdk';
import { autoclustersConfigSchema, compareCmkVersions, parseCmkVersion } from '@kubeplane/sdk/internal';
import {
  done,
  isPending,
  pending,
  type CallContext,
  type ManagedClusterConfig,
  type ManagedClusterConfigResult,
  type ManagedClusterKubernetes,
  type ManagedClusterInfo,
  type ManagedClusterRequest,
  type ManagedKubernetesApi,
  type ManagedNodeInfo,
  type ManagedNodePoolInfo,
  type ManagedNodePoolRequest,
  type ManagedVersions,
  type Outcome,
  type ScopedRef,
} from '@kubeplane/sdk/provider';
import { operationError, type CrusoeClient } from './client.js';
import { reconcileCmkInCluster } from './cmk-in-cluster.js';
import { nodeState } from './node-state.js';
import {
  asyncOperationSchema,
  autoClustersConfigSchema,
  credentialsSchema,
  instanceSchema,
  itemsOf,
  kubernetesClusterSchema,
  nodePoolSchema,
  operationSchema,
  plainState,
  versionsSchema,
  type CrusoeCluster,
  type CrusoeNetwork,
  type CrusoeNodePool,
} from './schemas.js';

const PROVIDER = 'crusoe';
const anything = z.unknown();

/** What CMK borrows from the Crusoe provider: its guard, networks, subnets, partitions and default SSH key. */
export interface ManagedDeps {
  /** Runs a call under the provider's guard: budget waits, throttles and transient failures become pending. */
  guard<T>(context: CallContext | undefined, call: () => Promise<Outcome<T>>): Promise<Outcome<T>>;
  /** The VPC network of this name, if there is one. */
  findNetwork(name: string): Promise<CrusoeNetwork | undefined>;
  /** The subnet of the network in a location. */
  subnetIn(network: CrusoeNetwork, location: string): Promise<{ id: string }>;
  /** The InfiniBand partition of this name, made when missing. */
  ensurePartition(name: string, location: string, serverType: string): Promise<{ id: string }>;
  /** The SSH public key for node pools whose request names none. */
  defaultSshPublicKey(resource: string): string;
}

/** What Crusoe's AutoClusters does about a node with a hardware issue: replace it, or nothing. */
export type RemediationAction = 'REPLACE_NODE' | 'OFF';

/** A project's AutoClusters settings: per-issue remediation and whether to fall back to project reservations. */
export interface AutoClustersSettings {
  /** Per-issue overrides (`XID_74`, `GPU_FELL_OFF_THE_BUS`, …); issues not named fall back to Crusoe's default. */
  overrides: Record<string, RemediationAction>;
  fallbackToProjectReservations?: boolean;
}

const ownedBy = (name: string, clusterId: string) => name === clusterId || name.startsWith(`${clusterId}-`);

/** Crusoe Managed Kubernetes: clusters, node pools, versions and kubeconfigs through Crusoe's API. */
export class CrusoeManagedKubernetes {
  readonly api: ManagedKubernetesApi;
  readonly #client: CrusoeClient;
  readonly #deps: ManagedDeps;

  constructor(client: CrusoeClient, deps: ManagedDeps) {
    this.#client = client;
    this.#deps = deps;
    const g = deps.guard;
    this.api = {
      ensureCluster: (r, c) => g(c, () => this.#ensureCluster(r)),
      deleteCluster: (r, c) =>
        g(c, async () => {
          const cluster = await this.findCluster(r.name);
          return cluster ? this.deleteClusterById(cluster) : done(undefined);
        }),
      ensureNodePool: (r, c) => g(c, () => this.#ensureNodePool(r)),
      deleteNodePool: (r, c) => g(c, () => this.#deleteNodePool(r)),
      kubeconfig: (r, c) => g(c, () => this.#kubeconfig(r)),
      versions: (_region, c) => g(c, async () => done(await this.#versions())),
      listNodePoolNodes: (cluster, pool, c) => g(c, () => this.#listPoolNodes(cluster, pool)),
      configureCluster: (r, k8s, c) => g(c, () => this.#configureCluster(r, k8s, c)),
    };
  }

  /** AutoClusters remediation settings of a running cluster (`ref.name` = the managed cluster's name). */
  autoClusters(ref: ScopedRef, context?: CallContext): Promise<Outcome<z.infer<typeof autoClustersConfigSchema>>> {
    return this.#deps.guard(context, async () => {
      const cluster = await this.#requireCluster(ref.name);
      return done(
        await this.#client.request('GET', this.#client.project(`kubernetes/clusters/${cluster.id}/autoclusters/config`), autoClustersConfigSchema, {
          resource: ref.name,
        }),
      );
    });
  }

  /** Brings the per-issue overrides to exactly `settings.overrides` (others removed), in one PATCH when anything differs. */
  configureAutoClusters(ref: ScopedRef, settings: AutoClustersSettings, context?: CallContext): Promise<Outcome<z.infer<typeof autoClustersConfigSchema>>> {
    return this.#deps.guard(context, async () => {
      const cluster = await this.#requireCluster(ref.name);
      const path = this.#client.project(`kubernetes/clusters/${cluster.id}/autoclusters/config`);
      const current = await this.#client.request('GET', path, autoClustersConfigSchema, { resource: ref.name });
      const have = Object.fromEntries(current.remediation_configs.filter((r) => r.user_override).map((r) => [r.issue_name, r.user_override]));
      const set = Object.entries(settings.overrides)
        .filter(([issue, action]) => have[issue] !== action)
        .map(([issue_name, action]) => ({ issue_name, action }));
      const remove = Object.keys(have).filter((issue) => !(issue in settings.overrides));
      const fallback = settings.fallbackToProjectReservations;
      if (set.length === 0 && remove.length === 0 && (fallback === undefined || fallback === current.fallback_to_project_reservations)) return done(current);
      return done(
        await this.#client.request('PATCH', path, autoClustersConfigSchema, {
          resource: ref.name,
          body: {
            fallback_to_project_reservations: fallback ?? current.fallback_to_project_reservations ?? false,
            set_remediation_overrides: set,
            remove_remediation_overrides: remove,
          },
        }),
      );
    });
  }

  /**
   * The `--nodes` limits of the autoscaler CMK installed at creation (one kubeplane installed carries them in its
   * values), then AutoClusters remediation when the manifest lists the `autoclusters` add-on (CMK's defaults are left
   * alone otherwise). CMK's `cmk-<cluster>` Secret is its own scoped token: never written.
   */
  async #configureCluster(
    request: ManagedClusterConfig,
    kubernetes: ManagedClusterKubernetes,
    context: CallContext | undefined,
  ): Promise<Outcome<ManagedClusterConfigResult>> {
    const changed: string[] = [];
    // Only CMK's own autoscaler (installed at creation, as the cluster's add_ons say) is configured here.
    const cluster = await this.#requireCluster(request.name);
    const autoscaled = request.addons.some((a) => a.name === 'cluster_autoscaler') && cluster.add_ons.includes('cluster_autoscaler');
    const inCluster = await reconcileCmkInCluster(kubernetes, autoscaled ? { autoscaler: request.autoscaler } : {});
    if (isPending(inCluster)) return inCluster;
    if (inCluster.value.autoscalerUpdated) changed.push('cluster-autoscaler --nodes limits');
    const autoclusters = request.addons.find((a) => a.name === 'autoclusters');
    if (autoclusters) {
      const parsed = autoclustersConfigSchema.safeParse(autoclusters.config ?? {});
      if (!parsed.success)
        throw new KubeplaneError('invalid', `the autoclusters add-on's config: ${parsed.error.issues[0]?.message ?? 'invalid'}`, {
          provider: PROVIDER,
          code: 'bad_addon_config',
          resource: request.name,
        });
      const want = parsed.data;
      const before = await this.autoClusters({ clusterId: request.clusterId, name: request.name, region: request.region }, context);
      if (isPending(before)) return before;
      const overrides = Object.fromEntries(Object.entries(want.remediation ?? {}).filter((e): e is [string, RemediationAction] => e[1] !== undefined));
      const after = await this.configureAutoClusters(
        { clusterId: request.clusterId, name: request.name, region: request.region },
        { overrides, ...(want.fallbackToProjectReservations !== undefined ? { fallbackToProjectReservations: want.fallbackToProjectReservations } : {}) },
        context,
      );
      if (isPending(after)) return after;
      if (JSON.stringify(after.value) !== JSON.stringify(before.value)) changed.push('AutoClusters remediation');
    }
    return done({ changed });
  }

  /** The CMK cluster of this name, if there is one. */
  async findCluster(name: string): Promise<CrusoeCluster | undefined> {
    const listed = await this.#client.request('GET', this.#client.project('kubernetes/clusters'), itemsOf(kubernetesClusterSchema), {
      query: { cluster_name: name },
    });
    return listed.items.find((c) => c.name === name);
  }

  async #requireCluster(name: string): Promise<CrusoeCluster> {
    const cluster = await this.findCluster(name);
    if (!cluster)
      throw new KubeplaneError('not-found', `crusoe Kubernetes cluster ${name} does not exist`, { provider: PROVIDER, code: 'not_found', resource: name });
    return cluster;
  }

  async #versions(): Promise<ManagedVersions> {
    const v = await this.#client.request('GET', this.#client.project('kubernetes/versions'), versionsSchema);
    return {
      cluster: v.kubernetes_cluster_versions.map((x) => x.cluster_version_name),
      nodePool: v.kubernetes_node_pool_versions.map((x) => x.node_pool_version_name),
    };
  }

  #info(c: CrusoeCluster, clusterId: string): ManagedClusterInfo {
    const state = plainState(c.state);
    return {
      name: c.name,
      id: c.id,
      clusterId,
      state:
        state === 'RUNNING'
          ? 'running'
          : state === 'DELETING'
            ? 'deleting'
            : state === 'UPDATING'
              ? 'updating'
              : state === 'FAILED' || state === 'ERROR'
                ? 'failed'
                : 'provisioning',
      ...(c.dns_name ? { apiEndpoint: `https://${c.dns_name}:6443` } : {}),
      kubernetesVersion: c.version,
      ...(c.project_id ? { projectId: c.project_id } : {}),
      addons: c.add_ons,
      managedResources: [
        'cmk-cp-api-access-cp-*',
        'cmk-cp-metrics-access-cp-*',
        'cmk-cp-fluent-bit-access-cp-*',
        'cmk-cp-ssh-access-cp-*',
        `API token cmk-${c.name}`,
        `Secret cmk-${c.name}`,
      ],
    };
  }

  async #failure(c: CrusoeCluster | CrusoeNodePool, family: 'kubernetes/clusters' | 'kubernetes/nodepools'): Promise<KubeplaneError> {
    const ops = await this.#client.request('GET', this.#client.project(`${family}/operations`), itemsOf(operationSchema), { query: { resource_id: c.id } });
    const failed = ops.items.filter((o) => o.state === 'FAILED').at(-1);
    return failed
      ? operationError(failed, c.name)
      : new KubeplaneError(
          'invalid',
          `crusoe ${family === 'kubernetes/clusters' ? 'cluster' : 'node pool'} ${c.name} is in state ${c.state}; delete and recreate it`,
          { provider: PROVIDER, code: 'failed', resource: c.name },
        );
  }

  async #ensureCluster(request: ManagedClusterRequest): Promise<Outcome<ManagedClusterInfo>> {
    if (!ownedBy(request.name, request.clusterId))
      throw new KubeplaneError('invalid', `managed cluster ${request.name} must be named after the cluster id ${request.clusterId}`, {
        provider: PROVIDER,
        code: 'name_not_owned',
        resource: request.name,
      });
    const existing = await this.findCluster(request.name);
    if (!existing) {
      const versions = await this.#versions();
      if (!versions.cluster.includes(request.kubernetesVersion)) {
        throw new KubeplaneError('invalid', `CMK does not offer version ${request.kubernetesVersion}; choose one of ${versions.cluster.join(', ')}`, {
          provider: PROVIDER,
          code: 'unsupported_version',
          resource: request.name,
        });
      }
      let subnetId = request.subnetId;
      if (!subnetId && request.networkName) {
        const network = await this.#deps.findNetwork(request.networkName);
        if (!network)
          throw new KubeplaneError(
            'not-found',
            `crusoe VPC network ${request.networkName} does not exist; ensure it (with its intra-VPC rules) before the cluster`,
            { provider: PROVIDER, code: 'not_found', resource: request.networkName },
          );
        subnetId = (await this.#deps.subnetIn(network, request.region)).id;
      }
      try {
        await this.#client.request('POST', this.#client.project('kubernetes/clusters'), asyncOperationSchema, {
          resource: request.name,
          body: {
            name: request.name,
            location: request.region,
            version: request.kubernetesVersion,
            add_ons: request.addons ?? [],
            ...(subnetId ? { subnet_id: subnetId } : {}),
            ...(request.privateApi !== undefined ? { private: request.privateApi } : {}),
            ...(request.podCidr ? { cluster_cidr: request.podCidr } : {}),
            ...(request.serviceCidr ? { service_cluster_ip_range: request.serviceCidr } : {}),
          },
        });
      } catch (error) {
        if (!(error instanceof KubeplaneError && error.kind === 'conflict')) throw error;
      }
      return pending('in-progress', 30, `CMK cluster ${request.name} is being created (a control plane of three VMs; minutes)`);
    }
    if (existing.version !== request.kubernetesVersion) {
      // CMK has no upgrade call (crusoe-notes §2.8; cmk-cluster-details.txt: upgrades are made by Crusoe support). A
      // manifest naming the version support upgraded to is recorded by the caller when this returns; any other is refused.
      const actual = parseCmkVersion(existing.version);
      const asked = parseCmkVersion(request.kubernetesVersion);
      const newer = actual && asked && compareCmkVersions(asked, actual) > 0;
      throw new KubeplaneError(
        'invalid',
        newer
          ? `CMK cluster ${request.name} runs ${existing.version}, the manifest asks for ${request.kubernetesVersion}: CMK has no ` +
              `in-place upgrade through its API; ask Crusoe support for an upgrade window, then write the version they upgraded it to`
          : `CMK cluster ${request.name} runs ${existing.version} (upgraded by Crusoe support), the manifest names ${request.kubernetesVersion}: ` +
              `a control plane is never downgraded; write ${existing.version} in the manifest to record it`,
        { provider: PROVIDER, code: 'version_immutable', resource: request.name },
      );
    }
    const want = [...(request.addons ?? [])].sort().join(',');
    if ([...existing.add_ons].sort().join(',') !== want) {
      throw new KubeplaneError(
        'invalid',
        `CMK cluster ${request.name} has add-ons [${existing.add_ons.join(', ')}], the manifest asks for ` +
          `[${request.addons?.join(', ') ?? ''}]: add-ons are fixed at creation; install others with Helm or recreate the cluster`,
        { provider: PROVIDER, code: 'addons_immutable', resource: request.name },
      );
    }
    const info = this.#info(existing, request.clusterId);
    if (info.state === 'running') return done(info);
    if (info.state === 'failed') throw await this.#failure(existing, 'kubernetes/clusters');
    if (info.state === 'deleting') return pending('dependency', 15, `CMK cluster ${request.name} is being deleted; it can be created again once it is gone`);
    return pending('in-progress', 20, `CMK cluster ${request.name} is ${existing.state}`);
  }

  async #pools(clusterId: string): Promise<CrusoeNodePool[]> {
    return (await this.#client.request('GET', this.#client.project('kubernetes/nodepools'), itemsOf(nodePoolSchema), { query: { cluster_id: clusterId } }))
      .items;
  }

  /** Deletes the cluster's node pools, then the cluster; pending until it is gone. */
  async deleteClusterById(cluster: CrusoeCluster): Promise<Outcome<void>> {
    const pools = await this.#pools(cluster.id);
    if (pools.length > 0) {
      for (const p of pools) if (plainState(p.state) !== 'DELETING') await this.#deleteById(`kubernetes/nodepools/${p.id}`, p.name);
      return pending('in-progress', 15, `deleting ${pools.length} node pool(s) of ${cluster.name}`);
    }
    if (plainState(cluster.state) !== 'DELETING') await this.#deleteById(`kubernetes/clusters/${cluster.id}`, cluster.name);
    return pending('in-progress', 15, `CMK cluster ${cluster.name} is being deleted`);
  }

  async #deleteById(path: string, name: string): Promise<void> {
    try {
      await this.#client.request('DELETE', this.#client.project(path), anything, { resource: name });
    } catch (error) {
      if (!(error instanceof KubeplaneError && error.kind === 'not-found')) throw error;
    }
  }

  async #poolVms(pool: CrusoeNodePool) {
    const out: Array<z.infer<typeof instanceSchema>> = [];
    let token: string | undefined;
    for (let page = 0; page < 1000; page++) {
      const data = await this.#client.request(
        'GET',
        this.#client.project(`kubernetes/nodepools/${pool.id}/vms`),
        z.object({ items: z.array(instanceSchema).default([]), next_token: z.string().optional() }),
        { query: { limit: 100, sort: 'created_at', next_token: token } },
      );
      out.push(...data.items);
      token = data.next_token || undefined;
      if (!token) break;
    }
    return out;
  }

  async #ensureNodePool(request: ManagedNodePoolRequest): Promise<Outcome<ManagedNodePoolInfo>> {
    const clusterName = request.clusterName ?? request.clusterId;
    const cluster = await this.findCluster(clusterName);
    if (!cluster || plainState(cluster.state) !== 'RUNNING')
      return pending('dependency', 30, `node pool ${request.name} waits for CMK cluster ${clusterName} to run`);
    const labels = request.labels ?? {};
    const taints = request.taints ?? [];
    const sshPublicKey = request.sshPublicKey ?? this.#deps.defaultSshPublicKey(request.name);
    const pool = (await this.#pools(cluster.id)).find((p) => p.name === request.name);
    if (!pool) {
      const partition = /-ib(\.|$)/.test(request.serverType)
        ? await this.#deps.ensurePartition(request.infinibandPartitionName ?? `${request.clusterId}-${request.name}-ib`, cluster.location, request.serverType)
        : undefined;
      try {
        await this.#client.request('POST', this.#client.project('kubernetes/nodepools'), asyncOperationSchema, {
          resource: request.name,
          body: {
            cluster_id: cluster.id,
            name: request.name,
            product_name: request.serverType,
            count: request.count,
            ssh_public_key: sshPublicKey,
            node_labels: labels,
            node_taints: taints,
            ...(request.kubernetesVersion ? { node_pool_version: request.kubernetesVersion } : {}),
            ...(partition ? { transport_partition_id: partition.id } : {}),
            ...(cluster.subnet_id ? { subnet_id: cluster.subnet_id } : {}),
          },
        });
      } catch (error) {
        if (!(error instanceof KubeplaneError && error.kind === 'conflict')) throw error;
      }
      return pending('in-progress', 20, `CMK node pool ${request.name} is being created with ${request.count} node(s)`);
    }
    const state = plainState(pool.state);
    if (state === 'FAILED' || state === 'ERROR') throw await this.#failure(pool, 'kubernetes/nodepools');
    if (state === 'DELETING') return pending('dependency', 15, `node pool ${request.name} is being deleted`);
    if (state !== 'RUNNING') return pending('in-progress', 10, `node pool ${request.name} is ${pool.state}`);
    const vms = await this.#poolVms(pool);
    const live = vms.filter((v) => plainState(v.state) !== 'DELETING');
    const sameLabels = JSON.stringify(Object.entries(pool.node_labels).sort()) === JSON.stringify(Object.entries(labels).sort());
    const canonTaints = (t: ReadonlyArray<{ key: string; value?: string | undefined; effect: string }>) =>
      JSON.stringify(t.map((x) => [x.key, x.value ?? '', x.effect]).sort());
    const sameTaints = canonTaints(pool.node_taints ?? []) === canonTaints(taints);
    if (request.count < pool.count || (request.count === pool.count && live.length > request.count)) {
      // Scale-down: lower the count first (so the platform does not replace what we delete), then delete
      // exactly the machines the engine chose and drained.
      const chosen = request.removeNodes ?? [];
      const victims = live.filter((v) => chosen.includes(v.id) || chosen.includes(v.name));
      if (victims.length < live.length - request.count) {
        throw new KubeplaneError(
          'invalid',
          `node pool ${request.name}: scaling ${live.length} -> ${request.count} needs ` +
            `${live.length - request.count} node(s) named in removeNodes (drained first); got ${victims.length}`,
          { provider: PROVIDER, code: 'scale_down_needs_nodes', resource: request.name },
        );
      }
      if (request.count < pool.count) await this.#patchPool(pool, request.count, labels, taints, request.kubernetesVersion, sshPublicKey);
      for (const v of victims.slice(0, live.length - request.count)) await this.#deleteById(`compute/vms/instances/${v.id}`, v.name);
      return pending('in-progress', 10, `node pool ${request.name}: count lowered to ${request.count}, deleting ${live.length - request.count} chosen node(s)`);
    }
    // A version change is sent once: before it, the machines run the pool's configuration; after it, none does (until
    // the caller's rotation adds new ones). The pool object has no version field to compare with (crusoe-notes §2.8).
    const latest = new Map(pool.instance_details.map((d) => [d.id, d.using_latest_config]));
    const versionDue = Boolean(request.updateVersion && request.kubernetesVersion) && live.every((v) => latest.get(v.id) !== false);
    if (request.count !== pool.count || !sameLabels || !sameTaints) {
      await this.#patchPool(pool, request.count, labels, taints, request.kubernetesVersion, sshPublicKey);
      return pending(
        'in-progress',
        10,
        `node pool ${request.name} is being updated (count ${pool.count} -> ${request.count}; labels, taints and version apply to new nodes)`,
      );
    }
    // A version alone changes nothing that exists: nothing to wait for (the caller rotates the machines).
    if (versionDue) await this.#patchPool(pool, request.count, labels, taints, request.kubernetesVersion, sshPublicKey);
    if (live.length < pool.count) return pending('in-progress', 15, `node pool ${request.name}: ${live.length}/${pool.count} machines created`);
    return done({
      name: pool.name,
      id: pool.id,
      ready: live.filter((v) => plainState(v.state) === 'RUNNING').length,
      count: pool.count,
      nodeIds: live.map((v) => v.id),
    });
  }

  /** Every PATCH carries every field, the current count included: CMK treats a missing count as 0. */
  async #patchPool(
    pool: CrusoeNodePool,
    count: number,
    labels: Record<string, string>,
    taints: ManagedNodePoolRequest['taints'],
    version: string | undefined,
    sshPublicKey: string,
  ): Promise<void> {
    await this.#client.request('PATCH', this.#client.project(`kubernetes/nodepools/${pool.id}`), asyncOperationSchema, {
      resource: pool.name,
      body: {
        action: 'UPDATE',
        count,
        node_labels: labels,
        node_taints: taints ?? [],
        node_pool_version: version ?? '',
        ssh_public_key: sshPublicKey,
        ephemeral_storage_for_containerd: false,
        reservation_id: '',
      },
    });
  }

  async #deleteNodePool(ref: ScopedRef): Promise<Outcome<void>> {
    const clusters = (await this.#client.request('GET', this.#client.project('kubernetes/clusters'), itemsOf(kubernetesClusterSchema))).items.filter((c) =>
      ownedBy(c.name, ref.clusterId),
    );
    for (const c of clusters) {
      const pool = (await this.#pools(c.id)).find((p) => p.name === ref.name);
      if (!pool) continue;
      if (plainState(pool.state) !== 'DELETING') await this.#deleteById(`kubernetes/nodepools/${pool.id}`, pool.name);
      return pending('in-progress', 15, `node pool ${ref.name} is being deleted`);
    }
    return done(undefined);
  }

  async #kubeconfig(ref: ScopedRef): Promise<Outcome<string>> {
    const cluster = await this.findCluster(ref.name);
    if (!cluster)
      throw new KubeplaneError('not-found', `crusoe Kubernetes cluster ${ref.name} does not exist`, {
        provider: PROVIDER,
        code: 'not_found',
        resource: ref.name,
      });
    if (plainState(cluster.state) !== 'RUNNING') return pending('dependency', 20, `CMK cluster ${ref.name} is ${cluster.state}; credentials come once it runs`);
    const creds = await this.#client.request('POST', this.#client.project(`kubernetes/clusters/${cluster.id}/get-credentials`), credentialsSchema, {
      query: { auth_type: 'admin_cert' },
      resource: ref.name,
    });
    if (creds.kube_config) return done(creds.kube_config);
    // Terraform's legacy fallback: build the kubeconfig from the certificate fields.
    if (!creds.cluster_address || !creds.cluster_ca_certificate || !creds.user_client_certificate || !creds.user_client_key) {
      throw new KubeplaneError('retryable', `crusoe get-credentials for ${ref.name} returned neither a kubeconfig nor certificates`, {
        provider: PROVIDER,
        code: 'invalid_response',
        resource: ref.name,
      });
    }
    const b64 = (s: string) => Buffer.from(s).toString('base64');
    const name = creds.cluster_name ?? cluster.name;
    const user = `${name}-${creds.user_name ?? 'admin'}`;
    return done(
      [
        'apiVersion: v1',
        'kind: Config',
        `current-context: ${user}`,
        'clusters:',
        `- name: ${name}`,
        '  cluster:',
        `    server: ${creds.cluster_address}`,
        `    certificate-authority-data: ${b64(creds.cluster_ca_certificate)}`,
        'users:',
        `- name: ${user}`,
        '  user:',
        `    client-certificate-data: ${b64(creds.user_client_certificate)}`,
        `    client-key-data: ${b64(creds.user_client_key)}`,
        'contexts:',
        `- name: ${user}`,
        '  context:',
        `    cluster: ${name}`,
        `    user: ${user}`,
        '',
      ].join('\n'),
    );
  }

  async #listPoolNodes(clusterRef: ScopedRef, poolName: string): Promise<Outcome<ManagedNodeInfo[]>> {
    const cluster = await this.#requireCluster(clusterRef.name);
    const pool = (await this.#pools(cluster.id)).find((p) => p.name === poolName);
    if (!pool) return done([]);
    const latest = new Map(pool.instance_details.map((d) => [d.id, d.using_latest_config]));
    return done(
      (await this.#poolVms(pool)).map((v) => {
        const ips = v.network_interfaces?.[0]?.ips?.[0];
        const upToDate = latest.get(v.id);
        return {
          id: v.id,
          name: v.name,
          providerId: `crusoe://${v.id}`,
          state: nodeState(v.state),
          ...(v.created_at ? { createdAt: v.created_at } : {}),
          ...(ips?.private_ipv4?.address ? { privateIPv4: ips.private_ipv4.address } : {}),
          ...(ips?.public_ipv4?.address ? { publicIPv4: ips.public_ipv4.address } : {}),
          ...(upToDate !== undefined ? { upToDate } : {}),
        };
      }),
    );
  }
}
