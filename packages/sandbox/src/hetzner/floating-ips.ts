// Floating IPs of the emulated Hetzner project: an address with a home location, assignable to any server
// (https://docs.hetzner.cloud/reference/cloud#floating-ips).
import { ApiError, invalidInput, type Json, type Labels } from './api-error.js';
import { found, type HetznerProject } from './project.js';
import { HETZNER_LOCATIONS } from './catalog.js';

export interface FloatingIp {
  id: number;
  name: string;
  description: string | null;
  labels: Labels;
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
  readonly items = new Map<number, FloatingIp>();

  constructor(
    private readonly p: HetznerProject,
    private readonly serverLocation: (serverId: number) => string,
  ) {}

  assignedTo(serverId: number): number[] {
    return [...this.items.values()].filter((f) => f.server === serverId).map((f) => f.id);
  }

  /** A deleted server's floating IPs stay in the project, unassigned (DELETE /servers/{id}). */
  unassignAll(serverId: number): void {
    for (const f of this.items.values()) if (f.server === serverId) f.server = null;
  }

  route(
    method: string,
    id: number | undefined,
    sub: string | undefined,
    action: string | undefined,
    query: URLSearchParams,
    body: Json,
  ): [number, unknown] | undefined {
    if (id === undefined) {
      // GET /floating_ips documents sorting by id and created only.
      if (method === 'GET') return [200, this.p.list('floating_ips', this.items.values(), (f) => this.json(f), query, ['id', 'created'])];
      if (method === 'POST') return [201, this.#create(body)];
      return undefined;
    }
    const ip = found(this.items, id, 'floating_ip');
    if (sub === undefined) {
      if (method === 'GET') return [200, { floating_ip: this.json(ip) }];
      if (method === 'PUT') {
        if (body['name'] !== undefined && body['name'] !== ip.name) ip.name = this.p.name(body['name'], this.items.values(), 'floating_ip');
        if (body['description'] !== undefined) ip.description = body['description'] === null ? null : String(body['description']);
        if (body['labels'] !== undefined) ip.labels = this.p.labels(body['labels']);
        return [200, { floating_ip: this.json(ip) }];
      }
      if (method === 'DELETE') {
        if (ip.deleteProtection) throw new ApiError(403, 'protected', `floating ip ${id} is protected against deletion`);
        if (ip.server !== null && this.p.now() >= MUST_UNASSIGN_FROM)
          throw new ApiError(422, 'must_be_unassigned', `floating ip ${id} is assigned to server ${ip.server}; unassign it first`);
        this.items.delete(id);
        return [204, undefined];
      }
      return undefined;
    }
    if (sub !== 'actions' || method !== 'POST') return undefined;
    const resources = (server: number | null) => [{ id, type: 'floating_ip' }, ...(server === null ? [] : [{ id: server, type: 'server' }])];
    switch (action) {
      case 'assign': {
        const server = body['server'] === null || body['server'] === undefined ? null : this.p.serverId(body['server'], 'server');
        ip.server = server;
        return [201, { action: this.p.action('assign_floating_ip', resources(server), 2_000) }];
      }
      case 'unassign': {
        const before = ip.server;
        ip.server = null;
        return [201, { action: this.p.action('unassign_floating_ip', resources(before), 2_000) }];
      }
      case 'change_dns_ptr':
        ip.dnsPtr = body['dns_ptr'] === null || body['dns_ptr'] === undefined ? null : String(body['dns_ptr']);
        return [201, { action: this.p.action('change_dns_ptr', resources(null), 1_000) }];
      case 'change_protection':
        if (typeof body['delete'] === 'boolean') ip.deleteProtection = body['delete'];
        return [201, { action: this.p.action('change_protection', resources(null), 1_000) }];
    }
    return undefined;
  }

  #create(body: Json): Json {
    if (body['type'] !== 'ipv4') throw invalidInput('type', 'only ipv4 floating IPs are emulated');
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
      ip: this.p.publicIp(),
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
      type: 'ipv4',
      server: f.server,
      blocked: false,
      dns_ptr: [{ ip: f.ip, dns_ptr: f.dnsPtr ?? `static.${f.ip}.clients.your-server.de` }],
      home_location: this.p.locationJson(f.homeLocation),
      protection: { delete: f.deleteProtection },
      created: this.p.iso(f.created),
    };
  }
}
