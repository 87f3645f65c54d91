// Primary IPs of the emulated Hetzner project: a server's public IPv4, made with the server or on its own, assigned to
// at most one server that is off (https://docs.hetzner.cloud/reference/cloud#primary-ips).
import { EmulatorError, type Json, noContent, reply } from '../emulator/index.js';
import { HETZNER_LOCATIONS } from './catalog.js';
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
          if (server.ipv4) throw new EmulatorError(422, 'server_has_ipv4', `server ${server.id} already has a primary IPv4`);
          ip.assigneeId = server.id;
          server.ipv4 = { id: ip.id, ip: ip.ip };
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
    if (server) delete server.ipv4;
    ip.assigneeId = null;
  }

  #create(body: Json): PrimaryIp {
    const p = this.p;
    const name = p.name(body['name'], p.primaryIps.values(), 'primary_ip');
    const invalid = (message: string, field: string) => new EmulatorError(400, 'invalid_input', message, { details: { fields: [{ name: field }] } });
    if (body['type'] !== 'ipv4') throw invalid('only ipv4 primary IPs are emulated', 'type');
    const location = HETZNER_LOCATIONS.find((l) => l.name === (body['location'] ?? 'fsn1'));
    if (!location) throw invalid('location not found', 'location');
    const ip: PrimaryIp = {
      id: p.id(),
      name,
      labels: p.labels(body['labels']),
      ip: p.publicIp(),
      assigneeId: null,
      autoDelete: body['auto_delete'] === true,
      location,
      created: p.now(),
    };
    p.primaryIps.set(ip.id, ip);
    return ip;
  }

  json(ip: PrimaryIp): Json {
    return {
      id: ip.id,
      name: ip.name,
      labels: ip.labels,
      ip: ip.ip,
      type: 'ipv4',
      assignee_id: ip.assigneeId,
      assignee_type: 'server',
      auto_delete: ip.autoDelete,
      blocked: false,
      location: ip.location,
      datacenter: datacenterOf(ip.location.name),
      dns_ptr: [],
      protection: { delete: false },
      created: this.p.iso(ip.created),
    };
  }
}
