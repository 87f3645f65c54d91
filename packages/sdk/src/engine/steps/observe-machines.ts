// The cluster's machines as their providers list them: the ledger follows the listing (ids, addresses, state), adopts
// machines it does not know, and forgets (for create-nodes to make again) those stopped, terminated or vanished.
import { KubeplaneError } from '../../errors.js';
import type { NodeResource } from '../records.js';
import type { NodeSpec } from '../../model/types.js';
import { isPending } from '../../provider/outcome.js';
import type { NodeState } from '../../provider/types.js';
import { desiredOf, nodesOf, regionKey, waitFor } from './common.js';
import type { StepContext, StepResult } from './types.js';

/**
 * Lists the cluster's machines (by its tag) in every region it uses or used: updates what the ledger knows
 * (ids, addresses, state) and adopts machines it does not know — created just before a crash, or by an
 * attempt whose state write was lost — so none is created twice and none is forgotten.
 */
export async function observeMachines(ctx: StepContext): Promise<StepResult | { kind: 'ok' }> {
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
