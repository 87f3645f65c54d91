// kubernetes.clusters: names, versions, control and compute pools, networks and access, the API name of a managed
// control plane, add-ons (addons.ts); then, once the load balancers are known, each self-managed cluster's API
// endpoint, and whether its network has an address for every node.
import { checkKubernetesVersion, CLAUDIE_MINORS } from '../kubernetes-versions.js';
import { checkDnsName } from '../names.js';
import { PROVIDER_TYPE_INFO, providerTypesWith } from '../provider-types.js';
import { isCidr, parseCidr, usableHosts } from '../../model/ipv4.js';
import { computeInstanceName } from '../../model/ids.js';
import { checkClusterAddons } from './addons.js';
import type { RulesContext } from './context.js';
import { checkDnsTarget } from './dns.js';
import { NAME_LIMITS } from './limits.js';
import { checkName, listOf } from './names.js';

export function checkClusters(ctx: RulesContext): void {
  const { m, out, at, claudie, providers, pools, poolKnown, hostnames, usedPools, staticUse, clusters } = ctx;
  m.kubernetes.clusters.forEach((cluster, i) => {
    const path = at('clusters', i);
    checkName(out, [...path, 'name'], cluster.name, 'cluster name', NAME_LIMITS.cluster);
    if (clusters.has(cluster.name)) out.error([...path, 'name'], `cluster name "${cluster.name}" is used twice; cluster names must be unique`);
    const version = checkKubernetesVersion(cluster.version);
    if (!version.ok) out.error([...path, 'version'], version.message);
    else if (version.warning) out.warning([...path, 'version'], version.warning);
    else if (claudie && (version.version.minor < CLAUDIE_MINORS.from || version.version.minor > CLAUDIE_MINORS.to)) {
      // kubeplane installs every minor of its catalog; Claudie's main branch refuses versions outside its regex
      // (internal/api/manifest/validate_kubernetes.go, validateVersion). Said, not refused: older Claudie releases
      // accepted other minors (1.30–1.32 at v0.9), and their manifests are still the user's.
      out.warning(
        [...path, 'version'],
        `Claudie's current release accepts Kubernetes 1.${CLAUDIE_MINORS.from}–1.${CLAUDIE_MINORS.to} ` +
          `only and would refuse ${cluster.version}; kubeplane installs it`,
      );
    }

    const managed = cluster.controlPlane === 'managed';
    const control = cluster.pools.control ?? [];
    const compute = cluster.pools.compute ?? [];
    if (!managed && control.length === 0) {
      out.error([...path, 'pools', 'control'], 'a cluster needs at least one control pool (or controlPlane: managed on a provider that runs it)');
    }
    if (managed && control.length > 0) {
      out.error([...path, 'pools', 'control'], 'a managed control plane is run by the provider; list no control pools');
    }
    if (managed && compute.length === 0) out.error([...path, 'pools', 'compute'], 'a managed cluster needs at least one compute pool');

    // Claudie (internal/api/manifest/validate_kubernetes.go, validateNodepools): a pool may appear once in control and
    // once in compute. A dynamic pool in both is built twice from its blueprint, once as control planes and once as
    // workers (CreateNodepools(control, true) and CreateNodepools(compute, false)); a static pool's machines can hold
    // one role only.
    const role = { control: new Set<string>(), compute: new Set<string>() };
    for (const kind of ['control', 'compute'] as const) {
      (kind === 'control' ? control : compute).forEach((name, j) => {
        const p = [...path, 'pools', kind, j];
        if (!poolKnown(name)) {
          out.error(p, `pool "${name}" is not defined in nodePools${listOf(pools.keys())}`);
          return;
        }
        usedPools.add(name);
        if (role[kind].has(name)) {
          out.error(p, `pool "${name}" is listed twice in the ${kind} pools of cluster "${cluster.name}"; to get more nodes, raise its count`);
          return;
        }
        role[kind].add(name);
        const pool = pools.get(name);
        if (!pool) return;
        if (pool.kind === 'static') {
          const other = staticUse.get(name);
          if (kind === 'compute' && role.control.has(name)) {
            out.error(
              p,
              `static pool "${name}" is already a control pool of cluster "${cluster.name}"; ` +
                `a static machine can hold one role, so list it in control or compute`,
            );
          } else if (other) out.error(p, `static pool "${name}" is already used by ${other}; a static machine can serve one cluster`);
          else staticUse.set(name, `cluster "${cluster.name}"`);
        } else if (kind === 'compute' && role.control.has(name) && pools.has(computeInstanceName(name))) {
          out.error(
            p,
            `pool "${name}" is both a control and a compute pool, and its worker copy would be ` +
              `named "${computeInstanceName(name)}", which another pool already is; rename one of them`,
          );
        }
        if (kind === 'control' && pool.kind === 'dynamic' && providers.get(pool.def.providerSpec.name) === 'vastai') {
          out.error(p, `pool "${name}" is a VastAI pool; VastAI pools can be compute pools only (Claudie refuses them as control pools)`);
        }
        if (kind === 'control' && pool.kind === 'dynamic' && pool.def.spot) {
          out.error(p, `pool "${name}" is a spot pool; control-plane pools cannot be spot (they may be reclaimed)`);
        }
        if (managed) {
          const type = pool.kind === 'dynamic' ? providers.get(pool.def.providerSpec.name) : undefined;
          if (pool.kind === 'static' || (type && !PROVIDER_TYPE_INFO[type].managedKubernetes)) {
            out.error(p, `pool "${name}" cannot join a managed control plane; its pools must come from ${providerTypesWith('managedKubernetes').join(', ')}`);
          }
        }
      });
    }

    const network = parseCidr(cluster.network);
    if (!isCidr(network)) out.error([...path, 'network'], network.error);
    for (const key of ['apiAllowedCidrs', 'sshAllowedCidrs'] as const) {
      (cluster.access?.[key] ?? []).forEach((cidr, j) => {
        const c = parseCidr(cidr);
        if (!isCidr(c)) out.error([...path, 'access', key, j], c.error);
      });
    }
    const proxyEndpoint = cluster.installationProxy?.endpoint;
    if (proxyEndpoint !== undefined && (!isUrl(proxyEndpoint) || /["'\\`$\s]/.test(proxyEndpoint))) {
      out.error(
        [...path, 'installationProxy', 'endpoint'],
        `"${proxyEndpoint}" is not a URL such as http://proxy.example.com:8080 (without quotes, spaces or $)`,
      );
    }
    // The list is written into systemd drop-ins, apt's configuration and /etc/environment: hosts, domains and CIDRs only.
    const badNoProxy = (cluster.installationProxy?.noProxy ?? '').split(',').find((e) => /["'\\`$\s]/.test(e.trim()));
    if (badNoProxy !== undefined) {
      out.error(
        [...path, 'installationProxy', 'noProxy'],
        `"${badNoProxy.trim()}" is not a host, domain, IP address or CIDR; noProxy is a comma-separated list of them, without quotes or spaces`,
      );
    }
    if (managed && cluster.installationProxy && cluster.installationProxy.mode !== 'off') {
      out.warning(
        [...path, 'installationProxy'],
        'installationProxy is not used on a managed control plane: the provider makes and installs its nodes, kubeplane renders none',
      );
    }
    if (cluster.apiDns) {
      const dnsPath = [...path, 'apiDns'];
      if (!managed) {
        out.error(
          dnsPath,
          'apiDns names the API of a managed control plane; a self-managed cluster gets its API name from a load balancer with the API role (targetPort 6443)',
        );
      }
      checkDnsTarget(ctx, cluster.apiDns.provider, cluster.apiDns.dnsZone, dnsPath);
      if (cluster.apiDns.hostname !== undefined) {
        const problem = checkDnsName(cluster.apiDns.hostname, 'hostname');
        if (problem) out.error([...dnsPath, 'hostname'], problem);
        else {
          const fqdn = `${cluster.apiDns.hostname}.${cluster.apiDns.dnsZone.replace(/\.$/, '')}`.toLowerCase();
          const owner = hostnames.get(fqdn);
          if (owner !== undefined) out.error([...dnsPath, 'hostname'], `${fqdn} is already used by ${owner}; hostnames must be unique per zone`);
          else hostnames.set(fqdn, `the API name of cluster "${cluster.name}"`);
        }
      }
    }
    checkClusterAddons(ctx, cluster, path, managed, control, compute);
    clusters.set(cluster.name, { def: cluster, path, control: role.control, compute: role.compute });
  });
}

/** Run once the load balancers are known. */
export function checkApiEndpoints({ out, claudie, providers, pools, clusters, apiLbFor }: RulesContext): void {
  // A self-managed cluster without an API load balancer serves its API on a reserved IP of its first control pool.
  for (const [name, cluster] of clusters) {
    if (cluster.def.controlPlane === 'managed' || apiLbFor.has(name)) continue;
    const first = cluster.def.pools.control?.[0];
    const pool = first !== undefined ? pools.get(first) : undefined;
    const type = pool?.kind === 'dynamic' ? providers.get(pool.def.providerSpec.name) : undefined;
    if (type && PROVIDER_TYPE_INFO[type].reservedIps === false) {
      out.error(
        [...cluster.path, 'pools', 'control', 0],
        `cluster "${name}" has no API load balancer, so its API would be a reserved IP on pool "${first}", but ${type} has no standalone ` +
          `reserved IPs; add a load balancer with the API role (targetPort 6443), or put the first control pool on another provider`,
      );
    }
    // A reserved IP is the address of one machine: with several control planes behind it the cluster's API, every
    // node's kubelet and every kubeconfig go down with that one machine, so the others would be HA in name only.
    const controlNodes = (cluster.def.pools.control ?? []).reduce((sum, poolName) => {
      const p = pools.get(poolName);
      if (p?.kind === 'dynamic') return sum + (p.def.count ?? p.def.autoscaler?.max ?? 0);
      return sum + (p?.kind === 'static' ? p.def.nodes.length : 0);
    }, 0);
    if (controlNodes > 1) {
      // Claudie builds such clusters (the first control node's address is the API), so for its documents this is advice.
      (claudie ? out.warning.bind(out) : out.error.bind(out))(
        [...cluster.path, 'pools', 'control'],
        `cluster "${name}" has ${controlNodes} control-plane nodes but no API load balancer: its API would be a ` +
          `reserved IP on one of them, a single point of failure for the whole cluster; add a load balancer with the API ` +
          `role (port and targetPort 6443) targeting the control pools, or use one control-plane ` +
          `node${claudie ? ' (a warning for Claudie documents: Claudie builds such clusters, with its API on the first control node)' : ''}`,
      );
    }
  }
}

export function checkNetworkSizes({ m, out, pools, clusters }: RulesContext): void {
  // Network size: every node of the cluster and of its load balancers takes one overlay address.
  for (const [name, cluster] of clusters) {
    const network = parseCidr(cluster.def.network);
    if (!isCidr(network)) continue;
    const poolNames = [...cluster.control, ...cluster.compute]; // a pool in both is built twice
    for (const lb of m.loadBalancers.clusters) if (lb.targetedK8s === name) poolNames.push(...lb.pools);
    let nodes = 0;
    for (const poolName of poolNames) {
      const pool = pools.get(poolName);
      if (!pool) continue;
      nodes += pool.kind === 'static' ? pool.def.nodes.length : (pool.def.count ?? pool.def.autoscaler?.max ?? 0);
    }
    if (nodes > usableHosts(network)) {
      let prefix = network.prefix;
      while (prefix > 0 && usableHosts({ ...network, prefix }) < nodes) prefix--;
      out.error(
        [...cluster.path, 'network'],
        `network ${cluster.def.network} has ${usableHosts(network)} addresses but cluster "${name}" can have ` +
          `up to ${nodes} nodes (load balancers and autoscaler maxima included); use a /${prefix} or larger`,
      );
    }
  }
}

function isUrl(text: string): boolean {
  try {
    const u = new URL(text);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}
