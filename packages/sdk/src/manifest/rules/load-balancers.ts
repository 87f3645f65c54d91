// loadBalancers: roles (ports, target pools) and load-balancer clusters (target cluster, roles, the API load
// balancer, DNS names, pools); and roles nothing uses.
import type { Path } from '../issues.js';
import { checkDnsName } from '../names.js';
import type { RulesContext } from './context.js';
import { checkDnsTarget } from './dns.js';
import { API_SERVER_PORT, NAME_LIMITS, RESERVED_PORTS } from './limits.js';
import { checkName, listOf } from './names.js';

export function checkRoles({ m, out, at, pools, poolKnown, roles }: RulesContext): void {
  m.loadBalancers.roles.forEach((role, i) => {
    const path = at('roles', i);
    if (role.name.trim() === '') out.error([...path, 'name'], 'role name must not be empty');
    if (roles.has(role.name)) out.error([...path, 'name'], `role name "${role.name}" is used twice; role names must be unique`);
    roles.set(role.name, role);
    if (role.port >= RESERVED_PORTS.from && role.port <= RESERVED_PORTS.to) {
      out.error(
        [...path, 'port'],
        `port ${role.port} is reserved (${RESERVED_PORTS.from}–${RESERVED_PORTS.to} are kept for health checks and node exporters); choose a lower port`,
      );
    }
    if (role.targetPort === API_SERVER_PORT && role.port !== API_SERVER_PORT) {
      out.error(
        [...path, 'port'],
        `a role with targetPort ${API_SERVER_PORT} is the API-server role and must listen on port ${API_SERVER_PORT}, not ${role.port}`,
      );
    }
    if (role.targetPort === API_SERVER_PORT && role.protocol !== 'tcp') {
      out.error([...path, 'protocol'], 'the API-server role (targetPort 6443) must use tcp');
    }
    const targets = new Set<string>();
    role.targetPools.forEach((name, j) => {
      if (!poolKnown(name)) out.error([...path, 'targetPools', j], `pool "${name}" is not defined in nodePools${listOf(pools.keys())}`);
      if (targets.has(name)) out.error([...path, 'targetPools', j], `pool "${name}" is listed twice`);
      targets.add(name);
    });
  });
}

export function checkLoadBalancers(ctx: RulesContext): void {
  const { m, out, at, providers, pools, poolKnown, hostnames, usedPools, staticUse, clusters, clusterKnown, roles, roleKnown, apiLbFor, usedRoles } = ctx;
  const lbNames = new Set<string>();
  m.loadBalancers.clusters.forEach((lb, i) => {
    const path = at('lbClusters', i);
    checkName(out, [...path, 'name'], lb.name, 'load balancer name', NAME_LIMITS.loadBalancer);
    if (lbNames.has(lb.name)) out.error([...path, 'name'], `load balancer name "${lb.name}" is used twice; names must be unique`);
    lbNames.add(lb.name);

    const target = clusters.get(lb.targetedK8s);
    if (!clusterKnown(lb.targetedK8s)) {
      out.error([...path, 'targetedK8s'], `cluster "${lb.targetedK8s}" is not defined in kubernetes.clusters${listOf(clusters.keys())}`);
    }
    const k8sPools = target ? new Set([...target.control, ...target.compute]) : undefined;
    if (target?.def.controlPlane === 'managed') {
      out.error(
        [...path, 'targetedK8s'],
        `cluster "${lb.targetedK8s}" has a managed control plane; kubeplane load balancers reach their targets over the WireGuard overlay, which managed ` +
          `nodes do not join. Expose services with a Kubernetes Service of type LoadBalancer or NodePort, and name the API with the cluster's apiDns`,
      );
    }

    let isApiLb = false;
    const seenRoles = new Set<string>();
    lb.roles.forEach((roleName, j) => {
      const p = [...path, 'roles', j];
      if (!roleKnown(roleName)) {
        out.error(p, `role "${roleName}" is not defined in loadBalancers.roles${listOf(roles.keys())}`);
        return;
      }
      usedRoles.add(roleName);
      if (seenRoles.has(roleName)) out.error(p, `role "${roleName}" is listed twice`);
      seenRoles.add(roleName);
      const role = roles.get(roleName);
      if (!role || !target || !k8sPools) return;
      const api = role.targetPort === API_SERVER_PORT;
      if (api) isApiLb = true;
      for (const pool of role.targetPools) {
        if (!poolKnown(pool)) continue;
        if (!k8sPools.has(pool)) {
          out.error(p, `role "${roleName}" targets pool "${pool}", which cluster "${lb.targetedK8s}" does not use`);
        } else if (api && !target.control.has(pool)) {
          out.error(
            p,
            `role "${roleName}" is the API-server role (targetPort 6443) and may target control pools only; "${pool}" is a compute pool of "${lb.targetedK8s}"`,
          );
        }
      }
    });
    if (isApiLb) {
      const other = apiLbFor.get(lb.targetedK8s);
      if (other) out.error([...path, 'roles'], `cluster "${lb.targetedK8s}" already has an API load balancer ("${other}"); a cluster can have only one`);
      else apiLbFor.set(lb.targetedK8s, lb.name);
      if ((lb.dns.alternativeNames ?? []).length > 0) {
        out.error([...path, 'dns', 'alternativeNames'], 'the API load balancer cannot have alternativeNames; the API server certificate names one endpoint');
      }
    }

    // DNS
    checkDnsTarget(ctx, lb.dns.provider, lb.dns.dnsZone, [...path, 'dns']);
    const zone = lb.dns.dnsZone.replace(/\.$/, '').toLowerCase();
    const names: Array<[string, Path]> = [];
    if (lb.dns.hostname !== undefined) names.push([lb.dns.hostname, [...path, 'dns', 'hostname']]);
    for (const [j, n] of (lb.dns.alternativeNames ?? []).entries()) names.push([n, [...path, 'dns', 'alternativeNames', j]]);
    for (const [name, p] of names) {
      const problem = checkDnsName(name, 'hostname');
      if (problem) {
        out.error(p, problem);
        continue;
      }
      const fqdn = `${name}.${zone}`;
      const owner = hostnames.get(fqdn);
      if (owner !== undefined) {
        out.error(
          p,
          owner === `load balancer "${lb.name}"` ? `${fqdn} is listed twice` : `${fqdn} is already used by ${owner}; hostnames must be unique per zone`,
        );
      } else hostnames.set(fqdn, `load balancer "${lb.name}"`);
    }

    const seenPools = new Set<string>();
    lb.pools.forEach((name, j) => {
      const p = [...path, 'pools', j];
      if (!poolKnown(name)) {
        out.error(p, `pool "${name}" is not defined in nodePools${listOf(pools.keys())}`);
        return;
      }
      if (seenPools.has(name)) out.error(p, `pool "${name}" is listed twice`);
      seenPools.add(name);
      const pool = pools.get(name);
      if (pool?.kind === 'static') {
        if (usedPools.has(name)) {
          out.error(p, `static pool "${name}" is also a Kubernetes pool; a static machine can be a load balancer or a node, not both`);
        } else {
          const other = staticUse.get(name);
          if (other) out.error(p, `static pool "${name}" is already used by ${other}`);
          else staticUse.set(name, `load balancer "${lb.name}"`);
        }
      }
      if (pool?.kind === 'dynamic' && pool.def.autoscaler) {
        out.error(p, `pool "${name}" is autoscaled; load-balancer pools need a fixed count`);
      }
      if (pool?.kind === 'dynamic' && providers.get(pool.def.providerSpec.name) === 'vastai') {
        out.error(p, `pool "${name}" is a VastAI pool; VastAI pools can be compute pools only (Claudie refuses them for load balancers)`);
      }
    });
    for (const name of lb.pools) usedPools.add(name);
  });
}

export function checkUnusedRoles({ m, out, at, usedRoles }: RulesContext): void {
  m.loadBalancers.roles.forEach((role, i) => {
    if (!usedRoles.has(role.name)) out.warning(at('roles', i), `role "${role.name}" is not used by any load balancer`);
  });
}
