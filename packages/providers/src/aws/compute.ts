// The AWS provider's machines: EC2 instances launched with a client token (a retry returns the same instance),
// listed through a short-lived view of the cluster's instances, looked up by name and terminated.
import { createHash } from 'node:crypto';
import type { BlockDeviceMapping, Filter, Instance } from '@aws-sdk/client-ec2';
import {
  CLUSTER_ID_TAG,
  NAME_TAG,
  NODEPOOL_TAG,
  RateBudgetWait,
  done,
  pending,
  type NodeInfo,
  type NodeRef,
  type NodeRequest,
  type NodeSelector,
  type NodeState,
  type Outcome,
} from '@kubeplane/sdk/provider';
import { KubeplaneError } from '@kubeplane/sdk';
import { USER_DATA_RULES } from '@kubeplane/sdk/internal';
import { type Ec2Calls, LIVE_STATES, tagMap, tagValue } from './ec2-calls.js';
import type { AwsNetwork } from './network.js';

const USER_DATA_LIMIT = USER_DATA_RULES['aws']?.limit ?? 16_384;
export const INSTANCE_METADATA_OPTIONS = { HttpTokens: 'required', HttpPutResponseHopLimit: 1, HttpEndpoint: 'enabled' } as const;
/**
 * A spot pool's market (API_InstanceMarketOptionsRequest.html, API_SpotMarketOptions.html): a one-time request, so a
 * reclaimed instance is gone rather than relaunched behind the engine's back (persistent requests need stop or
 * hibernate), terminated on interruption (the engine replaces a missing node), and no MaxPrice: AWS advises against
 * one (it only adds interruptions); the price is the current spot price, capped at on-demand.
 */
export const SPOT_MARKET_OPTIONS = {
  MarketType: 'spot',
  SpotOptions: { SpotInstanceType: 'one-time', InstanceInterruptionBehavior: 'terminate' },
} as const;

/**
 * The storage disk (the pool's storageDiskSize) as a second EBS volume of the launch, made and deleted with the
 * instance. /dev/sdf: the first of the names the EC2 User Guide recommends for EBS volumes on HVM instances
 * (/dev/sd[f-p]; sd[b-e] are for instance store); Nitro instances show it as an NVMe disk whose serial is its volume
 * id, which the node's bootstrap finds it by (providers-data/aws.ts). gp3: its baseline IOPS do not depend on size.
 */
export const STORAGE_DISK_DEVICE = '/dev/sdf';

function storageDiskMapping(sizeGiB: number): BlockDeviceMapping {
  return { DeviceName: STORAGE_DISK_DEVICE, Ebs: { VolumeSize: sizeGiB, VolumeType: 'gp3', DeleteOnTermination: true } };
}

export class AwsCompute {
  readonly #calls: Ec2Calls;
  readonly #network: AwsNetwork;
  /** Instance ids this provider launched, by node name: EC2 Describe is eventually consistent. */
  readonly launched = new Map<string, string>();
  /** A short-lived view of the cluster's instances, so that creating N nodes costs ~N calls, not 2N. */
  readonly clusterView = new Map<string, { at: number; instances: Instance[] }>();
  readonly #viewRefresh = new Map<string, Promise<Instance[]>>();

  constructor(calls: Ec2Calls, network: AwsNetwork) {
    this.#calls = calls;
    this.#network = network;
  }

  /** The cluster's instances (of one pool, with `nodepool`) that are or may again be machines, by name. */
  async listNodes(selector: NodeSelector): Promise<Outcome<NodeInfo[]>> {
    return done(
      (await this.#describeCluster(selector.clusterId, selector.nodepool)).map((i) => this.#nodeInfo(i)).sort((a, b) => a.name.localeCompare(b.name)),
    );
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
      region: this.#calls.region,
      zone,
      serverType: i.InstanceType ?? '',
      ...(i.PublicIpAddress ? { publicIPv4: i.PublicIpAddress } : {}),
      ...(i.PrivateIpAddress ? { privateIPv4: i.PrivateIpAddress } : {}),
      labels,
      ...(i.LaunchTime ? { createdAt: new Date(i.LaunchTime).toISOString() } : {}),
      // DescribeInstances names the market of spot instances only (InstanceLifecycle is absent for on-demand).
      ...(i.InstanceLifecycle === 'spot' ? { spot: true } : {}),
    };
  }

  async #describeCluster(clusterId: string, nodepool?: string): Promise<Instance[]> {
    const filters: Filter[] = [
      { Name: `tag:${CLUSTER_ID_TAG}`, Values: [clusterId] },
      { Name: 'instance-state-name', Values: LIVE_STATES },
    ];
    if (nodepool) filters.push({ Name: `tag:${NODEPOOL_TAG}`, Values: [nodepool] });
    const instances = await this.#calls.describeInstances(filters);
    if (!nodepool) this.clusterView.set(clusterId, { at: this.#calls.clock.now(), instances });
    return instances;
  }

  /** Instances of the cluster carrying this name, from a cluster view at most 10 s old. */
  async #instancesNamed(clusterId: string, name: string, fresh = false): Promise<Instance[]> {
    const view = this.clusterView.get(clusterId);
    if (fresh || !view || this.#calls.clock.now() - view.at > 10_000) {
      // Single flight: concurrent creates for one cluster share one Describe.
      let refresh = this.#viewRefresh.get(clusterId);
      if (!refresh) {
        refresh = this.#calls.describeInstances([{ Name: `tag:${CLUSTER_ID_TAG}`, Values: [clusterId] }]).finally(() => this.#viewRefresh.delete(clusterId));
        this.#viewRefresh.set(clusterId, refresh);
      }
      const all = await refresh;
      this.clusterView.set(clusterId, { at: this.#calls.clock.now(), instances: all });
      return all.filter((i) => tagValue(i.Tags, NAME_TAG) === name);
    }
    return view.instances.filter((i) => tagValue(i.Tags, NAME_TAG) === name);
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

  async createNode(request: NodeRequest): Promise<Outcome<NodeInfo>> {
    const bytes = Buffer.byteLength(request.userData);
    if (bytes > USER_DATA_LIMIT) {
      throw new KubeplaneError(
        'invalid',
        `node ${request.name}: user data is ${bytes} bytes; EC2 accepts at most 16 KB before base64 (compress it or move files to a download)`,
        { provider: 'aws', code: 'UserDataTooLarge', resource: request.name },
      );
    }
    // RunInstances' bucket (2/s) is the narrow one: wait for it before spending a Describe on the lookup.
    const runAvailable = await this.#calls.budgets.run.available();
    if (runAvailable < 1) throw new RateBudgetWait('aws run', (1 - runAvailable) / this.#calls.budgets.run.limits.refillPerSecond);
    const named = await this.#instancesNamed(request.clusterId, request.name);
    const live = named.find((i) => LIVE_STATES.includes(i.State?.Name ?? '') && i.State?.Name !== 'shutting-down');
    if (live) {
      this.launched.set(`${request.clusterId}/${request.name}`, live.InstanceId ?? '');
      return done(this.#nodeInfo(live));
    }
    // The token is the same for every retry of one creation, so a retry after a lost response or a duplicate delivery
    // returns the same instance; a node created again gets a new one (see #clientToken).
    const generation = named.filter((i) => i.State?.Name === 'terminated' || i.State?.Name === 'shutting-down').length;
    const subnetId = await this.#network.subnetFor(request);
    const groupIds = await Promise.all((request.firewallNames ?? []).map((f) => this.#network.idByTag('sg', request.clusterId, f)));
    const extra = { ...(request.labels ?? {}), [NODEPOOL_TAG]: request.nodepool };
    const token = this.#clientToken(request, generation);
    let out: { Instances?: Instance[] };
    try {
      out = await this.#calls.send<{ Instances?: Instance[] }>(
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
            ...(request.spot ? { InstanceMarketOptions: SPOT_MARKET_OPTIONS } : {}),
            ...(subnetId ? { SubnetId: subnetId } : {}),
            ...(groupIds.length ? { SecurityGroupIds: groupIds } : {}),
            ...(request.sshKeyName ? { KeyName: request.sshKeyName } : {}),
            ...(request.zone && !subnetId ? { Placement: { AvailabilityZone: request.zone } } : {}),
            ...(request.storageDiskGiB && request.storageDiskGiB > 0 ? { BlockDeviceMappings: [storageDiskMapping(request.storageDiskGiB)] } : {}),
            // The interface too: a policy that confines a session to its cluster can then require the tag on everything made.
            TagSpecifications: this.#calls.tagSpecs(['instance', 'volume', 'network-interface'], request.clusterId, request.name, extra),
          }),
        request.name,
      );
    } catch (error) {
      // The token launched this node before, from a request with other parameters (user-data rendered again
      // after a lost response). That instance is this node: adopt it rather than fail or launch a second one.
      if (!(error instanceof KubeplaneError && error.details.code === 'IdempotentParameterMismatch')) throw error;
      const earlier = await this.#calls.send<{ Reservations?: Array<{ Instances?: Instance[] }> }>(
        'describe',
        'DescribeInstances',
        (sdk) => new sdk.DescribeInstancesCommand({ Filters: [{ Name: 'client-token', Values: [token] }] }),
        request.name,
      );
      const adopted = (earlier.Reservations ?? [])
        .flatMap((r) => r.Instances ?? [])
        .find((i) => LIVE_STATES.includes(i.State?.Name ?? '') && i.State?.Name !== 'shutting-down');
      if (!adopted) return pending('dependency', 2, `node ${request.name}: the instance an earlier attempt launched is not visible yet`);
      this.launched.set(`${request.clusterId}/${request.name}`, adopted.InstanceId ?? '');
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
    this.launched.set(`${request.clusterId}/${request.name}`, instance.InstanceId);
    return done(this.#nodeInfo(instance));
  }

  async getNode(ref: NodeRef): Promise<Outcome<NodeInfo | null>> {
    const found = (
      await this.#calls.describeInstances([...this.#calls.byName(ref.clusterId, ref.name), { Name: 'instance-state-name', Values: LIVE_STATES }])
    )[0];
    if (found) return done(this.#nodeInfo(found));
    const launched = this.launched.get(`${ref.clusterId}/${ref.name}`);
    if (!launched) return done(null);
    try {
      const byId = await this.#calls.send<{ Reservations?: Array<{ Instances?: Instance[] }> }>(
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

  async deleteNode(ref: NodeRef): Promise<Outcome<void>> {
    const key = `${ref.clusterId}/${ref.name}`;
    const found = await this.#calls.describeInstances([
      ...this.#calls.byName(ref.clusterId, ref.name),
      { Name: 'instance-state-name', Values: ['pending', 'running', 'stopping', 'stopped'] },
    ]);
    const ids = new Set(found.map((i) => i.InstanceId ?? ''));
    const launched = this.launched.get(key);
    if (launched) ids.add(launched);
    if (ids.size === 0) return done(undefined);
    try {
      await this.#calls.send('terminate', 'TerminateInstances', (sdk) => new sdk.TerminateInstancesCommand({ InstanceIds: [...ids] }), ref.name);
    } catch (error) {
      if (error instanceof KubeplaneError && error.details.code === 'InvalidInstanceID.NotFound') {
        if (found.length === 0 && launched) return pending('dependency', 2, `instance ${launched} (${ref.name}) is not visible yet; terminating it once it is`);
        throw error;
      }
      throw error;
    }
    this.launched.delete(key);
    this.clusterView.delete(ref.clusterId);
    return done(undefined);
  }
}
