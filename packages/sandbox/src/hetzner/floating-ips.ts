// Floating IPs of the emulated Hetzner project: an IPv4 address or an IPv6 /64 with a home location, assignable to any server
// (https://docs.hetzner.cloud/reference/cloud#floating-ips).
import { type Collection, EmulatorError, type Json, noContent, reply } from '../emulator/index.js';
import { HETZNER_LOCATIONS } from './catalog.js';
import { invalidInput } from './dialect.js';
import { byId, type HetznerProject, type HetznerRoute } from './project.js';
import type { Labels } from './resources.js';

export interface FloatingIp {
  id: number;
  name: string;
  description: string | null;
  labels: Labels;
  /** An IPv4 address, or an IPv6 /64 network; absent in worlds saved before IPv6: ipv4. */
  type?: 'ipv4' | 'ipv6';
  ip: string;
  homeLocation: string;
  server: number | null;
  dnsPtr: string | null;
  created: number;
  deleteProtection: boolean;
}

// DELETE /floating_ips/{id}: "If assigned to a Server the Floating IP will be unassigned automatically until 1 May
// 2026. After this date, the Floating IP needs to be unassigned before it can be deleted" (422 must_be_unassigned).
const MUST_UNASSIGN_FROM = Date.parse('2026-05-01T00:00:00Z');

export class FloatingIps {
  readonly items: Collection<number, FloatingIp>;

  constructor(
    private readonly p: HetznerProject,
    private readonly serverLocation: (serverId: number) => string,
  ) {
    this.items = p.store.collection('floatingIps', { inventory: (f) => p.inventoryItem('floating-ip', f) });
  }

  assignedTo(serverId: number): number[] {
    return this.items.filter((f) => f.server === serverId).map((f) => f.id);
  }

  /** A deleted server's floating IPs stay in the project, unassigned (DELETE /servers/{id}). */
  unassignAll(serverId: number): void {
    for (const f of this.items.values()) if (f.server === serverId) f.server = null;
  }

  routes(): HetznerRoute[] {
    const p = this.p;
    const floatingIp = byId(this.items, 'floating_ip');
    const resources = (ip: FloatingIp, server: number | null) => [
      { id: ip.id, type: 'floating_ip' },
      ...(server === null ? [] : [{ id: server, type: 'server' }]),
    ];
    const action = (name: string, run: (ip: FloatingIp, body: Json) => Json): HetznerRoute => [
      `POST /floating_ips/{id}/actions/${name}`,
      (c) => reply({ action: run(floatingIp(c), c.body) }, 201),
    ];
    return [
      // GET /floating_ips documents sorting by id and created only.
      ['GET /floating_ips', (c) => reply(p.list('floating_ips', this.items.values(), (f) => this.json(f), c.query, ['id', 'created']))],
      ['POST /floating_ips', (c) => reply(this.#create(c.body), 201)],
      ['GET /floating_ips/{id}', (c) => reply({ floating_ip: this.json(floatingIp(c)) })],
      [
        'PUT /floating_ips/{id}',
        (c) => {
          const ip = floatingIp(c);
          const body = c.body;
          if (body['name'] !== undefined && body['name'] !== ip.name) ip.name = p.name(body['name'], this.items.values(), 'floating_ip');
          if (body['description'] !== undefined) ip.description = body['description'] === null ? null : String(body['description']);
          if (body['labels'] !== undefined) ip.labels = p.labels(body['labels']);
          return reply({ floating_ip: this.json(ip) });
        },
      ],
      [
        'DELETE /floating_ips/{id}',
        (c) => {
          const ip = floatingIp(c);
          if (ip.deleteProtection) throw new EmulatorError(403, 'protected', `floating ip ${ip.id} is protected against deletion`);
          if (ip.server !== null && p.now() >= MUST_UNASSIGN_FROM)
            throw new EmulatorError(422, 'must_be_unassigned', `floating ip ${ip.id} is assigned to server ${ip.server}; unassign it first`);
          this.items.delete(ip.id);
          return noContent();
        },
      ],
      action('assign', (ip, body) => {
        const server = body['server'] === null || body['server'] === undefined ? null : p.serverId(body['server'], 'server');
        ip.server = server;
        return p.action('assign_floating_ip', resources(ip, server), 2_000);
      }),
      action('unassign', (ip) => {
        const before = ip.server;
        ip.server = null;
        return p.action('unassign_floating_ip', resources(ip, before), 2_000);
      }),
      action('change_dns_ptr', (ip, body) => {
        ip.dnsPtr = body['dns_ptr'] === null || body['dns_ptr'] === undefined ? null : String(body['dns_ptr']);
        return p.action('change_dns_ptr', resources(ip, null), 1_000);
      }),
      action('change_protection', (ip, body) => {
        if (typeof body['delete'] === 'boolean') ip.deleteProtection = body['delete'];
        return p.action('change_protection', resources(ip, null), 1_000);
      }),
    ];
  }

  #create(body: Json): Json {
    const type = body['type'];
    if (type !== 'ipv4' && type !== 'ipv6') throw invalidInput('type', 'must be ipv4 or ipv6');
    const server = body['server'] === undefined || body['server'] === null ? null : this.p.serverId(body['server'], 'server');
    // "Provide the `server` attribute ... or provide a `home_location`" (POST /floating_ips).
    const homeLocation = typeof body['home_location'] === 'string' ? body['home_location'] : server !== null ? this.serverLocation(server) : undefined;
    if (homeLocation === undefined || !HETZNER_LOCATIONS.some((l) => l.name === homeLocation))
      throw invalidInput('home_location', 'a home_location or a server is required');
    const name = body['name'] === undefined ? undefined : this.p.name(body['name'], this.items.values(), 'floating_ip');
    const id = this.p.id();
    const f: FloatingIp = {
      id,
      name: name ?? `floating_ip-${id}`,
      description: typeof body['description'] === 'string' ? body['description'] : null,
      labels: this.p.labels(body['labels']),
      type,
      ip: type === 'ipv4' ? this.p.publicIp() : this.p.publicIpv6Network(),
      homeLocation,
      server,
      dnsPtr: null,
      created: this.p.now(),
      deleteProtection: false,
    };
    this.items.set(id, f);
    // create_floating_ip_response: `action` (not nullable) when there is one to follow, the assignment; else absent.
    if (server === null) return { floating_ip: this.json(f) };
    return {
      floating_ip: this.json(f),
      action: this.p.action(
        'assign_floating_ip',
        [
          { id, type: 'floating_ip' },
          { id: server, type: 'server' },
        ],
        2_000,
      ),
    };
  }

  json(f: FloatingIp): Json {
    return {
      id: f.id,
      name: f.name,
      description: f.description,
      labels: f.labels,
      ip: f.ip,
      type: f.type ?? 'ipv4',
      server: f.server,
      blocked: false,
      // An IPv4 has its reverse entry from the start; an IPv6 network's addresses have none until one is set.
      dns_ptr:
        (f.type ?? 'ipv4') === 'ipv4'
          ? [{ ip: f.ip, dns_ptr: f.dnsPtr ?? `static.${f.ip}.clients.your-server.de` }]
          : f.dnsPtr === null
            ? []
            : [{ ip: f.ip.replace(/\/64$/, '1'), dns_ptr: f.dnsPtr }],
      home_location: this.p.locationJson(f.homeLocation),
      protection: { delete: f.deleteProtection },
      created: this.p.iso(f.created),
    };
  }
}
