// Servers of the emulated Hetzner project: created from a type, an image and a location, booting in virtual time,
// powered off and on by actions, on networks, behind firewalls, with a primary IPv4
// (https://docs.hetzner.cloud/reference/cloud#servers).
import { EmulatorError, type Json, reply } from '../emulator/index.js';
import type { SandboxVm } from '../kubernetes/vm-source.js';
import { LATENCY, sample } from '../latency.js';
import { HETZNER_IMAGES, HETZNER_LOCATIONS, HETZNER_SERVER_TYPES } from './catalog.js';
import { datacenterOf, imageJson, serverTypeJson } from './catalog-routes.js';
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
        // A power action on a server still booting waits for the boot: it completes after both.
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
    const serverType = HETZNER_SERVER_TYPES.find((t) => t.name === body['server_type'] || String(t.id) === String(body['server_type']));
    if (!serverType) throw invalid(`server type ${String(body['server_type'])} not found`, 'server_type', ['server type not found']);
    const image = HETZNER_IMAGES.find(
      (i) => (i.name === body['image'] || String(i.id) === String(body['image'])) && i.architecture === serverType.architecture,
    );
    if (!image) throw invalid(`image ${String(body['image'])} not found`, 'image', ['image not found']);
    const location = HETZNER_LOCATIONS.find((l) => l.name === (body['location'] ?? 'fsn1'));
    if (!location) throw invalid(`location ${String(body['location'])} not found`, 'location');
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
    let ipv4: Server['ipv4'];
    const id = p.id();
    if (publicNet['ipv4'] !== undefined && publicNet['ipv4'] !== null) {
      const ip = found(p.primaryIps, Number(publicNet['ipv4']), 'primary_ip');
      if (ip.assigneeId !== null) throw new EmulatorError(409, 'conflict', `primary ip ${ip.id} is already assigned`);
      ip.assigneeId = id;
      ipv4 = { id: ip.id, ip: ip.ip };
    } else if (publicNet['enable_ipv4'] !== false) {
      const ip: PrimaryIp = {
        id: p.id(),
        name: `primary_ip-${id}`,
        labels: {},
        ip: p.publicIp(),
        assigneeId: id,
        autoDelete: true,
        location,
        created: p.now(),
      };
      p.primaryIps.set(ip.id, ip);
      ipv4 = { id: ip.id, ip: ip.ip };
    }
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
    return {
      id: s.id,
      name: s.name,
      status: p.status(s),
      created: p.iso(s.created),
      labels: s.labels,
      server_type: serverTypeJson(s.serverType),
      image: imageJson(s.image),
      location: s.location,
      datacenter: datacenterOf(s.location.name),
      public_net: {
        ipv4: s.ipv4 ? { id: s.ipv4.id, ip: s.ipv4.ip, blocked: false, dns_ptr: `static.${s.ipv4.ip}.clients.your-server.de` } : null,
        ipv6: null,
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
      included_traffic: 21990232555520,
      primary_disk_size: s.serverType.disk,
      volumes: this.n.volumes.attachedTo(s.id),
      load_balancers: this.n.loadBalancers.targeting(s.id),
      iso: null,
    };
  }
}
