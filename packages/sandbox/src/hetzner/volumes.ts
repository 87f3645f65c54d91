// Volumes of the emulated Hetzner project: block devices of 10 GB to 10 TB in one location, attached to at most one
// server of that location (https://docs.hetzner.cloud/reference/cloud#volumes).
import { type Collection, EmulatorError, type Json, noContent, reply } from '../emulator/index.js';
import { HETZNER_LOCATIONS } from './catalog.js';
import { invalidInput } from './dialect.js';
import { byId, type HetznerProject, type HetznerRoute, SORT_ID_NAME_CREATED } from './project.js';
import type { Labels } from './resources.js';

export interface Volume {
  id: number;
  name: string;
  labels: Labels;
  size: number;
  location: string;
  server: number | null;
  format: string | null;
  created: number;
  deleteProtection: boolean;
}

// The API's limits: "Size of the Volume in GB ... 10 to 10240" (POST /volumes, `size`).
const MIN_GB = 10;
const MAX_GB = 10240;

export class Volumes {
  readonly items: Collection<number, Volume>;

  constructor(
    private readonly p: HetznerProject,
    /** The location of a server, to place a volume created for it and to check an attach. */
    private readonly serverLocation: (serverId: number) => string,
  ) {
    this.items = p.store.collection('volumes', { inventory: (v) => p.inventoryItem('volume', v) });
  }

  attachedTo(serverId: number): number[] {
    return this.items.filter((v) => v.server === serverId).map((v) => v.id);
  }

  /** A deleted server's volumes stay, detached (DELETE /servers/{id}: "Volumes ... are detached"). */
  detachAll(serverId: number): void {
    for (const v of this.items.values()) if (v.server === serverId) v.server = null;
  }

  routes(): HetznerRoute[] {
    const volume = byId(this.items, 'volume');
    const resources = (v: Volume) => [{ id: v.id, type: 'volume' }, ...(v.server === null ? [] : [{ id: v.server, type: 'server' }])];
    return [
      [
        'GET /volumes',
        (c) => {
          // Every volume is `available` once made (creating takes no virtual time here).
          const status = c.query.getAll('status');
          const chosen = this.items.filter(() => status.length === 0 || status.includes('available'));
          return reply(this.p.list('volumes', chosen, (v) => this.json(v), c.query, SORT_ID_NAME_CREATED));
        },
      ],
      ['POST /volumes', (c) => reply(this.#create(c.body), 201)],
      ['GET /volumes/{id}', (c) => reply({ volume: this.json(volume(c)) })],
      [
        'PUT /volumes/{id}',
        (c) => {
          const v = volume(c);
          if (c.body['name'] !== undefined && c.body['name'] !== v.name) v.name = this.p.name(c.body['name'], this.items.values(), 'volume');
          if (c.body['labels'] !== undefined) v.labels = this.p.labels(c.body['labels']);
          return reply({ volume: this.json(v) });
        },
      ],
      [
        'DELETE /volumes/{id}',
        (c) => {
          const v = volume(c);
          if (v.deleteProtection) throw new EmulatorError(403, 'protected', `volume ${v.id} is protected against deletion`);
          // "The Volume must not be attached to a Server" (DELETE /volumes/{id}). The API answers `service_error` ("volume
          // with ID '…' is still attached to a server", hetznercloud/csi-driver#12); not `conflict`, which means "changed
          // during the request" and which hcloud-go retries forever (hcloud/client_handler_retry.go).
          if (v.server !== null) throw new EmulatorError(422, 'service_error', `volume with ID '${v.id}' is still attached to a server`);
          this.items.delete(v.id);
          return noContent();
        },
      ],
      [
        'POST /volumes/{id}/actions/attach',
        (c) => {
          const v = volume(c);
          const server = this.p.serverId(c.body['server'], 'server');
          if (v.server !== null) throw new EmulatorError(422, 'service_error', `volume with ID '${v.id}' is already attached to a server`);
          // "Works only if the Server is in the same Location as the Volume" (POST /volumes/{id}/actions/attach).
          if (this.serverLocation(server) !== v.location)
            throw invalidInput('server', `volume ${v.id} is in ${v.location}, server ${server} in ${this.serverLocation(server)}`);
          v.server = server;
          return reply({ action: this.p.action('attach_volume', resources(v), 3_000) }, 201);
        },
      ],
      [
        'POST /volumes/{id}/actions/detach',
        (c) => {
          const v = volume(c);
          const before = resources(v);
          v.server = null;
          return reply({ action: this.p.action('detach_volume', before, 3_000) }, 201);
        },
      ],
      [
        'POST /volumes/{id}/actions/resize',
        (c) => {
          const v = volume(c);
          const size = Number(c.body['size']);
          if (!Number.isInteger(size) || size < v.size || size > MAX_GB)
            throw invalidInput('size', `must be an integer from ${v.size} (the current size) to ${MAX_GB}`);
          v.size = size;
          return reply({ action: this.p.action('resize_volume', resources(v), 5_000) }, 201);
        },
      ],
      [
        'POST /volumes/{id}/actions/change_protection',
        (c) => {
          const v = volume(c);
          if (typeof c.body['delete'] === 'boolean') v.deleteProtection = c.body['delete'];
          return reply({ action: this.p.action('change_protection', resources(v), 1_000) }, 201);
        },
      ],
    ];
  }

  #create(body: Json): Json {
    const name = this.p.name(body['name'], this.items.values(), 'volume');
    const size = Number(body['size']);
    if (!Number.isInteger(size) || size < MIN_GB || size > MAX_GB) throw invalidInput('size', `must be an integer from ${MIN_GB} to ${MAX_GB}`);
    const server = body['server'] === undefined || body['server'] === null ? null : this.p.serverId(body['server'], 'server');
    // "Specify a location or a Server" (POST /volumes): a volume made for a server lives in the server's location.
    const location = server !== null ? this.serverLocation(server) : typeof body['location'] === 'string' ? body['location'] : undefined;
    if (location === undefined || !HETZNER_LOCATIONS.some((l) => l.name === location)) throw invalidInput('location', 'a location (or a server) is required');
    const format = body['format'] === undefined || body['format'] === null ? null : String(body['format']);
    if (format !== null && !['ext4', 'xfs'].includes(format)) throw invalidInput('format', 'must be ext4 or xfs');
    const v: Volume = {
      id: this.p.id(),
      name,
      labels: this.p.labels(body['labels']),
      size,
      location,
      server,
      format,
      created: this.p.now(),
      deleteProtection: false,
    };
    this.items.set(v.id, v);
    const action = this.p.action('create_volume', [{ id: v.id, type: 'volume' }], 3_000);
    const next =
      server === null
        ? []
        : [
            this.p.action(
              'attach_volume',
              [
                { id: v.id, type: 'volume' },
                { id: server, type: 'server' },
              ],
              3_000,
            ),
          ];
    return { volume: this.json(v), action, next_actions: next };
  }

  json(v: Volume): Json {
    return {
      id: v.id,
      name: v.name,
      labels: v.labels,
      size: v.size,
      server: v.server,
      format: v.format,
      status: 'available',
      location: this.p.locationJson(v.location),
      linux_device: `/dev/disk/by-id/scsi-0HC_Volume_${v.id}`,
      protection: { delete: v.deleteProtection },
      created: this.p.iso(v.created),
    };
  }
}
