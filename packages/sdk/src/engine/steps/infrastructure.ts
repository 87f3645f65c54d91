// Infrastructure phase: the cluster's keys, its networks, firewalls, SSH keys and API address in every
// provider region it uses, then its machines with their rendered user-data, until every machine runs.
import { createHash } from 'node:crypto';
import { KubeplaneError, isKubeplaneError } from '../../errors.js';
import { fallBackAfterRefusal, isAutoscaledGrowth, isGrowthRefusal } from '../pool-scaling.js';
import { generateBootstrapToken, generateClusterKeys, issueClusterPki } from '../../bootstrap/pki.js';
import { generateMeshSigningKeyPair } from '../../bootstrap/mesh-bundle.js';
import { Redacted } from '../../redacted.js';
import { renderNode } from '../../bootstrap/render.js';
import { renderStaticBootstrap } from '../../bootstrap/static-machine.js';
import { generateWireguardKeyPair } from '../../bootstrap/wireguard-keys.js';
import { randomLowerAlnum, seededRandomSource } from '../../bootstrap/random.js';
import type { NodeResource } from '../records.js';
import type { BootstrapCluster } from '../../bootstrap/input.js';
import type { NodeSpec } from '../../model/types.js';
import type { ClusterKeys } from '../../bootstrap/pki.js';
import { generateSshKeyPair } from '../cluster-secrets.js';
import {
  apiIpName,
  bootView,
  deleteMachine,
  bootstrapView,
  desiredOf,
  ensureOnce,
  clusterNodeSources,
  firewallKey,
  firewallName,
  firewallRules,
  firewallRulesByRole,
  rolesIn,
  type FirewallRole,
  networkName,
  nodesOf,
  regionKey,
  scopeOf,
  sshKeyName,
  waitFor,
} from './common.js';
import { isPending } from '../../provider/outcome.js';
import type { FirewallRule, NodeState } from '../../provider/types.js';
import { awaitManagedMachines, checkManagedVersions, ensureManagedPools, isManaged } from './managed.js';
import { next, wait, type StepDefinition, type StepContext, type StepResult } from './types.js';

/** Machines requested per step invocation: keeps each invocation short and within rate budgets. */
export const CREATE_BATCH = 25;

export const prepare: StepDefinition = {
  phase: 'infrastructure',
  timeoutSeconds: 600,
  timeoutMessage: () => 'could not prepare the cluster keys',
  async run(ctx) {
    const spec = desiredOf(ctx.record);
    if (isManaged(spec)) {
      // Nothing of kubeplane's PKI or mesh: the provider runs the control plane and the nodes' network. The SSH key
      // goes onto the pools' machines; versions are checked before anything is created.
      const refused = await checkManagedVersions(ctx);
      if (refused) return refused;
      if (!(await ctx.secrets.ssh())) await ctx.secrets.issueSsh(generateSshKeyPair(`kubeplane-${spec.id}`));
      return next(`the provider offers ${spec.version.raw} and the pools' node images`);
    }
    const statics = spec.pools.filter((p) => p.kind === 'static').map((p) => p.name);
    if (statics.length > 0 && !ctx.machines) {
      return {
        kind: 'failed',
        error: new KubeplaneError(
          'invalid',
          `cluster ${spec.name}: static pools (${statics.join(', ')}) are reached over SSH, and this runtime has no ` +
            `SSH access configured (EngineOptions.machines); run it with the CLI or give the engine a MachineAccess`,
          { resource: spec.sourcePath },
        ),
      };
    }
    const nodes = nodesOf(spec);
    // The cluster-wide keys are made once (the CA keys sign everything after); an overlapping run keeps the first's.
    // Issued with the keys of today's nodes, so a new cluster's keys are written once.
    const keys =
      (await ctx.secrets.keys()) ??
      (await ctx.secrets.issueKeys(await generateClusterKeys({ nodes: nodes.map(({ node }) => ({ name: node.name, role: node.role })) }, ctx.keyPairs)));
    // Per-node keys for nodes added since the keys were made.
    let changed = false;
    const withNodes: ClusterKeys = { ...keys, apiServer: { ...keys.apiServer }, meshReader: { ...keys.meshReader } };
    // Keys stored before mesh bundles were signed lack the signing key; it is made once and kept with the rest.
    if (!(withNodes as Partial<ClusterKeys>).meshSigning) {
      withNodes.meshSigning = generateMeshSigningKeyPair();
      changed = true;
    }
    for (const { node } of nodes) {
      if (node.role === 'control' && !withNodes.apiServer[node.name]) {
        withNodes.apiServer[node.name] = await ctx.keyPairs.ec();
        changed = true;
      }
      if (node.role === 'loadbalancer' && !withNodes.meshReader[node.name]) {
        withNodes.meshReader[node.name] = await ctx.keyPairs.ec();
        changed = true;
      }
    }
    if (changed) await ctx.secrets.putKeys(withNodes);

    const wg = await ctx.secrets.wireguard();
    const missing = nodes.filter(({ node }) => !wg[node.name]);
    if (missing.length > 0) {
      for (const { node } of missing) wg[node.name] = generateWireguardKeyPair(ctx.random);
      await ctx.secrets.putWireguard(wg);
    }
    if (!(await ctx.secrets.ssh())) await ctx.secrets.issueSsh(generateSshKeyPair(`kubeplane-${spec.id}`));
    return next(`keys ready for ${nodes.length} nodes`);
  },
};

export const networks: StepDefinition = {
  phase: 'infrastructure',
  timeoutSeconds: 1800,
  timeoutMessage: (r) => `the networks of cluster ${r.name} were not ready after 30 minutes`,
  async run(ctx) {
    const spec = desiredOf(ctx.record);
    const ledger = ctx.record.ledger;
    const ssh = await ctx.secrets.ssh();
    if (!ssh) throw new KubeplaneError('invalid', 'the SSH key is missing; the prepare step did not run');
    // Keys of provider-wide scope are ensured once per run, however many of the provider's regions the cluster uses.
    const keysEnsured = new Set<string>();
    for (const net of spec.networks) {
      const key = regionKey(net.provider, net.region);
      if (!ledger.regions.includes(key)) ledger.regions.push(key);
      const provider = await ctx.provider(net.provider, net.region);
      const network = provider.network;
      if (!network) continue;
      const name = networkName(spec.id, net.region);
      const netWait = await ensureOnce(ctx, `network ${key}`, async () => {
        const n = await network.ensureNetwork({
          name,
          clusterId: spec.id,
          region: net.region,
          cidr: net.cidr,
          subnets: net.subnets.map((s) => (s.zone ? { cidr: s.cidr, zone: s.zone } : { cidr: s.cidr })),
        });
        if (isPending(n)) return waitFor(n, `network ${name}`, ctx);
        if (!ledger.networks[key]) ctx.emit({ type: 'resource-created', kind: 'network', name, provider: net.provider });
        ledger.networks[key] = { name, id: n.value.id };
        return null;
      });
      if (netWait) return netWait;

      const fw = await ensureFirewalls(ctx, net.provider, net.region, clusterNodeSources(ctx.record));
      if (fw) return fw;

      const scope = scopeOf(provider.capabilities, 'sshKey', net.provider, net.region);
      if (keysEnsured.has(scope.key)) continue;
      const keyName = sshKeyName(spec.id, scope.region);
      const keyWait = await ensureOnce(ctx, `ssh-key ${scope.key}`, async () => {
        const k = await network.ensureSshKey({ name: keyName, clusterId: spec.id, region: net.region, publicKey: ssh.publicKey });
        if (isPending(k)) return waitFor(k, `SSH key ${keyName}`, ctx);
        if (!ledger.sshKeys[scope.key]) ctx.emit({ type: 'resource-created', kind: 'ssh-key', name: k.value.name, provider: net.provider });
        // The provider's name for it: a key made before the scope was known (one region's name) is adopted, not copied.
        ledger.sshKeys[scope.key] = { name: k.value.name, id: k.value.id };
        if (scope.key !== key) delete ledger.sshKeys[key];
        return null;
      });
      if (keyWait) return keyWait;
      keysEnsured.add(scope.key);
    }
    if (spec.apiEndpoint.kind === 'reserved-ip') {
      const endpointNode = spec.apiEndpoint.node;
      const pool = spec.pools.find((p) => p.name === (spec.apiEndpoint as { pool: string }).pool);
      const where = pool?.provider;
      if (!where) throw new KubeplaneError('invalid', `the API endpoint node ${endpointNode} has no provider`);
      const network = (await ctx.provider(where.name, where.region)).network;
      if (!network) throw new KubeplaneError('invalid', `provider ${where.name} cannot reserve an IP for the API endpoint; add an API load balancer`);
      const name = apiIpName(spec.id);
      const ipWait = await ensureOnce(ctx, `reserved-ip ${name}`, async () => {
        const ip = await network.ensureReservedIp({ name, clusterId: spec.id, region: where.region, ...(where.zone ? { zone: where.zone } : {}) });
        if (isPending(ip)) return waitFor(ip, `reserved IP ${name}`, ctx);
        if (!ledger.reservedIp) ctx.emit({ type: 'resource-created', kind: 'reserved-ip', name, provider: where.name });
        ledger.reservedIp = {
          provider: where.name,
          region: where.region,
          ...(where.zone ? { zone: where.zone } : {}),
          name,
          id: ip.value.id,
          ip: ip.value.ip,
          ...(ip.value.attachedTo ? { attachedTo: ip.value.attachedTo } : {}),
        };
        return null;
      });
      if (ipWait) return ipWait;
    }
    ledger.firewallSources = clusterNodeSources(ctx.record);
    const ready = `networks ready in ${spec.networks.length} region${spec.networks.length === 1 ? '' : 's'}`;
    return next(ready);
  },
};

/**
 * Brings the firewalls of one provider region to the rules of now: one per role with machines there, or one for
 * the whole region where the cloud's rules are network-wide (and for managed clusters, whose nodes share one set).
 */
async function ensureFirewalls(ctx: StepContext, providerName: string, region: string, nodeSources: string[]): Promise<StepResult | null> {
  const spec = desiredOf(ctx.record);
  const ledger = ctx.record.ledger;
  const provider = await ctx.provider(providerName, region);
  const network = provider.network;
  if (!network) return null;
  const key = regionKey(providerName, region);
  const netName = networkName(spec.id, region);
  const perRole = !provider.capabilities.networkWideFirewalls && !isManaged(spec);
  const byRole = firewallRulesByRole(spec, nodeSources);
  const wanted: Array<{ role?: FirewallRole; rules: FirewallRule[] }> = perRole
    ? rolesIn(spec, providerName, region).map((role) => ({ role, rules: byRole[role] }))
    : [{ rules: firewallRules(spec, nodeSources) }];
  for (const { role, rules } of wanted) {
    const name = firewallName(spec.id, region, role);
    const ledgerKey = firewallKey(key, role);
    const rulesHash = createHash('sha256').update(JSON.stringify(rules)).digest('hex').slice(0, 32);
    const known = ledger.firewalls[ledgerKey];
    // Converged with these very rules in this run of the step: an attempt after a throttle or a fault does not spend
    // calls on it again. Later steps and applies converge it again, correcting any drift.
    const pending = await ensureOnce(ctx, `firewall ${ledgerKey} ${rulesHash}`, async () => {
      const fw = await network.ensureFirewall({ name, clusterId: spec.id, region, networkName: netName, rules });
      if (isPending(fw)) return waitFor(fw, `firewall ${name}`, ctx);
      if (!known) ctx.emit({ type: 'resource-created', kind: 'firewall', name: fw.value.name, provider: providerName });
      ledger.firewalls[ledgerKey] = { name: fw.value.name, id: fw.value.id, rulesHash };
      return null;
    });
    if (pending) return pending;
  }
  return null;
}

/**
 * Once machines have addresses (or lose them), the API rules follow: re-applied in every region when the cluster's
 * machine addresses differ from those last written. Needs no API server, so workers can join through the endpoint.
 */
export async function refreshFirewalls(ctx: StepContext): Promise<StepResult | null> {
  const spec = desiredOf(ctx.record);
  const sources = clusterNodeSources(ctx.record);
  if (JSON.stringify(sources) === JSON.stringify(ctx.record.ledger.firewallSources ?? [])) return null;
  for (const net of spec.networks) {
    const pending = await ensureFirewalls(ctx, net.provider, net.region, sources);
    if (pending) return pending;
  }
  ctx.record.ledger.firewallSources = sources;
  return null;
}

const Redact = (value: string) => Redacted.of(value);
const JOIN_TOKEN_TTL_MS = 24 * 3600_000;
/** A token older than this is replaced before machines are rendered with it (they boot minutes later). */
const JOIN_TOKEN_MARGIN_MS = 2 * 3600_000;

/**
 * The token machines join a running cluster with. The first control plane's token lives 24 hours, so once the
 * cluster has been built, new machines get a token the engine creates in the cluster as `kubeadm token create`
 * would (a bootstrap-token Secret), replaced when it nears its end. Before the first build: the PKI's own token.
 */
async function joinToken(ctx: StepContext): Promise<Redacted<string> | undefined> {
  if (!ctx.record.current) return undefined;
  const ledger = ctx.record.ledger;
  const stored = await ctx.secrets.joinToken();
  if (stored && ledger.joinTokenExpiresAt !== undefined && ledger.joinTokenExpiresAt - ctx.now > JOIN_TOKEN_MARGIN_MS) return stored;
  const pki = await ctx.secrets.pki();
  if (!pki) throw new KubeplaneError('invalid', 'the cluster PKI is missing');
  const token = generateBootstrapToken(ctx.random);
  const [id = '', secret = ''] = token.reveal().split('.');
  const expiresAt = ctx.now + JOIN_TOKEN_TTL_MS;
  const k8s = ctx.kubernetes(pki.secret.adminKubeconfig);
  await k8s.applySecret('kube-system', `bootstrap-token-${id}`, {
    'token-id': Redact(id),
    'token-secret': Redact(secret),
    expiration: Redact(new Date(expiresAt).toISOString().replace(/\.\d{3}Z$/, 'Z')),
    'usage-bootstrap-authentication': Redact('true'),
    'usage-bootstrap-signing': Redact('true'),
    'auth-extra-groups': Redact('system:bootstrappers:kubeadm:default-node-token'),
    description: Redact('kubeplane join token for machines added to the running cluster'),
  });
  // Secret first, then the ledger (written with the step): a crash in between mints another token next time.
  await ctx.secrets.putJoinToken(token);
  ledger.joinTokenExpiresAt = expiresAt;
  return token;
}

/** A machine's firewall: its role's, or the region's one where firewalls are not per role. */
function firewallOf(firewalls: Record<string, { name: string; id: string }>, region: string, role: FirewallRole): { name: string; id: string } | undefined {
  return firewalls[firewallKey(region, role)] ?? firewalls[region];
}

/** Order of creation: load balancers, the first control plane (it runs kubeadm init), other control planes, workers. */
function creationOrder(ctx: StepContext) {
  const spec = desiredOf(ctx.record);
  const rank = { loadbalancer: 0, control: 1, compute: 2 } as const;
  return nodesOf(spec).sort((a, b) => rank[a.node.role] - rank[b.node.role]);
}

/**
 * The nodes `node` must reach over WireGuard at its first boot, before anything can use the cluster's API to tell it
 * more: a control plane needs the load balancers in front of the API (they forward to it over the overlay) and the
 * control planes before it (etcd); a worker needs the control planes (the API server reaches its kubelet, Cilium
 * its VXLAN). WireGuard forms a pair only if one side knows the other's endpoint (and sends to it), so each node is
 * created only once these peers, all created before it, have a known public address: its wg0.conf then names them
 * and it starts the handshake, and they learn its address by roaming. See docs/bootstrap.md.
 */
export function bootPeersBefore(order: ReadonlyArray<{ node: NodeSpec }>, name: string): NodeSpec[] {
  const at = order.findIndex(({ node }) => node.name === name);
  const self = order[at]?.node;
  if (!self) return [];
  return order
    .slice(0, at)
    .map(({ node }) => node)
    .filter((peer) => peer.role === 'control' || (self.role === 'control' && peer.role === 'loadbalancer'));
}

export const createNodes: StepDefinition = {
  phase: 'infrastructure',
  timeoutSeconds: 3600,
  timeoutMessage: (r) => `the machines of cluster ${r.name} could not all be requested within an hour (rate limits or capacity)`,
  async run(ctx) {
    const spec = desiredOf(ctx.record);
    if (isManaged(spec)) return ensureManagedPools(ctx);
    const ledger = ctx.record.ledger;
    const keys = await ctx.secrets.keys();
    if (!keys) throw new KubeplaneError('invalid', 'the cluster keys are missing; the prepare step did not run');
    // Machines added to a built cluster boot the version its control plane runs now; during a version change the
    // upgrade step brings them along (a kubelet must never be newer than the API server).
    const built = ctx.record.current?.version;
    const withVersion = (view: BootstrapCluster): BootstrapCluster =>
      built ? { ...view, kubernetesVersion: { major: built.major, minor: built.minor, patch: built.patch } } : view;
    const cluster = withVersion(bootstrapView(ctx.record));
    const now = new Date(ctx.now);
    // Issued once: a PKI in the SecretStore is used even if the record never learnt of it (a crash after the
    // secret write), because machines created in that attempt already carry its CA and token.
    let pki = await ctx.secrets.pki();
    if (!pki) {
      // Issued once even when two invocations of this step overlap: both use whichever PKI was stored first.
      pki = await ctx.secrets.issuePki(await issueClusterPki(cluster, keys, { random: ctx.random, now }));
    }
    ctx.record.pki = pki.public;
    const wireguardKeys = await ctx.secrets.wireguard();
    // Machines that exist but are not in the ledger (a crash after a create, before the state write) are
    // adopted, never created twice; machines nobody wants any more are removed later by remove-nodes.
    const observed = await observeMachines(ctx);
    if (observed.kind !== 'ok') return observed;
    // Wanted machines left `deleting` (a remediation interrupted by a new apply): finish the deletion, then recreate.
    const leftDeleting = nodesOf(spec)
      .filter(({ node }) => ledger.nodes[node.name]?.state === 'deleting')
      .map(({ node }) => node.name);
    if (leftDeleting.length > 0) {
      const kubeconfig = ctx.record.current ? await ctx.secrets.adminKubeconfig() : null;
      for (const name of leftDeleting) {
        const pending = await deleteMachine(ctx, kubeconfig ? ctx.kubernetes(kubeconfig) : null, name);
        if (pending) return pending;
      }
    }
    const order = creationOrder(ctx);
    // `requested`: a creation whose token is in the ledger but whose create call was never answered (a crash, a lost
    // response, a throttle): asked again with the same token, so the cloud returns the machine if it made one.
    const todo = order.filter(({ node }) => !ledger.nodes[node.name] || ledger.nodes[node.name]?.state === 'requested');
    const reserved = reserveCreations(ctx, todo.slice(0, CREATE_BATCH));
    // The tokens reach the StateStore before any create call that uses them.
    if (reserved > 0) await ctx.checkpoint();
    const bootstrapToken = todo.some(({ node }) => node.role !== 'loadbalancer') ? await joinToken(ctx) : undefined;
    // A retried create must send the same user-data (EC2 checks it against the ClientToken): the render time
    // is the day, and certificate serials come from a seed of the cluster, node and day.
    const day = Math.floor(ctx.now / 86_400_000) * 86_400_000;
    let created = 0;
    const givenUp = new Set<string>();
    const blocked: Array<{ node: string; peers: string[] }> = [];
    for (const { node, pool } of todo) {
      if (created >= CREATE_BATCH) break;
      // Rendered with every address known now, including machines created earlier in this loop.
      const known = withVersion(bootstrapView(ctx.record));
      const endpoints = new Map(known.nodes.map((n) => [n.name, n.publicEndpoint]));
      const unknown = bootPeersBefore(order, node.name)
        .filter((peer) => !endpoints.get(peer.name))
        .map((peer) => peer.name);
      if (unknown.length > 0) {
        blocked.push({ node: node.name, peers: unknown });
        continue;
      }
      if (pool.kind === 'static') {
        const rendered = await renderNode({
          cluster: bootView(known, node.name),
          keys,
          wireguardKeys,
          random: seededRandomSource(`${spec.id}/${node.name}/${day}`),
          now: new Date(day),
          pki,
          node: node.name,
          ...(bootstrapToken ? { bootstrapToken } : {}),
          ...(ctx.versions ? { versions: ctx.versions } : {}),
        });
        await bootstrapStaticMachine(ctx, node, pool.name, rendered.userData.bytes.reveal());
        created++;
        continue;
      }
      const prov = pool.provider;
      if (!prov) throw new KubeplaneError('invalid', `pool ${pool.name} has no provider`);
      const provider = await ctx.provider(prov.name, prov.region);
      if (!provider.compute) throw new KubeplaneError('invalid', `provider ${prov.name} cannot create machines`);
      const random = seededRandomSource(`${spec.id}/${node.name}/${day}`);
      const rendered = await renderNode({
        cluster: bootView(known, node.name),
        keys,
        wireguardKeys,
        random,
        now: new Date(day),
        pki,
        node: node.name,
        ...(bootstrapToken ? { bootstrapToken } : {}),
        ...(ctx.versions ? { versions: ctx.versions } : {}),
      });
      const key = regionKey(prov.name, prov.region);
      const reservedIp = ctx.record.ledger.reservedIp;
      const takesApiIp =
        spec.apiEndpoint.kind === 'reserved-ip' && spec.apiEndpoint.node === node.name && reservedIp && !provider.capabilities.attachReservedIpAfterCreate;
      const token = ledger.nodes[node.name]?.token;
      const sshKey = ledger.sshKeys[scopeOf(provider.capabilities, 'sshKey', prov.name, prov.region).key];
      if (givenUp.has(pool.name)) continue;
      let outcome: Awaited<ReturnType<typeof provider.compute.createNode>>;
      try {
        outcome = await provider.compute.createNode({
          name: node.name,
          ...(token ? { idempotencyToken: token } : {}),
          clusterId: spec.id,
          nodepool: pool.name,
          region: prov.region,
          ...(prov.zone ? { zone: prov.zone } : {}),
          serverType: pool.serverType ?? '',
          image: pool.image ?? '',
          userData: rendered.userData.compressed ? rendered.userData.bytes.reveal() : Buffer.from(rendered.userData.bytes.reveal()).toString('utf8'),
          ...(sshKey ? { sshKeyName: sshKey.name } : {}),
          ...(ledger.networks[key] ? { networkName: ledger.networks[key].name } : {}),
          ...(firewallOf(ledger.firewalls, key, node.role) ? { firewallNames: [firewallOf(ledger.firewalls, key, node.role)!.name] } : {}),
          ...(takesApiIp ? { reservedIpName: reservedIp.name } : {}),
          labels: { 'kubeplane.dev/role': node.role },
        });
      } catch (e) {
        // An autoscaled pool growing on a built cluster: a refusal (quota, capacity, a type the provider does not
        // have) ends this growth, not the cluster's flow, and nothing retries it (see pool-scaling.ts for the backoff).
        if (!(isKubeplaneError(e) && isGrowthRefusal(e.kind) && isAutoscaledGrowth(ctx.record, pool.name, node.name))) throw e;
        const given = fallBackAfterRefusal(ctx.record, pool.name, { kind: e.kind, message: e.message }, ctx.now);
        givenUp.add(pool.name);
        ctx.emit({
          type: 'pool-growth-refused',
          pool: pool.name,
          kind: e.kind,
          message: `pool ${pool.name} could not grow (${given.length} machine${given.length === 1 ? '' : 's'} not made): ${e.message}`,
        });
        continue;
      }
      if (isPending(outcome)) {
        if (created > 0) return wait(Math.min(outcome.retryAfterSeconds, 5), `requested ${created} machines; ${outcome.message}`);
        return waitFor(outcome, `machine ${node.name}`, ctx);
      }
      ledger.nodes[node.name] = {
        pool: pool.name,
        role: node.role,
        provider: prov.name,
        region: prov.region,
        ...(prov.zone ? { zone: prov.zone } : {}),
        id: outcome.value.id,
        providerId: outcome.value.providerId,
        ...(outcome.value.publicIPv4 ? { publicIPv4: outcome.value.publicIPv4 } : {}),
        ...(outcome.value.privateIPv4 ? { privateIPv4: outcome.value.privateIPv4 } : {}),
        state: 'creating',
        ...(token ? { token } : {}),
        createdAt: ctx.now,
      };
      ctx.emit({ type: 'resource-created', kind: 'machine', name: node.name, provider: prov.name });
      if (ledger.growthFailures?.[pool.name] && isAutoscaledGrowth(ctx.record, pool.name, node.name)) delete ledger.growthFailures[pool.name];
      created++;
    }
    // Nodes of a pool whose growth was refused are no longer wanted (fallBackAfterRefusal took them out).
    const left = todo.length - created - todo.filter(({ pool, node }) => givenUp.has(pool.name) && !ledger.nodes[node.name]).length;
    const first = blocked[0];
    if (first && created === 0 && left === blocked.length) {
      // Addresses appear once the provider lists the new machines (EC2: while they are pending).
      return wait(
        5,
        `waiting for the public address of ${first.peers.join(', ')}: ${first.node}${blocked.length > 1 ? ` and ${blocked.length - 1} more` : ''} ` +
          `must know where to reach ${first.peers.length > 1 ? 'them' : 'it'} at first boot`,
      );
    }
    if (left > 0) return next(`requested ${created} machines, ${left} to go`, 'create-nodes');
    return next(todo.length ? `requested ${created} machines` : 'every machine was requested before');
  },
};

/**
 * A static machine becomes its node: its user-data is carried out over SSH as cloud-init would (the same rendered
 * bootstrap a cloud machine boots with), started detached, and the machine counts as running from then on — it joins
 * on its own, as a cloud machine does. The host key it offers at first contact is pinned in the ledger; the ledger
 * entry is written only once the bootstrap started, so a failed attempt is tried again whole (the script is
 * idempotent on the machine).
 */
async function bootstrapStaticMachine(ctx: StepContext, node: NodeSpec, pool: string, userData: string | Uint8Array): Promise<void> {
  const access = node.staticAccess;
  if (!ctx.machines || !access || !node.staticEndpoint)
    throw new KubeplaneError('invalid', `static node ${node.name} cannot be reached: no SSH access`, { resource: node.name });
  const pinned = ctx.record.ledger.staticHostKeys?.[node.staticEndpoint];
  const target = {
    node: node.name,
    endpoint: node.staticEndpoint,
    port: access.port,
    username: access.username,
    secretRef: access.secretRef,
    ...(pinned ? { hostKey: pinned } : {}),
  };
  const run = await ctx.machines.run(target, renderStaticBootstrap(node.name, userData));
  // Pinned as soon as seen, even if the script failed: the next attempt must meet the same machine.
  ctx.record.ledger.staticHostKeys = { ...(ctx.record.ledger.staticHostKeys ?? {}), [node.staticEndpoint]: run.hostKey };
  if (run.exitCode !== 0) {
    throw new KubeplaneError(
      'retryable',
      `static node ${node.name} (${node.staticEndpoint}): the bootstrap could not be started (exit ${run.exitCode}): ${run.output}`,
      { resource: node.name },
    );
  }
  ctx.record.ledger.nodes[node.name] = {
    pool,
    role: node.role,
    provider: 'static',
    region: node.staticEndpoint,
    id: node.staticEndpoint,
    ...(/^\d+\.\d+\.\d+\.\d+$/.test(node.staticEndpoint) ? { publicIPv4: node.staticEndpoint } : {}),
    state: 'running',
    createdAt: ctx.now,
    static: { endpoint: node.staticEndpoint, port: access.port, username: access.username, secretRef: access.secretRef, hostKey: run.hostKey },
  };
  ctx.emit({ type: 'resource-created', kind: 'machine', name: node.name, provider: 'static' });
}

/**
 * Gives each node about to be created that has no creation under way a `requested` ledger entry with a new
 * idempotency token (returns how many). A machine created again under an earlier name (scaled down and up,
 * remediated, vanished) so never reuses the token of the one before, which the cloud may still remember.
 */
function reserveCreations(
  ctx: StepContext,
  nodes: ReadonlyArray<{ node: NodeSpec; pool: { name: string; provider?: { name: string; region: string; zone?: string } } }>,
): number {
  const ledger = ctx.record.ledger;
  let reserved = 0;
  for (const { node, pool } of nodes) {
    if (ledger.nodes[node.name] || !pool.provider) continue;
    ledger.nodes[node.name] = {
      pool: pool.name,
      role: node.role,
      provider: pool.provider.name,
      region: pool.provider.region,
      ...(pool.provider.zone ? { zone: pool.provider.zone } : {}),
      state: 'requested',
      token: randomLowerAlnum(ctx.random, 20),
      createdAt: ctx.now,
    };
    reserved++;
  }
  return reserved;
}

/**
 * Lists the cluster's machines (by its tag) in every region it uses or used: updates what the ledger knows
 * (ids, addresses, state) and adopts machines it does not know — created just before a crash, or by an
 * attempt whose state write was lost — so none is created twice and none is forgotten.
 */
async function observeMachines(ctx: StepContext): Promise<StepResult | { kind: 'ok' }> {
  const spec = desiredOf(ctx.record);
  const ledger = ctx.record.ledger;
  const regions = new Map<string, { provider: string; region: string }>();
  for (const { pool } of nodesOf(spec))
    if (pool.provider) regions.set(regionKey(pool.provider.name, pool.provider.region), { provider: pool.provider.name, region: pool.provider.region });
  for (const key of ledger.regions) {
    const [provider = '', region = ''] = key.split('/');
    regions.set(key, { provider, region });
  }
  const wanted = new Map(nodesOf(spec).map(({ node, pool }) => [node.name, { node, pool }]));
  const seen = new Set<string>();
  const listedRegions = new Set<string>();
  const gone = new Map<string, GoneMachine>();
  for (const [key, { provider: providerName, region }] of regions) {
    const provider = await ctx.provider(providerName, region);
    if (!provider.compute) continue;
    const listed = await provider.compute.listNodes({ clusterId: spec.id, region });
    if (isPending(listed)) return waitFor(listed, `listing machines in ${region}`, ctx);
    listedRegions.add(key);
    // A name may be listed twice (EC2: the instance shutting down and its replacement): the one that runs or will is it.
    const alive = new Set(listed.value.filter((i) => !GONE_STATES.has(i.state)).map((i) => i.name));
    for (const info of listed.value) {
      const known = ledger.nodes[info.name];
      if (GONE_STATES.has(info.state)) {
        if (alive.has(info.name)) continue;
        // Being deleted by kubeplane (remove-nodes, remediation): those steps finish it.
        if (known?.state === 'deleting') {
          seen.add(info.name);
          continue;
        }
        if (wanted.has(info.name)) {
          // The ledger's entry is this machine's only if the ids agree: a `requested` or `creating` replacement is not.
          if (known && known.id === info.id) seen.add(info.name);
          const entry = gone.get(info.name) ?? { name: info.name, provider: providerName, region, states: [], ids: [] };
          entry.states.push(info.state);
          entry.ids.push(info.id);
          gone.set(info.name, entry);
          continue;
        }
        // Not wanted any more: remove-nodes deletes it. It no longer counts as running; one being deleted is not adopted.
        seen.add(info.name);
        if (known?.state === 'running') known.state = 'pending';
        if (info.state === 'deleting' || info.state === 'deleted') continue;
      }
      seen.add(info.name);
      if (info.state === 'failed' && wanted.has(info.name)) {
        return {
          kind: 'failed',
          error: new KubeplaneError('capacity', `machine ${info.name} failed to start on ${providerName} in ${region}; delete and re-apply to replace it`, {
            provider: providerName,
            resource: info.name,
          }),
        };
      }
      const want = wanted.get(info.name);
      const state: NodeResource['state'] = known?.state === 'deleting' ? 'deleting' : info.state === 'running' ? 'running' : 'pending';
      if (!known) ctx.emit({ type: 'resource-created', kind: 'machine', name: info.name, provider: providerName });
      ledger.nodes[info.name] = {
        pool: known?.pool ?? want?.pool.name ?? info.nodepool,
        role: known?.role ?? want?.node.role ?? (info.labels['kubeplane.dev/role'] as NodeResource['role'] | undefined) ?? 'compute',
        provider: providerName,
        region,
        ...(info.zone ? { zone: info.zone } : {}),
        id: info.id,
        providerId: info.providerId,
        ...(info.publicIPv4 ? { publicIPv4: info.publicIPv4 } : {}),
        ...(info.privateIPv4 ? { privateIPv4: info.privateIPv4 } : {}),
        state,
        ...(known?.token ? { token: known.token } : {}),
        createdAt: known?.createdAt ?? ctx.now,
      };
    }
  }
  const replaced = await forgetGone(ctx, [...gone.values()], wanted);
  if (replaced) return replaced;
  const forgotten = await forgetVanished(ctx, seen, listedRegions, new Set(wanted.keys()));
  if (forgotten.kind !== 'ok') return forgotten;
  // Status reports the machines running as of this listing, with its time.
  ledger.machinesReadAt = ctx.now;
  return forgotten;
}

/**
 * States in which a listed machine is no node of its pool: stopping or stopped (a stopped machine runs no kubelet and
 * serves nothing, and it starts again only when someone starts it), shutting down or terminated. Someone did it in a
 * console, or the cloud did (a spot reclaim, a host retirement): the pool is short of it until it is replaced.
 */
const GONE_STATES: ReadonlySet<NodeState> = new Set<NodeState>(['stopping', 'stopped', 'deleting', 'deleted']);

interface GoneMachine {
  name: string;
  provider: string;
  region: string;
  /** Each listing of the name, all in GONE_STATES, and its machine's id. */
  states: NodeState[];
  ids: string[];
}

/**
 * Wanted machines their provider lists only as stopped, stopping, shutting down or terminated are replaced: a stopped
 * one is deleted first (it still holds the node's name, so the provider would return it for the create), its stale
 * Node object is removed, and its ledger entry forgotten, so create-nodes makes the node again with a new token. The
 * one being deleted is never adopted again. A control plane is not replaced: a new one would initialise another
 * cluster, and a stopped one holds the etcd data on its disk.
 */
async function forgetGone(ctx: StepContext, gone: GoneMachine[], wanted: ReadonlyMap<string, { node: NodeSpec }>): Promise<StepResult | null> {
  if (gone.length === 0) return null;
  const spec = desiredOf(ctx.record);
  const ledger = ctx.record.ledger;
  const mine = (g: GoneMachine) => {
    const known = ledger.nodes[g.name];
    return known !== undefined && known.id !== undefined && g.ids.includes(known.id);
  };
  const holdsName = (g: GoneMachine) => g.states.some((s) => s === 'stopping' || s === 'stopped');
  const control = gone.filter((g) => (ledger.nodes[g.name]?.role ?? wanted.get(g.name)?.node.role) === 'control');
  const stoppedControl = control.filter(holdsName);
  const first = stoppedControl[0];
  if (first) {
    return {
      kind: 'failed',
      error: new KubeplaneError(
        'invalid',
        `control-plane machine${stoppedControl.length > 1 ? 's' : ''} ${stoppedControl.map((g) => g.name).join(', ')} ` +
          `${stoppedControl.length > 1 ? 'are' : 'is'} stopped on ${first.provider} in ${first.region} (outside ` +
          `kubeplane); start ${stoppedControl.length > 1 ? 'them' : 'it'} again and reconcile: ` +
          `${stoppedControl.length > 1 ? 'their disks hold' : 'its disk holds'} the cluster's etcd data, and a new one would start another cluster`,
        { provider: first.provider, resource: first.name },
      ),
    };
  }
  const deletedControl = control.filter(mine);
  if (deletedControl.length > 0) {
    const names = deletedControl.map((g) => g.name);
    return {
      kind: 'failed',
      error: new KubeplaneError(
        'invalid',
        `control-plane machine${names.length > 1 ? 's' : ''} ${names.join(', ')} ${names.length > 1 ? 'were' : 'was'} deleted ` +
          `outside kubeplane; a new one would start another cluster. Restore etcd from a backup, or destroy and re-create the cluster`,
        { resource: names[0] ?? '' },
      ),
    };
  }
  const kubeconfig = ctx.record.current ? await ctx.secrets.adminKubeconfig() : null;
  for (const g of gone) {
    if (control.includes(g)) continue;
    const known = ledger.nodes[g.name];
    // The ledger holds another machine of the name (a replacement requested, or made and not listed yet): it is left
    // to forgetVanished's grace, and this one untouched. Terminated and unknown: nothing to do, and never adopted.
    if (known ? !mine(g) : !holdsName(g)) continue;
    // The machine's name is taken while it is stopped: it goes first, and a failure retries the step.
    if (holdsName(g)) {
      const provider = await ctx.provider(g.provider, g.region);
      const deleted = provider.compute ? await provider.compute.deleteNode({ clusterId: spec.id, name: g.name, region: g.region }) : undefined;
      if (deleted && isPending(deleted)) return waitFor(deleted, `deleting the stopped machine ${g.name}`, ctx);
    }
    const role = known?.role ?? wanted.get(g.name)?.node.role;
    // The stale Node goes before the ledger entry: a new machine cannot join under a Ready Node's name.
    if (kubeconfig && role !== 'loadbalancer') await ctx.kubernetes(kubeconfig).deleteNode(g.name);
    if (!known) continue;
    delete ledger.nodes[g.name];
    ctx.emit({ type: 'resource-deleted', kind: 'machine', name: g.name, provider: g.provider });
  }
  return null;
}

/**
 * A machine created (or requested) this long ago and no longer listed is gone: the provider's eventual-consistency
 * grace (listings may lag a fresh create by seconds, EC2's by a minute or two).
 */
const VANISHED_AFTER_MS = 10 * 60_000;

/**
 * Machines in the ledger that their provider no longer lists (deleted behind kubeplane's back) are forgotten, so
 * create-nodes makes them again, and their stale Node objects are removed so the new machines can join under their
 * names. A vanished control plane is not recreated: a new one would initialise another cluster.
 */
async function forgetVanished(ctx: StepContext, seen: Set<string>, listedRegions: Set<string>, wanted: Set<string>): Promise<StepResult | { kind: 'ok' }> {
  const ledger = ctx.record.ledger;
  const unlisted = Object.entries(ledger.nodes).filter(([name, n]) => !seen.has(name) && listedRegions.has(regionKey(n.provider, n.region)));
  // Within the grace a machine not listed may be a fresh one the listing has not caught up with, but it is not
  // known to run: it does not count as running until it is listed again.
  for (const [, n] of unlisted) if (n.state === 'running') n.state = 'pending';
  // Past the grace it is gone, whatever the ledger says of it (a create answered but never listed, a machine deleted
  // behind kubeplane's back, a request whose call never reached the cloud): forgotten, so create-nodes makes it.
  const vanished = unlisted.filter(([, n]) => ctx.now - n.createdAt > VANISHED_AFTER_MS);
  const control = vanished
    .filter(([name, n]) => n.role === 'control' && wanted.has(name) && n.state !== 'requested' && n.state !== 'deleting')
    .map(([name]) => name);
  if (control.length > 0) {
    return {
      kind: 'failed',
      error: new KubeplaneError(
        'invalid',
        `control-plane machine${control.length > 1 ? 's' : ''} ${control.join(', ')} ${control.length > 1 ? 'were' : 'was'} deleted ` +
          `outside kubeplane; a new one would start another cluster. Restore etcd from a backup, or destroy and re-create the cluster`,
        { resource: control[0] ?? '' },
      ),
    };
  }
  if (vanished.length === 0) return { kind: 'ok' };
  const kubeconfig = ctx.record.current ? await ctx.secrets.adminKubeconfig() : null;
  for (const [name, n] of vanished) {
    if (n.state === 'requested') {
      // Never made (else it would be listed by now): a new request with a new token follows.
      delete ledger.nodes[name];
      continue;
    }
    // The stale Node goes first (a failure retries the step): a new machine cannot join under a Ready Node's name.
    if (kubeconfig && n.role !== 'loadbalancer') await ctx.kubernetes(kubeconfig).deleteNode(name);
    delete ledger.nodes[name];
    ctx.emit({ type: 'resource-deleted', kind: 'machine', name, provider: n.provider });
  }
  return { kind: 'ok' };
}

export const awaitMachines: StepDefinition = {
  phase: 'infrastructure',
  timeoutSeconds: 1800,
  timeoutMessage: (r) =>
    `machines not running after 30 minutes: ${Object.entries(r.ledger.nodes)
      .filter(([, n]) => n.state !== 'running')
      .map(([name]) => name)
      .join(', ')}; check the provider's console for capacity or image problems`,
  async run(ctx): Promise<StepResult> {
    const spec = desiredOf(ctx.record);
    if (isManaged(spec)) return awaitManagedMachines(ctx);
    const ledger = ctx.record.ledger;
    const wanted = nodesOf(spec).map(({ node }) => node.name);
    const observed = await observeMachines(ctx);
    if (observed.kind !== 'ok') return observed;
    const missing = wanted.filter((name) => !ledger.nodes[name] || ledger.nodes[name]?.state === 'requested');
    if (missing.length > 0) return next(`machines ${missing.join(', ')} are gone; creating them again`, 'create-nodes');
    // Addresses seen so far go into the API rules now, so early machines can join while others still boot.
    const firewalls = await refreshFirewalls(ctx);
    if (firewalls) return firewalls;
    const notRunning = wanted.filter((name) => ledger.nodes[name]?.state !== 'running');
    if (notRunning.length > 0) {
      return wait(
        notRunning.length > 10 ? 15 : 10,
        `${wanted.length - notRunning.length}/${wanted.length} machines running; waiting ` +
          `for ${notRunning.slice(0, 3).join(', ')}${notRunning.length > 3 ? ', ...' : ''}`,
      );
    }
    const ip = ledger.reservedIp;
    if (ip && spec.apiEndpoint.kind === 'reserved-ip') {
      const node = ledger.nodes[spec.apiEndpoint.node];
      const provider = await ctx.provider(ip.provider, ip.region);
      if (node && provider.network && provider.capabilities.attachReservedIpAfterCreate && ip.attachedTo !== node.providerId) {
        const attached = await provider.network.attachReservedIp(
          { clusterId: spec.id, name: ip.name, region: ip.region },
          { clusterId: spec.id, name: spec.apiEndpoint.node, region: node.region },
        );
        if (isPending(attached)) return waitFor(attached, `attaching the API address to ${spec.apiEndpoint.node}`, ctx);
        ip.attachedTo = attached.value.attachedTo ?? node.providerId ?? '';
      }
    }
    return next(`${wanted.length} machines running`);
  },
};
