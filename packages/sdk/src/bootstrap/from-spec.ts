// The adapter from the model's desired state to bootstrap rendering input: one cluster's nodes with their
// roles, overlay addresses, OS and architecture, and its load balancers' roles resolved to overlay targets.
import { KubeplaneError } from '../errors.js';
import { API_SERVER_PORT } from '../manifest/rules.js';
import type { ClusterSpec } from '../model/types.js';
import { profileOf } from '../providers-data/index.js';
import type { BootstrapArch, BootstrapCluster, BootstrapNode, BootstrapOs } from './input.js';
import { installationProxyFor } from './installation-proxy.js';

/** What the bootstrap input needs beyond the cluster's spec: addresses known only once machines or IPs exist. */
export interface BootstrapAdapterOptions {
  /** The API address when the endpoint is a reserved IP (known only once the IP is reserved). */
  apiHost?: string;
  /** `ip:port` of nodes whose machines exist already, so nodes booting later know where to reach them. */
  publicEndpoints?: Record<string, string>;
}

function osOf(image: string | undefined): BootstrapOs {
  return image?.includes('22.04') ? 'ubuntu-22.04' : 'ubuntu-24.04';
}

/** The node's storage disk, where its pool has one and its cloud makes them. */
function storageDiskOf(sizeGB: number, providerType: string): Pick<BootstrapNode, 'storageDisk'> {
  const byId = profileOf(providerType)?.storageDisk?.byId;
  return sizeGB > 0 && byId ? { storageDisk: { sizeGB, byId } } : {};
}

/** A server type's architecture, as its provider's profile says (amd64 unless it says otherwise). */
function archOf(providerType: string | undefined, serverType: string | undefined): BootstrapArch {
  return profileOf(providerType)?.arch?.(serverType ?? '') ?? 'amd64';
}

/**
 * The bootstrap input of one cluster of the desired state. Public endpoints are unknown before machines exist,
 * so nodes rely on WireGuard roaming until the engine publishes them; nodes of providers whose machines sit behind
 * NAT (AWS) are marked so.
 */
export function bootstrapClusterFromSpec(spec: ClusterSpec, options: BootstrapAdapterOptions = {}): BootstrapCluster {
  const endpoint = spec.apiEndpoint;
  if (endpoint.kind === 'managed')
    throw new KubeplaneError('invalid', `cluster ${spec.name} has a managed control plane; its nodes are rendered by the provider`, {
      resource: spec.sourcePath,
    });
  if (endpoint.kind === 'reserved-ip' && !options.apiHost) {
    throw new KubeplaneError(
      'invalid',
      `cluster ${spec.name} serves its API on a reserved IP that does not exist yet; pass its address as apiHost (--api-host <ip>)`,
      { resource: spec.sourcePath },
    );
  }
  const pools = [...spec.pools, ...spec.loadBalancers.flatMap((lb) => lb.pools)];
  // A role names manifest pools; the worker copy of a control pool answers to its name too, except for the API role,
  // whose targets are the control planes only.
  const ipsOf = (poolNames: string[], controlOnly: boolean): string[] =>
    pools.filter((p) => poolNames.includes(p.blueprint ?? p.name) && (!controlOnly || p.role === 'control')).flatMap((p) => p.nodes.map((n) => n.overlayIp));
  const nodes: BootstrapNode[] = [];
  const seen = new Set<string>();
  for (const pool of pools) {
    for (const node of pool.nodes) {
      if (seen.has(node.name)) continue;
      seen.add(node.name);
      const providerType = pool.provider?.type ?? 'static';
      nodes.push({
        name: node.name,
        role: pool.role,
        pool: pool.name,
        overlayIp: node.overlayIp,
        ...(options.publicEndpoints?.[node.name]
          ? { publicEndpoint: options.publicEndpoints[node.name] }
          : node.staticEndpoint
            ? { publicEndpoint: `${node.staticEndpoint}:51820` }
            : {}),
        behindNat: profileOf(providerType)?.behindNat === true,
        labels: pool.labels,
        taints: pool.taints.map((t) => ({ key: t.key, effect: t.effect, ...(t.value === undefined ? {} : { value: t.value }) })),
        os: osOf(pool.image),
        arch: archOf(providerType, pool.serverType),
        provider: providerType,
        ...storageDiskOf(pool.storageDiskSize, providerType),
      });
    }
  }
  return {
    name: spec.name,
    clusterId: spec.id,
    kubernetesVersion: { major: spec.version.major, minor: spec.version.minor, patch: spec.version.patch },
    apiEndpoint:
      endpoint.kind === 'load-balancer'
        ? { host: endpoint.host, port: endpoint.port, kind: 'load-balancer-dns' }
        : { host: options.apiHost ?? '', port: endpoint.port, kind: 'reserved-ip' },
    network: spec.network,
    podCidr: spec.podCidr,
    serviceCidr: spec.serviceCidr,
    nodes,
    loadBalancers: spec.loadBalancers.map((lb) => ({
      name: lb.name,
      pools: lb.pools.map((p) => p.name),
      roles: lb.roles.map((r) => ({
        name: r.name,
        protocol: r.protocol,
        port: r.port,
        targetPort: r.targetPort,
        targets: ipsOf(r.targetPools, r.targetPort === API_SERVER_PORT),
        proxyProtocol: r.proxyProtocol,
        stickySessions: r.stickySessions,
      })),
    })),
    secretsAtRest: spec.encryption.secretsAtRest,
    ...proxyOf(spec, options),
  };
}

function proxyOf(spec: ClusterSpec, options: BootstrapAdapterOptions): Pick<BootstrapCluster, 'installationProxy'> {
  const nodeAddresses = Object.values(options.publicEndpoints ?? {}).map((e) => e.replace(/:\d+$/, ''));
  const proxy = installationProxyFor(spec, { ...(options.apiHost ? { apiHost: options.apiHost } : {}), nodeAddresses });
  return proxy ? { installationProxy: proxy } : {};
}
