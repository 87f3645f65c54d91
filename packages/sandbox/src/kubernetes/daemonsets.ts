// The DaemonSet controller (pkg/controller/daemon): one pod per eligible node, bound to it, with the tolerations the
// controller adds to every daemon pod (util.AddOrUpdateDaemonPodTolerations: not-ready and unreachable NoExecute,
// disk-, memory- and pid-pressure and unschedulable NoSchedule, network-unavailable for host-network pods); a node
// is eligible when the template's node selector and required affinity match and its taints are tolerated
// (NodeShouldRunDaemonPod). A changed template replaces the pods at once (no rolling pace); a node that stops being
// eligible loses its pod. Only pods the DaemonSet object owns (by uid) are touched.
import { createHash } from 'node:crypto';
import { nodeMatches, tolerates, type TaintLike, type Toleration } from './scheduling.js';
import { obj, type Json, type KubeObject, type ObjectStore } from './store.js';

const DAEMON_TOLERATIONS: Toleration[] = [
  { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/pid-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
];

function short(text: string, n: number): string {
  return createHash('sha256').update(text).digest('hex').slice(0, n);
}

function podReady(pod: KubeObject): boolean {
  return ((obj(pod['status'])?.['conditions'] as Json[] | undefined) ?? []).some((c) => c['type'] === 'Ready' && c['status'] === 'True');
}

/** Brings every DaemonSet's pods in line with the nodes; `start` has a new bound pod's kubelet start it. */
export function reconcileDaemonSets(store: ObjectStore, nowMs: number, start: (pod: KubeObject) => void): void {
  const nodes = store.list('nodes');
  for (const ds of store.list('daemonsets')) {
    const ns = ds.metadata.namespace ?? 'default';
    const uid = String(ds.metadata['uid']);
    const template = obj(obj(ds['spec'])?.['template']) ?? {};
    const podSpec = obj(template['spec']) ?? {};
    const hash = short(JSON.stringify(template), 10);
    const tolerations = [
      ...((podSpec['tolerations'] as Toleration[] | undefined) ?? []),
      ...DAEMON_TOLERATIONS,
      ...(podSpec['hostNetwork'] === true ? [{ key: 'node.kubernetes.io/network-unavailable', operator: 'Exists', effect: 'NoSchedule' }] : []),
    ];
    const owned = store
      .list('pods', ns)
      .filter((p) => ((p.metadata['ownerReferences'] as Json[] | undefined) ?? []).some((r) => r['kind'] === 'DaemonSet' && r['uid'] === uid));
    const eligible = nodes.filter((n) => {
      const probe: KubeObject = { metadata: { name: '' }, spec: podSpec };
      const taints = (obj(n['spec'])?.['taints'] as TaintLike[] | undefined) ?? [];
      return nodeMatches(probe, n) && taints.every((t) => t.effect === 'PreferNoSchedule' || tolerates(tolerations, t));
    });
    const wanted = new Set(eligible.map((n) => n.metadata.name));
    for (const p of owned) {
      const node = String(obj(p['spec'])?.['nodeName'] ?? '');
      if (!wanted.has(node) || p.metadata.labels?.['controller-revision-hash'] !== hash) store.delete('pods', ns, p.metadata.name);
    }
    const kept = new Set(
      store
        .list('pods', ns)
        .filter((p) => owned.some((o) => o.metadata.name === p.metadata.name))
        .map((p) => String(obj(p['spec'])?.['nodeName'] ?? '')),
    );
    for (const node of eligible) {
      if (kept.has(node.metadata.name)) continue;
      const created = store.create(
        'pods',
        {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: {
            name: `${ds.metadata.name}-${short(`${uid}/${node.metadata.name}`, 5)}`,
            namespace: ns,
            labels: {
              ...((obj(obj(template['metadata'])?.['labels']) ?? {}) as Record<string, string>),
              'controller-revision-hash': hash,
              'pod-template-generation': String(ds.metadata['generation'] ?? 1),
            },
            ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: ds.metadata.name, uid, controller: true, blockOwnerDeletion: true }],
          },
          spec: { ...structuredClone(podSpec), nodeName: node.metadata.name, tolerations },
          status: {
            phase: 'Pending',
            conditions: [
              { type: 'PodScheduled', status: 'True' },
              { type: 'Ready', status: 'False' },
            ],
          },
        },
        nowMs,
      );
      start(created);
    }
    const pods = store
      .list('pods', ns)
      .filter((p) => ((p.metadata['ownerReferences'] as Json[] | undefined) ?? []).some((r) => r['kind'] === 'DaemonSet' && r['uid'] === uid));
    const ready = pods.filter(podReady).length;
    const status = {
      currentNumberScheduled: pods.length,
      desiredNumberScheduled: eligible.length,
      numberMisscheduled: 0,
      numberReady: ready,
      numberAvailable: ready,
      ...(eligible.length - ready > 0 ? { numberUnavailable: eligible.length - ready } : {}),
      updatedNumberScheduled: pods.length,
      observedGeneration: ds.metadata['generation'],
    };
    if (JSON.stringify(ds['status']) !== JSON.stringify(status)) store.replace('daemonsets', { ...ds, status });
  }
}
