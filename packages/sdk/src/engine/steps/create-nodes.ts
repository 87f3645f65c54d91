// create-nodes (infrastructure phase): the cluster's machines with their rendered user-data, in creation order and in
// batches, each once the peers it must reach at first boot have addresses; static machines bootstrapped over SSH.
import { KubeplaneError, isKubeplaneError } from '../../errors.js';
import { fallBackAfterRefusal, isAutoscaledGrowth, isGrowthRefusal } from '../pool-scaling.js';
import { issueClusterPki } from '../../bootstrap/pki.js';
import { renderNode } from '../../bootstrap/render.js';
import { renderStaticBootstrap } from '../../bootstrap/static-machine.js';
import { randomLowerAlnum, seededRandomSource } from '../../bootstrap/random.js';
import type { BootstrapCluster } from '../../bootstrap/input.js';
import type { NodeSpec } from '../../model/types.js';
import { isPending } from '../../provider/outcome.js';
import { bootView, bootstrapView, deleteMachine, desiredOf, firewallKey, type FirewallRole, nodesOf, regionKey, scopeOf, waitFor } from './common.js';
import { joinToken } from './join-token.js';
import { ensureManagedPools, isManaged } from './managed.js';
import { observeMachines } from './observe-machines.js';
import { next, wait, type StepContext, type StepDefinition } from './types.js';

/** Machines requested per step invocation: keeps each invocation short and within rate budgets. */
export const CREATE_BATCH = 25;

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
          ...(ledger.networks[key]?.subnetId ? { subnetId: ledger.networks[key].subnetId } : {}),
          ...(firewallOf(ledger.firewalls, key, node.role) ? { firewallNames: [firewallOf(ledger.firewalls, key, node.role)!.name] } : {}),
          ...(takesApiIp ? { reservedIpName: reservedIp.name } : {}),
          ...(pool.spot ? { spot: true } : {}),
          // Zero for control planes and load balancers (desired-state.ts): only compute nodes get a storage disk.
          ...(pool.storageDiskSize > 0 ? { storageDiskGiB: pool.storageDiskSize } : {}),
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
