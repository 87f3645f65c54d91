// Builds the desired state from a validated manifest and the current state: every cluster, pool, node,
// load balancer and cloud network with its deterministic identity. Identities already given out (node
// indices, overlay addresses, network ranges, autoscaler targets) are carried over from the current state,
// so scaling one pool never renames or readdresses another.
import { KubeplaneError } from '../errors.js';
import { checkKubernetesVersion } from '../manifest/kubernetes-versions.js';
import { PROVIDER_TYPE_INFO } from '../manifest/provider-types.js';
import { API_SERVER_PORT } from '../manifest/rules.js';
import { stableJson } from '../stable-json.js';
import {
  type ClusterDef,
  type DynamicPoolDef,
  type LbClusterDef,
  type Manifest,
  type StaticPoolDef,
  storageDiskSizeOf,
  type Taint,
} from '../manifest/schema.js';
import { clusterId, computeInstanceName, defaultHostname, loadBalancerId, nodeName, shortHash } from './ids.js';
import { cidrsOverlap, hostAt, hostIndexOf, isCidr, parseCidr, usableHosts, type Cidr } from './ipv4.js';
import type { ApiEndpoint, ClusterSpec, CurrentState, DnsSpec, LoadBalancerSpec, NodeRole, NodeSpec, PoolSpec, ProviderNetworkSpec } from './types.js';

/** How long a worker may be NotReady, its machine running, before the engine replaces it. */
export const DEFAULT_NOT_READY_MINUTES = 10;
/** The pod CIDR of a cluster whose manifest names none. */
export const DEFAULT_POD_CIDR = '10.244.0.0/16';
/** The service CIDR of a cluster whose manifest names none. */
export const DEFAULT_SERVICE_CIDR = '10.96.0.0/12';
const MAX_NODES_PER_POOL = 255;

/** The clusters a manifest asks for, as specs the planner compares with the current state. */
export function buildDesiredState(manifest: Manifest, current?: CurrentState): { project: string; clusters: ClusterSpec[] } {
  const project = manifest.name;
  const pathOf = (list: 'dynamic' | 'static' | 'clusters' | 'lbClusters', index: number) => {
    const base = manifest.source === 'claudie' ? 'spec.' : '';
    const where = { dynamic: 'nodePools.dynamic', static: 'nodePools.static', clusters: 'kubernetes.clusters', lbClusters: 'loadBalancers.clusters' }[list];
    return `${base}${where}[${index}]`;
  };
  const dynamic = new Map(manifest.nodePools.dynamic.map((p, i) => [p.name, { def: p, path: pathOf('dynamic', i) }]));
  const statics = new Map(manifest.nodePools.static.map((p, i) => [p.name, { def: p, path: pathOf('static', i) }]));
  const providers = new Map(manifest.providers.map((p) => [p.name, p]));
  const roles = new Map(manifest.loadBalancers.roles.map((r) => [r.name, r]));

  const clusters = manifest.kubernetes.clusters.map((def, ci): ClusterSpec => {
    const id = clusterId(project, def.name);
    const previous = current?.clusters.find((c) => c.name === def.name);
    const version = checkKubernetesVersion(def.version);
    if (!version.ok) throw new KubeplaneError('invalid', version.message, { resource: `${pathOf('clusters', ci)}.version` });
    const network = requireCidr(def.network, `${pathOf('clusters', ci)}.network`);

    const makePool = (name: string, role: NodeRole, ownerId: string, previousPool: PoolSpec | undefined, instance?: string): PoolSpec => {
      const d = dynamic.get(name);
      if (d) return dynamicPool(d.def, d.path, role, ownerId, previousPool, instance);
      const s = statics.get(name);
      if (s) return staticPool(s.def, s.path, role, ownerId, previousPool);
      throw new KubeplaneError('invalid', `pool "${name}" is not defined`, { resource: pathOf('clusters', ci) });
    };
    const dynamicPool = (p: DynamicPoolDef, path: string, role: NodeRole, ownerId: string, prev: PoolSpec | undefined, instance = p.name): PoolSpec => {
      const provider = providers.get(p.providerSpec.name);
      if (!provider) throw new KubeplaneError('invalid', `provider "${p.providerSpec.name}" is not defined`, { resource: `${path}.providerSpec.name` });
      let count = p.count ?? 0;
      if (p.autoscaler) {
        // The autoscaler's target is external state: keep it while it is within the new limits.
        count = prev ? Math.min(Math.max(prev.count, p.autoscaler.min), p.autoscaler.max) : p.autoscaler.min;
      }
      // Only compute nodes get a storage disk (Claudie: control and LB pools ignore it); the default is the document kind's.
      const storageDiskSize = role === 'compute' ? storageDiskSizeOf(p, manifest.source) : 0;
      const pool: PoolSpec = {
        name: instance,
        ...(instance !== p.name ? { blueprint: p.name } : {}),
        kind: 'dynamic',
        role,
        sourcePath: path,
        provider: {
          name: provider.name,
          type: provider.providerType,
          region: p.providerSpec.region,
          ...(p.providerSpec.zone ? { zone: p.providerSpec.zone } : {}),
          ...(p.providerSpec.subnet ? { subnet: p.providerSpec.subnet } : {}),
        },
        serverType: p.serverType,
        image: p.image,
        storageDiskSize,
        ...(p.machineSpec ? { machineSpec: machineSpecOf(p) } : {}),
        spot: p.spot ?? false,
        count,
        ...(p.autoscaler ? { autoscaler: { ...p.autoscaler } } : {}),
        labels: { ...(p.labels ?? {}) },
        annotations: { ...(p.annotations ?? {}) },
        taints: taintsOf(p.taints),
        templateHash: shortHash(
          [
            stableJson({
              provider: p.providerSpec,
              type: provider.providerType,
              serverType: p.serverType,
              image: p.image,
              storageDiskSize: p.storageDiskSize ?? null,
              machineSpec: p.machineSpec ?? null,
            }),
          ],
          10,
        ),
        nodes: [],
      };
      pool.nodes = keepAndAddNodes(prev?.nodes ?? [], count).map((index) => ({
        name: nodeName(ownerId, instance, index),
        index,
        pool: instance,
        role,
        overlayIp: '',
      }));
      return pool;
    };
    const staticPool = (p: StaticPoolDef, path: string, role: NodeRole, ownerId: string, prev: PoolSpec | undefined): PoolSpec => {
      const byEndpoint = new Map((prev?.nodes ?? []).filter((n) => n.staticEndpoint).map((n) => [n.staticEndpoint as string, n.index]));
      const used = new Set<number>();
      const indices = p.nodes.map((n) => {
        const index = byEndpoint.get(n.endpoint);
        if (index !== undefined) used.add(index);
        return index;
      });
      let next = 1;
      const nodes = p.nodes.map((n, i): NodeSpec => {
        let index = indices[i];
        if (index === undefined) {
          while (used.has(next)) next++;
          index = next;
          used.add(index);
        }
        return {
          name: nodeName(ownerId, p.name, index),
          index,
          pool: p.name,
          role,
          overlayIp: '',
          staticEndpoint: n.endpoint,
          staticAccess: { port: p.sshPort ?? 22, username: n.username ?? 'root', secretRef: n.secretRef },
        };
      });
      return {
        name: p.name,
        kind: 'static',
        role,
        sourcePath: path,
        storageDiskSize: 0,
        spot: false,
        count: p.nodes.length,
        labels: { ...(p.labels ?? {}) },
        annotations: { ...(p.annotations ?? {}) },
        taints: taintsOf(p.taints),
        templateHash: shortHash(['static', String(p.sshPort ?? 22)], 10),
        nodes: nodes.sort((a, b) => a.index - b.index),
      };
    };

    const prevPool = (owner: { pools: PoolSpec[] } | undefined, name: string) => owner?.pools.find((p) => p.name === name);
    // A dynamic pool in both lists is two pools, as in Claudie: its control planes under its name, its workers
    // under computeInstanceName (both answer to the pool's name in load-balancer roles).
    const control = new Set(def.pools.control ?? []);
    const computeInstance = (n: string): PoolSpec => {
      if (!control.has(n) || !dynamic.has(n)) return makePool(n, 'compute', id, prevPool(previous, n));
      const instance = computeInstanceName(n);
      const pool = makePool(n, 'compute', id, prevPool(previous, instance), instance);
      return pool;
    };
    const pools: PoolSpec[] = [
      ...(def.pools.control ?? []).map((n) => makePool(n, 'control', id, prevPool(previous, n))),
      ...(def.pools.compute ?? []).map(computeInstance),
    ];

    const loadBalancers = manifest.loadBalancers.clusters
      .map((lb, li) => ({ lb, li }))
      .filter(({ lb }) => lb.targetedK8s === def.name)
      .map(({ lb, li }): LoadBalancerSpec => {
        const lbId = loadBalancerId(project, def.name, lb.name);
        const prevLb = previous?.loadBalancers.find((l) => l.name === lb.name);
        return loadBalancerSpec(lb, lbId, pathOf('lbClusters', li), (n) => makePool(n, 'loadbalancer', lbId, prevPool(prevLb, n)));
      });

    const podCidr = DEFAULT_POD_CIDR;
    const serviceCidr = DEFAULT_SERVICE_CIDR;
    const cluster: ClusterSpec = {
      name: def.name,
      id,
      project,
      sourcePath: pathOf('clusters', ci),
      version: version.version,
      network: def.network,
      podCidr,
      serviceCidr,
      controlPlane: def.controlPlane ?? 'self-managed',
      apiEndpoint: { kind: 'managed' },
      pools,
      loadBalancers,
      networks: [],
      addons: [...(def.addons ?? [])],
      ...(def.apiDns ? { apiDns: apiDnsSpec(def.apiDns, def.name, pathOf('clusters', ci)) } : {}),
      access: {
        apiAllowedCidrs: def.access?.apiAllowedCidrs ?? ['0.0.0.0/0'],
        sshAllowedCidrs: def.access?.sshAllowedCidrs ?? [],
      },
      upgrade: { strategy: def.upgrade?.strategy ?? 'rolling', maxSurge: def.upgrade?.maxSurge ?? 1 },
      encryption: { secretsAtRest: def.encryption?.secretsAtRest ?? true },
      remediation: { notReadyMinutes: def.remediation?.notReadyMinutes ?? DEFAULT_NOT_READY_MINUTES },
      ...(def.installationProxy
        ? {
            installationProxy: {
              mode: def.installationProxy.mode,
              endpoint: def.installationProxy.endpoint ?? '',
              noProxy: def.installationProxy.noProxy ?? '',
            },
          }
        : {}),
    };
    cluster.apiEndpoint = apiEndpointOf(cluster);
    assignOverlayAddresses(cluster, network, previous);
    cluster.networks = allocateNetworks(cluster, [network, requireCidr(podCidr, 'podCidr'), requireCidr(serviceCidr, 'serviceCidr')], previous);
    return cluster;
  });

  function apiDnsSpec(dns: NonNullable<ClusterDef['apiDns']>, cluster: string, path: string): DnsSpec {
    const dnsProvider = providers.get(dns.provider);
    if (!dnsProvider) throw new KubeplaneError('invalid', `provider "${dns.provider}" is not defined`, { resource: `${path}.apiDns.provider` });
    const zone = dns.dnsZone.replace(/\.$/, '').toLowerCase();
    const hostname = (dns.hostname ?? defaultHostname(project, cluster, 'api')).toLowerCase();
    return { zone, provider: dnsProvider.name, providerType: dnsProvider.providerType, hostname, fqdn: `${hostname}.${zone}`, alternativeNames: [] };
  }

  function loadBalancerSpec(lb: LbClusterDef, id: string, path: string, makePool: (name: string) => PoolSpec): LoadBalancerSpec {
    const dnsProvider = providers.get(lb.dns.provider);
    if (!dnsProvider) throw new KubeplaneError('invalid', `provider "${lb.dns.provider}" is not defined`, { resource: `${path}.dns.provider` });
    const zone = lb.dns.dnsZone.replace(/\.$/, '').toLowerCase();
    const hostname = lb.dns.hostname ?? defaultHostname(project, lb.targetedK8s, lb.name);
    const lbRoles = lb.roles.map((name) => {
      const r = roles.get(name);
      if (!r) throw new KubeplaneError('invalid', `role "${name}" is not defined`, { resource: `${path}.roles` });
      const api = r.targetPort === API_SERVER_PORT;
      return {
        name: r.name,
        protocol: r.protocol,
        port: r.port,
        targetPort: r.targetPort,
        targetPools: [...r.targetPools],
        // Claudie's defaults: PROXY protocol on for TCP unless switched off; never for the API server.
        proxyProtocol: !api && r.protocol === 'tcp' && (r.settings?.proxyProtocol ?? true),
        stickySessions: !api && (r.settings?.stickySessions ?? false),
      };
    });
    return {
      name: lb.name,
      id,
      sourcePath: path,
      api: lbRoles.some((r) => r.targetPort === API_SERVER_PORT),
      roles: lbRoles,
      dns: {
        zone,
        provider: dnsProvider.name,
        providerType: dnsProvider.providerType,
        hostname,
        fqdn: `${hostname}.${zone}`,
        alternativeNames: (lb.dns.alternativeNames ?? []).map((n) => n.toLowerCase()),
      },
      pools: lb.pools.map(makePool),
    };
  }

  return { project, clusters };
}

/** Taints as the nodes get them: timeAdded (accepted from Claudie's CRD) is the node controller's to set. */
function taintsOf(taints: readonly Taint[] | undefined): Taint[] {
  return (taints ?? []).map((t) => ({ key: t.key, ...(t.value !== undefined ? { value: t.value } : {}), effect: t.effect }));
}

function machineSpecOf(p: DynamicPoolDef): NonNullable<PoolSpec['machineSpec']> {
  const m = p.machineSpec ?? {};
  const gpus = m.nvidiaGpuCount ?? m.nvidiaGpu;
  return {
    ...(m.cpuCount !== undefined ? { cpuCount: m.cpuCount } : {}),
    ...(m.memory !== undefined ? { memory: m.memory } : {}),
    ...(gpus !== undefined ? { nvidiaGpuCount: gpus } : {}),
    ...(m.nvidiaGpuType !== undefined ? { nvidiaGpuType: m.nvidiaGpuType } : {}),
  };
}

/** Keeps the lowest existing indices up to `count` (scale-down removes the highest), then fills the lowest free ones. */
function keepAndAddNodes(existing: readonly NodeSpec[], count: number): number[] {
  const kept = existing
    .map((n) => n.index)
    .sort((a, b) => a - b)
    .slice(0, count);
  const used = new Set(kept);
  let next = 1;
  while (kept.length < count) {
    while (used.has(next)) next++;
    if (next > MAX_NODES_PER_POOL) throw new KubeplaneError('invalid', `a pool can hold at most ${MAX_NODES_PER_POOL} nodes`);
    kept.push(next);
    used.add(next);
  }
  return kept.sort((a, b) => a - b);
}

function apiEndpointOf(cluster: ClusterSpec): ApiEndpoint {
  if (cluster.controlPlane === 'managed') return { kind: 'managed' };
  const lb = cluster.loadBalancers.find((l) => l.api);
  if (lb) return { kind: 'load-balancer', host: lb.dns.fqdn, port: API_SERVER_PORT, loadBalancer: lb.name };
  const first = cluster.pools.find((p) => p.role === 'control' && p.nodes.length > 0);
  const node = first?.nodes[0];
  if (!first || !node)
    throw new KubeplaneError('invalid', `cluster "${cluster.name}" has no control-plane node to serve its API`, { resource: cluster.sourcePath });
  return { kind: 'reserved-ip', port: API_SERVER_PORT, node: node.name, pool: first.name };
}

/** Existing nodes keep their overlay address; new ones take the lowest free address, in pool order. */
function assignOverlayAddresses(cluster: ClusterSpec, network: Cidr, previous: ClusterSpec | undefined): void {
  const prevIps = new Map<string, string>();
  if (previous && previous.network === cluster.network) {
    for (const pool of [...previous.pools, ...previous.loadBalancers.flatMap((l) => l.pools)]) {
      for (const n of pool.nodes) if (n.overlayIp) prevIps.set(n.name, n.overlayIp);
    }
  }
  const nodes = [...cluster.pools.flatMap((p) => p.nodes), ...cluster.loadBalancers.flatMap((l) => l.pools.flatMap((p) => p.nodes))];
  const used = new Set<number>();
  for (const n of nodes) {
    const ip = prevIps.get(n.name);
    const index = ip ? hostIndexOf(network, ip) : null;
    if (ip && index !== null && !used.has(index)) {
      n.overlayIp = ip;
      used.add(index);
    }
  }
  let next = 0;
  const capacity = usableHosts(network);
  for (const n of nodes) {
    if (n.overlayIp) continue;
    while (used.has(next)) next++;
    if (next >= capacity) {
      throw new KubeplaneError('invalid', `network ${cluster.network} of cluster "${cluster.name}" has no free address for node ${n.name}`, {
        resource: `${cluster.sourcePath}.network`,
      });
    }
    n.overlayIp = hostAt(network, next);
    used.add(next);
  }
}

/**
 * One cloud network per provider and region, a /16 from 172.16.0.0/12 that avoids the overlay, pod and
 * service ranges, with a /24 per zone. Ranges already given out are kept.
 */
function allocateNetworks(cluster: ClusterSpec, avoid: Cidr[], previous: ClusterSpec | undefined): ProviderNetworkSpec[] {
  const pools = [...cluster.pools, ...cluster.loadBalancers.flatMap((l) => l.pools)].filter((p) => p.kind === 'dynamic' && p.provider);
  const keys = new Map<
    string,
    { provider: string; type: ProviderNetworkSpec['providerType']; region: string; zones: Set<string | null>; existingSubnet?: string }
  >();
  for (const p of pools) {
    const prov = p.provider;
    if (!prov || !PROVIDER_TYPE_INFO[prov.type].compute) continue;
    const key = `${prov.name}/${prov.region}`;
    const entry = keys.get(key) ?? { provider: prov.name, type: prov.type, region: prov.region, zones: new Set<string | null>() };
    entry.zones.add(prov.zone ?? null);
    // Validation keeps every pool of a provider region on the same subnet.
    if (prov.subnet) entry.existingSubnet = prov.subnet;
    keys.set(key, entry);
  }
  const prevByKey = new Map((previous?.networks ?? []).map((n) => [`${n.provider}/${n.region}`, n]));
  const taken = new Set<number>();
  for (const n of prevByKey.values()) taken.add(Number(n.cidr.split('.')[1]));
  const free = (): number => {
    for (let second = 16; second <= 31; second++) {
      if (taken.has(second)) continue;
      const c = parseCidr(`172.${second}.0.0/16`) as Cidr;
      if (avoid.some((a) => cidrsOverlap(a, c))) continue;
      taken.add(second);
      return second;
    }
    throw new KubeplaneError('invalid', `cluster "${cluster.name}" uses more than 16 provider regions; kubeplane allocates one /16 of 172.16.0.0/12 to each`);
  };
  return [...keys.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, k]) => {
      const prev = prevByKey.get(key);
      const second = prev ? Number(prev.cidr.split('.')[1]) : free();
      const prevSubnets = new Map((prev?.subnets ?? []).map((s) => [s.zone, s.cidr]));
      const usedThird = new Set([...prevSubnets.values()].map((c) => Number(c.split('.')[2])));
      let third = 0;
      const subnets = [...k.zones]
        .sort((a, b) => (a ?? '').localeCompare(b ?? ''))
        .map((zone) => {
          const kept = prevSubnets.get(zone);
          if (kept) return { zone, cidr: kept };
          while (usedThird.has(third)) third++;
          usedThird.add(third);
          return { zone, cidr: `172.${second}.${third}.0/24` };
        });
      return {
        provider: k.provider,
        providerType: k.type,
        region: k.region,
        cidr: `172.${second}.0.0/16`,
        subnets,
        ...(k.existingSubnet ? { existingSubnet: k.existingSubnet } : {}),
      };
    });
}

function requireCidr(text: string, where: string): Cidr {
  const c = parseCidr(text);
  if (!isCidr(c)) throw new KubeplaneError('invalid', c.error, { resource: where });
  return c;
}
