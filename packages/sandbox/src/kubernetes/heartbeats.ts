// What a running kubelet keeps fresh, shown on read: its node Lease's renewTime (every 10 s) and the Node's
// conditions' lastHeartbeatTime (every nodeStatusReportFrequency, 5 min, when nothing changed). Deriving them from
// when the kubelet registered keeps the store (and long simulations) free of a write per node every 10 s.
import { lastTick, NODE_STATUS_REPORT_MS } from './kubelets.js';
import { microTime, NODE_LEASE_NAMESPACE } from './cluster.js';
import { iso, obj, type Json, type KubeObject } from './store.js';

export type LeaseRenewals = Map<string, { renewedAtMs: number; registeredAtMs: number }>;

export function heartbeatView(o: KubeObject, renewals: LeaseRenewals): KubeObject {
  if (o['kind'] === 'Lease' && o.metadata.namespace === NODE_LEASE_NAMESPACE) {
    const r = renewals.get(o.metadata.name);
    return r ? { ...o, spec: { ...(obj(o['spec']) ?? {}), renewTime: microTime(r.renewedAtMs) } } : o;
  }
  if (o['kind'] === 'Node') {
    const r = renewals.get(o.metadata.name);
    if (!r) return o;
    const status = obj(o['status']) ?? {};
    const beat = lastTick(r.registeredAtMs, r.renewedAtMs, NODE_STATUS_REPORT_MS);
    const conditions = ((status['conditions'] as Json[] | undefined) ?? []).map((c) => {
      const stored = Date.parse(String(c['lastHeartbeatTime'] ?? ''));
      return Number.isFinite(stored) && stored >= beat ? c : { ...c, lastHeartbeatTime: iso(beat) };
    });
    return { ...o, status: { ...status, conditions } };
  }
  return o;
}
