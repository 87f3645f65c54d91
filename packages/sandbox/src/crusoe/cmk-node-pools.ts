// Crusoe Managed Kubernetes node pools: created, updated and deleted by operations, their VMs made at once and
// registered as Nodes by CMK itself, and kept at their count by the platform.
import { createHash } from 'node:crypto';
import { type Json, reply } from '../emulator/index.js';
import { CMK_NODE_POOL_VERSIONS } from './catalog.js';
import { CMK_API_PORT, cmkApiHost, cmkKubernetesVersion } from './cmk-pki.js';
import { checkPartition, newVm, vmJson } from './compute.js';
import { badRequest, conflict, notFound } from './dialect.js';
import { CRUSOE_LATENCY, type Pool, type Vm } from './model.js';
import { type CrusoeRouter, idOf } from './router.js';
import type { CrusoeWorld } from './world.js';

export function poolJson(w: CrusoeWorld, p: Pool): Json {
  const vms = w.vms.filter((v) => v.nodePoolId === p.id);
  return {
    id: p.id,
    name: p.name,
    cluster_id: p.clusterId,
    project_id: w.projectId,
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

function createPoolVm(w: CrusoeWorld, p: Pool): Vm {
  const cluster = w.clusters.get(p.clusterId);
  const subnet = w.subnets.get(p.subnetId);
  if (!cluster || !subnet) throw conflict('failed_precondition', 'cluster or subnet gone');
  w.checkCapacity(cluster.location, p.type, 1);
  p.nextIndex += 1;
  // Running after the VM create; joining and the CNI are the Kubernetes simulation's (see CRUSOE_LATENCY).
  const vm = newVm(w, {
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
      'crusoe.ai/project.id': w.projectId,
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

/** The platform "actively works to maintain" a pool's count: a VM deleted without lowering it is replaced. */
export function maintainPools(w: CrusoeWorld): void {
  for (const pool of w.pools.values()) {
    if (pool.state !== 'STATE_RUNNING') continue;
    const live = w.vms.filter((v) => v.nodePoolId === pool.id && v.state !== 'STATE_DELETING').length;
    for (let i = live; i < pool.count; i++) {
      try {
        createPoolVm(w, pool);
      } catch {
        break;
      }
    }
  }
}

function taints(value: unknown): Json[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.length > 50) throw badRequest('node_taints must be a list of at most 50 taints');
  for (const t of value as Json[]) {
    if (typeof t['key'] !== 'string' || t['key'].startsWith('crusoe.ai/'))
      throw badRequest(`taint key ${String(t['key'])} is invalid or reserved (crusoe.ai/)`);
    if (!['NoSchedule', 'PreferNoSchedule', 'NoExecute'].includes(String(t['effect']))) throw badRequest(`taint effect ${String(t['effect'])} is invalid`);
  }
  return value as Json[];
}

function createPool(w: CrusoeWorld, body: Json): Json {
  const cluster = w.clusters.get(String(body['cluster_id']));
  if (!cluster) throw notFound(`cluster ${String(body['cluster_id'])} not found`);
  if (cluster.state !== 'STATE_RUNNING') throw conflict('failed_precondition', `cluster ${cluster.name} is ${cluster.state}; add node pools once it runs`);
  const type = w.type(body['product_name']);
  const count = Number(body['count']);
  if (!Number.isInteger(count) || count < 0) throw badRequest('count must be a non-negative integer');
  const version =
    typeof body['node_pool_version'] === 'string'
      ? body['node_pool_version']
      : (CMK_NODE_POOL_VERSIONS.filter((v) => v.startsWith(cluster.version.split('.').slice(0, 2).join('.')) && !v.endsWith('-gb200')).at(-1) ?? '');
  if (!CMK_NODE_POOL_VERSIONS.includes(version)) throw badRequest(`unsupported node pool version "${version}"`);
  const partitionId =
    typeof body['transport_partition_id'] === 'string'
      ? body['transport_partition_id']
      : typeof body['ib_partition_id'] === 'string'
        ? body['ib_partition_id']
        : undefined;
  checkPartition(w, type, cluster.location, partitionId);
  w.checkCapacity(cluster.location, type, count);
  const subnetId = typeof body['subnet_id'] === 'string' ? body['subnet_id'] : cluster.subnetId;
  const p: Pool = {
    id: w.uuid(),
    name: w.name(
      body['name'],
      w.pools.filter((x) => x.clusterId === cluster.id),
      'node pool',
    ),
    clusterId: cluster.id,
    type,
    count,
    version,
    labels: (body['node_labels'] as Record<string, string> | undefined) ?? {},
    taints: taints(body['node_taints']),
    subnetId,
    ...(partitionId ? { partitionId } : {}),
    state: 'STATE_PROVISIONING',
    nextIndex: 0,
    hex: createHash('sha256')
      .update(`${cluster.id}/${String(body['name'])}`)
      .digest('hex')
      .slice(0, 8),
  };
  w.pools.set(p.id, p);
  let created = 0;
  for (let i = 0; i < count; i++) {
    createPoolVm(w, p);
    created += 1;
  }
  return w.startOperation('kubernetes/nodepools', p.id, CRUSOE_LATENCY.cmkNodePoolCreate, { kind: 'pool-created', id: p.id, vmsCreated: created });
}

function updatePool(w: CrusoeWorld, p: Pool, body: Json): Json {
  const action = body['action'] ?? 'UPDATE';
  if (action !== 'UPDATE') throw badRequest(`action ${String(action)} is not modelled by the sandbox`);
  // The Go client sends every field; a missing count arrives as Go's zero value, and the pool scales to 0.
  const count = body['count'] === undefined ? 0 : Number(body['count']);
  if (!Number.isInteger(count) || count < 0) throw badRequest('count must be a non-negative integer');
  const cluster = w.clusters.get(p.clusterId);
  const liveVms = w.vms.filter((v) => v.nodePoolId === p.id && v.state !== 'STATE_DELETING').length;
  if (cluster && count > liveVms) w.checkCapacity(cluster.location, p.type, count - liveVms);
  if (body['node_pool_version'] !== undefined && body['node_pool_version'] !== null && body['node_pool_version'] !== '') {
    if (!CMK_NODE_POOL_VERSIONS.includes(String(body['node_pool_version'])))
      throw badRequest(`unsupported node pool version "${String(body['node_pool_version'])}"`);
    p.version = String(body['node_pool_version']);
  }
  if (body['node_labels'] !== undefined && body['node_labels'] !== null) p.labels = body['node_labels'] as Record<string, string>;
  // null keeps the taints, [] clears them, a list replaces them (crusoe-notes.md §2.8).
  if (body['node_taints'] !== null && body['node_taints'] !== undefined) p.taints = taints(body['node_taints']);
  p.count = count;
  p.state = 'STATE_UPDATING';
  return w.startOperation('kubernetes/nodepools', p.id, CRUSOE_LATENCY.cmkNodePoolUpdate, { kind: 'pool-updated', id: p.id });
}

export function cmkNodePoolRoutes(r: CrusoeRouter, w: CrusoeWorld): void {
  const requirePool = (id: string) => w.pools.require(id, () => notFound(`node pool ${id} not found`));
  const notModelled = (method: string, what: string) => badRequest(`${method} ${what} on a node pool is not modelled by the sandbox`);

  r.project('GET /kubernetes/nodepools', ({ query }) => {
    const clusterId = query.get('cluster_id');
    return reply({ items: w.pools.filter((p) => !clusterId || p.clusterId === clusterId).map((p) => poolJson(w, p)) });
  });
  r.project('POST /kubernetes/nodepools', ({ body }) => reply(createPool(w, body)));
  r.project('GET /kubernetes/nodepools/{id}', (call) => reply(poolJson(w, requirePool(idOf(call)))));
  r.project('PATCH /kubernetes/nodepools/{id}', (call) => reply(updatePool(w, requirePool(idOf(call)), call.body)));
  r.project('DELETE /kubernetes/nodepools/{id}', (call) => {
    const p = requirePool(idOf(call));
    p.state = 'STATE_DELETING';
    for (const v of w.vms.values()) if (v.nodePoolId === p.id) v.state = 'STATE_DELETING';
    return reply(w.startOperation('kubernetes/nodepools', p.id, CRUSOE_LATENCY.vmDelete, { kind: 'pool-deleted', id: p.id }));
  });
  r.otherMethods('/kubernetes/nodepools/{id}', (call) => {
    requirePool(idOf(call));
    return notModelled(call.method, '');
  });
  r.project('GET /kubernetes/nodepools/{id}/vms', (call) => {
    const p = requirePool(idOf(call));
    const { query } = call;
    const vms = w.vms.filter((v) => v.nodePoolId === p.id).sort((x, y) => x.seq - y.seq);
    const limit = Math.min(100, Number(query.get('limit') ?? 25) || 25);
    const offset =
      Number(
        Buffer.from(query.get('next_token') ?? '', 'base64')
          .toString('utf8')
          .replace('offset:', ''),
      ) || 0;
    return reply({
      items: vms.slice(offset, offset + limit).map((v) => vmJson(w, v)),
      next_token: offset + limit < vms.length ? Buffer.from(`offset:${offset + limit}`).toString('base64') : '',
      prev_token: '',
    });
  });
  r.otherMethods('/kubernetes/nodepools/{id}/vms', (call) => {
    requirePool(idOf(call));
    return notModelled(call.method, 'vms');
  });
}
