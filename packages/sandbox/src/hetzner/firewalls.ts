// Firewalls of the emulated Hetzner project: rules, applied to servers given at their creation, by id, or through a
// label selector (https://docs.hetzner.cloud/reference/cloud#firewalls).
import { EmulatorError, type Json, noContent, reply } from '../emulator/index.js';
import { invalidInput } from './dialect.js';
import { hetznerLabelSelector } from './label-selector.js';
import { byId, found, type HetznerProject, type HetznerRoute, SORT_ID_NAME_CREATED } from './project.js';
import type { Firewall, Server } from './resources.js';

export class Firewalls {
  constructor(private readonly p: HetznerProject) {}

  routes(): HetznerRoute[] {
    const p = this.p;
    const firewall = byId(p.firewalls, 'firewall');
    return [
      ['GET /firewalls', (c) => reply(p.list('firewalls', p.firewalls.values(), (f) => this.json(f), c.query, SORT_ID_NAME_CREATED))],
      ['POST /firewalls', (c) => reply(this.#create(c.body), 201)],
      ['GET /firewalls/{id}', (c) => reply({ firewall: this.json(firewall(c)) })],
      [
        'PUT /firewalls/{id}',
        (c) => {
          const fw = firewall(c);
          if (c.body['name'] !== undefined && c.body['name'] !== fw.name) fw.name = p.name(c.body['name'], p.firewalls.values(), 'firewall');
          if (c.body['labels'] !== undefined) fw.labels = p.labels(c.body['labels']);
          return reply({ firewall: this.json(fw) });
        },
      ],
      [
        'DELETE /firewalls/{id}',
        (c) => {
          const fw = firewall(c);
          // 422 `resource_in_use`, "Firewall still applied to a resource" (DELETE /firewalls/{id}): given at a server's
          // creation, or applied later to a server or a label selector.
          const direct = p.servers.filter((s) => s.firewalls.includes(fw.id));
          if (direct.length > 0 || fw.appliedTo.length > 0)
            throw new EmulatorError(422, 'resource_in_use', `firewall ${fw.id} is still applied to ${direct.length + fw.appliedTo.length} resource(s)`);
          p.firewalls.delete(fw.id);
          return noContent();
        },
      ],
      [
        'POST /firewalls/{id}/actions/set_rules',
        (c) => {
          const fw = firewall(c);
          fw.rules = this.#validateRules(c.body['rules']);
          return reply({ actions: [p.action('set_firewall_rules', [{ id: fw.id, type: 'firewall' }], 1_000)] }, 201);
        },
      ],
      [
        'POST /firewalls/{id}/actions/apply_to_resources',
        (c) => {
          const fw = firewall(c);
          return reply({ actions: this.#apply(fw, this.#resources(c.body['apply_to'])) }, 201);
        },
      ],
      [
        'POST /firewalls/{id}/actions/remove_from_resources',
        (c) => {
          const fw = firewall(c);
          return reply({ actions: this.#remove(fw, this.#resources(c.body['remove_from'])) }, 201);
        },
      ],
    ];
  }

  /** The firewalls that apply to `s`: given at its creation, applied to it by id, or through a label selector. */
  appliedTo(s: Server): number[] {
    return this.p.firewalls.filter((f) => this.#servers(f).includes(s.id)).map((f) => f.id);
  }

  /** A deleted server leaves the firewalls applied to it by id. */
  forgetServer(id: number): void {
    for (const f of this.p.firewalls.values())
      f.appliedTo = f.appliedTo.filter((r) => !(r['type'] === 'server' && (r['server'] as { id?: number } | undefined)?.id === id));
  }

  /** The servers `f` applies to: what appliedTo reads from the other side, so both views always agree. */
  #servers(f: Firewall): number[] {
    const servers = this.p.servers;
    const ids = new Set<number>();
    for (const s of servers.values()) if (s.firewalls.includes(f.id)) ids.add(s.id);
    for (const r of f.appliedTo) {
      if (r['type'] === 'server') ids.add(Number((r['server'] as { id?: number } | undefined)?.id));
      const sel = (r['label_selector'] as { selector?: string } | undefined)?.selector;
      if (r['type'] === 'label_selector' && sel) {
        const matches = hetznerLabelSelector(sel);
        for (const s of servers.values()) if (matches(s.labels)) ids.add(s.id);
      }
    }
    return [...ids].filter((id) => servers.has(id)).sort((a, b) => a - b);
  }

  #validateRules(value: unknown): Json[] {
    const invalid = (message: string) => new EmulatorError(400, 'invalid_input', message, { details: { fields: [{ name: 'rules' }] } });
    if (value === undefined) return [];
    if (!Array.isArray(value) || value.length > 50) throw invalid('rules must be an array of at most 50 rules');
    return (value as Json[]).map((r) => {
      if (!['in', 'out'].includes(String(r['direction'])) || !['tcp', 'udp', 'icmp', 'esp', 'gre'].includes(String(r['protocol'])))
        throw invalid('invalid firewall rule');
      if ((r['protocol'] === 'tcp' || r['protocol'] === 'udp') && typeof r['port'] !== 'string') throw invalid('port is required for tcp and udp rules');
      return {
        direction: r['direction'],
        protocol: r['protocol'],
        port: r['port'] ?? null,
        source_ips: r['source_ips'] ?? [],
        destination_ips: r['destination_ips'] ?? [],
        description: r['description'] ?? null,
      };
    });
  }

  #create(body: Json): Json {
    const p = this.p;
    const name = p.name(body['name'], p.firewalls.values(), 'firewall');
    const f: Firewall = {
      id: p.id(),
      name,
      labels: p.labels(body['labels']),
      rules: this.#validateRules(body['rules']),
      appliedTo: body['apply_to'] === undefined ? [] : this.#resources(body['apply_to']),
      created: p.now(),
    };
    p.firewalls.set(f.id, f);
    return { firewall: this.json(f), actions: [] };
  }

  json(f: Firewall): Json {
    // `applied_to` lists every server the firewall applies to by id (whether given at the server's creation or
    // applied later) and each label selector with the servers it matches (`applied_to_resources`).
    const servers = this.p.servers;
    const selectors = f.appliedTo.filter((r) => r['type'] === 'label_selector');
    const selectorEntries = selectors.map((r) => {
      const matches = hetznerLabelSelector(String((r['label_selector'] as Json)['selector']));
      const ids = servers.filter((s) => matches(s.labels)).map((s) => s.id);
      return { ...r, applied_to_resources: ids.map((id) => ({ type: 'server', server: { id } })) };
    });
    const direct = servers
      .filter((s) => s.firewalls.includes(f.id) || f.appliedTo.some((r) => r['type'] === 'server' && (r['server'] as { id?: number }).id === s.id))
      .map((s) => ({ type: 'server', server: { id: s.id } }));
    return { id: f.id, name: f.name, labels: f.labels, rules: f.rules, applied_to: [...direct, ...selectorEntries], created: this.p.iso(f.created) };
  }

  /** `apply_to`/`remove_from` resources (firewall_resource): a server by id or a label selector. */
  #resources(value: unknown): Json[] {
    if (!Array.isArray(value)) throw invalidInput('apply_to', 'must be an array of resources');
    return (value as Json[]).map((r) => {
      if (r['type'] === 'server') return { type: 'server', server: { id: this.p.serverId((r['server'] as Json | undefined)?.['id'], 'server') } };
      if (r['type'] === 'label_selector') {
        const selector = String((r['label_selector'] as Json | undefined)?.['selector'] ?? '');
        hetznerLabelSelector(selector);
        return { type: 'label_selector', label_selector: { selector } };
      }
      throw invalidInput('apply_to', 'type must be server or label_selector');
    });
  }

  #sameResource(a: Json, b: Json): boolean {
    return a['type'] === b['type'] && JSON.stringify(a['server'] ?? a['label_selector']) === JSON.stringify(b['server'] ?? b['label_selector']);
  }

  #apply(f: Firewall, resources: Json[]): Json[] {
    return resources.map((r) => {
      const server = (r['server'] as { id?: number } | undefined)?.id;
      // 422 `firewall_already_applied` ("Firewall was already applied on resource", POST .../apply_to_resources).
      if (f.appliedTo.some((x) => this.#sameResource(x, r)) || (server !== undefined && found(this.p.servers, server, 'server').firewalls.includes(f.id))) {
        throw new EmulatorError(422, 'firewall_already_applied', `firewall ${f.id} is already applied to this resource`);
      }
      f.appliedTo.push(r);
      return this.p.action('apply_firewall', [{ id: f.id, type: 'firewall' }, ...(server === undefined ? [] : [{ id: server, type: 'server' }])], 1_000);
    });
  }

  #remove(f: Firewall, resources: Json[]): Json[] {
    return resources.map((r) => {
      const server = (r['server'] as { id?: number } | undefined)?.id;
      const before = f.appliedTo.length;
      f.appliedTo = f.appliedTo.filter((x) => !this.#sameResource(x, r));
      const direct = server === undefined ? undefined : this.p.servers.get(server);
      const wasDirect = direct?.firewalls.includes(f.id) ?? false;
      if (direct) direct.firewalls = direct.firewalls.filter((x) => x !== f.id);
      // 422 `firewall_already_removed` (POST /firewalls/{id}/actions/remove_from_resources).
      if (f.appliedTo.length === before && !wasDirect)
        throw new EmulatorError(422, 'firewall_already_removed', `firewall ${f.id} is not applied to this resource`);
      return this.p.action('remove_firewall', [{ id: f.id, type: 'firewall' }, ...(server === undefined ? [] : [{ id: server, type: 'server' }])], 1_000);
    });
  }
}
