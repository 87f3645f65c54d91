// Networks of the emulated Hetzner project: a private range with subnets per network zone, which servers join
// (https://docs.hetzner.cloud/reference/cloud#networks).
import { EmulatorError, type Json, noContent, reply } from '../emulator/index.js';
import { invalidInput } from './dialect.js';
import { found, type HetznerProject, type HetznerRoute, idParam, SORT_ID_NAME_CREATED } from './project.js';
import type { Network } from './resources.js';

export class Networks {
  constructor(private readonly p: HetznerProject) {}

  routes(): HetznerRoute[] {
    const p = this.p;
    return [
      ['GET /networks', (c) => reply(p.list('networks', p.networks.values(), (n) => this.json(n), c.query, SORT_ID_NAME_CREATED))],
      ['POST /networks', (c) => reply({ network: this.json(this.#create(c.body)) }, 201)],
      ['GET /networks/{id}', (c) => reply({ network: this.json(found(p.networks, idParam(c), 'network')) })],
      [
        'PUT /networks/{id}',
        (c) => {
          const n = found(p.networks, idParam(c), 'network');
          if (c.body['name'] !== undefined && c.body['name'] !== n.name) n.name = p.name(c.body['name'], p.networks.values(), 'network');
          if (c.body['labels'] !== undefined) n.labels = p.labels(c.body['labels']);
          return reply({ network: this.json(n) });
        },
      ],
      [
        'POST /networks/{id}/actions/add_subnet',
        (c) => {
          const id = idParam(c);
          const n = found(p.networks, id, 'network');
          n.subnets.push(this.#subnet(n, c.body));
          return reply({ action: p.action('add_subnet', [{ id, type: 'network' }], 1_000) }, 201);
        },
      ],
      [
        'DELETE /networks/{id}',
        (c) => {
          const id = idParam(c);
          found(p.networks, id, 'network');
          for (const s of p.servers.values()) s.privateNets = s.privateNets.filter((n) => n.network !== id);
          p.networks.delete(id);
          return noContent();
        },
      ],
    ];
  }

  /** The next address of `n` for a server joining it. */
  privateIp(n: Network): string {
    const base = n.subnets[0]?.ip_range ?? n.ipRange;
    const [a, b, c] = base.split('/')[0]!.split('.');
    n.nextHost += 1;
    return `${a}.${b}.${Number(c) + Math.floor(n.nextHost / 250)}.${(n.nextHost % 250) + 1}`;
  }

  #create(body: Json): Network {
    const p = this.p;
    const name = p.name(body['name'], p.networks.values(), 'network');
    const ipRange = body['ip_range'];
    if (typeof ipRange !== 'string' || !/^(10|172|192)\.\d+\.\d+\.\d+\/\d+$/.test(ipRange))
      throw new EmulatorError(400, 'invalid_input', 'ip_range must be an RFC 1918 CIDR', { details: { fields: [{ name: 'ip_range' }] } });
    const n: Network = { id: p.id(), name, labels: p.labels(body['labels']), ipRange, subnets: [], created: p.now(), nextHost: 1 };
    if (Array.isArray(body['subnets'])) for (const sub of body['subnets'] as Json[]) n.subnets.push(this.#subnet(n, sub));
    p.networks.set(n.id, n);
    return n;
  }

  /** A subnet (`subnets[]` of POST /networks, the body of add_subnet): its gateway is the range's first address. */
  #subnet(n: Network, body: Json): Network['subnets'][number] {
    const type = String(body['type'] ?? 'cloud');
    if (!['cloud', 'server', 'vswitch'].includes(type)) throw invalidInput('type', 'must be cloud, server or vswitch');
    const range = typeof body['ip_range'] === 'string' ? body['ip_range'] : undefined;
    if (range === undefined || !/^\d+\.\d+\.\d+\.\d+\/\d+$/.test(range)) throw invalidInput('ip_range', `a subnet of ${n.ipRange} is required`);
    return { type, ip_range: range, network_zone: String(body['network_zone'] ?? 'eu-central'), gateway: range.replace(/\d+\/\d+$/, '1') };
  }

  json(n: Network): Json {
    return {
      id: n.id,
      name: n.name,
      ip_range: n.ipRange,
      subnets: n.subnets,
      routes: [],
      servers: this.p.servers.filter((s) => s.privateNets.some((net) => net.network === n.id)).map((s) => s.id),
      load_balancers: [],
      labels: n.labels,
      created: this.p.iso(n.created),
      protection: { delete: false },
      expose_routes_to_vswitch: false,
    };
  }
}
