// DNS zones of the Hetzner project (the Cloud API's DNS, hetzner-cloud-openapi.json `/zones`): zones the user made
// before the test, and the RRSets kubeplane writes in them, each change an action.
import { type Collection, EmulatorError, type Json, reply, type RoutedCall } from '../emulator/index.js';
import { LATENCY } from '../latency.js';
import type { HetznerProject, HetznerRoute } from './project.js';
import type { Labels } from './resources.js';

export interface Zone {
  id: number;
  name: string;
  labels: Labels;
  ttl: number;
  created: number;
}
export interface RRSet {
  zone: number;
  name: string;
  type: string;
  ttl: number | null;
  records: Array<{ value: string; comment?: string }>;
  labels: Labels;
}

const RRSET = '/zones/{id_or_name}/rrsets/{rr_name}/{rr_type}';

export class DnsZones {
  readonly zones: Collection<number, Zone>;
  /** Keyed `<zone id>/<name>/<type>`, in the order they were made. */
  readonly rrsets: Collection<string, RRSet>;

  constructor(private readonly p: HetznerProject) {
    this.zones = p.store.collection('zones');
    this.rrsets = p.store.collection('rrsets', {
      // The zone's own apex records (SOA, NS) are the user's, not inventory.
      inventory: (r) =>
        r.name === '@' ? undefined : { ...p.inventoryItem('dns-record', { id: r.zone, name: `${r.name}/${r.type}`, labels: r.labels }), id: rrsetKey(r) },
    });
  }

  /** A DNS zone the project's owner made (with its SOA and NS records), unless one of that name exists. */
  add(name: string): void {
    if (this.zones.find((z) => z.name === name)) return;
    const zone: Zone = { id: this.p.id(), name, labels: {}, ttl: 3600, created: this.p.now() };
    this.zones.set(zone.id, zone);
    this.#put({
      zone: zone.id,
      name: '@',
      type: 'SOA',
      ttl: 3600,
      records: [{ value: 'hydrogen.ns.hetzner.com. dns.hetzner.com. 2026010100 86400 10800 3600000 3600' }],
      labels: {},
    });
    this.#put({
      zone: zone.id,
      name: '@',
      type: 'NS',
      ttl: 3600,
      records: [{ value: 'hydrogen.ns.hetzner.com.' }, { value: 'oxygen.ns.hetzner.com.' }, { value: 'helium.ns.hetzner.de.' }],
      labels: {},
    });
  }

  routes(): HetznerRoute[] {
    const p = this.p;
    const change = (zone: Zone, command: string) => p.action(command, [{ id: zone.id, type: 'zone' }], LATENCY.hetznerDnsChange);
    const zoneOf = (c: RoutedCall<Json>) => {
      const ref = c.params['id_or_name']!;
      const zone = this.#zone(ref);
      if (!zone) throw new EmulatorError(404, 'not_found', `zone '${ref}' not found`);
      return zone;
    };
    const rrsetOf = (c: RoutedCall<Json>) => {
      const zone = zoneOf(c);
      const name = c.params['rr_name']!;
      const type = c.params['rr_type']!;
      const set = this.rrsets.get(rrsetKey({ zone: zone.id, name, type }));
      if (!set) throw new EmulatorError(404, 'not_found', `rrset ${name}/${type} not found`);
      return { zone, set };
    };
    return [
      ['GET /zones', (c) => reply(p.list('zones', this.zones.values(), (z) => this.#zoneJson(z), c.query, undefined))],
      ['GET /zones/{id_or_name}', (c) => reply({ zone: this.#zoneJson(zoneOf(c)) })],
      [
        'GET /zones/{id_or_name}/rrsets',
        (c) => {
          const zone = zoneOf(c);
          // `name`, `type` and `label_selector` filter (GET /zones/{id_or_name}/rrsets).
          const type = c.query.get('type');
          const sets = this.rrsets.filter((r) => r.zone === zone.id && (!type || r.type === type));
          return reply(p.list('rrsets', sets, (r) => this.#rrsetJson(r), c.query, undefined));
        },
      ],
      [
        'POST /zones/{id_or_name}/rrsets',
        (c) => {
          const zone = zoneOf(c);
          const set = this.#create(zone, c.body);
          return reply({ rrset: this.#rrsetJson(set), action: change(zone, 'create_rrset') }, 201);
        },
      ],
      [`GET ${RRSET}`, (c) => reply({ rrset: this.#rrsetJson(rrsetOf(c).set) })],
      [
        `DELETE ${RRSET}`,
        (c) => {
          const { zone, set } = rrsetOf(c);
          this.rrsets.delete(rrsetKey(set));
          return reply({ action: change(zone, 'delete_rrset') }, 201);
        },
      ],
      [
        `POST ${RRSET}/actions/set_records`,
        (c) => {
          const { zone, set } = rrsetOf(c);
          set.records = this.#records(c.body['records']);
          return reply({ action: change(zone, 'set_rrset_records') }, 201);
        },
      ],
      [
        `POST ${RRSET}/actions/change_ttl`,
        (c) => {
          const { zone, set } = rrsetOf(c);
          set.ttl = c.body['ttl'] === null || c.body['ttl'] === undefined ? null : Number(c.body['ttl']);
          return reply({ action: change(zone, 'change_rrset_ttl') }, 201);
        },
      ],
    ];
  }

  /**
   * The answer to a request below /zones that no route takes, found as the API finds it: the zone first, then the
   * RRSet, then the endpoint (`parts` are the path's segments after `zones`, decoded).
   */
  unrouted(method: string, parts: string[]): EmulatorError {
    const [zoneRef, sub, name, type] = parts;
    if (zoneRef === undefined) return new EmulatorError(405, 'method_not_allowed', 'zones are created by the user in this sandbox');
    const zone = this.#zone(zoneRef);
    if (!zone) return new EmulatorError(404, 'not_found', `zone '${zoneRef}' not found`);
    if (sub === 'rrsets' && (name === undefined || type === undefined || !this.rrsets.has(rrsetKey({ zone: zone.id, name, type }))))
      return new EmulatorError(404, 'not_found', `rrset ${name ?? ''}/${type ?? ''} not found`);
    return new EmulatorError(404, 'not_found', `${method} zones/${parts.join('/')} is not an endpoint of this API`);
  }

  #zone(ref: string): Zone | undefined {
    return this.zones.find((z) => String(z.id) === ref || z.name === ref);
  }

  #put(set: RRSet): void {
    this.rrsets.set(rrsetKey(set), set);
  }

  #create(zone: Zone, body: Json): RRSet {
    const name = String(body['name'] ?? '');
    const type = String(body['type'] ?? '');
    if (!/^(@|[a-z0-9*_]([a-z0-9-_.]*[a-z0-9])?)$/.test(name) || name.endsWith(zone.name))
      throw new EmulatorError(400, 'invalid_input', `invalid rrset name '${name}': lower case, relative to the zone, '@' for the apex`, {
        details: { fields: [{ name: 'name' }] },
      });
    if (!['A', 'AAAA', 'CNAME', 'TXT', 'MX', 'SRV', 'CAA'].includes(type))
      throw new EmulatorError(400, 'invalid_input', `invalid rrset type '${type}'`, { details: { fields: [{ name: 'type' }] } });
    if (this.rrsets.has(rrsetKey({ zone: zone.id, name, type }))) throw new EmulatorError(409, 'uniqueness_error', `rrset ${name}/${type} already exists`);
    const set: RRSet = {
      zone: zone.id,
      name,
      type,
      ttl: body['ttl'] === undefined ? null : Number(body['ttl']),
      records: this.#records(body['records']),
      labels: this.p.labels(body['labels']),
    };
    this.#put(set);
    return set;
  }

  #records(value: unknown): RRSet['records'] {
    if (!Array.isArray(value) || value.length === 0 || value.length > 50)
      throw new EmulatorError(400, 'invalid_input', 'records must hold 1 to 50 records', { details: { fields: [{ name: 'records' }] } });
    const records = (value as Json[]).map((r) => ({ value: String(r['value'] ?? ''), ...(typeof r['comment'] === 'string' ? { comment: r['comment'] } : {}) }));
    if (new Set(records.map((r) => r.value)).size !== records.length)
      throw new EmulatorError(400, 'invalid_input', 'record values must be distinct', { details: { fields: [{ name: 'records' }] } });
    return records;
  }

  #zoneJson(z: Zone): Json {
    return {
      id: z.id,
      name: z.name,
      mode: 'primary',
      ttl: z.ttl,
      labels: z.labels,
      created: this.p.iso(z.created),
      status: 'ok',
      registrar: 'other',
      record_count: this.rrsets.filter((r) => r.zone === z.id).length,
      primary_nameservers: [],
      protection: { delete: false },
      authoritative_nameservers: {
        assigned: ['hydrogen.ns.hetzner.com.', 'oxygen.ns.hetzner.com.', 'helium.ns.hetzner.de.'],
        delegated: ['hydrogen.ns.hetzner.com.', 'oxygen.ns.hetzner.com.', 'helium.ns.hetzner.de.'],
        delegation_last_check: null,
        delegation_status: 'valid',
      },
    };
  }

  #rrsetJson(r: RRSet): Json {
    return {
      id: `${r.name}/${r.type}`,
      name: r.name,
      type: r.type,
      ttl: r.ttl,
      records: r.records,
      labels: r.labels,
      protection: { change: false },
      zone: r.zone,
    };
  }
}

/** An RRSet's key in the store, and its id in the inventory: `<zone id>/<name>/<type>`. */
function rrsetKey(r: Pick<RRSet, 'zone' | 'name' | 'type'>): string {
  return `${r.zone}/${r.name}/${r.type}`;
}
