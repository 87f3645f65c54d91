// The emulated Hetzner project every family of routes works in: one store (the core collections and the id counters),
// the virtual clock, actions, the checks of names and labels, and list responses. Each family (servers.ts,
// networks.ts, volumes.ts…) is a module that takes the project; emulator.ts wires them together.
import type { SandboxContext } from '../context.js';
import { type Collection, type Counter, EmulatorError, type Json, ResourceStore, type RouteHandler, type WireCall } from '../emulator/index.js';
import type { InventoryItem } from '../inventory.js';
import { sandboxPublicAddress } from '../public-addresses.js';
import { HETZNER_LOCATIONS } from './catalog.js';
import { hetznerLabelSelector } from './label-selector.js';
import { page, sorted } from './listing.js';
import type { Action, Firewall, Labels, Network, PlacementGroup, PrimaryIp, Server, SshKey } from './resources.js';

const CLUSTER_LABEL = 'kubeplane.dev/cluster-id';

export interface ActionResource {
  id: number;
  type: string;
}

/** A route of a family: its template (`POST /servers/{id}/actions/poweroff`, also the wire operation) and its handler. */
export type HetznerRoute = [template: string, handler: RouteHandler<Json>];

/** The sort fields most collections document (`sort` enums in hetzner-cloud-openapi.json). */
export const SORT_ID_NAME_CREATED = ['id', 'name', 'created'] as const;

/** The resource in `map` under `id`, or the API's 404 `not_found`. */
export function found<T>(map: Map<number, T>, id: number, what: string): T {
  const item = map.get(id);
  if (!item) throw new EmulatorError(404, 'not_found', `${what} with ID '${id}' not found`);
  return item;
}

/** The `{id}` of a call: the path's second segment as sent, an integer, else 404 `not_found`. */
export function idParam(call: WireCall): number {
  const [collection, text] = call.path.split('/').filter(Boolean);
  const id = Number(text);
  if (!Number.isInteger(id)) throw new EmulatorError(404, 'not_found', `${collection}/${text} not found`);
  return id;
}

/** The resource of `map` that a call's `{id}` names, or the errors of idParam and found. */
export function byId<T>(map: Map<number, T>, what: string): (call: WireCall) => T {
  return (call) => found(map, idParam(call), what);
}

export class HetznerProject {
  readonly store = new ResourceStore();
  readonly #ctx: SandboxContext;
  readonly #ids: Counter;
  readonly #publicIps: Counter;
  readonly #publicIpv6s: Counter;
  /** The sandbox's seed, from which private interfaces' MAC addresses are derived. */
  macSeed: number;
  readonly servers: Collection<number, Server>;
  readonly networks: Collection<number, Network>;
  readonly firewalls: Collection<number, Firewall>;
  readonly primaryIps: Collection<number, PrimaryIp>;
  readonly sshKeys: Collection<number, SshKey>;
  readonly placementGroups: Collection<number, PlacementGroup>;
  readonly actions: Collection<number, Action>;

  constructor(ctx: SandboxContext, macSeed: number) {
    this.#ctx = ctx;
    this.macSeed = macSeed;
    this.#ids = this.store.counter('ids', 1000);
    this.#publicIps = this.store.counter('publicIps');
    this.#publicIpv6s = this.store.counter('publicIpv6s');
    // The inventory lists the collections in the order they are made here (then the other families').
    this.servers = this.store.collection('servers', { inventory: (s) => this.inventoryItem('node', s, this.status(s)) });
    this.networks = this.store.collection('networks', { inventory: (n) => this.inventoryItem('network', n) });
    this.firewalls = this.store.collection('firewalls', { inventory: (f) => this.inventoryItem('firewall', f) });
    this.primaryIps = this.store.collection('primaryIps', { inventory: (p) => this.inventoryItem('reserved-ip', p) });
    this.sshKeys = this.store.collection('sshKeys', { inventory: (k) => this.inventoryItem('ssh-key', k) });
    this.placementGroups = this.store.collection('placementGroups', { inventory: (g) => this.inventoryItem('placement-group', g) });
    this.actions = this.store.collection('actions');
  }

  id(): number {
    return this.#ids.next();
  }

  now(): number {
    return this.#ctx.clock.now();
  }

  random(): number {
    return this.#ctx.random();
  }

  /** A timestamp as the API writes it (ISO 8601, seconds). */
  iso(ms: number): string {
    return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
  }

  /** A resource as the sandbox's inventory lists it. */
  inventoryItem(kind: string, r: { id: number; name: string; labels: Labels }, state?: string): InventoryItem {
    return {
      cloud: 'hetzner',
      kind,
      id: String(r.id),
      name: r.name,
      ...(r.labels[CLUSTER_LABEL] ? { clusterId: r.labels[CLUSTER_LABEL] } : {}),
      ...(state ? { state } : {}),
    };
  }

  /**
   * `server.status`: initializing until first boot, then what the last power action left (`off`, or `running`), with
   * `stopping`/`starting` while that action runs (the status enum of `server` in hetzner-cloud-openapi.json).
   */
  status(s: Server): string {
    if (this.now() < s.runningAt) return 'initializing';
    if (!s.power) return 'running';
    const settled = this.now() >= s.power.at;
    if (s.power.on) return settled ? 'running' : 'starting';
    return settled ? 'off' : 'stopping';
  }

  /** A new action that finishes `durationMs` from now, as JSON. */
  action(command: string, resources: ActionResource[], durationMs: number): Json {
    const a: Action = { id: this.id(), command, started: this.now(), finishAt: this.now() + durationMs, resources };
    this.actions.set(a.id, a);
    return this.actionJson(a);
  }

  actionJson(a: Action): Json {
    const finished = this.now() >= a.finishAt;
    const progress = finished ? 100 : Math.floor(((this.now() - a.started) / Math.max(1, a.finishAt - a.started)) * 100);
    return {
      id: a.id,
      command: a.command,
      status: finished ? 'success' : 'running',
      progress,
      started: this.iso(a.started),
      finished: finished ? this.iso(a.finishAt) : null,
      resources: a.resources,
      error: null,
    };
  }

  labels(value: unknown): Labels {
    if (value === undefined || value === null) return {};
    if (typeof value !== 'object' || Array.isArray(value))
      throw new EmulatorError(400, 'invalid_input', 'invalid input in field labels', {
        details: { fields: [{ name: 'labels', messages: ['must be an object'] }] },
      });
    for (const [k, v] of Object.entries(value)) {
      if (
        typeof v !== 'string' ||
        !/^([a-z0-9A-Z.-]+\/)?[a-zA-Z0-9]([-a-zA-Z0-9_.]{0,61}[a-zA-Z0-9])?$/.test(k) ||
        !/^([a-zA-Z0-9]([-a-zA-Z0-9_.]{0,61}[a-zA-Z0-9])?)?$/.test(v)
      ) {
        throw new EmulatorError(400, 'invalid_input', `invalid label ${k}`, { details: { fields: [{ name: 'labels', messages: [`invalid label ${k}`] }] } });
      }
    }
    return { ...(value as Labels) };
  }

  /**
   * A resource's `name`, checked as the API documents it (hetzner-cloud-openapi.json): a server's must be a valid
   * hostname (RFC 1123), a firewall's at most 128 characters; the other resources' names have no documented pattern
   * (the document's own examples hold spaces: "Web Frontend", "My ssh key"), so any non-empty string is taken. Unique per
   * project and kind.
   */
  name(value: unknown, collection: Iterable<{ name: string }>, what: string): string {
    const invalid = (message: string) =>
      new EmulatorError(400, 'invalid_input', `invalid input in field 'name'`, { details: { fields: [{ name: 'name', messages: [message] }] } });
    if (typeof value !== 'string' || value.length === 0) throw invalid('must be a non-empty string');
    if (what === 'server' && !isHostname(value)) throw invalid('must be a valid hostname');
    if (what === 'firewall' && value.length > 128) throw invalid('must be at most 128 characters');
    for (const r of collection)
      if (r.name === value) throw new EmulatorError(409, 'uniqueness_error', `${what} name is already used`, { details: { fields: [{ name: 'name' }] } });
    return value;
  }

  /** A list response of JSON items: sorted as `sort` asks where the endpoint documents `sortable` fields, one page. */
  listJson(key: string, items: Json[], query: URLSearchParams, sortable: readonly string[] | undefined): Json {
    return page(key, sorted(items, query, sortable), query);
  }

  /** A list of resources filtered by `name` and `label_selector` (a malformed selector is a 400), as listJson. */
  list<T extends { name: string; labels: Labels }>(
    key: string,
    items: Iterable<T>,
    toJson: (item: T) => Json,
    query: URLSearchParams,
    sortable: readonly string[] | undefined,
  ): Json {
    const name = query.get('name');
    const selector = query.get('label_selector');
    const matches = selector === null ? undefined : hetznerLabelSelector(selector);
    const kept = [...items].filter((i) => (name === null || i.name === name) && (matches === undefined || matches(i.labels)));
    return this.listJson(key, kept.map(toJson), query, sortable);
  }

  publicIp(): string {
    return sandboxPublicAddress('hetzner', this.#publicIps.next());
  }

  /**
   * A new IPv6 /64 network, as Hetzner gives every server one ("IPv6 network assigned to this Server", `ipv6` of
   * server_public_net; a primary IP of type ipv6 holds the /64). Taken from 2001:db8::/32, the prefix RFC 3849 sets
   * aside for documentation, so it is never routed.
   */
  publicIpv6Network(): string {
    const n = this.#publicIpv6s.next();
    return `2001:db8:${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}::/64`;
  }

  /** The server with this id (or name), or 404 `not_found` naming `field`. */
  serverId(value: unknown, field: string): number {
    const server = this.servers.find((s) => s.id === Number(value) || s.name === value);
    if (!server) throw new EmulatorError(404, 'not_found', `server '${String(value)}' not found`, { details: { fields: [{ name: field }] } });
    return server.id;
  }

  locationJson(name: string): Json {
    return { ...HETZNER_LOCATIONS.find((l) => l.name === name)! };
  }
}

/** A hostname as RFC 1123 has it: dot-separated labels of 1-63 letters, digits and inner hyphens, 253 characters at most. */
function isHostname(name: string): boolean {
  return name.length <= 253 && name.split('.').every((label) => /^[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?$/.test(label));
}
