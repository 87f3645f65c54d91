// Load balancers of the emulated Hetzner project: a type, a location, services (listen → destination port) and
// targets (servers, label selectors, IPs) (https://docs.hetzner.cloud/reference/cloud#load-balancers).
import { type Collection, EmulatorError, type Json, noContent, reply } from '../emulator/index.js';
import { HETZNER_LOAD_BALANCER_TYPES, HETZNER_LOCATIONS } from './catalog.js';
import { invalidInput } from './dialect.js';
import { hetznerLabelSelector } from './label-selector.js';
import { byId, type HetznerProject, type HetznerRoute, SORT_ID_NAME_CREATED } from './project.js';
import type { Labels } from './resources.js';

type Target =
  | { type: 'server'; server: number; usePrivateIp: boolean }
  | { type: 'label_selector'; selector: string; usePrivateIp: boolean }
  | { type: 'ip'; ip: string };
interface Service {
  protocol: string;
  listen_port: number;
  destination_port: number;
  proxyprotocol: boolean;
  health_check: Json;
  http?: Json;
}
export interface LoadBalancer {
  id: number;
  name: string;
  labels: Labels;
  type: string;
  location: string;
  algorithm: string;
  services: Service[];
  targets: Target[];
  ipv4: string;
  /** Its public IPv6 address (absent in worlds saved before IPv6). */
  ipv6?: string;
  created: number;
  deleteProtection: boolean;
}

/** The same target: the same server, label selector or IP. */
function sameTarget(a: Target, b: Target): boolean {
  if (a.type === 'server') return b.type === 'server' && a.server === b.server;
  if (a.type === 'label_selector') return b.type === 'label_selector' && a.selector === b.selector;
  return b.type === 'ip' && a.ip === b.ip;
}

export class LoadBalancers {
  readonly items: Collection<number, LoadBalancer>;

  constructor(
    private readonly p: HetznerProject,
    /** Every server's id and labels, for label-selector targets. */
    private readonly servers: () => Array<{ id: number; labels: Labels }>,
  ) {
    this.items = p.store.collection('loadBalancers', { inventory: (lb) => p.inventoryItem('load-balancer', lb) });
  }

  /** The load balancers with `serverId` among their targets, directly or through a label selector. */
  targeting(serverId: number): number[] {
    return this.items.filter((lb) => this.#serverTargets(lb).includes(serverId)).map((lb) => lb.id);
  }

  /** A deleted server leaves the load balancers that targeted it by id. */
  forgetServer(serverId: number): void {
    for (const lb of this.items.values()) lb.targets = lb.targets.filter((t) => !(t.type === 'server' && t.server === serverId));
  }

  #serverTargets(lb: LoadBalancer): number[] {
    const ids = new Set<number>();
    for (const t of lb.targets) {
      if (t.type === 'server') ids.add(t.server);
      if (t.type === 'label_selector') {
        const matches = hetznerLabelSelector(t.selector);
        for (const s of this.servers()) if (matches(s.labels)) ids.add(s.id);
      }
    }
    return [...ids];
  }

  routes(): HetznerRoute[] {
    const p = this.p;
    const loadBalancer = byId(this.items, 'load_balancer');
    /** An action of the load balancer: `run` changes it and names the action's command. */
    const action = (name: string, run: (lb: LoadBalancer, body: Json) => string): HetznerRoute => [
      `POST /load_balancers/{id}/actions/${name}`,
      (c) => {
        const lb = loadBalancer(c);
        return reply({ action: p.action(run(lb, c.body), [{ id: lb.id, type: 'load_balancer' }], 1_000) }, 201);
      },
    ];
    return [
      ['GET /load_balancers', (c) => reply(p.list('load_balancers', this.items.values(), (lb) => this.json(lb), c.query, SORT_ID_NAME_CREATED))],
      ['POST /load_balancers', (c) => reply(this.#create(c.body), 201)],
      ['GET /load_balancers/{id}', (c) => reply({ load_balancer: this.json(loadBalancer(c)) })],
      [
        'PUT /load_balancers/{id}',
        (c) => {
          const lb = loadBalancer(c);
          if (c.body['name'] !== undefined && c.body['name'] !== lb.name) lb.name = p.name(c.body['name'], this.items.values(), 'load_balancer');
          if (c.body['labels'] !== undefined) lb.labels = p.labels(c.body['labels']);
          return reply({ load_balancer: this.json(lb) });
        },
      ],
      [
        'DELETE /load_balancers/{id}',
        (c) => {
          const lb = loadBalancer(c);
          if (lb.deleteProtection) throw new EmulatorError(403, 'protected', `load balancer ${lb.id} is protected against deletion`);
          this.items.delete(lb.id);
          return noContent();
        },
      ],
      action('add_target', (lb, body) => {
        const target = this.#target(body);
        if (lb.targets.some((t) => JSON.stringify(t) === JSON.stringify(target)))
          throw new EmulatorError(409, 'target_already_defined', 'the load balancer already has this target');
        lb.targets.push(target);
        return 'add_target';
      }),
      action('remove_target', (lb, body) => {
        const target = this.#target(body);
        const before = lb.targets.length;
        lb.targets = lb.targets.filter((t) => !sameTarget(t, target));
        if (lb.targets.length === before) throw new EmulatorError(404, 'not_found', 'the load balancer has no such target');
        return 'remove_target';
      }),
      action('add_service', (lb, body) => {
        const service = this.#service(body);
        if (lb.services.some((s) => s.listen_port === service.listen_port))
          throw new EmulatorError(409, 'source_port_already_used', `listen port ${service.listen_port} is already used`);
        lb.services.push(service);
        return 'add_service';
      }),
      action('delete_service', (lb, body) => {
        const port = Number(body['listen_port']);
        if (!lb.services.some((s) => s.listen_port === port)) throw new EmulatorError(404, 'not_found', `no service listens on port ${port}`);
        lb.services = lb.services.filter((s) => s.listen_port !== port);
        return 'delete_service';
      }),
      action('change_algorithm', (lb, body) => {
        lb.algorithm = this.#algorithm(body['type']);
        return 'change_algorithm';
      }),
      action('change_type', (lb, body) => {
        const type = HETZNER_LOAD_BALANCER_TYPES.find((t) => t.name === body['load_balancer_type'] || String(t.id) === String(body['load_balancer_type']));
        if (!type) throw invalidInput('load_balancer_type', 'load balancer type not found');
        lb.type = type.name;
        return 'change_load_balancer_type';
      }),
      action('change_protection', (lb, body) => {
        if (typeof body['delete'] === 'boolean') lb.deleteProtection = body['delete'];
        return 'change_protection';
      }),
    ];
  }

  #algorithm(value: unknown): string {
    // `load_balancer_algorithm.type`: round_robin (the default) or least_connections.
    const type = value === undefined ? 'round_robin' : String(value);
    if (!['round_robin', 'least_connections'].includes(type)) throw invalidInput('algorithm', 'must be round_robin or least_connections');
    return type;
  }

  #target(body: Json): Target {
    const usePrivateIp = body['use_private_ip'] === true;
    switch (body['type']) {
      case 'server':
        return { type: 'server', server: this.p.serverId((body['server'] as Json | undefined)?.['id'], 'server'), usePrivateIp };
      case 'label_selector': {
        const selector = String((body['label_selector'] as Json | undefined)?.['selector'] ?? '');
        hetznerLabelSelector(selector);
        return { type: 'label_selector', selector, usePrivateIp };
      }
      case 'ip':
        return { type: 'ip', ip: String((body['ip'] as Json | undefined)?.['ip'] ?? '') };
    }
    throw invalidInput('type', 'must be server, label_selector or ip');
  }

  #service(body: Json): Service {
    const protocol = String(body['protocol'] ?? '');
    if (!['tcp', 'http', 'https'].includes(protocol)) throw invalidInput('protocol', 'must be tcp, http or https');
    // listen_port and destination_port default to 80/443 for http/https and are required for tcp (load_balancer_service).
    const fallback = protocol === 'https' ? 443 : protocol === 'http' ? 80 : undefined;
    const listen = body['listen_port'] === undefined ? fallback : Number(body['listen_port']);
    const destination = body['destination_port'] === undefined ? fallback : Number(body['destination_port']);
    if (listen === undefined || !Number.isInteger(listen) || listen < 1 || listen > 65535) throw invalidInput('listen_port', 'must be a port number');
    if (destination === undefined || !Number.isInteger(destination) || destination < 1 || destination > 65535)
      throw invalidInput('destination_port', 'must be a port number');
    const check = (body['health_check'] ?? {}) as Json;
    return {
      protocol,
      listen_port: listen,
      destination_port: destination,
      proxyprotocol: body['proxyprotocol'] === true,
      health_check: {
        protocol: check['protocol'] ?? (protocol === 'https' ? 'http' : protocol),
        port: check['port'] ?? destination,
        interval: check['interval'] ?? 15,
        timeout: check['timeout'] ?? 10,
        retries: check['retries'] ?? 3,
      },
    };
  }

  #create(body: Json): Json {
    const name = this.p.name(body['name'], this.items.values(), 'load_balancer');
    const type = HETZNER_LOAD_BALANCER_TYPES.find((t) => t.name === body['load_balancer_type'] || String(t.id) === String(body['load_balancer_type']));
    if (!type) throw invalidInput('load_balancer_type', 'load balancer type not found');
    // A network zone places the load balancer in a location of that zone (the catalog's first: fsn1, ash, hil, sin).
    const location =
      typeof body['location'] === 'string'
        ? body['location']
        : HETZNER_LOCATIONS.find((l) => typeof body['network_zone'] === 'string' && l.network_zone === body['network_zone'])?.name;
    if (location === undefined || !HETZNER_LOCATIONS.some((l) => l.name === location))
      throw invalidInput('location', 'a location or a network_zone is required');
    const lb: LoadBalancer = {
      id: this.p.id(),
      name,
      labels: this.p.labels(body['labels']),
      type: type.name,
      location,
      algorithm: this.#algorithm((body['algorithm'] as Json | undefined)?.['type']),
      services: Array.isArray(body['services']) ? (body['services'] as Json[]).map((s) => this.#service(s)) : [],
      targets: Array.isArray(body['targets']) ? (body['targets'] as Json[]).map((t) => this.#target(t)) : [],
      ipv4: this.p.publicIp(),
      // A load balancer has one public IPv6 address (`public_net.ipv6.ip`), the first of a /64 of its own.
      ipv6: this.p.publicIpv6Network().replace(/\/64$/, '1'),
      created: this.p.now(),
      deleteProtection: false,
    };
    this.items.set(lb.id, lb);
    return { load_balancer: this.json(lb), action: this.p.action('create_load_balancer', [{ id: lb.id, type: 'load_balancer' }], 10_000) };
  }

  json(lb: LoadBalancer): Json {
    const type = HETZNER_LOAD_BALANCER_TYPES.find((t) => t.name === lb.type)!;
    const health = (s: Service) => ({ listen_port: s.listen_port, status: 'healthy' });
    const servers = this.servers();
    return {
      id: lb.id,
      name: lb.name,
      labels: lb.labels,
      created: this.p.iso(lb.created),
      algorithm: { type: lb.algorithm },
      load_balancer_type: structuredClone(type),
      location: this.p.locationJson(lb.location),
      public_net: {
        enabled: true,
        ipv4: { ip: lb.ipv4, dns_ptr: `static.${lb.ipv4}.clients.your-server.de` },
        ipv6: { ip: lb.ipv6 ?? null, dns_ptr: null },
      },
      private_net: [],
      protection: { delete: lb.deleteProtection },
      included_traffic: 21990232555520,
      ingoing_traffic: 0,
      outgoing_traffic: 0,
      services: lb.services,
      targets: lb.targets.map((t) => {
        if (t.type === 'server') return { type: 'server', server: { id: t.server }, use_private_ip: t.usePrivateIp, health_status: lb.services.map(health) };
        if (t.type === 'ip') return { type: 'ip', ip: { ip: t.ip }, health_status: lb.services.map(health) };
        const matches = hetznerLabelSelector(t.selector);
        return {
          type: 'label_selector',
          label_selector: { selector: t.selector },
          use_private_ip: t.usePrivateIp,
          targets: servers
            .filter((s) => matches(s.labels))
            .map((s) => ({ type: 'server', server: { id: s.id }, use_private_ip: t.usePrivateIp, health_status: lb.services.map(health) })),
        };
      }),
    };
  }
}
