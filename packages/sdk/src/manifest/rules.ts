// Every rule that needs the whole manifest: names, references, pool use, counts, networks, versions,
// load-balancer roles and DNS, static machines, spot, credentials. All errors are collected, none stops
// the others, and each names the path of the field to change.
import { stableJson } from '../stable-json.js';
import { IssueCollector, type Path, type ValidationIssue } from './issues.js';
import { checkKubernetesVersion, CLAUDIE_MINORS } from './kubernetes-versions.js';
import { autoclustersConfigSchema } from '../providers-data/crusoe.js';
import { checkChartAddon } from './addon-rules.js';
import { isChartAddon, type ChartAddonId } from '../addons/catalog.js';
import { checkGcpSecretManagerRef } from './gcp-secret-name.js';
import { checkDns1123Label, checkDnsName, checkLabelValue, checkQualifiedName } from './names.js';
import { MANIFEST_LISTS, type ManifestList, type ParsedDocument } from './parse.js';
import { credentialRequired, PROVIDER_TYPE_INFO, providerTypesWith, type CredentialKey, type ProviderType } from './provider-types.js';
import type { ClusterDef, DynamicPoolDef, Manifest, SecretRef, StaticPoolDef, Taint } from './schema.js';
import { isCidr, parseCidr, parseIPv4, usableHosts } from '../model/ipv4.js';
import { computeInstanceName } from '../model/ids.js';

export const NAME_LIMITS = { provider: 15, pool: 14, cluster: 28, loadBalancer: 28 } as const;
export const RESERVED_PORTS = { from: 64512, to: 65535 } as const;
export const API_SERVER_PORT = 6443;
const ANNOTATIONS_LIMIT = 256 * 1024;
const ENV_VAR = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** metav1.Time's wire form (RFC 3339, as Go's time.RFC3339 parses it). */
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

export function checkManifestRules(parsed: ParsedDocument): ValidationIssue[] {
  const m = parsed.manifest;
  if (!m) return [];
  const out = new IssueCollector(parsed.pathPrefix);
  const at = (list: ManifestList, i: number): Path => [...MANIFEST_LISTS[list].path, parsed.positions[list][i] ?? i];

  // ---- metadata
  // metadata sits beside spec in a Claudie document, so its path takes no spec. prefix.
  const metadataError = (message: string) => out.issues.push({ severity: 'error', path: 'metadata.name', message });
  if (m.name === '') metadataError('metadata.name is required; it names the project');
  else {
    const problem = checkDnsName(m.name, 'metadata.name');
    if (problem) metadataError(problem);
  }

  // ---- providers
  const providers = new Map<string, ProviderType>();
  m.providers.forEach((p, i) => {
    const path = at('providers', i);
    checkName(out, [...path, 'name'], p.name, 'provider name', NAME_LIMITS.provider);
    if (providers.has(p.name)) out.error([...path, 'name'], `provider name "${p.name}" is used twice; provider names must be unique`);
    providers.set(p.name, p.providerType);
    checkSecretRef(out, [...path, 'secretRef'], p.secretRef, PROVIDER_TYPE_INFO[p.providerType].credentials);
  });
  const providerKnown = (name: string) => providers.has(name) || parsed.brokenNames.providers.has(name);

  // ---- node pools
  const pools = new Map<string, { kind: 'dynamic'; def: DynamicPoolDef; path: Path } | { kind: 'static'; def: StaticPoolDef; path: Path }>();
  const addPool = (name: string, entry: typeof pools extends Map<string, infer V> ? V : never) => {
    if (pools.has(name)) out.error([...entry.path, 'name'], `pool name "${name}" is used twice; pool names must be unique across dynamic and static pools`);
    else pools.set(name, entry);
  };
  const claudie = m.source === 'claudie';
  m.nodePools.dynamic.forEach((pool, i) => {
    const path = at('dynamic', i);
    checkPoolName(out, [...path, 'name'], pool.name, claudie);
    addPool(pool.name, { kind: 'dynamic', def: pool, path });
    const type = providers.get(pool.providerSpec.name);
    if (!providerKnown(pool.providerSpec.name)) {
      out.error([...path, 'providerSpec', 'name'], `provider "${pool.providerSpec.name}" is not defined in providers[]${listOf(providers.keys())}`);
    } else if (type && !PROVIDER_TYPE_INFO[type].compute) {
      out.error([...path, 'providerSpec', 'name'], `provider "${pool.providerSpec.name}" is of type ${type}, which offers DNS only, not machines`);
    }
    if (pool.providerSpec.region.trim() === '') out.error([...path, 'providerSpec', 'region'], 'providerSpec.region must not be empty');
    if (pool.count === undefined && pool.autoscaler === undefined) {
      out.error(path, `pool "${pool.name}" needs either count (1–255) or autoscaler {min, max}`);
    } else if (pool.count !== undefined && pool.autoscaler !== undefined) {
      out.error([...path, 'autoscaler'], 'count and autoscaler are mutually exclusive; keep one');
    }
    if (pool.autoscaler && pool.autoscaler.min > pool.autoscaler.max) {
      out.error([...path, 'autoscaler', 'min'], `autoscaler.min (${pool.autoscaler.min}) is larger than autoscaler.max (${pool.autoscaler.max})`);
    }
    if (pool.storageDiskSize !== undefined && pool.storageDiskSize !== 0 && pool.storageDiskSize < 50) {
      out.error([...path, 'storageDiskSize'], `storageDiskSize must be 0 (no storage disk) or at least 50 GB, not ${pool.storageDiskSize}`);
    }
    const spec = pool.machineSpec;
    if (spec && (spec.cpuCount === undefined) !== (spec.memory === undefined)) {
      out.error([...path, 'machineSpec'], 'machineSpec.cpuCount and machineSpec.memory must be given together');
    }
    if (spec && type === 'gcp' && (spec.nvidiaGpuCount ?? spec.nvidiaGpu ?? 0) > 0 && !spec.nvidiaGpuType) {
      out.error([...path, 'machineSpec', 'nvidiaGpuType'], 'GCP pools with GPUs need machineSpec.nvidiaGpuType, e.g. nvidia-tesla-t4');
    }
    if (type === 'vastai') checkVastAiPool(out, path, pool);
    // Claudie: ProviderSpec.ExternalNetworkName `validate:"external_net"`, which requires it when providerSpec.name is
    // "openstack" (berops/claudie internal/api/manifest/validate_node_pool.go, validateExternalNet). kubeplane asks it of
    // every pool of an OpenStack provider too: the machines get their public addresses from that network.
    if (!pool.providerSpec.externalNetworkName && (type === 'openstack' || pool.providerSpec.name === 'openstack')) {
      out.error(
        [...path, 'providerSpec', 'externalNetworkName'],
        `OpenStack pools need providerSpec.externalNetworkName, the external network that gives the machines their public addresses (Claudie requires it too)`,
      );
    }
    if (pool.spot && type && !PROVIDER_TYPE_INFO[type].spot) {
      out.error([...path, 'spot'], `provider type ${type} has no spot machines; spot is offered by ${providerTypesWith('spot').join(', ')}`);
    }
    checkNodeMeta(out, path, pool);
  });

  const endpoints = new Map<string, Path>();
  m.nodePools.static.forEach((pool, i) => {
    const path = at('static', i);
    checkPoolName(out, [...path, 'name'], pool.name, claudie);
    addPool(pool.name, { kind: 'static', def: pool, path });
    pool.nodes.forEach((node, j) => {
      const nodePath = [...path, 'nodes', j];
      if (parseIPv4(node.endpoint) === null) {
        out.error([...nodePath, 'endpoint'], `endpoint "${node.endpoint}" must be an IPv4 address such as 192.0.2.10`);
      } else if (endpoints.has(node.endpoint)) {
        out.error([...nodePath, 'endpoint'], `endpoint ${node.endpoint} is listed twice; a machine can belong to one pool once`);
      } else endpoints.set(node.endpoint, nodePath);
      checkSecretRef(out, [...nodePath, 'secretRef'], node.secretRef, [{ key: 'privatekey', required: true }]);
      if (node.username !== undefined && node.username.trim() === '') out.error([...nodePath, 'username'], 'username must not be empty (default: root)');
    });
    checkNodeMeta(out, path, pool);
  });
  const poolKnown = (name: string) => pools.has(name) || parsed.brokenNames.dynamic.has(name) || parsed.brokenNames.static.has(name);

  /** A DNS provider entry and zone (a load balancer's `dns`, a cluster's `apiDns`), reported under `path`. */
  const checkDnsTarget = (provider: string, dnsZone: string, path: Path) => {
    const dnsType = providers.get(provider);
    if (!providerKnown(provider)) {
      out.error([...path, 'provider'], `provider "${provider}" is not defined in providers[]${listOf(providers.keys())}`);
    } else if (dnsType && !PROVIDER_TYPE_INFO[dnsType].dns) {
      out.error(
        [...path, 'provider'],
        `provider "${provider}" is of type ${dnsType}, which has no DNS; use one of type ${providerTypesWith('dns').join(', ')}`,
      );
    }
    const zoneProblem = checkDnsName(dnsZone.replace(/\.$/, '').toLowerCase(), 'dns.dnsZone');
    if (zoneProblem) out.error([...path, 'dnsZone'], zoneProblem);
  };

  // ---- kubernetes clusters
  const hostnames = new Map<string, string>(); // fqdn -> what uses it (a load balancer, a cluster's API name)
  const usedPools = new Set<string>();
  const staticUse = new Map<string, string>(); // static pool -> "cluster X" / "load balancer Y"
  const clusters = new Map<string, { def: ClusterDef; path: Path; control: Set<string>; compute: Set<string> }>();
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
    if (cluster.installationProxy?.endpoint !== undefined && !isUrl(cluster.installationProxy.endpoint)) {
      out.error([...path, 'installationProxy', 'endpoint'], `"${cluster.installationProxy.endpoint}" is not a URL such as http://proxy.example.com:8080`);
    }
    if (cluster.apiDns) {
      const dnsPath = [...path, 'apiDns'];
      if (!managed) {
        out.error(
          dnsPath,
          'apiDns names the API of a managed control plane; a self-managed cluster gets its API name from a load balancer with the API role (targetPort 6443)',
        );
      }
      checkDnsTarget(cluster.apiDns.provider, cluster.apiDns.dnsZone, dnsPath);
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
    const addons = new Set<string>();
    (cluster.addons ?? []).forEach((addon, j) => {
      if (addons.has(addon.name)) out.error([...path, 'addons', j, 'name'], `add-on "${addon.name}" is listed twice`);
      addons.add(addon.name);
      if (addon.name === 'autoclusters') {
        if (!managed)
          out.error([...path, 'addons', j, 'name'], 'autoclusters is node remediation of Crusoe Managed Kubernetes; it needs controlPlane: managed');
        const parsed = autoclustersConfigSchema.safeParse(addon.config ?? {});
        if (!parsed.success) {
          const issue = parsed.error.issues[0];
          if (issue) out.error([...path, 'addons', j, 'config', ...issue.path.map((k) => (typeof k === 'symbol' ? String(k) : k))], issue.message);
        }
      }
      if (isChartAddon(addon.name)) {
        const clusterPools = [...control, ...compute].flatMap((name) => {
          const pool = pools.get(name);
          return pool?.kind === 'dynamic' ? [pool.def] : [];
        });
        checkChartAddon(out, [...path, 'addons', j], addon as typeof addon & { name: ChartAddonId }, {
          managed,
          pools: clusterPools,
          providers,
          checkSecretRef,
        });
      }
    });
    clusters.set(cluster.name, { def: cluster, path, control: role.control, compute: role.compute });
  });
  const clusterKnown = (name: string) => clusters.has(name) || parsed.brokenNames.clusters.has(name);

  // ---- load-balancer roles
  const roles = new Map<string, (typeof m.loadBalancers.roles)[number]>();
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
  const roleKnown = (name: string) => roles.has(name) || parsed.brokenNames.roles.has(name);

  // ---- load-balancer clusters
  const lbNames = new Set<string>();
  const apiLbFor = new Map<string, string>();
  const usedRoles = new Set<string>();
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
    checkDnsTarget(lb.dns.provider, lb.dns.dnsZone, [...path, 'dns']);
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

  // ---- whole-manifest checks
  for (const [name, pool] of pools) {
    if (!usedPools.has(name) && !parsed.poolsReferencedByBroken.has(name)) {
      out.error(pool.path, `pool "${name}" is not used by any cluster or load balancer; remove it or list it in a cluster's pools`);
    }
  }
  m.loadBalancers.roles.forEach((role, i) => {
    if (!usedRoles.has(role.name)) out.warning(at('roles', i), `role "${role.name}" is not used by any load balancer`);
  });

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
  return out.issues;
}

/**
 * Claudie refuses pool names over 14 characters today (DynamicNodePool.Name `validate:"max=14"`), but the e2e sets of
 * its older releases use longer ones (`hetzner-control`). For Claudie documents a name up to 20 characters is a
 * warning: a node name (cluster id, pool, worker suffix `-w`, index) still fits a 63-character hostname.
 */
const CLAUDIE_LEGACY_POOL_NAME = 20;

/** VastAI's predefined regions (berops/claudie docs/input-manifest/providers/vastai.md, "Region mapping"). */
const VASTAI_REGIONS = ['europe', 'asia', 'africa', 'north-america', 'south-america', 'oceania'];

/**
 * VastAI rents by offer, found from what the pool asks for (berops/claudie docs/input-manifest/providers/vastai.md):
 * every machineSpec field must be given, the region is a predefined region or two-letter country codes (at most 63
 * characters: it becomes a node label value), and the Ubuntu VM image needs 130 GB of disk.
 */
function checkVastAiPool(out: IssueCollector, path: Path, pool: DynamicPoolDef): void {
  const spec = pool.machineSpec ?? {};
  const missing = (['cpuCount', 'memory', 'nvidiaGpuCount', 'nvidiaGpuType', 'vram'] as const).filter(
    (k) => spec[k] === undefined && !(k === 'nvidiaGpuCount' && spec.nvidiaGpu !== undefined),
  );
  if (missing.length > 0) {
    out.error(
      [...path, 'machineSpec'],
      `VastAI pools need every machineSpec field (cpuCount, memory, nvidiaGpuCount, nvidiaGpuType, ` +
        `vram): VastAI rents the offer that matches them; missing ${missing.join(', ')}`,
    );
  }
  const region = pool.providerSpec.region.trim();
  if (region !== '' && !VASTAI_REGIONS.includes(region)) {
    const codes = region.split(/\s+/);
    if (region.length > 63)
      out.error([...path, 'providerSpec', 'region'], `a VastAI region list is at most 63 characters (it becomes a node label value), not ${region.length}`);
    else if (!codes.every((c) => /^[A-Z]{2}$/.test(c))) {
      out.error(
        [...path, 'providerSpec', 'region'],
        `VastAI regions are one of ${VASTAI_REGIONS.join(', ')}, or two-letter country codes separated by spaces (e.g. "DE US GB"), not "${region}"`,
      );
    }
  }
  if (pool.storageDiskSize !== undefined && pool.storageDiskSize < 130) {
    out.warning([...path, 'storageDiskSize'], `VastAI's Ubuntu VM image needs at least 130 GB of storage; ${pool.storageDiskSize} GB will not boot it`);
  } else if (pool.storageDiskSize === undefined) {
    out.warning([...path, 'storageDiskSize'], "VastAI's Ubuntu VM image needs at least 130 GB of storage; set storageDiskSize to 130 or more");
  }
}

function checkPoolName(out: IssueCollector, path: Path, name: string, claudie: boolean): void {
  if (
    claudie &&
    name.length > NAME_LIMITS.pool &&
    name.length <= CLAUDIE_LEGACY_POOL_NAME &&
    checkDns1123Label(name, 'pool name', CLAUDIE_LEGACY_POOL_NAME) === null
  ) {
    out.warning(
      path,
      `pool name "${name}" is ${name.length} characters; Claudie allows at most ${NAME_LIMITS.pool} ` +
        `today (kubeplane accepts up to ${CLAUDIE_LEGACY_POOL_NAME} in Claudie documents)`,
    );
    return;
  }
  checkName(out, path, name, 'pool name', NAME_LIMITS.pool);
}

function checkName(out: IssueCollector, path: Path, name: string, what: string, max: number): void {
  const problem = checkDns1123Label(name, what, max);
  if (problem) out.error(path, problem);
}

function listOf(names: Iterable<string>): string {
  const all = [...names];
  return all.length ? ` (defined: ${all.join(', ')})` : ' (none are defined)';
}

function isUrl(text: string): boolean {
  try {
    const u = new URL(text);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

/** One form only; a Kubernetes Secret needs name and namespace; an env map names exactly the provider's keys. */
function checkSecretRef(out: IssueCollector, path: Path, ref: SecretRef, keys: readonly CredentialKey[]): void {
  const forms = [
    ref.name !== undefined || ref.namespace !== undefined ? 'name/namespace' : null,
    ref.env !== undefined ? 'env' : null,
    ref.file !== undefined ? 'file' : null,
    ref.awsSecretsManager !== undefined ? 'awsSecretsManager' : null,
    ref.gcpSecretManager !== undefined ? 'gcpSecretManager' : null,
  ].filter((f): f is string => f !== null);
  if (forms.length === 0) {
    out.error(path, 'secretRef needs one of: name and namespace (a Kubernetes Secret), env, file, awsSecretsManager, gcpSecretManager');
    return;
  }
  if (forms.length > 1) {
    out.error(path, `secretRef mixes ${forms.join(' and ')}; use exactly one form`);
    return;
  }
  if (forms[0] === 'name/namespace') {
    if (!ref.name) out.error([...path, 'name'], 'secretRef.name is required with secretRef.namespace');
    if (!ref.namespace) out.error([...path, 'namespace'], 'secretRef.namespace is required with secretRef.name');
  }
  if (ref.file !== undefined && ref.file.trim() === '') out.error([...path, 'file'], 'secretRef.file must be a path');
  if (ref.gcpSecretManager) {
    for (const issue of checkGcpSecretManagerRef(ref.gcpSecretManager)) out.error([...path, 'gcpSecretManager', issue.field], issue.message);
  }
  if (ref.env) {
    const allowed = keys.map((k) => k.key);
    for (const [key, variable] of Object.entries(ref.env)) {
      if (!allowed.includes(key)) out.error([...path, 'env', key], `"${key}" is not a credential key here; expected ${allowed.join(', ')}`);
      if (!ENV_VAR.test(variable)) out.error([...path, 'env', key], `"${variable}" is not an environment variable name`);
    }
    const unknownKeys = Object.keys(ref.env).some((key) => !allowed.includes(key));
    for (const k of keys) {
      // An unknown key is usually a misspelt required one: its message already lists what is expected.
      if (credentialRequired(k, (key) => key in (ref.env ?? {})) && !unknownKeys && !(k.key in ref.env)) {
        out.error(
          [...path, 'env'],
          `credential key "${k.key}" is missing; name the environment variable that holds it${k.requiredUnless ? ` (or give ${k.requiredUnless})` : ''}`,
        );
      }
    }
  }
}

function checkNodeMeta(
  out: IssueCollector,
  path: Path,
  pool: { labels?: Record<string, string>; annotations?: Record<string, string>; taints?: Taint[] },
): void {
  for (const [key, value] of Object.entries(pool.labels ?? {})) {
    const k = checkQualifiedName(key, 'label key');
    if (k) out.error([...path, 'labels', key], k);
    const v = checkLabelValue(value, `value of label ${key}`);
    if (v) out.error([...path, 'labels', key], v);
  }
  let size = 0;
  for (const [key, value] of Object.entries(pool.annotations ?? {})) {
    const k = checkQualifiedName(key, 'annotation key');
    if (k) out.error([...path, 'annotations', key], k);
    size += key.length + value.length;
  }
  if (size > ANNOTATIONS_LIMIT) out.error([...path, 'annotations'], `annotations total ${size} bytes; at most ${ANNOTATIONS_LIMIT} are allowed`);
  const seen = new Set<string>();
  (pool.taints ?? []).forEach((taint, j) => {
    const k = checkQualifiedName(taint.key, 'taint key');
    if (k) out.error([...path, 'taints', j, 'key'], k);
    if (taint.value !== undefined) {
      const v = checkLabelValue(taint.value, 'taint value');
      if (v) out.error([...path, 'taints', j, 'value'], v);
    }
    if (typeof taint.timeAdded === 'string' && !RFC3339.test(taint.timeAdded)) {
      out.error([...path, 'taints', j, 'timeAdded'], `timeAdded "${taint.timeAdded}" must be an RFC 3339 time such as 2024-05-01T12:00:00Z`);
    }
    const id = `${taint.key}:${taint.effect}`;
    if (seen.has(id)) out.error([...path, 'taints', j], `taint ${id} is listed twice`);
    seen.add(id);
  });
}

/**
 * Fields of an existing dynamic pool that cannot change (the machines would have to be rebuilt), and a
 * cluster's network. The error says what to do instead: rename the pool so the new one replaces it.
 */
export const IMMUTABLE_POOL_FIELDS = ['providerSpec', 'serverType', 'image', 'storageDiskSize', 'machineSpec'] as const;

export function checkManifestUpdate(previous: Manifest, parsed: ParsedDocument): ValidationIssue[] {
  const next = parsed.manifest;
  if (!next) return [];
  const out = new IssueCollector(parsed.pathPrefix);
  const before = new Map(previous.nodePools.dynamic.map((p) => [p.name, p]));
  // A managed cluster's pools take a new node image (kubeplane rotates their machines onto it).
  const managedPools = new Set(next.kubernetes.clusters.filter((c) => c.controlPlane === 'managed').flatMap((c) => c.pools.compute ?? []));
  next.nodePools.dynamic.forEach((pool, i) => {
    const old = before.get(pool.name);
    if (!old) return;
    const path = [...MANIFEST_LISTS.dynamic.path, parsed.positions.dynamic[i] ?? i];
    for (const field of IMMUTABLE_POOL_FIELDS) {
      if (field === 'image' && managedPools.has(pool.name)) continue;
      if (stableJson(old[field]) !== stableJson(pool[field])) {
        out.error(
          [...path, field],
          `${field} of existing pool "${pool.name}" cannot change (${describe(old[field])} -> ` +
            `${describe(pool[field])}); rename the pool instead: kubeplane adds the new pool before it removes the old one`,
        );
      }
    }
  });
  const clustersBefore = new Map(previous.kubernetes.clusters.map((c) => [c.name, c]));
  next.kubernetes.clusters.forEach((cluster, i) => {
    const old = clustersBefore.get(cluster.name);
    if (!old) return;
    const path = [...MANIFEST_LISTS.clusters.path, parsed.positions.clusters[i] ?? i];
    if (old.network !== cluster.network) {
      out.error(
        [...path, 'network'],
        `network of existing cluster "${cluster.name}" cannot change (${old.network} -> ${cluster.network}); every node's overlay address is in it`,
      );
    }
    if ((old.controlPlane ?? 'self-managed') !== (cluster.controlPlane ?? 'self-managed')) {
      out.error([...path, 'controlPlane'], `controlPlane of existing cluster "${cluster.name}" cannot change; create a new cluster instead`);
    }
  });
  return out.issues;
}

function describe(value: unknown): string {
  return value === undefined ? 'unset' : typeof value === 'object' ? stableJson(value) : String(value);
}
