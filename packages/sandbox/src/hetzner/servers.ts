// Servers of the emulated Hetzner project: created from a type, an image and a location, booting in virtual time,
// powered off and on by actions, on networks, behind firewalls, with a primary IPv4 and an IPv6 /64
// (https://docs.hetzner.cloud/reference/cloud#servers).
import { EmulatorError, type Json, reply } from '../emulator/index.js';
import type { SandboxVm } from '../kubernetes/vm-source.js';
import { LATENCY, sample } from '../latency.js';
import { HETZNER_IMAGES, HETZNER_LOCATIONS, HETZNER_SERVER_TYPES, hetznerOrderable } from './catalog.js';
import { datacenterOf, imageJson, listedServerTypes, serverTypeJson } from './catalog-routes.js';
import type { Firewalls } from './firewalls.js';
import type { FloatingIps } from './floating-ips.js';
import type { LoadBalancers } from './load-balancers.js';
import { privateNetMac } from './mac-addresses.js';
import type { Networks } from './networks.js';
import type { PlacementGroups } from './placement-groups.js';
import type { PrimaryIps } from './primary-ips.js';
import { byId, found, type HetznerProject, type HetznerRoute, SORT_ID_NAME_CREATED } from './project.js';
import type { PrimaryIp, Server } from './resources.js';
import type { Volumes } from './volumes.js';

const USER_DATA_LIMIT = 32 * 1024;

/** The server actions that lock it while they run: its creation and start, and the power actions. */
const SERVER_LOCKING: ReadonlySet<string> = new Set(['create_server', 'start_server', 'stop_server', 'shutdown_server', 'reboot_server', 'reset_server']);

/** The families a server's answers and its deletion reach into. */
export interface ServerNeighbours {
  networks: Networks;
  firewalls: Firewalls;
  primaryIps: PrimaryIps;
  placementGroups: PlacementGroups;
  volumes: Volumes;
  floatingIps: FloatingIps;
  loadBalancers: LoadBalancers;
}

export class Servers {
  constructor(
    private readonly p: HetznerProject,
    private readonly n: ServerNeighbours,
  ) {}

  routes(): HetznerRoute[] {
    const p = this.p;
    const server = byId(p.servers, 'server');
    const power = (action: string, command: string, on: boolean, ms: number): HetznerRoute => [
      `POST /servers/{id}/actions/${action}`,
      (c) => {
        const s = server(c);
        // "locked: The item you are trying to access is locked (there is already an Action running)", 423 in the API's
        // error table: a power action while the server's creation, start or another power action still runs. Clients
        // wait for those actions first (the hcloud CLI does, python3-hcloud's `wait_until_finished`).
        const running = p.actions.find(
          (a) => SERVER_LOCKING.has(a.command) && a.finishAt > p.now() && a.resources.some((r) => r.type === 'server' && r.id === s.id),
        );
        if (running) throw new EmulatorError(423, 'locked', `server ${s.id} is locked: action ${running.id} (${running.command}) is still running`);
        const at = Math.max(p.now(), s.runningAt) + ms;
        s.power = { on, at };
        return reply({ action: p.action(command, [{ id: s.id, type: 'server' }], at - p.now()) }, 201);
      },
    ];
    return [
      [
        'GET /servers',
        (c) => {
          const status = c.query.getAll('status');
          const chosen = p.servers.filter((s) => status.length === 0 || status.includes(p.status(s)));
          return reply(p.list('servers', chosen, (s) => this.json(s), c.query, SORT_ID_NAME_CREATED));
        },
      ],
      ['POST /servers', (c) => reply(this.#create(c.body), 201)],
      ['GET /servers/{id}', (c) => reply({ server: this.json(server(c)) })],
      // PUT /servers/{id} (replace_server_request): name and labels, the labels replaced as a whole.
      [
        'PUT /servers/{id}',
        (c) => {
          const s = server(c);
          if (c.body['name'] !== undefined && c.body['name'] !== s.name) s.name = p.name(c.body['name'], p.servers.values(), 'server');
          if (c.body['labels'] !== undefined) s.labels = p.labels(c.body['labels']);
          return reply({ server: this.json(s) });
        },
      ],
      ['DELETE /servers/{id}', (c) => reply({ action: this.#delete(server(c)) })],
      // The commands hcloud-go and the API name these actions (`action.command`): poweroff is stop_server, etc.
      power('poweroff', 'stop_server', false, 2_000),
      // "the action status ... only reflects whether the action was sent": the emulated OS honours ACPI.
      power('shutdown', 'shutdown_server', false, 10_000),
      power('poweron', 'start_server', true, 5_000),
      power('reboot', 'reboot_server', true, 15_000),
      power('reset', 'reset_server', true, 10_000),
    ];
  }

  /** The servers as machines for the simulated kubelets (vm-source.ts). */
  listVms(): SandboxVm[] {
    return [...this.p.servers.values()].map((s) => {
      const status = this.p.status(s);
      const running = status === 'running';
      return {
        cloud: 'hetzner',
        name: s.name,
        id: String(s.id),
        state: running ? 'running' : status === 'off' ? 'stopped' : status === 'stopping' ? 'stopping' : 'pending',
        ...(running ? { runningSinceMs: s.runningAt } : {}),
        userData: s.userData,
        machine: { vcpus: s.serverType.cores, memoryMiB: s.serverType.memory * 1024, diskGiB: s.serverType.disk },
        ...(s.ipv4 ? { publicIPv4: s.ipv4.ip } : {}),
        ...(s.privateNets[0] ? { privateIPv4: s.privateNets[0].ip } : {}),
        ...this.#dataDisks(s.id),
      };
    });
  }

  /** The server's volumes as its disks: by-id `scsi-0HC_Volume_<id>`, the API's `linux_device` for them. */
  #dataDisks(serverId: number): Pick<SandboxVm, 'dataDisks'> {
    const disks = this.n.volumes.items.filter((v) => v.server === serverId).map((v) => ({ byId: `scsi-0HC_Volume_${v.id}`, sizeGB: v.size }));
    return disks.length ? { dataDisks: disks } : {};
  }

  #create(body: Json): Json {
    const p = this.p;
    const invalid = (message: string, field: string, messages?: string[]) =>
      new EmulatorError(400, 'invalid_input', message, { details: { fields: [{ name: field, ...(messages ? { messages } : {}) }] } });
    const name = p.name(body['name'], p.servers.values(), 'server');
    // A type past its `unavailable_after` everywhere is no longer listed, so no longer found by name ("Could not find
    // server type 'cx22'" after 2025-12-31, hetznercloud/packer-plugin-hcloud users in January 2026).
    const serverType = listedServerTypes(p.now()).find((t) => t.name === body['server_type'] || String(t.id) === String(body['server_type']));
    if (!serverType) throw invalid(`server type ${String(body['server_type'])} not found`, 'server_type', ['server type not found']);
    const image = HETZNER_IMAGES.find(
      (i) => (i.name === body['image'] || String(i.id) === String(body['image'])) && i.architecture === serverType.architecture,
    );
    if (!image) throw invalid(`image ${String(body['image'])} not found`, 'image', ['image not found']);
    const location = HETZNER_LOCATIONS.find((l) => l.name === (body['location'] ?? 'fsn1'));
    if (!location) throw invalid(`location ${String(body['location'])} not found`, 'location');
    // A type is sold only where its `locations[]` lists it, and there only until `unavailable_after`: the API answers
    // `unsupported location for server type (invalid_input)` with empty details (as hcloud users report it, e.g.
    // roots/trellis-cli#622 for cax11 in ash).
    if (!hetznerOrderable(serverType, location.name, p.now()))
      throw new EmulatorError(400, 'invalid_input', 'unsupported location for server type', { details: {} });
    const userData = typeof body['user_data'] === 'string' ? body['user_data'] : '';
    const userDataBytes = Buffer.byteLength(userData);
    if (userDataBytes > USER_DATA_LIMIT) throw invalid('user_data must not exceed 32 KiB', 'user_data');
    const labels = p.labels(body['labels']);
    const networks = Array.isArray(body['networks']) ? (body['networks'] as unknown[]).map((n) => found(p.networks, Number(n), 'network')) : [];
    // A server joins a network through a subnet of its location's network zone: "at least one Subnet with the zone
    // covering Server's location must exist" (Networks, IP address management, in reference/hetzner-cloud-openapi.json).
    for (const n of networks) {
      if (!n.subnets.some((sub) => sub.network_zone === location.network_zone))
        throw invalid(`network ${n.id} has no subnet in network zone ${location.network_zone} of location ${location.name}`, 'networks');
    }
    const firewalls = Array.isArray(body['firewalls'])
      ? (body['firewalls'] as Array<{ firewall: unknown }>).map((f) => found(p.firewalls, Number(f.firewall), 'firewall').id)
      : [];
    if (Array.isArray(body['ssh_keys']))
      for (const k of body['ssh_keys'] as unknown[])
        if (!p.sshKeys.find((x) => x.name === k || x.id === Number(k))) throw invalid(`ssh key ${String(k)} not found`, 'ssh_keys');
    const placement =
      body['placement_group'] === undefined || body['placement_group'] === null
        ? undefined
        : found(p.placementGroups, Number(body['placement_group']), 'placement_group').id;
    const publicNet = (body['public_net'] ?? {}) as Json;
    const id = p.id();
    const ipv4 = this.#publicAddress(publicNet, 'ipv4', id, location);
    const ipv6 = this.#publicAddress(publicNet, 'ipv6', id, location);
    const boot = sample(LATENCY.hetznerCreateToRunning, () => p.random());
    const server: Server = {
      id,
      name,
      labels,
      created: p.now(),
      runningAt: p.now() + boot,
      serverType,
      image,
      location,
      ...(ipv4 ? { ipv4 } : {}),
      ...(ipv6 ? { ipv6 } : {}),
      privateNets: networks.map((n) => ({ network: n.id, ip: this.n.networks.privateIp(n), mac: privateNetMac(p.macSeed, id, n.id, this.#macs()) })),
      firewalls,
      ...(placement !== undefined ? { placementGroup: placement } : {}),
      userDataBytes,
      userData,
    };
    p.servers.set(id, server);
    const action = p.action('create_server', [{ id, type: 'server' }], boot);
    return { server: this.json(server), action, next_actions: [p.action('start_server', [{ id, type: 'server' }], boot)], root_password: null };
  }

  /**
   * The server's public address of one family (`public_net` of create_server_request): the primary IP `ipv4`/`ipv6`
   * names, else a new one that is deleted with the server unless `enable_ipv4`/`enable_ipv6` is false. A named one must
   * be of that family, unassigned and in the server's location: the errors POST /servers documents
   * (`primary_ip_version_mismatch`, `primary_ip_assigned`, `primary_ip_datacenter_mismatch`; 422 as the API's other
   * primary IP refusals), none of them `conflict`, which hcloud-go retries without end.
   */
  #publicAddress(publicNet: Json, type: 'ipv4' | 'ipv6', serverId: number, location: Server['location']): { id: number; ip: string } | undefined {
    const p = this.p;
    const named = publicNet[type];
    if (named !== undefined && named !== null) {
      const ip = found(p.primaryIps, Number(named), 'primary_ip');
      if ((ip.type ?? 'ipv4') !== type)
        throw new EmulatorError(422, 'primary_ip_version_mismatch', `primary ip ${ip.id} is of type ${ip.type ?? 'ipv4'}, not ${type}`);
      if (ip.assigneeId !== null) throw new EmulatorError(422, 'primary_ip_assigned', `primary ip ${ip.id} is already assigned to server ${ip.assigneeId}`);
      if (ip.location.name !== location.name)
        throw new EmulatorError(422, 'primary_ip_datacenter_mismatch', `primary ip ${ip.id} is in ${ip.location.name}, the server in ${location.name}`);
      ip.assigneeId = serverId;
      return { id: ip.id, ip: ip.ip };
    }
    if (publicNet[`enable_${type}`] === false) return undefined;
    const ipId = p.id();
    const ip: PrimaryIp = {
      id: ipId,
      // Named after its own id, as the API names the primary IPs it makes with a server.
      name: `primary_ip-${ipId}`,
      labels: {},
      type,
      ip: type === 'ipv4' ? p.publicIp() : p.publicIpv6Network(),
      assigneeId: serverId,
      autoDelete: true,
      location,
      created: p.now(),
    };
    p.primaryIps.set(ip.id, ip);
    return { id: ip.id, ip: ip.ip };
  }

  /** Every MAC in use on a private network interface, so a new one is unique in the project. */
  #macs(): Set<string> {
    return new Set([...this.p.servers.values()].flatMap((s) => s.privateNets.flatMap((net) => (net.mac ? [net.mac] : []))));
  }

  #delete(server: Server): Json {
    const id = server.id;
    this.p.servers.delete(id);
    this.n.primaryIps.forgetServer(id);
    // "Any resources attached to the server (like Volumes, Primary IPs, Floating IPs, Firewalls, Placement Groups)
    // are detached while the server is deleted" (DELETE /servers/{id}).
    this.n.volumes.detachAll(id);
    this.n.floatingIps.unassignAll(id);
    this.n.loadBalancers.forgetServer(id);
    this.n.firewalls.forgetServer(id);
    return this.p.action('delete_server', [{ id, type: 'server' }], 5_000);
  }

  json(s: Server): Json {
    const p = this.p;
    // The catalog's entry for the server's type, by name: a world saved by an older sandbox kept its type without the
    // per-location fields and prices the snapshot catalog has.
    const type = HETZNER_SERVER_TYPES.find((t) => t.name === s.serverType.name) ?? s.serverType;
    return {
      id: s.id,
      name: s.name,
      status: p.status(s),
      created: p.iso(s.created),
      labels: s.labels,
      server_type: serverTypeJson(type),
      image: imageJson(s.image),
      location: s.location,
      datacenter: datacenterOf(s.location.name, p.now()),
      public_net: {
        ipv4: s.ipv4 ? { id: s.ipv4.id, ip: s.ipv4.ip, blocked: false, dns_ptr: `static.${s.ipv4.ip}.clients.your-server.de` } : null,
        ipv6: s.ipv6 ? { id: s.ipv6.id, ip: s.ipv6.ip, blocked: false, dns_ptr: [] } : null,
        floating_ips: this.n.floatingIps.assignedTo(s.id),
        firewalls: this.n.firewalls.appliedTo(s).map((f) => ({ id: f, status: 'applied' })),
      },
      private_net: s.privateNets.map((net) => ({
        network: net.network,
        ip: net.ip,
        alias_ips: [],
        mac_address: net.mac ?? privateNetMac(p.macSeed, s.id, net.network, new Set()),
      })),
      placement_group: s.placementGroup === undefined ? null : this.n.placementGroups.json(found(p.placementGroups, s.placementGroup, 'placement_group')),
      protection: { delete: false, rebuild: false },
      rescue_enabled: false,
      locked: false,
      backup_window: null,
      outgoing_traffic: 0,
      ingoing_traffic: 0,
      // The type's traffic allowance in the server's location (`prices[].included_traffic`); 20 TB where unpriced.
      included_traffic: type.prices?.find((x) => x.location === s.location.name)?.included_traffic ?? 21990232555520,
      primary_disk_size: s.serverType.disk,
      volumes: this.n.volumes.attachedTo(s.id),
      load_balancers: this.n.loadBalancers.targeting(s.id),
      iso: null,
    };
  }
}
