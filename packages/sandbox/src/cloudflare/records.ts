// DNS records of a zone: list, create, read, overwrite (PUT), edit (PATCH), delete, and the atomic batch endpoint;
// each write checked as Cloudflare checks it against the zone's other records.
import { cloudflareCatalog } from '../catalogs/cloudflare/cloudflare-catalog.js';
import { EmulatorError, type Json, type Reply, reply } from '../emulator/index.js';
import { type CloudflareRoute, type CloudflareWorld, type DnsRec, iso, page, route, type Zone, zoneOf } from './world.js';

export function recordRoutes(w: CloudflareWorld): CloudflareRoute[] {
  const zone = (params: Readonly<Record<string, string>>) => zoneOf(w, params['zone'] ?? '');
  /** The zone's record named by the path (`batch` too, when it is read as a record). */
  const record = (params: Readonly<Record<string, string>>) => recordOf(w, zone(params), params['record'] ?? '');
  return [
    route('GET /zones/{zone}/dns_records', (c) => {
      const z = zone(c.params);
      const name = c.query.get('name');
      const type = c.query.get('type');
      return page(
        w.records.filter((r) => r.zoneId === z.id && (!name || r.name === name) && (!type || r.type === type)).map((r) => recordJson(w, r)),
        c.query,
      );
    }),
    route('POST /zones/{zone}/dns_records', (c) => {
      const r = validateRecord(w, zone(c.params), c.body, new Set(), []);
      w.records.set(r.id, r);
      return reply(recordJson(w, r));
    }),
    route('POST /zones/{zone}/dns_records/batch', (c) => batch(w, zone(c.params), c.body)),
    route('GET /zones/{zone}/dns_records/{record}', (c) => reply(recordJson(w, record(c.params)))),
    route('DELETE /zones/{zone}/dns_records/{record}', (c) => {
      const r = record(c.params);
      w.records.delete(r.id);
      return reply({ id: r.id });
    }),
    route('PUT /zones/{zone}/dns_records/{record}', (c) => update(w, zone(c.params), record(c.params), c.body)),
    route('PATCH /zones/{zone}/dns_records/{record}', (c) => {
      const r = record(c.params);
      const fields = { name: r.name, type: r.type, content: r.content, ttl: r.ttl, proxied: r.proxied, comment: r.comment };
      return update(w, zone(c.params), r, { ...fields, ...c.body });
    }),
  ];
}

export function recordOf(w: CloudflareWorld, zone: Zone, id: string): DnsRec {
  const r = w.records.get(id);
  if (!r || r.zoneId !== zone.id) throw new EmulatorError(404, 81044, 'Record does not exist.');
  return r;
}

/** A DNS record as the API gives it (https://developers.cloudflare.com/api/resources/dns/subresources/records/methods/get/). */
function recordJson(w: CloudflareWorld, r: DnsRec): Json {
  const zone = w.zones.get(r.zoneId);
  return {
    id: r.id,
    zone_id: r.zoneId,
    zone_name: zone?.name ?? '',
    name: r.name,
    type: r.type,
    content: r.content,
    proxiable: cloudflareCatalog().proxiable_record_types.includes(r.type),
    proxied: r.proxied,
    ttl: r.ttl,
    settings: {},
    meta: {},
    comment: r.comment,
    tags: [],
    created_on: iso(r.createdOn),
    modified_on: iso(r.modifiedOn ?? r.createdOn),
  };
}

/**
 * A record's name as Cloudflare stores it: "DNS record name (or @ for the zone apex)"
 * (https://developers.cloudflare.com/api/resources/dns/subresources/records/methods/create/), and a name that does
 * not end in the zone is relative to it, as in the dashboard (`www` is `www.<zone>`). A fully qualified name
 * (trailing dot) outside the zone is refused.
 */
function recordName(zone: Zone, raw: unknown): string {
  const given = String(raw ?? '').trim();
  if (given === '') throw new EmulatorError(400, 9007, 'DNS record name is required.');
  if (given === '@') return zone.name;
  const absolute = given.endsWith('.');
  const name = given.replace(/\.$/, '').toLowerCase();
  if (name === zone.name || name.endsWith(`.${zone.name}`)) return name;
  if (absolute) throw new EmulatorError(400, 1004, `DNS Validation Error: ${name} is not in zone ${zone.name}`);
  return `${name}.${zone.name}`;
}

/** A new record from `input`, checked against the zone's records but those in `except`, and the `pending` ones. */
function validateRecord(w: CloudflareWorld, zone: Zone, input: Json, except: Set<string>, pending: DnsRec[]): DnsRec {
  const name = recordName(zone, input['name']);
  const type = String(input['type'] ?? '');
  const content = String(input['content'] ?? '');
  // The record types Cloudflare supports (the snapshot in ../catalogs/cloudflare/); only A records' content is checked.
  if (!cloudflareCatalog().dns_record_types.includes(type)) throw new EmulatorError(400, 1004, `DNS Validation Error: unsupported type ${type}`);
  if (type === 'A' && !/^\d{1,3}(\.\d{1,3}){3}$/.test(content)) throw new EmulatorError(400, 9005, 'Content for A record must be a valid IPv4 address.');
  const ttl = Number(input['ttl'] ?? 1);
  if (!(ttl === 1 || (ttl >= 30 && ttl <= 86400))) throw new EmulatorError(400, 1004, 'DNS Validation Error: ttl must be 1 (auto) or between 30 and 86400');
  const others = [...w.records.filter((r) => !except.has(r.id)), ...pending].filter((r) => r.zoneId === zone.id && r.name === name);
  if (others.some((r) => r.type === type && r.content === content)) throw new EmulatorError(400, 81058, 'An identical record already exists.');
  if (others.some((r) => (r.type === 'CNAME') !== (type === 'CNAME') && ['A', 'AAAA', 'CNAME'].includes(r.type)))
    throw new EmulatorError(400, 81053, 'An A, AAAA, or CNAME record with that host already exists.');
  const now = w.now();
  return {
    id: w.id(),
    zoneId: zone.id,
    name,
    type,
    content,
    ttl,
    proxied: input['proxied'] === true,
    comment: typeof input['comment'] === 'string' ? input['comment'] : null,
    createdOn: now,
    modifiedOn: now,
  };
}

/**
 * PUT overwrites the record (every field as for a create); PATCH changes the fields given
 * (https://developers.cloudflare.com/api/resources/dns/subresources/records/methods/update/ and .../edit/). Both
 * keep the id and the creation time and are checked as a create is, against the zone's other records.
 */
function update(w: CloudflareWorld, zone: Zone, r: DnsRec, input: Json): Reply {
  const next = validateRecord(w, zone, input, new Set([r.id]), []);
  Object.assign(r, {
    name: next.name,
    type: next.type,
    content: next.content,
    ttl: next.ttl,
    proxied: next.proxied,
    comment: next.comment,
    modifiedOn: next.modifiedOn,
  });
  return reply(recordJson(w, r));
}

/** POST /zones/{zone}/dns_records/batch: all or nothing, every part validated against the state after the deletes, then applied. */
function batch(w: CloudflareWorld, zone: Zone, body: Json): Reply {
  const list = (k: string) => (Array.isArray(body[k]) ? (body[k] as Json[]) : []);
  const deletes = list('deletes').map((x) => String(x['id']));
  for (const d of deletes) if (w.records.get(d)?.zoneId !== zone.id) throw new EmulatorError(404, 81044, `Record ${d} does not exist.`);
  const gone = new Set(deletes);
  const patched = list('patches').map((p) => {
    const cur = w.records.get(String(p['id']));
    if (!cur || gone.has(cur.id)) throw new EmulatorError(404, 81044, `Record ${String(p['id'])} does not exist.`);
    return {
      ...cur,
      ...(p['ttl'] !== undefined ? { ttl: Number(p['ttl']) } : {}),
      ...(typeof p['comment'] === 'string' ? { comment: p['comment'] } : {}),
      ...(typeof p['content'] === 'string' ? { content: p['content'] } : {}),
    };
  });
  // Puts overwrite whole records, as PUT on one record does.
  const replaced = new Set([...gone, ...patched.map((p) => p.id)]);
  const put: DnsRec[] = [];
  for (const p of list('puts')) {
    const cur = w.records.get(String(p['id']));
    if (!cur || cur.zoneId !== zone.id || replaced.has(cur.id)) throw new EmulatorError(404, 81044, `Record ${String(p['id'])} does not exist.`);
    replaced.add(cur.id);
    const next = validateRecord(w, zone, p, replaced, put);
    put.push({ ...next, id: cur.id, ...(cur.createdOn !== undefined ? { createdOn: cur.createdOn } : {}) });
  }
  const posted: DnsRec[] = [];
  for (const p of list('posts')) posted.push(validateRecord(w, zone, p, replaced, [...put, ...posted]));
  for (const d of deletes) w.records.delete(d);
  for (const p of [...patched, ...put, ...posted]) w.records.set(p.id, p);
  return reply({
    deletes: deletes.map((d) => ({ id: d })),
    patches: patched.map((r) => recordJson(w, r)),
    puts: put.map((r) => recordJson(w, r)),
    posts: posted.map((r) => recordJson(w, r)),
  });
}
