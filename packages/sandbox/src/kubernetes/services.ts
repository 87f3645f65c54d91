// Services and their cluster IPs as the API server allocates and defaults them (pkg/registry/core/service and
// pkg/apis/core/v1/defaults.go), and the addresses kubeadm fixes in the service subnet: the `kubernetes` Service
// takes the first address, CoreDNS's `kube-dns` the tenth (kubeadm's constants GetAPIServerVirtualIP / GetDNSIP).
import { invalid, obj, type Json, type KubeObject } from './store.js';

/** kubeadm's default networking.serviceSubnet. */
export const DEFAULT_SERVICE_SUBNET = '10.96.0.0/12';

function ipv4ToInt(ip: string): number {
  return ip.split('.').reduce((n, o) => n * 256 + Number(o), 0);
}

function intToIpv4(n: number): string {
  return [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join('.');
}

/** The address `offset` into an IPv4 subnet (`10.96.0.0/12`, 1 → 10.96.0.1). */
export function serviceIp(subnet: string, offset: number): string {
  const [base = '10.96.0.0'] = subnet.split('/');
  return intToIpv4(ipv4ToInt(base) + offset);
}

function subnetSize(subnet: string): number {
  const bits = Number(subnet.split('/')[1] ?? 12);
  return 2 ** (32 - bits);
}

/**
 * A free cluster IP. The real allocator picks at random from the upper band of the range (the lower band is kept for
 * static addresses, KEP-3070); here the lowest free address of the upper band, so a seeded world repeats.
 */
function allocate(subnet: string, used: Set<string>): string {
  const size = subnetSize(subnet);
  const lowerBand = Math.min(256, Math.max(16, Math.floor(size / 16)));
  for (let i = lowerBand; i < size - 1; i++) {
    const ip = serviceIp(subnet, i);
    if (!used.has(ip)) return ip;
  }
  throw new Error('kubernetes sandbox: the service subnet is full');
}

/** Defaults and validates a Service as its registry strategy does; `used` holds the other Services' cluster IPs. */
export function prepareService(next: KubeObject, current: KubeObject | null, subnet: string, used: Set<string>): KubeObject {
  const name = next.metadata.name;
  const spec: Json = { ...(obj(next['spec']) ?? {}) };
  const type = typeof spec['type'] === 'string' ? spec['type'] : 'ClusterIP';
  const ports = Array.isArray(spec['ports']) ? spec['ports'] : [];
  if (type !== 'ExternalName' && ports.length === 0) throw invalid('services', name, 'spec.ports', 'Required value');
  const currentIp = current ? obj(current['spec'])?.['clusterIP'] : undefined;
  const asked = spec['clusterIP'];
  if (currentIp !== undefined && asked !== undefined && asked !== '' && asked !== currentIp) {
    throw invalid('services', name, 'spec.clusterIPs[0]', `Invalid value: []string{"${String(asked)}"}: may not change once set`);
  }
  let clusterIP: string;
  if (typeof currentIp === 'string') clusterIP = currentIp;
  else if (asked === 'None') clusterIP = 'None';
  else if (typeof asked === 'string' && asked !== '') {
    if (used.has(asked))
      throw invalid(
        'services',
        name,
        'spec.clusterIPs',
        `Invalid value: []string{"${asked}"}: failed to allocate IP ${asked}: provided IP is already allocated`,
      );
    clusterIP = asked;
  } else clusterIP = allocate(subnet, used);
  return {
    ...next,
    apiVersion: 'v1',
    kind: 'Service',
    spec: {
      ...spec,
      type,
      sessionAffinity: spec['sessionAffinity'] ?? 'None',
      clusterIP,
      clusterIPs: [clusterIP],
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
      internalTrafficPolicy: spec['internalTrafficPolicy'] ?? 'Cluster',
      // A port defaults to TCP and to its own number as the target (SetDefaults_Service).
      ports: ports.map((p) => {
        const o = obj(p) ?? {};
        return { ...o, protocol: o['protocol'] ?? 'TCP', targetPort: o['targetPort'] ?? o['port'] };
      }),
    },
    status: current ? (current['status'] ?? { loadBalancer: {} }) : { loadBalancer: {} },
  };
}
