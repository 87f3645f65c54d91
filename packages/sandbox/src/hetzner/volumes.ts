// Volumes of the emulated Hetzner project: block devices of 10 GB to 10 TB in one location, attached to at most one
// server of that location (https://docs.hetzner.cloud/reference/cloud#volumes).
import { ApiError, invalidInput, type Json, type Labels } from './api-error.js';
import { found, SORT_ID_NAME_CREATED, type HetznerProject } from './project.js';
import { HETZNER_LOCATIONS } from './catalog.js';

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
  readonly items = new Map<number, Volume>();

  constructor(
    private readonly p: HetznerProject,
    /** The location of a server, to place a volume created for it and to check an attach. */
    private readonly serverLocation: (serverId: number) => string,
  ) {}

  attachedTo(serverId: number): number[] {
    return [...this.items.values()].filter((v) => v.server === serverId).map((v) => v.id);
  }

  /** A deleted server's volumes stay, detached (DELETE /servers/{id}: "Volumes ... are detached"). */
  detachAll(serverId: number): void {
    for (const v of this.items.values()) if (v.server === serverId) v.server = null;
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
      if (method === 'GET') {
        const status = query.get('status');
        return [
          200,
          this.p.list(
            'volumes',
            [...this.items.values()].filter(() => status === null || status === 'available'),
            (v) => this.json(v),
            query,
            SORT_ID_NAME_CREATED,
          ),
        ];
      }
      if (method === 'POST') return [201, this.#create(body)];
      return undefined;
    }
    const volume = found(this.items, id, 'volume');
    if (sub === undefined) {
      if (method === 'GET') return [200, { volume: this.json(volume) }];
      if (method === 'PUT') {
        if (body['name'] !== undefined && body['name'] !== volume.name) volume.name = this.p.name(body['name'], this.items.values(), 'volume');
        if (body['labels'] !== undefined) volume.labels = this.p.labels(body['labels']);
        return [200, { volume: this.json(volume) }];
      }
      if (method === 'DELETE') {
        if (volume.deleteProtection) throw new ApiError(403, 'protected', `volume ${id} is protected against deletion`);
        // "The Volume must not be attached to a Server" (DELETE /volumes/{id}). The API answers `service_error` ("volume
        // with ID '…' is still attached to a server", hetznercloud/csi-driver#12); not `conflict`, which means "changed
        // during the request" and which hcloud-go retries forever (hcloud/client_handler_retry.go).
        if (volume.server !== null) throw new ApiError(422, 'service_error', `volume with ID '${id}' is still attached to a server`);
        this.items.delete(id);
        return [204, undefined];
      }
      return undefined;
    }
    if (sub !== 'actions' || method !== 'POST') return undefined;
    const resources = () => [{ id, type: 'volume' }, ...(volume.server === null ? [] : [{ id: volume.server, type: 'server' }])];
    switch (action) {
      case 'attach': {
        const server = this.p.serverId(body['server'], 'server');
        if (volume.server !== null) throw new ApiError(422, 'service_error', `volume with ID '${id}' is already attached to a server`);
        // "Works only if the Server is in the same Location as the Volume" (POST /volumes/{id}/actions/attach).
        if (this.serverLocation(server) !== volume.location)
          throw invalidInput('server', `volume ${id} is in ${volume.location}, server ${server} in ${this.serverLocation(server)}`);
        volume.server = server;
        return [201, { action: this.p.action('attach_volume', resources(), 3_000) }];
      }
      case 'detach': {
        const before = resources();
        volume.server = null;
        return [201, { action: this.p.action('detach_volume', before, 3_000) }];
      }
      case 'resize': {
        const size = Number(body['size']);
        if (!Number.isInteger(size) || size < volume.size || size > MAX_GB)
          throw invalidInput('size', `must be an integer from ${volume.size} (the current size) to ${MAX_GB}`);
        volume.size = size;
        return [201, { action: this.p.action('resize_volume', resources(), 5_000) }];
      }
      case 'change_protection':
        if (typeof body['delete'] === 'boolean') volume.deleteProtection = body['delete'];
        return [201, { action: this.p.action('change_protection', resources(), 1_000) }];
    }
    return undefined;
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
