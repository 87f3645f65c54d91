// Checks a BootstrapCluster before anything is rendered, so a bad input fails with every problem named at once
// rather than as a node that silently never joins.
import { KubeplaneError } from '../errors.js';
import type { BootstrapCluster } from './input.js';
import { cidrContains, isIpv4, parseCidr } from './network.js';
import { PROXY_TEXT_UNSAFE } from './installation-proxy.js';

/** A problem in a cluster's bootstrap input, with the field it concerns. */
export interface BootstrapIssue {
  path: string;
  message: string;
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

function tryCidr(cidr: string): boolean {
  try {
    parseCidr(cidr);
    return true;
  } catch {
    return false;
  }
}

/** The problems that keep a cluster's bootstrap input from rendering; empty when it renders. */
export function bootstrapIssues(cluster: BootstrapCluster): BootstrapIssue[] {
  const issues: BootstrapIssue[] = [];
  const add = (path: string, message: string): void => {
    issues.push({ path, message });
  };
  for (const field of ['network', 'podCidr', 'serviceCidr'] as const) {
    if (!tryCidr(cluster[field])) add(field, `${cluster[field]} is not an IPv4 CIDR`);
  }
  const { major, minor, patch } = cluster.kubernetesVersion;
  if (major !== 1 || minor < 24 || !Number.isInteger(patch) || patch < 0) {
    add('kubernetesVersion', `${major}.${minor}.${patch} is outside the supported 1.24+ range`);
  }
  if (!cluster.apiEndpoint.host) add('apiEndpoint.host', 'the API endpoint host is empty');
  if (cluster.apiEndpoint.kind === 'reserved-ip' && !isIpv4(cluster.apiEndpoint.host)) {
    add('apiEndpoint.host', `a reserved-ip endpoint must be an IPv4 address, not ${cluster.apiEndpoint.host}`);
  }
  if (!cluster.nodes.some((n) => n.role === 'control')) add('nodes', 'the cluster has no control-plane node');
  // The proxy is written into apt's configuration, systemd drop-ins and a sourced environment file: no quoting there.
  const proxy = cluster.installationProxy;
  if (proxy && (!/^https?:\/\//.test(proxy.endpoint) || PROXY_TEXT_UNSAFE.test(proxy.endpoint)))
    add('installationProxy.endpoint', `${JSON.stringify(proxy.endpoint)} is not an http(s) URL without quotes, spaces or $`);
  for (const [i, entry] of (proxy?.noProxy ?? []).entries())
    if (entry === '' || PROXY_TEXT_UNSAFE.test(entry) || entry.includes(','))
      add(`installationProxy.noProxy[${i}]`, `${JSON.stringify(entry)} is not a host, domain or CIDR`);
  const names = new Set<string>();
  const ips = new Set<string>();
  cluster.nodes.forEach((node, i) => {
    const path = `nodes[${i}]`;
    if (!DNS_LABEL.test(node.name)) add(`${path}.name`, `${node.name} is not a DNS-1123 label`);
    if (names.has(node.name)) add(`${path}.name`, `node name ${node.name} is used twice`);
    names.add(node.name);
    if (!isIpv4(node.overlayIp)) add(`${path}.overlayIp`, `${node.overlayIp} is not an IPv4 address`);
    else if (tryCidr(cluster.network) && !cidrContains(cluster.network, node.overlayIp)) {
      add(`${path}.overlayIp`, `${node.overlayIp} is outside the overlay network ${cluster.network}`);
    }
    if (ips.has(node.overlayIp)) add(`${path}.overlayIp`, `overlay IP ${node.overlayIp} is used twice`);
    ips.add(node.overlayIp);
    if (node.role === 'loadbalancer' && !cluster.loadBalancers.some((lb) => lb.pools.includes(node.pool))) {
      add(`${path}.pool`, `load-balancer node ${node.name} is in pool ${node.pool}, which no load balancer uses`);
    }
  });
  cluster.loadBalancers.forEach((lb, i) => {
    lb.roles.forEach((role, j) => {
      const path = `loadBalancers[${i}].roles[${j}]`;
      if (role.targets.length === 0) add(`${path}.targets`, `role ${role.name} has no target nodes`);
      if (role.port >= 64512) add(`${path}.port`, `port ${role.port} is in the reserved range 64512-65535`);
    });
  });
  return issues;
}

/** Throws one `invalid` error listing every issue. */
export function assertValidBootstrapCluster(cluster: BootstrapCluster): void {
  const issues = bootstrapIssues(cluster);
  if (issues.length === 0) return;
  const first = issues[0];
  throw new KubeplaneError(
    'invalid',
    `cluster ${cluster.name} cannot be rendered: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`,
    first ? { resource: first.path } : {},
  );
}
