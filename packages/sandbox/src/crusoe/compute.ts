// Compute: VMs (created and deleted by operations, listed in pages), their types and images, the locations, the
// capacity per type and location, and the project's quotas.
import { type Json, reply } from '../emulator/index.js';
import { sandboxPublicAddress } from '../public-addresses.js';
import { CRUSOE_IB_NETWORKS, CRUSOE_IMAGES, CRUSOE_LOCATIONS, CRUSOE_TYPES, type CrusoeTypeSpec, crusoeOffers } from './catalog.js';
import { badRequest, conflict, notFound } from './dialect.js';
import { CRUSOE_LATENCY, type Subnet, type Vm } from './model.js';
import { type CrusoeRouter, idOf } from './router.js';
import { diskFields } from './storage.js';
import type { CrusoeWorld } from './world.js';

/** The sandbox project's quota types (ProjectQuota.type); a capacity names the one its type counts against (CapacityV1.quota_type). */
const VMS_QUOTA = 'PROJECT_QUOTA_TYPE_MAXIMUM_VMS';
const GPU_VMS_QUOTA = 'PROJECT_QUOTA_TYPE_MAXIMUM_GPU_VMS';

export function computeRoutes(r: CrusoeRouter, w: CrusoeWorld): void {
  r.global('GET /locations', () => reply({ items: [...CRUSOE_LOCATIONS] }));
  r.global('GET /capacities', ({ query }) => reply({ items: capacities(w, query.get('location'), query.get('product_name')) }));
  r.global('GET /compute/images', () =>
    reply({
      items: CRUSOE_IMAGES.map((i) => ({
        id: i.id,
        name: i.name,
        tags: [...i.tags],
        locations: [...CRUSOE_LOCATIONS],
        description: i.description,
        created_at: '2025-01-01T00:00:00Z',
      })),
    }),
  );
  r.project('GET /compute/vms/types', () => reply({ items: CRUSOE_TYPES.map((t) => ({ ...t })) }));
  r.project('GET /quotas', () => reply({ quotas: quotas(w) }));
  r.project('GET /compute/vms/instances', ({ query }) => reply(listVms(w, query)));
  r.project('POST /compute/vms/instances', ({ body }) => reply(createVm(w, body)));
  r.project('GET /compute/vms/instances/{id}', (call) => reply(vmJson(w, requireVm(w, idOf(call)))));
  r.project('DELETE /compute/vms/instances/{id}', (call) => {
    const vm = requireVm(w, idOf(call));
    if (vm.state === 'STATE_DELETING') return reply(w.startOperation('compute/vms/instances', vm.id, CRUSOE_LATENCY.vmDelete, { kind: 'none' }));
    vm.state = 'STATE_DELETING';
    return reply(w.startOperation('compute/vms/instances', vm.id, CRUSOE_LATENCY.vmDelete, { kind: 'vm-deleted', id: vm.id }));
  });
  r.otherMethods('/compute/vms/instances/{id}', (call) => {
    requireVm(w, idOf(call));
    return badRequest(`${call.method} on a VM is not modelled by the sandbox`);
  });
}

function requireVm(w: CrusoeWorld, id: string): Vm {
  return w.vms.require(id, () => notFound(`VM ${id} not found`));
}

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

function hostIp(subnet: Subnet): string {
  const [a, b, c] = subnet.cidr.split('/')[0]?.split('.').map(Number) ?? [10, 0, 0];
  const n = subnet.nextHost++;
  return `${a}.${b}.${(c ?? 0) + Math.floor(n / 256)}.${n % 256}`;
}

/** A new VM, provisioning until `bootMs` from now, with its disks attached and its stock taken. */
export function newVm(
  w: CrusoeWorld,
  args: {
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
  },
): Vm {
  const ip = w.ipSeq.next();
  const id = w.uuid();
  const vm: Vm = {
    id,
    name: args.name,
    type: args.type,
    location: args.location,
    image: args.image,
    state: 'STATE_PROVISIONING',
    seq: w.seq.value,
    createdAt: w.now(),
    runningAt: w.now() + args.bootMs,
    subnetId: args.subnet.id,
    networkId: args.subnet.networkId,
    privateIp: hostIp(args.subnet),
    ...(args.publicIpType === 'none' ? {} : { publicIp: { id: w.uuid(), address: sandboxPublicAddress('crusoe', ip), type: args.publicIpType ?? 'dynamic' } }),
    ...(args.partitionId ? { partitionId: args.partitionId } : {}),
    ...(args.nodePoolId ? { nodePoolId: args.nodePoolId } : {}),
    diskIds: args.diskIds ?? [],
    startupScript: args.startupScript,
  };
  w.vms.set(vm.id, vm);
  for (const d of vm.diskIds) {
    const disk = w.disks.get(d);
    if (disk) disk.attachedTo = vm.id;
  }
  w.allocate(vm.location, vm.type, 1);
  return vm;
}

export function vmJson(w: CrusoeWorld, vm: Vm): Json {
  const created = w.iso(vm.createdAt);
  const partition = vm.partitionId ? w.partitions.get(vm.partitionId) : undefined;
  return {
    id: vm.id,
    name: vm.name,
    type: vm.type.product_name,
    location: vm.location,
    project_id: w.projectId,
    state: vm.state,
    created_at: created,
    updated_at: created,
    maintenance_policy: 'unspecified',
    // AttachedDiskV1 (crusoe-api-v1-swagger.json): the disk's own fields plus how it is attached.
    disks: [
      {
        ...diskFields(w, {
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
        const disk = w.disks.get(d);
        return disk ? [{ ...diskFields(w, disk), attachment_type: 'data', mode: 'read-write' }] : [];
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

function listVms(w: CrusoeWorld, query: URLSearchParams): Json {
  const csv = (k: string) => (query.get(k) ? (query.get(k) ?? '').split(',') : undefined);
  const names = csv('names');
  const ids = csv('ids');
  const locations = csv('locations');
  const limit = Math.min(100, Math.max(1, Number(query.get('limit') ?? 25) || 25));
  let items = w.vms.filter((v) => (!names || names.includes(v.name)) && (!ids || ids.includes(v.id)) && (!locations || locations.includes(v.location)));
  if (query.get('sort') === 'created_at') items.sort((x, y) => x.seq - y.seq);
  else {
    // Without a sort the order is not stable between pages (the support article's warning).
    items = items
      .map((v) => [w.ctx.random(), v] as const)
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
  return { items: page.map((v) => vmJson(w, v)), next_page_token: next, prev_page_token: prev };
}

function image(body: Json, type: CrusoeTypeSpec): string {
  const image = body['image'];
  if (typeof image !== 'string') throw badRequest('image (name:tag) or custom_image is required');
  const [name, tag = 'latest'] = image.split(':');
  const found = CRUSOE_IMAGES.find((i) => i.name === name && (i.tags as readonly string[]).includes(tag));
  if (!found) throw badRequest(`image ${image} not found`);
  if (found.arm64 !== type.product_name.startsWith('gb200')) throw badRequest(`image ${image} does not match the architecture of ${type.product_name}`);
  return image;
}

function createVm(w: CrusoeWorld, body: Json): Json {
  const type = w.type(body['type']);
  const location = w.location(body['location']);
  if (typeof body['ssh_public_key'] !== 'string' || !body['ssh_public_key']) throw badRequest('ssh_public_key is required');
  const imageName = image(body, type);
  const name = w.name(body['name'], w.vms.values(), 'VM');
  const nic = Array.isArray(body['network_interfaces']) ? (body['network_interfaces'][0] as Json | undefined) : undefined;
  const subnet = typeof nic?.['subnet'] === 'string' ? w.subnets.get(nic['subnet']) : w.defaultSubnet(location);
  if (!subnet || subnet.location !== location) throw badRequest(`subnet ${String(nic?.['subnet'])} is not in ${location}`);
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
  checkPartition(w, type, location, partitionId);
  const diskIds = (Array.isArray(body['disks']) ? (body['disks'] as Json[]) : []).map((d) => {
    const disk = w.disks.get(String(d['disk_id']));
    if (!disk) throw badRequest(`disk ${String(d['disk_id'])} not found`);
    if (disk.location !== location) throw badRequest(`disk ${disk.name} is in ${disk.location}, not ${location}`);
    if (!disk.ready) throw conflict('failed_precondition', `disk ${disk.name} is still being created`);
    if (disk.attachedTo) throw conflict('in_use', `disk ${disk.name} is attached to another VM`);
    return disk.id;
  });
  w.checkCapacity(location, type, 1);
  const vm = newVm(w, {
    name,
    type,
    location,
    image: imageName,
    subnet,
    publicIpType: publicType,
    ...(partitionId ? { partitionId } : {}),
    diskIds,
    startupScript: typeof body['startup_script'] === 'string' ? body['startup_script'] : '',
    bootMs: CRUSOE_LATENCY.vmCreate,
  });
  return w.startOperation('compute/vms/instances', vm.id, CRUSOE_LATENCY.vmCreate, { kind: 'vm-created', id: vm.id });
}

/** An InfiniBand type needs a partition in its location; any other type must have none. */
export function checkPartition(w: CrusoeWorld, type: CrusoeTypeSpec, location: string, partitionId: string | undefined): void {
  const ib = /-ib\./.test(type.product_name);
  if (!ib) {
    if (partitionId) throw badRequest(`${type.product_name} has no InfiniBand adapter; remove the partition`);
    return;
  }
  if (!partitionId) throw badRequest(`${type.product_name} needs an InfiniBand partition (host_channel_adapters[].transport_partition_id)`);
  const partition = w.partitions.get(partitionId);
  const network = CRUSOE_IB_NETWORKS.find((n) => n.id === partition?.ibNetworkId);
  if (!partition || !network) throw badRequest(`IB partition ${partitionId} not found`);
  if (network.location !== location) throw badRequest(`IB partition ${partition.name} is in ${network.location}, not ${location}`);
}

/**
 * `GET /capacities` (crusoe-api-v1-swagger.json, listSliceCapacities: "Lists available Crusoe Cloud capacity with
 * optional filters on location and product name"): one `CapacityV1` per type a location offers, `quantity` the VMs
 * of it that can start there now. A type a location does not offer has no entry.
 */
function capacities(w: CrusoeWorld, location: string | null, product: string | null): Json[] {
  return CRUSOE_LOCATIONS.flatMap((l) =>
    CRUSOE_TYPES.filter((t) => crusoeOffers(l, t.product_name) && (!location || l === location) && (!product || t.product_name === product)).map((t) => ({
      type: t.product_name,
      location: l,
      quantity: Math.max(0, w.stock.get(`${l}/${t.product_name}`) ?? 0),
      num_slices: 1,
      quota_type: t.num_gpu > 0 ? GPU_VMS_QUOTA : VMS_QUOTA,
    })),
  );
}

function quotas(w: CrusoeWorld): Json[] {
  const live = w.liveVms();
  const gpus = live.filter((v) => v.type.num_gpu > 0).length;
  return [
    {
      type: VMS_QUOTA,
      programmatic_name: 'vms',
      category: 'compute',
      description: 'VMs',
      max: w.quota.vms,
      used: live.length,
      available: w.quota.vms - live.length,
    },
    {
      type: GPU_VMS_QUOTA,
      programmatic_name: 'gpu_vms',
      category: 'compute',
      description: 'GPU VMs',
      max: w.quota.gpuVms,
      used: gpus,
      available: w.quota.gpuVms - gpus,
    },
  ];
}
