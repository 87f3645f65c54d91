// The latency model's floor for a whole cluster (latency-model.md, "The floor"): the first control plane's
// boot, OS preparation and kubeadm init; the other control planes joining one at a time; workers joining as
// soon as the API answers; the CNI on each; machines created as fast as the rate limits let them. Computed
// from the same figures the sandbox runs on, so benchmarks compare against physics, not against themselves.
import { type FloorCloud, sandboxCloud } from './clouds/index.js';
import { KUBE_TIMINGS as K } from './kubernetes/timings.js';
import { LATENCY } from './latency.js';

export type { FloorCloud };

/**
 * The latency model's floor for creating `nodes` nodes at once (latency-model.md, "The floor"): one API call
 * and a typical boot, or, when the rate limit forces the create calls apart, the last call's slot plus its
 * call and boot (each cloud's descriptor, `floor`). Benchmarks report virtual time as a ratio to this.
 */
export function nodeCreationFloorMs(cloud: FloorCloud, nodes: number): number {
  const floor = sandboxCloud(cloud)?.floor;
  if (!floor) throw new RangeError(`the sandbox cloud ${cloud} has no latency floor`);
  return floor.nodeCreationMs(nodes);
}

/**
 * A cluster's machines for `clusterReadyFloorMs`: one control-plane pool and the worker pools, each by cloud and count.
 */
export interface ClusterShape {
  controlPlanes: { cloud: FloorCloud; count: number };
  workers: Array<{ cloud: FloorCloud; count: number }>;
}

/**
 * The latency model's floor, in virtual ms, for a cluster of `shape` to be Ready from nothing: the machines' creation
 * floors, then OS preparation, kubeadm init and joins (control planes one at a time) and the CNI (KUBE_TIMINGS).
 */
export function clusterReadyFloorMs(shape: ClusterShape): number {
  // Machines of one cloud are created in order (control planes first), each as early as the limits allow.
  const created = new Map<FloorCloud, number>();
  const boot = (cloud: FloorCloud): number => {
    const n = (created.get(cloud) ?? 0) + 1;
    created.set(cloud, n);
    return nodeCreationFloorMs(cloud, n);
  };
  const cps = Array.from({ length: shape.controlPlanes.count }, () => boot(shape.controlPlanes.cloud));
  const apiUp = (cps[0] ?? 0) + K.osPreparationMs + K.kubeadmInitMs;
  let ready = apiUp + K.ciliumReadyMs;
  let lastJoin = apiUp;
  for (const b of cps.slice(1)) {
    lastJoin = Math.max(lastJoin, b + K.osPreparationMs) + K.kubeadmControlPlaneJoinMs;
    ready = Math.max(ready, lastJoin + K.ciliumReadyMs);
  }
  for (const pool of shape.workers) {
    for (let i = 0; i < pool.count; i++) {
      const b = boot(pool.cloud);
      ready = Math.max(ready, Math.max(apiUp, b + K.osPreparationMs) + K.kubeadmJoinMs + K.ciliumReadyMs);
    }
  }
  return ready;
}

export { LATENCY };
