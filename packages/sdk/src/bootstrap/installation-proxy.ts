// The cluster's installation proxy (Claudie's `installationProxy`): whether its nodes install through an HTTP proxy,
// and the files that make apt, containerd, the kubelet, login shells and the bootstrap script use it.
// Claudie's rules (docs/http-proxy/http-proxy.md, berops/claudie): mode `on` always, `off` never, `default` only when
// the cluster has a Hetzner node (Hetzner addresses are often on registries' block lists); endpoint default
// http://proxy.claudie.io:8880; NO_PROXY its default list plus the user's `noProxy`.
import type { ClusterSpec } from '../model/types.js';
import type { BootstrapCluster, BootstrapInstallationProxy, BootstrapNode } from './input.js';

/** Claudie's default installation proxy, used when the manifest names none. */
export const DEFAULT_PROXY_ENDPOINT = 'http://proxy.claudie.io:8880';
/** Instance metadata (every cloud kubeplane runs on serves it here): never through a proxy. */
const METADATA_ADDRESS = '169.254.169.254';
/** What Claudie's default list holds besides its (fixed) pod and service ranges, which kubeplane replaces by the cluster's. */
const CLAUDIE_NO_PROXY_BASE = ['127.0.0.1/8', 'localhost', 'cluster.local'];

/** Where the proxy variables live on a node: the bootstrap script reads them, and appends them to /etc/environment. */
export const PROXY_ENV_PATH = '/etc/kubeplane/proxy.env';
export const APT_PROXY_PATH = '/etc/apt/apt.conf.d/90kubeplane-proxy.conf';
export const PROXY_DROP_IN = '90-kubeplane-proxy.conf';

/**
 * What decides the proxy of the nodes created from now on: the endpoint and the user's `noProxy`, or null when they
 * install without one. The rest of NO_PROXY follows from the cluster (its networks and nodes).
 */
export function effectiveInstallationProxy(spec: ClusterSpec): { endpoint: string; noProxy: string[] } | null {
  const proxy = spec.installationProxy;
  if (!proxy || proxy.mode === 'off' || spec.controlPlane === 'managed') return null;
  if (proxy.mode === 'default' && !spec.pools.some((p) => p.provider?.type === 'hetzner')) return null;
  return { endpoint: proxy.endpoint || DEFAULT_PROXY_ENDPOINT, noProxy: splitList(proxy.noProxy) };
}

/** A proxy URL as plans and the CLI print it: a password in it (`user:password@`) shows as `***`. */
export function displayProxyEndpoint(endpoint: string): string {
  try {
    const url = new URL(endpoint);
    if (!url.password) return endpoint;
    url.password = '***';
    return url.toString();
  } catch {
    return endpoint;
  }
}

function splitList(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/**
 * The resolved proxy of a cluster for rendering: NO_PROXY is Claudie's default list with the cluster's own pod and
 * service ranges, its overlay and provider networks (every node's overlay and private address), the API endpoint and
 * its names, the public addresses known when rendering (static machines', machines that exist), the metadata address
 * and the user's `noProxy`, in that order and without repeats.
 */
export function installationProxyFor(spec: ClusterSpec, extra: { apiHost?: string; nodeAddresses?: string[] } = {}): BootstrapInstallationProxy | undefined {
  const effective = effectiveInstallationProxy(spec);
  if (!effective) return undefined;
  const endpoint = spec.apiEndpoint;
  const pools = [...spec.pools, ...spec.loadBalancers.flatMap((lb) => lb.pools)];
  const apiLb = spec.loadBalancers.find((lb) => lb.api);
  const list = [
    ...CLAUDIE_NO_PROXY_BASE,
    spec.podCidr,
    spec.serviceCidr,
    spec.network,
    ...spec.networks.map((n) => n.cidr),
    ...(endpoint.kind === 'load-balancer' ? [endpoint.host] : []),
    ...(apiLb ? apiLb.dns.alternativeNames.map((n) => `${n}.${apiLb.dns.zone.replace(/\.$/, '')}`) : []),
    ...(extra.apiHost ? [extra.apiHost] : []),
    ...pools.flatMap((p) => p.nodes.flatMap((n) => (n.staticEndpoint ? [n.staticEndpoint] : []))),
    ...(extra.nodeAddresses ?? []),
    METADATA_ADDRESS,
    ...effective.noProxy,
  ];
  return { endpoint: effective.endpoint, noProxy: [...new Set(list)] };
}

function environmentLines(proxy: BootstrapInstallationProxy): string[] {
  const noProxy = proxy.noProxy.join(',');
  return [
    `HTTP_PROXY="${proxy.endpoint}"`,
    `HTTPS_PROXY="${proxy.endpoint}"`,
    `NO_PROXY="${noProxy}"`,
    `http_proxy="${proxy.endpoint}"`,
    `https_proxy="${proxy.endpoint}"`,
    `no_proxy="${noProxy}"`,
  ];
}

/** The proxy variables as KEY="value" lines: what /etc/environment (pam_env) takes, and what a shell can source. */
export function renderProxyEnvironment(proxy: BootstrapInstallationProxy): string {
  return `${environmentLines(proxy).join('\n')}\n`;
}

/** apt's own setting (apt.conf(5), Acquire::http::Proxy): apt reads no environment when run by cloud-init. */
export function renderAptProxy(proxy: BootstrapInstallationProxy): string {
  return `Acquire::http::Proxy "${proxy.endpoint}";\nAcquire::https::Proxy "${proxy.endpoint}";\n`;
}

/** A systemd drop-in giving a service the proxy variables (systemd.exec(5), Environment=). */
export function renderProxyDropIn(proxy: BootstrapInstallationProxy): string {
  return `[Service]\n${environmentLines(proxy)
    .map((l) => `Environment=${JSON.stringify(l.replace(/"/g, ''))}`)
    .join('\n')}\n`;
}

/** The files a node needs for the proxy: all before the bootstrap script's first download; none without a proxy. */
export function proxyFiles(cluster: BootstrapCluster, node: BootstrapNode): Array<{ path: string; content: string }> {
  const proxy = cluster.installationProxy;
  if (!proxy) return [];
  const files = [
    { path: PROXY_ENV_PATH, content: renderProxyEnvironment(proxy) },
    { path: APT_PROXY_PATH, content: renderAptProxy(proxy) },
  ];
  // A load balancer runs nginx, neither containerd nor a kubelet.
  if (node.role !== 'loadbalancer') {
    files.push(
      { path: `/etc/systemd/system/containerd.service.d/${PROXY_DROP_IN}`, content: renderProxyDropIn(proxy) },
      { path: `/etc/systemd/system/kubelet.service.d/${PROXY_DROP_IN}`, content: renderProxyDropIn(proxy) },
    );
  }
  return files;
}

/** Characters a proxy URL or a NO_PROXY entry may hold here: nothing that quotes or ends a line in the files above. */
export const PROXY_TEXT_UNSAFE = /["'\\`$\s]/;
