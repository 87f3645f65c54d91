// Helpers the steps share: naming of per-region resources, the cluster's firewall rules, reading outcomes,
// and the bootstrap view of the cluster as far as it exists now.
import { KubeplaneError } from '../../errors.js';
import { bootstrapClusterFromSpec } from '../../bootstrap/from-spec.js';
import type { BootstrapCluster } from '../../bootstrap/input.js';
import { LB_HEALTH_PORT } from '../../bootstrap/lb-nginx.js';
import { WIREGUARD_PORT } from '../../bootstrap/wireguard-mesh.js';
import type { Pending } from '../../provider/outcome.js';
import { backoffSeconds } from '../../provider/backoff.js';
import type { RandomSource } from '../../bootstrap/random.js';
import type { Capabilities, FirewallRule, ResourceScopes } from '../../provider/types.js';
import type { ClusterSpec, NodeSpec, PoolSpec } from '../../model/types.js';
import type { ClusterRecord, NodeResource } from '../records.js';
import { Redacted } from '../../redacted.js';
import { renderStaticReset } from '../../bootstrap/static-machine.js';
import type { StepContext, StepResult } from './types.js';
import type { KubernetesApi } from '../ports/kubernetes.js';
import { isPending } from '../../provider/outcome.js';

export const regionKey = (provider: string, region: string) => `${provider}/${region}`;
export const networkName = (clusterId: string, region: string) => `${clusterId}-${region}`.slice(0, 63).replace(/-+$/, '');
/** The cluster's SSH key in a region, or (no region) the one key of a provider whose keys serve every region. */
export const sshKeyName = (clusterId: string, region?: string) =>
  region === undefined ? `${clusterId.slice(0, 59)}-ssh` : `${networkName(clusterId, region)}-ssh`;

/**
 * Where one resource of `kind` serves a provider region, as the provider declares it (Capabilities.scopes): the
 * ledger key (`<provider>` for the whole account, `<provider>/<region>` for one region) and the region its name
 * carries (none for the whole account). A provider-wide resource is made once and removed after its last region.
 */
export function scopeOf(capabilities: Capabilities, kind: keyof ResourceScopes, provider: string, region: string): { key: string; region?: string } {
  return capabilities.scopes?.[kind] === 'project' ? { key: provider } : { key: regionKey(provider, region), region };
}

/** Whether a ledger key names a provider-wide resource (`<provider>`) rather than one region's (`<provider>/<region>`). */
export const isProviderWideKey = (key: string) => !key.includes('/');
export const apiIpName = (clusterId: string) => `${clusterId}-api`;

/** Every pool of the cluster, its load balancers' pools included. */
export function poolsOf(spec: ClusterSpec): PoolSpec[] {
  return [...spec.pools, ...spec.loadBalancers.flatMap((lb) => lb.pools)];
}

export function nodesOf(spec: ClusterSpec): Array<{ node: NodeSpec; pool: PoolSpec }> {
  return poolsOf(spec).flatMap((pool) => pool.nodes.map((node) => ({ node, pool })));
}

export function desiredOf(record: ClusterRecord): ClusterSpec {
  if (!record.desired) throw new KubeplaneError('invalid', `cluster ${record.name} has no desired state`);
  return record.desired;
}

/** A machine's role, as far as firewalls go: each role has its own firewall where the cloud attaches them per machine. */
export type FirewallRole = 'control' | 'compute' | 'loadbalancer';
export const FIREWALL_ROLES: readonly FirewallRole[] = ['control', 'compute', 'loadbalancer'];
const ROLE_SUFFIX: Record<FirewallRole, string> = { control: 'cp', compute: 'worker', loadbalancer: 'lb' };

/** The firewall of a role in a region, or (no role) the one firewall of a region where rules are network-wide. */
export const firewallName = (clusterId: string, region: string, role?: FirewallRole) =>
  `${networkName(clusterId, region)}-fw${role ? `-${ROLE_SUFFIX[role]}` : ''}`;
/** The ledger's key of a firewall: the region's key, and the role where firewalls are per role. */
export const firewallKey = (region: string, role?: FirewallRole) => (role ? `${region}#${role}` : region);

/** The cluster's own machines as firewall sources: every known public address, and the reserved API address. */
export function clusterNodeSources(record: ClusterRecord): string[] {
  const ips = Object.values(record.ledger.nodes).flatMap((n) => (n.publicIPv4 && n.state !== 'deleting' ? [n.publicIPv4] : []));
  if (record.ledger.reservedIp?.ip) ips.push(record.ledger.reservedIp.ip);
  return [...new Set(ips)].sort().map((ip) => `${ip}/32`);
}

/**
 * Who may reach the API port: `access.apiAllowedCidrs` and the cluster's own machines (workers and control planes
 * join and talk to the API through its public endpoint). Addresses become known as machines are created, so the
 * engine re-applies the rules when they change (networks step, await-machines, remove-nodes).
 */
export function apiSources(spec: ClusterSpec, nodeSources: string[]): string[] {
  if (spec.access.apiAllowedCidrs.includes('0.0.0.0/0')) return ['0.0.0.0/0'];
  return [...new Set([...spec.access.apiAllowedCidrs, ...nodeSources])];
}

/** What every machine gets: WireGuard, ICMP and SSH from the allowed ranges. */
function commonRules(spec: ClusterSpec): FirewallRule[] {
  const managed = spec.controlPlane === 'managed';
  const rules: FirewallRule[] = [
    ...(managed
      ? []
      : [
          {
            protocol: 'udp',
            port: WIREGUARD_PORT,
            sourceCidrs: ['0.0.0.0/0'],
            description: 'WireGuard overlay between nodes (any cloud, roaming)',
          } satisfies FirewallRule,
        ]),
    { protocol: 'icmp', sourceCidrs: ['0.0.0.0/0'], description: 'path MTU discovery and diagnostics' },
  ];
  if (spec.access.sshAllowedCidrs.length > 0) {
    rules.push({ protocol: 'tcp', port: 22, sourceCidrs: spec.access.sshAllowedCidrs, description: 'SSH from the allowed ranges' });
  }
  return rules;
}

const byPort = (a: FirewallRule, b: FirewallRule) => String(a.port).localeCompare(String(b.port));

/**
 * The inbound rules of each role. Control planes expose the API only behind a reserved IP (an API load balancer
 * reaches them over the overlay); load-balancer nodes expose their roles, the API role only to the API's sources
 * and the others to the world. A managed cluster's nodes get only ICMP and SSH: the provider runs the API.
 */
export function firewallRulesByRole(spec: ClusterSpec, nodeSources: string[]): Record<FirewallRole, FirewallRule[]> {
  const common = commonRules(spec);
  if (spec.controlPlane === 'managed') return { control: common, compute: common, loadbalancer: common };
  const api = apiSources(spec, nodeSources);
  const control = [...common];
  if (spec.apiEndpoint.kind === 'reserved-ip') {
    control.push({
      protocol: 'tcp',
      port: spec.apiEndpoint.port,
      sourceCidrs: api,
      description: "Kubernetes API from the allowed ranges and the cluster's machines",
    });
  }
  const lbPorts = new Map<string, FirewallRule>();
  for (const lb of spec.loadBalancers) {
    for (const role of lb.roles) {
      const isApi = lb.api && role.targetPort === 6443;
      const id = `${role.protocol}/${role.port}`;
      const rule: FirewallRule = isApi
        ? {
            protocol: role.protocol,
            port: role.port,
            sourceCidrs: api,
            description: `load-balancer role ${role.name} (Kubernetes API) from the allowed ranges and the cluster's machines`,
          }
        : { protocol: role.protocol, port: role.port, sourceCidrs: ['0.0.0.0/0'], description: `load-balancer role ${role.name}` };
      // Two LB clusters on one port: the wider sources win, so neither stops working.
      const seen = lbPorts.get(id);
      if (!seen || rule.sourceCidrs.includes('0.0.0.0/0')) lbPorts.set(id, rule);
    }
  }
  if (spec.loadBalancers.length > 0) {
    lbPorts.set(`tcp/${LB_HEALTH_PORT}`, {
      protocol: 'tcp',
      port: LB_HEALTH_PORT,
      sourceCidrs: ['0.0.0.0/0'],
      description: 'DNS health checks of load-balancer nodes',
    });
  }
  return {
    control: control.sort(byPort),
    compute: [...common].sort(byPort),
    loadbalancer: [...common, ...lbPorts.values()].sort(byPort),
  };
}

/**
 * One rule set for clouds whose firewall rules apply to every machine of the network (Crusoe VPC rules): the union
 * of the roles' rules, the API port still only from the API's sources.
 */
export function firewallRules(spec: ClusterSpec, nodeSources: string[] = []): FirewallRule[] {
  const roles = firewallRulesByRole(spec, nodeSources);
  const merged = new Map<string, FirewallRule>();
  for (const rule of [...roles.control, ...roles.compute, ...roles.loadbalancer]) {
    const id = `${rule.protocol}/${String(rule.port)}`;
    const seen = merged.get(id);
    if (!seen || rule.sourceCidrs.includes('0.0.0.0/0')) merged.set(id, rule);
  }
  return [...merged.values()].sort(byPort);
}

/** The roles that have machines in a provider's region. */
export function rolesIn(spec: ClusterSpec, provider: string, region: string): FirewallRole[] {
  const roles = new Set<FirewallRole>();
  for (const pool of poolsOf(spec)) if (pool.provider?.name === provider && pool.provider.region === region) roles.add(pool.role);
  return FIREWALL_ROLES.filter((r) => roles.has(r));
}

/** The bootstrap input with everything known now: the API address and the public endpoints of live machines. */
export function bootstrapView(record: ClusterRecord): BootstrapCluster {
  const spec = desiredOf(record);
  const publicEndpoints: Record<string, string> = {};
  for (const [name, n] of Object.entries(record.ledger.nodes)) if (n.publicIPv4) publicEndpoints[name] = `${n.publicIPv4}:${WIREGUARD_PORT}`;
  // The API node answers on the reserved IP once it is attached (EC2 replaces the machine's first address with it).
  if (spec.apiEndpoint.kind === 'reserved-ip' && record.ledger.reservedIp)
    publicEndpoints[spec.apiEndpoint.node] = `${record.ledger.reservedIp.ip}:${WIREGUARD_PORT}`;
  return bootstrapClusterFromSpec(spec, { ...(record.ledger.reservedIp ? { apiHost: record.ledger.reservedIp.ip } : {}), publicEndpoints });
}

/**
 * Runs `ensure` unless this run of the step already did for `what` (see ClusterRecord.step.ensured); null when it
 * was done before or is done now, else the wait for what is pending.
 */
export async function ensureOnce(ctx: StepContext, what: string, ensure: () => Promise<StepResult | null>): Promise<StepResult | null> {
  if (ctx.record.step.ensured?.includes(what)) return null;
  const pending = await ensure();
  if (!pending) (ctx.record.step.ensured ??= []).push(what);
  return pending;
}

/**
 * Turns a pending outcome into a wait, so a step stops and resumes when the provider said. Repeated transient
 * failures of the same step back off exponentially (with jitter) on top of what the provider asked for.
 */
export function waitFor(p: Pending, what: string, ctx: { attempt: number; random: RandomSource }): StepResult {
  const transient = p.reason === 'retryable' || p.reason === 'throttled';
  const jitter = () => (ctx.random.bytes(1)[0] ?? 0) / 256;
  const seconds = transient ? Math.max(p.retryAfterSeconds, backoffSeconds(ctx.attempt, { maxSeconds: 300, random: jitter })) : p.retryAfterSeconds;
  return { kind: 'wait', seconds, reason: `${what}: ${p.message}`, transient, ...(p.reason === 'rate-budget' ? { budget: true } : {}) };
}

/**
 * The view one machine is rendered with: the control planes and load balancers (the peers every node needs
 * at boot, created first) and the machine itself. Other workers reach it through the published mesh within
 * a minute; carrying every peer would not fit user-data limits past a few hundred nodes.
 */
export function bootView(cluster: BootstrapCluster, nodeName: string): BootstrapCluster {
  return { ...cluster, nodes: cluster.nodes.filter((n) => n.role !== 'compute' || n.name === nodeName) };
}

/** Deletes a machine the ledger marks `deleting`, with its Node, and forgets it; a wait while the provider works. */
export async function deleteMachine(ctx: StepContext, k8s: KubernetesApi | null, name: string): Promise<StepResult | null> {
  const spec = desiredOf(ctx.record);
  const machine = ctx.record.ledger.nodes[name];
  if (!machine) return null;
  if (k8s && machine.role !== 'loadbalancer') await k8s.deleteNode(name);
  if (machine.static) {
    await resetStaticMachine(ctx, name, machine.static);
    delete ctx.record.ledger.nodes[name];
    ctx.emit({ type: 'resource-deleted', kind: 'machine', name, provider: machine.provider });
    return null;
  }
  const provider = await ctx.provider(machine.provider, machine.region);
  const gone = provider.compute ? await provider.compute.deleteNode({ clusterId: spec.id, name, region: machine.region }) : undefined;
  if (gone && isPending(gone)) return waitFor(gone, `deleting machine ${name}`, ctx);
  delete ctx.record.ledger.nodes[name];
  ctx.emit({ type: 'resource-deleted', kind: 'machine', name, provider: machine.provider });
  return null;
}

/**
 * A static machine leaves the cluster: reset over SSH (kubeadm reset, then what the bootstrap wrote and installed;
 * see renderStaticReset), with the host key pinned when it joined. The machine is the user's and is not deleted.
 */
export async function resetStaticMachine(ctx: StepContext, name: string, machine: NonNullable<NodeResource['static']>): Promise<void> {
  if (!ctx.machines)
    throw new KubeplaneError('invalid', `static node ${name} (${machine.endpoint}) must be reset over SSH, and this runtime has no SSH access configured`, {
      resource: name,
    });
  const run = await ctx.machines.run(
    { node: name, endpoint: machine.endpoint, port: machine.port, username: machine.username, secretRef: machine.secretRef, hostKey: machine.hostKey },
    Redacted.of(renderStaticReset(name)),
  );
  if (run.exitCode !== 0)
    throw new KubeplaneError('retryable', `static node ${name} (${machine.endpoint}): the reset failed (exit ${run.exitCode}): ${run.output}`, {
      resource: name,
    });
}
