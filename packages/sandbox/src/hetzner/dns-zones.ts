// DNS zones of the Hetzner project (the Cloud API's DNS, hetzner-cloud-openapi.json `/zones`): zones the user made
// before the test, and the RRSets kubeplane writes in them, each change an action.
import { ApiError, type Json, type Labels } from './api-error.js';
import type { HetznerProject } from './project.js';
import { LATENCY } from '../latency.js';

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

export class DnsZones {
  readonly zones = new Map<number, Zone>();
  readonly rrsets: RRSet[] = [];

  constructor(private readonly p: HetznerProject) {}

  /** A DNS zone the project's owner made (with its SOA and NS records), unless one of that name exists. */
  add(name: string): void {
    if ([...this.zones.values()].some((z) => z.name === name)) return;
    const zone: Zone = { id: this.p.id(), name, labels: {}, ttl: 3600, created: this.p.now() };
    this.zones.set(zone.id, zone);
    this.rrsets.push({
      zone: zone.id,
      name: '@',
      type: 'SOA',
      ttl: 3600,
      records: [{ value: 'hydrogen.ns.hetzner.com. dns.hetzner.com. 2026010100 86400 10800 3600000 3600' }],
      labels: {},
    });
    this.rrsets.push({
      zone: zone.id,
      name: '@',
      type: 'NS',
      ttl: 3600,
      records: [{ value: 'hydrogen.ns.hetzner.com.' }, { value: 'oxygen.ns.hetzner.com.' }, { value: 'helium.ns.hetzner.de.' }],
      labels: {},
    });
  }

  route(method: string, parts: string[], query: URLSearchParams, body: Json): [number, unknown] {
    const [zoneRef, sub, rrName, rrType, actions, action] = parts;
    if (zoneRef === undefined) {
      if (method === 'GET') return [200, this.p.list('zones', this.zones.values(), (z) => this.#zoneJson(z), query, undefined)];
      throw new ApiError(405, 'method_not_allowed', 'zones are created by the user in this sandbox');
    }
    const zone = [...this.zones.values()].find((z) => String(z.id) === zoneRef || z.name === zoneRef);
    if (!zone) throw new ApiError(404, 'not_found', `zone '${zoneRef}' not found`);
    if (sub === undefined && method === 'GET') return [200, { zone: this.#zoneJson(zone) }];
    if (sub !== 'rrsets') throw new ApiError(404, 'not_found', `${method} zones/${parts.join('/')} is not an endpoint of this API`);
    const change = (command: string) => this.p.action(command, [{ id: zone.id, type: 'zone' }], LATENCY.hetznerDnsChange);
    if (rrName === undefined) {
      if (method === 'GET') {
        // `name`, `type` and `label_selector` filter (GET /zones/{id_or_name}/rrsets).
        const sets = this.rrsets.filter((r) => r.zone === zone.id && (!query.get('type') || r.type === query.get('type')));
        return [200, this.p.list('rrsets', sets, (r) => this.#rrsetJson(r), query, undefined)];
      }
      if (method === 'POST') {
        const name = String(body['name'] ?? '');
        const type = String(body['type'] ?? '');
        if (!/^(@|[a-z0-9*_]([a-z0-9-_.]*[a-z0-9])?)$/.test(name) || name.endsWith(zone.name))
          throw new ApiError(400, 'invalid_input', `invalid rrset name '${name}': lower case, relative to the zone, '@' for the apex`, {
            fields: [{ name: 'name' }],
          });
        if (!['A', 'AAAA', 'CNAME', 'TXT', 'MX', 'SRV', 'CAA'].includes(type))
          throw new ApiError(400, 'invalid_input', `invalid rrset type '${type}'`, { fields: [{ name: 'type' }] });
        if (this.rrsets.some((r) => r.zone === zone.id && r.name === name && r.type === type))
          throw new ApiError(409, 'uniqueness_error', `rrset ${name}/${type} already exists`);
        const set: RRSet = {
          zone: zone.id,
          name,
          type,
          ttl: body['ttl'] === undefined ? null : Number(body['ttl']),
          records: this.#records(body['records']),
          labels: this.p.labels(body['labels']),
        };
        this.rrsets.push(set);
        return [201, { rrset: this.#rrsetJson(set), action: change('create_rrset') }];
      }
    }
    const index = this.rrsets.findIndex((r) => r.zone === zone.id && r.name === rrName && r.type === rrType);
    const set = this.rrsets[index];
    if (!set) throw new ApiError(404, 'not_found', `rrset ${rrName ?? ''}/${rrType ?? ''} not found`);
    if (actions === undefined && method === 'GET') return [200, { rrset: this.#rrsetJson(set) }];
    if (actions === undefined && method === 'DELETE') {
      this.rrsets.splice(index, 1);
      return [201, { action: change('delete_rrset') }];
    }
    if (actions === 'actions' && method === 'POST' && action === 'set_records') {
      set.records = this.#records(body['records']);
      return [201, { action: change('set_rrset_records') }];
    }
    if (actions === 'actions' && method === 'POST' && action === 'change_ttl') {
      set.ttl = body['ttl'] === null || body['ttl'] === undefined ? null : Number(body['ttl']);
      return [201, { action: change('change_rrset_ttl') }];
    }
    throw new ApiError(404, 'not_found', `${method} zones/${parts.join('/')} is not an endpoint of this API`);
  }

  #records(value: unknown): RRSet['records'] {
    if (!Array.isArray(value) || value.length === 0 || value.length > 50)
      throw new ApiError(400, 'invalid_input', 'records must hold 1 to 50 records', { fields: [{ name: 'records' }] });
    const records = (value as Json[]).map((r) => ({ value: String(r['value'] ?? ''), ...(typeof r['comment'] === 'string' ? { comment: r['comment'] } : {}) }));
    if (new Set(records.map((r) => r.value)).size !== records.length)
      throw new ApiError(400, 'invalid_input', 'record values must be distinct', { fields: [{ name: 'records' }] });
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
