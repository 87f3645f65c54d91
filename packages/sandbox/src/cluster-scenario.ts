// A cluster's infrastructure as provider calls, for lifecycle tests and benchmarks: network, firewall,
// reserved IP, SSH key, N nodes, the API DNS records; then the teardown. Runs on the simulation driver.
import { pending, done, type DnsApi, type NodeRequest, type Provider, type VirtualClock } from '@kubeplane/sdk/provider';
import { simulate, type SimResult, type SimTask } from './simulation.js';

export interface ClusterScenario {
  clusterId: string;
  region: string;
  zone?: string;
  serverType: string;
  image: string;
  nodes: number;
  /** DNS provider and zone for the API and LB records. */
  dns?: { api: DnsApi; zone: string };
  /** Seconds between readiness polls (one paged listNodes call per poll). */
  pollSeconds?: number;
}

const PUBLIC_KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl kubeplane';

export function names(s: ClusterScenario) {
  return { network: `${s.clusterId}-net`, firewall: `${s.clusterId}-fw`, ip: `${s.clusterId}-api`, key: `${s.clusterId}-key` };
}

export function nodeRequests(s: ClusterScenario): NodeRequest[] {
  const n = names(s);
  return Array.from({ length: s.nodes }, (_, i) => ({
    name: `${s.clusterId}-${i === 0 ? 'cp' : 'w'}-${String(i + 1).padStart(2, '0')}`,
    clusterId: s.clusterId,
    nodepool: i === 0 ? 'cp' : 'w',
    region: s.region,
    ...(s.zone ? { zone: s.zone } : {}),
    serverType: s.serverType,
    image: s.image,
    userData: '#cloud-config\npackage_update: false\n',
    sshKeyName: n.key,
    networkName: n.network,
    firewallNames: [n.firewall],
    ...(i === 0 ? { reservedIpName: n.ip } : {}),
  }));
}

/** Network, firewall, reserved IP and SSH key. */
export async function createInfrastructure(provider: Provider, clock: VirtualClock, s: ClusterScenario): Promise<SimResult> {
  const net = provider.network;
  if (!net) throw new Error(`${provider.name} has no network capability`);
  const n = names(s);
  const scope = { clusterId: s.clusterId, region: s.region };
  return simulate(clock, [
    {
      name: 'network',
      run: (attempt) =>
        net.ensureNetwork(
          { ...scope, name: n.network, cidr: '10.0.0.0/16', subnets: [{ cidr: '10.0.1.0/24', ...(s.zone ? { zone: s.zone } : {}) }] },
          { attempt },
        ),
      then: () => [
        {
          name: 'firewall',
          run: (attempt) =>
            net.ensureFirewall(
              {
                ...scope,
                name: n.firewall,
                networkName: n.network,
                rules: [
                  { protocol: 'tcp', port: 6443, sourceCidrs: ['0.0.0.0/0'], description: 'kubernetes api' },
                  { protocol: 'tcp', port: 22, sourceCidrs: ['203.0.113.0/24'], description: 'ssh' },
                  { protocol: 'udp', port: 51820, sourceCidrs: ['0.0.0.0/0'], fromClusterNodes: true, description: 'wireguard' },
                  { protocol: 'tcp', port: [9100, 9100], sourceCidrs: ['10.0.0.0/8'], description: 'metrics' },
                ],
              },
              { attempt },
            ),
        },
      ],
    },
    { name: 'reserved-ip', run: (attempt) => net.ensureReservedIp({ ...scope, name: n.ip, ...(s.zone ? { zone: s.zone } : {}) }, { attempt }) },
    { name: 'ssh-key', run: (attempt) => net.ensureSshKey({ ...scope, name: n.key, publicKey: PUBLIC_KEY }, { attempt }) },
  ]);
}

/** Creates the nodes and polls until every one runs. */
export async function createNodes(provider: Provider, clock: VirtualClock, s: ClusterScenario, options: { poll?: boolean } = {}): Promise<SimResult> {
  const compute = provider.compute;
  if (!compute) throw new Error(`${provider.name} has no compute capability`);
  const tasks: SimTask[] = nodeRequests(s).map((request) => ({ name: request.name, run: (attempt) => compute.createNode(request, { attempt }) }));
  if (options.poll !== false) {
    tasks.push({
      name: 'wait-running',
      run: async (attempt) => {
        const listed = await compute.listNodes({ clusterId: s.clusterId }, { attempt });
        if (listed.status === 'pending') return listed;
        const running = listed.value.filter((x) => x.state === 'running').length;
        return running >= s.nodes ? done(running) : pending('in-progress', s.pollSeconds ?? 5, `${running}/${s.nodes} nodes running`);
      },
    });
  }
  return simulate(clock, tasks);
}

export function dnsRecords(s: ClusterScenario, apiIp: string) {
  const zone = s.dns?.zone ?? 'example.com';
  return [
    { name: `api.${s.clusterId}.${zone}`, type: 'A' as const, ttl: 60, values: [apiIp] },
    {
      name: `lb.${s.clusterId}.${zone}`,
      type: 'A' as const,
      ttl: 30,
      values: ['198.51.100.20'],
      setIdentifier: 'primary',
      failover: { role: 'primary' as const, healthCheck: { ip: '198.51.100.20', port: 65534 } },
    },
    {
      name: `lb.${s.clusterId}.${zone}`,
      type: 'A' as const,
      ttl: 30,
      values: ['198.51.100.21'],
      setIdentifier: 'secondary',
      failover: { role: 'secondary' as const, healthCheck: { ip: '198.51.100.21', port: 65534 } },
    },
    { name: `apps.${s.clusterId}.${zone}`, type: 'CNAME' as const, ttl: 300, values: [`lb.${s.clusterId}.${zone}`] },
  ];
}
