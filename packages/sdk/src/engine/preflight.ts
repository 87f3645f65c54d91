// Preflight: before anything of a project is created, every provider's credentials, and every region, zone, server
// type, image and DNS zone the manifest names, are checked against the providers' live catalogs (cached per run).
import { distance } from 'fastest-levenshtein';
import { isKubeplaneError, KubeplaneError, NO_PROVIDER_FOR_TYPE } from '../errors.js';
import { stableJson } from '../stable-json.js';
import type { Manifest, ProviderDef } from '../manifest/schema.js';
import type { Clock } from '../provider/clock.js';
import type { Outcome } from '../provider/outcome.js';
import type { ClusterSpec } from '../model/types.js';
import type { Deprecation, ImageInfo, Provider, QuotaInfo, RegionInfo, ServerTypeInfo, ZoneInfo } from '../provider/types.js';

/** How preflight treats pools whose machines exist and that the apply leaves as they are: their catalog problems are warnings. */
export interface PreflightOptions {
  /**
   * Manifest pools whose machines exist and that this apply neither grows nor changes (same template, no more
   * nodes): their catalog problems are warnings, since nothing of them is created.
   */
  established?: ReadonlySet<string>;
}

/** One problem found: the manifest path (spec paths, as validation reports them), what is wrong and what exists instead. */
export interface PreflightIssue {
  severity: 'error' | 'warning';
  path: string;
  message: string;
}

/** Builds the provider preflight asks about a manifest's provider in a region. */
export type PreflightProviders = (name: string, region?: string) => Promise<Provider>;

/** How many alternatives a message names. */
const ALTERNATIVES = 4;
/** How long a catalog answer is reused: one apply's run, not a day's (catalogs change when clouds retire types). */
const CATALOG_TTL_MS = 10 * 60_000;

/**
 * Catalog answers per provider account, region and kind, shared by every cluster's preflight step of a run (and the
 * CLI's check before apply), so a project of many clusters asks each catalog once.
 */
export class CatalogCache {
  readonly #entries = new Map<string, { at: number; value: Promise<unknown> }>();
  #answered = 0;
  constructor(private readonly clock: Clock) {}

  /**
   * How many answers the cache has received so far: a step whose attempt fails after new answers came in made
   * progress (a preflight of a dozen catalogs under a storm of throttles gets further each time), not a failure in a row.
   */
  get answered(): number {
    return this.#answered;
  }

  /** The cached value of `key`, loaded (once, for concurrent callers) when missing or older than the cache's lifetime. */
  get<T>(key: string, load: () => Promise<T>): Promise<T> {
    const now = this.clock.now();
    const hit = this.#entries.get(key);
    if (hit && now - hit.at < CATALOG_TTL_MS) return hit.value as Promise<T>;
    const value = load();
    this.#entries.set(key, { at: now, value });
    // A failed answer (throttled, credentials refused) is asked again next time.
    value.then(
      () => {
        this.#answered += 1;
      },
      () => this.#entries.delete(key),
    );
    return value;
  }
}

/**
 * Thrown (through the step's retry) when a catalog call is pending: throttled or a transient failure, or a long
 * listing in progress (`progressed`: it read more than before, so the step's attempt made progress).
 */
export class CatalogPending extends KubeplaneError {
  progressed = false;
}

async function outcomeValue<T>(outcome: Promise<Outcome<T>>, what: string): Promise<T> {
  const o = await outcome;
  if (o.status === 'done') return o.value;
  const e = new CatalogPending(o.reason === 'throttled' ? 'throttled' : 'retryable', `${what}: ${o.message}`, { retryAfterSeconds: o.retryAfterSeconds });
  e.progressed = o.reason === 'in-progress';
  throw e;
}

/** `a, b, c` of the names closest to `word` (by edit distance), for "offers instead". */
export function closestNames(word: string, names: readonly string[], n = ALTERNATIVES): string {
  const unique = [...new Set(names)].filter((x) => x !== word);
  unique.sort((a, b) => distance(word, a) - distance(word, b) || a.localeCompare(b));
  return unique.slice(0, n).join(', ') || 'none';
}

function unavailable(d: Deprecation | undefined, now: number): boolean {
  return d?.unavailableAfter !== undefined && Date.parse(d.unavailableAfter) <= now;
}

interface Located {
  provider: ProviderDef;
  providerIndex: number;
}

/**
 * Where in a provider's secretRef a credential problem is: the `env` entry naming the variable the error concerns,
 * the `file`, or the secretRef itself.
 */
function secretRefPath(at: Located, resource: string | undefined): string {
  const base = `providers[${at.providerIndex}].secretRef`;
  const ref = at.provider.secretRef;
  if (ref.env) {
    const key = Object.entries(ref.env).find(([, variable]) => variable === resource)?.[0];
    return key ? `${base}.env.${key}` : `${base}.env`;
  }
  if (ref.file) return `${base}.file`;
  return base;
}

/** A message about a provider, naming it once: `hetzner provider hetzner-1: …`. */
function aboutProvider(at: Located, message: string): string {
  const name = `provider ${at.provider.name}`;
  return `${at.provider.providerType} ${message.startsWith(name) ? message : `${name}: ${message}`}`;
}

/**
 * Checks a manifest against its providers' catalogs. Errors are what would make a create fail later (or never be
 * noticed, like a zone that does not exist); warnings are deprecated entries still offered. Credentials that cannot
 * be read (a variable not set, a file or Secret missing) or that the cloud refuses are one error per provider, as is
 * any other answer that will not change by asking again. Only a catalog that is throttled or briefly failing throws
 * (a retryable error: the step asks again later).
 */
export async function preflight(
  manifest: Manifest,
  providers: PreflightProviders,
  cache: CatalogCache,
  now: number,
  options: PreflightOptions = {},
): Promise<PreflightIssue[]> {
  const found: PreflightIssue[] = [];
  const issues = {
    push(issue: PreflightIssue & { pool?: string }): void {
      const { pool, ...rest } = issue;
      // A pool whose machines exist and stay as they are creates nothing: what the cloud no longer sells does not
      // stop the apply (a reconcile, a change elsewhere); it is said, and stops only a pool that grows or changes.
      if (pool !== undefined && rest.severity === 'error' && options.established?.has(pool)) {
        found.push({
          ...rest,
          severity: 'warning',
          message: `${rest.message}; the pool's machines exist and keep running, but no more can be created until it is changed`,
        });
      } else {
        found.push(rest);
      }
    },
  };
  const refused = new Set<string>();
  const located = (name: string): Located | undefined => {
    const providerIndex = manifest.providers.findIndex((p) => p.name === name);
    const provider = manifest.providers[providerIndex];
    return provider ? { provider, providerIndex } : undefined;
  };
  // Runs a catalog call; credentials the cloud refuses become one issue per provider, other terminal errors name the call.
  const ask = async <T>(at: Located, key: string, call: () => Promise<T>): Promise<T | undefined> => {
    if (refused.has(at.provider.name)) return undefined;
    try {
      return await cache.get(`${stableJson(at.provider)}/${key}`, call);
    } catch (e) {
      if (e instanceof CatalogPending || !isKubeplaneError(e) || e.retryable) throw e;
      refused.add(at.provider.name);
      if (e.kind === 'auth') {
        found.push({
          severity: 'error',
          path: `providers[${at.providerIndex}].secretRef`,
          message: `${at.provider.providerType} refused the credentials of provider ${at.provider.name}: ${e.message}`,
        });
      } else {
        // An answer that asking again will not change (the account may not list this, the call is refused): the
        // provider's problem, said once, rather than an exception that hides the manifest's other problems.
        found.push({ severity: 'error', path: `providers[${at.providerIndex}]`, message: aboutProvider(at, `${key}: ${e.message}`) });
      }
      return undefined;
    }
  };

  // A provider that cannot be made is one issue, and no more: at its providerType when the runtime has none of its
  // type (NO_PROVIDER_FOR_TYPE), at its secretRef when its credentials cannot be read (a variable not set, a file or a
  // Kubernetes Secret missing or malformed, no secrets cluster named). Only a transient failure throws.
  const unbuildable = new Set<string>();
  const providerOf = async (at: Located, region?: string): Promise<Provider | undefined> => {
    if (unbuildable.has(at.provider.name)) return undefined;
    try {
      return await providers(at.provider.name, region);
    } catch (e) {
      if (!isKubeplaneError(e) || e.retryable) throw e;
      unbuildable.add(at.provider.name);
      if (e.details.code === NO_PROVIDER_FOR_TYPE) found.push({ severity: 'error', path: `providers[${at.providerIndex}].providerType`, message: e.message });
      else found.push({ severity: 'error', path: secretRefPath(at, e.details.resource), message: aboutProvider(at, e.message) });
      return undefined;
    }
  };

  // Regions each provider offers, asked once per provider.
  const regionsOf = async (at: Located): Promise<RegionInfo[] | undefined> => {
    const p = await providerOf(at);
    if (!p) return undefined;
    const list = p.compute?.regions;
    if (!list) return undefined;
    return ask<RegionInfo[]>(at, 'regions', () => outcomeValue(list.call(p.compute), `${at.provider.name} regions`));
  };

  // Machines per provider and quota, counted over every pool, checked against the account's limits after the pools.
  const quotaUses: Array<{ at: Located; quota: string; count: number; isNew: boolean; path: string; pool: string }> = [];
  const managedClusters = new Set(
    manifest.kubernetes.clusters.filter((c) => c.controlPlane === 'managed').flatMap((c) => [...(c.pools.control ?? []), ...(c.pools.compute ?? [])]),
  );
  for (const [i, pool] of manifest.nodePools.dynamic.entries()) {
    const at = located(pool.providerSpec.name);
    if (!at) continue;
    const base = `nodePools.dynamic[${i}]`;
    const { region, zone } = pool.providerSpec;
    const regions = await regionsOf(at);
    if (refused.has(at.provider.name) || unbuildable.has(at.provider.name)) continue;
    if (regions) {
      const enabled = regions.filter((r) => r.enabled !== false).map((r) => r.name);
      if (!enabled.includes(region)) {
        // A region that exists but the account has not enabled (an AWS opt-in Region) is told apart from a typo.
        const message = regions.some((r) => r.name === region)
          ? `${at.provider.providerType} region ${region} is not enabled for the account of provider ` +
            `${at.provider.name}: it is an opt-in region, which the account's owner must enable first; ` +
            `regions the account has enabled, closest first: ${closestNames(region, enabled)}`
          : `${at.provider.providerType} has no region ${region} for provider ${at.provider.name}; it offers: ${closestNames(region, enabled)}`;
        issues.push({ pool: pool.name, severity: 'error', path: `${base}.providerSpec.region`, message });
        continue;
      }
    }
    const p = await providerOf(at, region);
    const compute = p?.compute;
    if (!p || !compute) continue;
    const zones = await ask<ZoneInfo[]>(at, `zones/${region}`, () => outcomeValue(compute.zones(region), `${at.provider.name} zones of ${region}`));
    if (zones === undefined) continue;
    if (zone !== undefined && !zones.some((z) => z.name === zone)) {
      const offered = zones.map((z) => z.name);
      issues.push({
        pool: pool.name,
        severity: 'error',
        path: `${base}.providerSpec.zone`,
        message: `${at.provider.providerType} has no zone ${zone} in ${region}; it offers: ${closestNames(zone, offered)}`,
      });
    }
    const types = await ask<ServerTypeInfo[]>(at, `server-types/${region}`, () =>
      outcomeValue(compute.serverTypes(region), `${at.provider.name} server types of ${region}`),
    );
    const where = zone ?? region;
    // Availability is per location (Hetzner: a zoned pool's datacenter is in a listed location) or, where the cloud
    // names zones in it (EC2 offerings per availability zone), per zone: then a zoned pool needs its own zone.
    const zoneNames = new Set(zones.map((z) => z.name));
    const offeredAt = (t: ServerTypeInfo): boolean => {
      if (!t.availableIn || t.availableIn.includes(where)) return true;
      return zone !== undefined && t.availableIn.includes(region) && !t.availableIn.some((n) => zoneNames.has(n));
    };
    const usable = (t: ServerTypeInfo): boolean => offeredAt(t) && !unavailable(t.deprecationIn?.[where] ?? t.deprecationIn?.[region] ?? t.deprecation, now);
    let type: ServerTypeInfo | undefined;
    if (types) {
      type = types.find((t) => t.name === pool.serverType);
      const offered = types.filter(usable).map((t) => t.name);
      if (!type) {
        issues.push({
          pool: pool.name,
          severity: 'error',
          path: `${base}.serverType`,
          message:
            `${at.provider.providerType} has no server type ${pool.serverType} in ` +
            `${region}; it offers in ${where}: ${closestNames(pool.serverType, offered)}`,
        });
      } else if (!usable(type)) {
        const d = type.deprecationIn?.[where] ?? type.deprecationIn?.[region] ?? type.deprecation;
        const elsewhere = (type.availableIn ?? []).filter((n, _i, all) => n !== region || !all.some((z) => zoneNames.has(z)));
        const why = unavailable(d, now)
          ? `was deprecated and cannot be ordered in ${where} since ${d?.unavailableAfter ?? ''}`
          : `is not offered in ${where}${elsewhere.length ? ` (only in ${elsewhere.join(', ')})` : ''}`;
        issues.push({
          pool: pool.name,
          severity: 'error',
          path: `${base}.serverType`,
          message: `${at.provider.providerType} server type ${pool.serverType} ${why}; it offers in ${where}: ${closestNames(pool.serverType, offered)}`,
        });
      } else {
        // Stock changes by the hour and a pool that grows already holds some of its machines: short stock is said, not refused.
        const stock = type.stockIn?.[where] ?? type.stockIn?.[region];
        const wanted = pool.count ?? pool.autoscaler?.min ?? 0;
        if (stock !== undefined && stock < wanted && !options.established?.has(pool.name)) {
          issues.push({
            severity: 'warning',
            path: `${base}.count`,
            message:
              `${at.provider.providerType} can start only ${stock} ${pool.serverType} in ${where} now and the pool wants ${wanted}: ` +
              `creating more fails while it is out of stock (types with stock for the pool: ${closestNames(
                pool.serverType,
                types.filter((t) => usable(t) && (t.stockIn?.[where] ?? Infinity) >= wanted).map((t) => t.name),
                2,
              )})`,
          });
        }
        const d = type.deprecationIn?.[where] ?? type.deprecationIn?.[region] ?? type.deprecation;
        if (d)
          issues.push({
            severity: 'warning',
            path: `${base}.serverType`,
            message: `${at.provider.providerType} lists server type ${pool.serverType} as deprecated${
              d.unavailableAfter ? `: it cannot be ordered after ${d.unavailableAfter}` : ''
            }; consider ${closestNames(
              pool.serverType,
              // The types sold there and not deprecated: suggesting another type on its way out would help no one.
              types.filter((t) => usable(t) && !(t.deprecationIn?.[where] ?? t.deprecationIn?.[region] ?? t.deprecation)).map((t) => t.name),
              2,
            )}`,
          });
      }
    }
    if (type?.quota !== undefined)
      quotaUses.push({
        at,
        quota: type.quota,
        count: pool.count ?? pool.autoscaler?.min ?? 0,
        isNew: !options.established?.has(pool.name),
        path: `${base}.count`,
        pool: pool.name,
      });
    if (managedClusters.has(pool.name)) {
      // A managed pool's image is the service's node image version (CMK), from its own list.
      const mk = p.managedKubernetes;
      const versions = mk
        ? await ask(at, `versions/${region}`, () => outcomeValue(mk.versions(region), `${at.provider.name} versions of ${region}`))
        : undefined;
      if (versions && !versions.nodePool.includes(pool.image)) {
        issues.push({
          pool: pool.name,
          severity: 'error',
          path: `${base}.image`,
          message: `${at.provider.providerType} has no node image ${pool.image} in ${region}; it offers: ${closestNames(pool.image, versions.nodePool)}`,
        });
      }
      continue;
    }
    const images = await ask<ImageInfo[]>(at, `images/${region}`, () => outcomeValue(compute.images(region), `${at.provider.name} images of ${region}`));
    if (!images) continue;
    const matching = images.filter((im) => im.id === pool.image || im.name === pool.image);
    if (matching.length === 0 && compute.image) {
      const lookup = compute.image.bind(compute);
      const one = await ask<ImageInfo | null>(at, `image/${region}/${pool.image}`, () =>
        outcomeValue(lookup(region, pool.image), `${at.provider.name} image ${pool.image} in ${region}`),
      );
      if (one) matching.push(one);
    }
    const fits = type ? matching.filter((im) => im.architecture === type.architecture) : matching;
    const offered = images.filter((im) => !type || im.architecture === type.architecture).map((im) => im.name || im.id);
    if (matching.length === 0) {
      issues.push({
        pool: pool.name,
        severity: 'error',
        path: `${base}.image`,
        message: `${at.provider.providerType} has no image ${pool.image} in ${region}; it offers: ${closestNames(pool.image, offered)}`,
      });
    } else if (fits.length === 0 && type) {
      issues.push({
        pool: pool.name,
        severity: 'error',
        path: `${base}.image`,
        message:
          `image ${pool.image} is not built for ${type.architecture}, the architecture of ` +
          `server type ${pool.serverType}; images for it: ${closestNames(pool.image, offered)}`,
      });
    } else {
      const d = fits.find((im) => im.deprecation)?.deprecation;
      if (d && fits.every((im) => im.deprecation))
        issues.push({
          severity: 'warning',
          path: `${base}.image`,
          message:
            `${at.provider.providerType} lists image ${pool.image} as ` +
            `deprecated${d.announced ? ` since ${d.announced}` : ''}; consider ${closestNames(pool.image, offered, 2)}`,
        });
    }
  }

  // Quotas: every pool's machines at once must fit the limit (an error: creating them cannot succeed); the new pools'
  // machines must fit what is left now (a warning: other projects free some, and a growing pool holds some already).
  for (const name of new Set(quotaUses.map((u) => u.at.provider.name))) {
    const uses = quotaUses.filter((u) => u.at.provider.name === name);
    const at = uses[0]!.at;
    const p = await providerOf(at);
    const list = p?.compute?.quotas;
    if (!p || !list) continue;
    const limits = await ask<QuotaInfo[]>(at, 'quotas', () => outcomeValue(list.call(p.compute), `${name} quotas`));
    for (const limit of limits ?? []) {
      const counted = uses.filter((u) => u.quota === limit.name);
      if (counted.length === 0) continue;
      const total = counted.reduce((n, u) => n + u.count, 0);
      const added = counted.filter((u) => u.isNew).reduce((n, u) => n + u.count, 0);
      const pools = counted.map((u) => `${u.pool}: ${u.count}`).join(', ');
      if (total > limit.max) {
        found.push({
          severity: 'error',
          path: counted[0]!.path,
          message:
            `the ${at.provider.providerType} quota "${limit.description}" of provider ${name} allows ${limit.max} ` +
            `machines and the manifest's pools want ${total} (${pools}); raise it with the provider or lower the counts`,
        });
      } else if (added > limit.available) {
        found.push({
          severity: 'warning',
          path: counted[0]!.path,
          message:
            `the ${at.provider.providerType} quota "${limit.description}" of provider ${name} has ${limit.available} ` +
            `machines left and the new or changed pools want ${added} (${pools}); creating more fails once it is used up`,
        });
      }
    }
  }

  // DNS zones: the API names of managed clusters and the hostnames of load balancers.
  const dnsUses: Array<{ path: string; zone: string; provider: string }> = [
    ...manifest.kubernetes.clusters.flatMap((c, i) =>
      c.apiDns ? [{ path: `kubernetes.clusters[${i}].apiDns.dnsZone`, zone: c.apiDns.dnsZone, provider: c.apiDns.provider }] : [],
    ),
    ...manifest.loadBalancers.clusters.map((lb, i) => ({ path: `loadBalancers.clusters[${i}].dns.dnsZone`, zone: lb.dns.dnsZone, provider: lb.dns.provider })),
  ];
  for (const use of dnsUses) {
    const at = located(use.provider);
    if (!at) continue;
    const p = await providerOf(at);
    const list = p?.dns?.zones;
    if (!p || !list) continue;
    const zones = await ask<string[]>(at, 'dns-zones', () => outcomeValue(list.call(p.dns), `${at.provider.name} DNS zones`));
    if (!zones) continue;
    const wanted = use.zone.replace(/\.$/, '').toLowerCase();
    if (!zones.some((z) => z.replace(/\.$/, '').toLowerCase() === wanted)) {
      found.push({
        severity: 'error',
        path: use.path,
        message:
          `the ${at.provider.providerType} account of provider ${at.provider.name} holds no DNS ` +
          `zone ${use.zone}; create it there first (it holds: ${closestNames(wanted, zones)})`,
      });
    }
  }
  return found;
}

/**
 * The manifest pools (by their manifest name) of a project whose built machines this apply neither grows nor
 * changes: every built pool made from it has the template and at least the nodes the new desired state wants.
 */
export function establishedPools(built: readonly ClusterSpec[], desired: readonly ClusterSpec[]): Set<string> {
  const out = new Set<string>();
  const changed = new Set<string>();
  for (const spec of desired) {
    const was = built.find((c) => c.id === spec.id);
    for (const pool of spec.pools) {
      const manifestName = pool.blueprint ?? pool.name;
      const before = was?.pools.find((p) => p.name === pool.name);
      if (before && before.templateHash === pool.templateHash && before.nodes.length > 0 && pool.count <= before.count) out.add(manifestName);
      else changed.add(manifestName);
    }
  }
  for (const name of changed) out.delete(name);
  return out;
}

/** The error a failed preflight ends in: one line per problem, `path: message`. */
export function preflightError(project: string, issues: readonly PreflightIssue[]): KubeplaneError {
  const errors = issues.filter((i) => i.severity === 'error');
  return new KubeplaneError(
    'invalid',
    `preflight found ${errors.length} problem(s); nothing was created:\n${errors.map((i) => `${i.path}: ${i.message}`).join('\n')}`,
    { resource: project, code: 'PreflightFailed' },
  );
}
