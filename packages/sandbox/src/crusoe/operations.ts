// Crusoe's asynchronous operations: what finishing each does (its OpCompletion, applied when the clock passes its
// end), the `<family>/operations[/{id}]` endpoints, and the form operations take in a saved state.
import { type Completed, EmulatorError, reply } from '../emulator/index.js';
import { addCmkRules, clusterJson } from './cmk-clusters.js';
import { poolJson } from './cmk-node-pools.js';
import { vmJson } from './compute.js';
import { OPERATION_FAMILIES, type OpCompletion } from './model.js';
import { ruleJson } from './networking.js';
import { type CrusoeRouter, idOf } from './router.js';
import { diskJson } from './storage.js';
import type { CrusoeOperation, CrusoeWorld } from './world.js';

/**
 * An operation as a saved state holds it (the form snapshots have always had): the vendor's states, the family it
 * belongs to, its resource, and its result (a FAILED operation's is its `{code, message}`).
 */
export interface SavedOperation {
  id: string;
  family: string;
  resourceId: string;
  state: 'IN_PROGRESS' | 'SUCCEEDED' | 'FAILED';
  startedAt: number;
  finishAt: number;
  completion: OpCompletion;
  result?: unknown;
}

export function saveOperation(op: CrusoeOperation): SavedOperation {
  const result = op.state === 'failed' ? op.error : op.result;
  return {
    id: op.id,
    family: op.kind,
    resourceId: op.target,
    state: op.state === 'running' ? 'IN_PROGRESS' : op.state === 'succeeded' ? 'SUCCEEDED' : 'FAILED',
    startedAt: op.startedAt,
    finishAt: op.finishAt,
    completion: op.completion,
    ...(result !== undefined ? { result } : {}),
  };
}

export function loadOperation(saved: SavedOperation): CrusoeOperation {
  const state = saved.state === 'IN_PROGRESS' ? 'running' : saved.state === 'SUCCEEDED' ? 'succeeded' : 'failed';
  const op: CrusoeOperation = {
    id: saved.id,
    kind: saved.family,
    target: saved.resourceId,
    startedAt: saved.startedAt,
    finishAt: saved.finishAt,
    state,
    completion: saved.completion,
  };
  if (saved.result !== undefined) {
    if (state === 'failed') op.error = saved.result as { code: string; message: string };
    else op.result = saved.result;
  }
  return op;
}

/** Does what finishing `op` does; its result is the resource as it now is (null when the resource is gone). */
export function completeOperation(w: CrusoeWorld, op: CrusoeOperation): Completed {
  try {
    return { result: complete(w, op.completion) };
  } catch (e) {
    return { error: e instanceof EmulatorError ? { code: String(e.code), message: e.message } : { code: 'internal_error', message: 'operation failed' } };
  }
}

function complete(w: CrusoeWorld, completion: OpCompletion): unknown {
  switch (completion.kind) {
    case 'none':
      return null;
    case 'vm-created': {
      const vm = w.vms.get(completion.id);
      return vm ? vmJson(w, vm) : null;
    }
    case 'vm-deleted': {
      const vm = w.vms.get(completion.id);
      if (!vm) return null;
      w.vms.delete(vm.id);
      w.allocate(vm.location, vm.type, -1);
      // Data disks outlive their VM (detached), as on Crusoe; the OS disk goes with it.
      for (const d of vm.diskIds) {
        const disk = w.disks.get(d);
        if (disk) delete disk.attachedTo;
      }
      return null;
    }
    case 'disk-created': {
      const d = w.disks.get(completion.id);
      if (!d) return null;
      d.ready = true;
      return diskJson(w, d);
    }
    case 'disk-deleted':
      w.disks.delete(completion.id);
      return null;
    case 'network-deleted':
      w.networks.delete(completion.id);
      for (const r of w.firewallRules.values()) if (r.networkId === completion.id) w.firewallRules.delete(r.id);
      return null;
    case 'subnet-deleted':
      w.subnets.delete(completion.id);
      return null;
    case 'firewall-rule-applied': {
      const r = w.firewallRules.get(completion.id);
      if (!r) return null;
      r.state = 'active';
      return ruleJson(r);
    }
    case 'firewall-rule-deleted':
      w.firewallRules.delete(completion.id);
      return null;
    case 'cluster-created': {
      const c = w.clusters.get(completion.id);
      if (!c) return null;
      c.state = 'STATE_RUNNING';
      const subnet = w.subnets.get(c.subnetId);
      if (subnet) addCmkRules(w, c, subnet);
      return clusterJson(w, c);
    }
    case 'cluster-deleted': {
      const c = w.clusters.get(completion.id);
      if (!c) return null;
      w.clusters.delete(c.id);
      for (const r of w.firewallRules.values()) if (r.owner === c.name && r.name.startsWith('cmk-cp-')) w.firewallRules.delete(r.id);
      return null;
    }
    case 'pool-created':
    case 'pool-updated': {
      const p = w.pools.get(completion.id);
      if (!p) return null;
      p.state = 'STATE_RUNNING';
      // Raising the count creates VMs; lowering it deletes none (the caller deletes the VMs it chose).
      return { node_pool: poolJson(w, p), details: { num_vms_created: completion.kind === 'pool-created' ? completion.vmsCreated : 0 } };
    }
    case 'pool-deleted':
      for (const v of [...w.vms.values()]) {
        if (v.nodePoolId !== completion.id) continue;
        w.vms.delete(v.id);
        w.allocate(v.location, v.type, -1);
      }
      w.pools.delete(completion.id);
      return null;
  }
}

/** `GET <family>/operations[?resource_id=]` and `GET <family>/operations/{id}` for every operation family. */
export function operationRoutes(r: CrusoeRouter, w: CrusoeWorld): void {
  for (const family of OPERATION_FAMILIES) {
    r.project(`GET /${family}/operations`, ({ query }) => {
      const resourceId = query.get('resource_id');
      return reply({ items: w.operationItems.filter((o) => o.kind === family && (!resourceId || o.target === resourceId)).map((o) => w.operationJson(o)) });
    });
    r.project(`GET /${family}/operations/{id}`, (call) => {
      const op = w.operationItems.get(idOf(call));
      if (!op || op.kind !== family) throw new EmulatorError(403, 'unauthorized', 'operation does not exist, was not initiated by this user, or has expired');
      return reply(w.operationJson(op));
    });
  }
}
