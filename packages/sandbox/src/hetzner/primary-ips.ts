// Primary IPs of the emulated Hetzner project: a server's public IPv4 address or IPv6 /64 network, made with the server
// or on its own, assigned to at most one server that is off (https://docs.hetzner.cloud/reference/cloud#primary-ips).
import { EmulatorError, type Json, noContent, reply } from '../emulator/index.js';
import { HETZNER_DATACENTERS, HETZNER_LOCATIONS } from './catalog.js';
import { datacenterOf } from './catalog-routes.js';
import { byId, found, type HetznerProject, type HetznerRoute } from './project.js';
import type { PrimaryIp } from './resources.js';

// DELETE /primary_ips/{id}: from this date an assigned Primary IP "needs to be unassigned before it can be deleted".
const MUST_UNASSIGN_FROM = Date.parse('2026-05-01T00:00:00Z');

export class PrimaryIps {
  constructor(private readonly p: HetznerProject) {}

  routes(): HetznerRoute[] {
    const p = this.p;
    const primaryIp = byId(p.primaryIps, 'primary_ip');
    return [
      [
        'GET /primary_ips',
        (c) => {
          const ip = c.query.get('ip');
          const chosen = p.primaryIps.filter((x) => ip === null || x.ip === ip);
          return reply(p.list('primary_ips', chosen, (x) => this.json(x), c.query, ['id', 'created']));
        },
      ],
      [
        'POST /primary_ips',
        (c) => {
          const created = this.#create(c.body);
          // POST /primary_ips answers `create_primary_ip` as its action (create_primary_ip_response).
          const action = p.action('create_primary_ip', [{ id: created.id, type: 'primary_ip' }], 1_000);
          return reply({ primary_ip: this.json(created), action }, 201);
        },
      ],
      ['GET /primary_ips/{id}', (c) => reply({ primary_ip: this.json(primaryIp(c)) })],
      [
        'PUT /primary_ips/{id}',
        (c) => {
          const ip = primaryIp(c);
          if (c.body['name'] !== undefined && c.body['name'] !== ip.name) ip.name = p.name(c.body['name'], p.primaryIps.values(), 'primary_ip');
          if (c.body['labels'] !== undefined) ip.labels = p.labels(c.body['labels']);
          if (typeof c.body['auto_delete'] === 'boolean') ip.autoDelete = c.body['auto_delete'];
          return reply({ primary_ip: this.json(ip) });
        },
      ],
      [
        'DELETE /primary_ips/{id}',
        (c) => {
          const ip = primaryIp(c);
          // DELETE /primary_ips/{id}: an assigned IP is unassigned automatically until 1 May 2026 (422
          // must_be_unassigned after), and only from a server that is off (422 server_not_stopped).
          if (ip.assigneeId !== null) {
            if (p.now() >= MUST_UNASSIGN_FROM)
              throw new EmulatorError(422, 'must_be_unassigned', `primary ip ${ip.id} is assigned to server ${ip.assigneeId}; unassign it first`);
            this.#unassign(ip);
          }
          p.primaryIps.delete(ip.id);
          return noContent();
        },
      ],
      [
        'POST /primary_ips/{id}/actions/assign',
        (c) => {
          const ip = primaryIp(c);
          const server = found(p.servers, p.serverId(c.body['assignee_id'], 'assignee_id'), 'server');
          // POST /primary_ips/{id}/actions/assign: the server must be off and without an IP of this type.
          if (ip.assigneeId !== null)
            throw new EmulatorError(422, 'primary_ip_already_assigned', `primary ip ${ip.id} is already assigned to server ${ip.assigneeId}`);
          if (p.status(server) !== 'off') throw new EmulatorError(422, 'server_not_stopped', 'The Server is running, but needs to be powered off');
          const type = ip.type ?? 'ipv4';
          if (server[type])
            throw new EmulatorError(422, `server_has_${type}`, `server ${server.id} already has a primary ${type === 'ipv4' ? 'IPv4' : 'IPv6'}`);
          ip.assigneeId = server.id;
          server[type] = { id: ip.id, ip: ip.ip };
          const resources = [
            { id: ip.id, type: 'primary_ip' },
            { id: server.id, type: 'server' },
          ];
          return reply({ action: p.action('assign_primary_ip', resources, 1_000) }, 201);
        },
      ],
      [
        'POST /primary_ips/{id}/actions/unassign',
        (c) => {
          const ip = primaryIp(c);
          const server = ip.assigneeId;
          this.#unassign(ip);
          const resources = [{ id: ip.id, type: 'primary_ip' }, ...(server === null ? [] : [{ id: server, type: 'server' }])];
          return reply({ action: p.action('unassign_primary_ip', resources, 1_000) }, 201);
        },
      ],
    ];
  }

  /** A deleted server's primary IPs: deleted with it when they auto-delete, else kept unassigned. */
  forgetServer(id: number): void {
    for (const ip of this.p.primaryIps.values()) {
      if (ip.assigneeId === id) {
        if (ip.autoDelete) this.p.primaryIps.delete(ip.id);
        else ip.assigneeId = null;
      }
    }
  }

  /** Takes `ip` off its server, which must be off ("A Server must be powered off", POST .../actions/unassign). */
  #unassign(ip: PrimaryIp): void {
    if (ip.assigneeId === null) return;
    const server = this.p.servers.get(ip.assigneeId);
    if (server && this.p.status(server) !== 'off') throw new EmulatorError(422, 'server_not_stopped', 'The Server is running, but needs to be powered off');
    if (server) delete server[ip.type ?? 'ipv4'];
    ip.assigneeId = null;
  }

  #create(body: Json): PrimaryIp {
    const p = this.p;
    const name = p.name(body['name'], p.primaryIps.values(), 'primary_ip');
    const invalid = (message: string, field: string) => new EmulatorError(400, 'invalid_input', message, { details: { fields: [{ name: field }] } });
    const type = body['type'];
    if (type !== 'ipv4' && type !== 'ipv6') throw invalid('type must be ipv4 or ipv6', 'type');
    // Where it lives: its `location`, the deprecated `datacenter`'s location, or the server it is made for; with none of
    // them the API refuses both fields ("invalid input in fields 'assignee_id', 'datacenter'", hetznercloud/cli#1175).
    const assignee = body['assignee_id'] === undefined || body['assignee_id'] === null ? undefined : found(p.servers, Number(body['assignee_id']), 'server');
    const datacenter = typeof body['datacenter'] === 'string' ? HETZNER_DATACENTERS.find((d) => d.name === body['datacenter']) : undefined;
    if (typeof body['datacenter'] === 'string' && !datacenter) throw invalid(`datacenter ${body['datacenter']} not found`, 'datacenter');
    const locationName = typeof body['location'] === 'string' ? body['location'] : (datacenter?.location ?? assignee?.location.name);
    if (locationName === undefined)
      throw new EmulatorError(400, 'invalid_input', "invalid input in fields 'assignee_id', 'datacenter'", {
        details: {
          fields: [
            { name: 'assignee_id', messages: ['assignee_id or a location is required'] },
            { name: 'datacenter', messages: ['assignee_id or a location is required'] },
          ],
        },
      });
    const location = HETZNER_LOCATIONS.find((l) => l.name === locationName);
    if (!location) throw invalid('location not found', 'location');
    if (assignee) {
      // POST /primary_ips documents 422 `server_not_stopped`: a primary IP is assigned to a server that is off.
      if (p.status(assignee) !== 'off') throw new EmulatorError(422, 'server_not_stopped', 'The Server is running, but needs to be powered off');
      if (assignee[type])
        throw new EmulatorError(422, `server_has_${type}`, `server ${assignee.id} already has a primary ${type === 'ipv4' ? 'IPv4' : 'IPv6'}`);
    }
    const ip: PrimaryIp = {
      id: p.id(),
      name,
      labels: p.labels(body['labels']),
      type,
      ip: type === 'ipv4' ? p.publicIp() : p.publicIpv6Network(),
      assigneeId: assignee?.id ?? null,
      autoDelete: body['auto_delete'] === true,
      location,
      created: p.now(),
    };
    p.primaryIps.set(ip.id, ip);
    if (assignee) assignee[type] = { id: ip.id, ip: ip.ip };
    return ip;
  }

  json(ip: PrimaryIp): Json {
    return {
      id: ip.id,
      name: ip.name,
      labels: ip.labels,
      ip: ip.ip,
      type: ip.type ?? 'ipv4',
      assignee_id: ip.assigneeId,
      assignee_type: 'server',
      auto_delete: ip.autoDelete,
      blocked: false,
      location: ip.location,
      datacenter: datacenterOf(ip.location.name, this.p.now()),
      dns_ptr: [],
      protection: { delete: false },
      created: this.p.iso(ip.created),
    };
  }
}
