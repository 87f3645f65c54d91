// The DaemonSet controller (pkg/controller/daemon): one pod per eligible node, bound to it, with the tolerations the
// controller adds to every daemon pod (util.AddOrUpdateDaemonPodTolerations: not-ready and unreachable NoExecute,
// disk-, memory- and pid-pressure and unschedulable NoSchedule, network-unavailable for host-network pods); a node
// is eligible when the template's node selector and required affinity match and its taints are tolerated
// (NodeShouldRunDaemonPod). A changed template replaces the pods at once (no rolling pace); a node that stops being
// eligible loses its pod. Only pods the DaemonSet object owns (by uid) are touched. Each template is kept as a
// ControllerRevision, which `kubectl rollout history|undo daemonset` read.
import { nameSuffix, podTemplateHash } from './deployments.js';
import { ownedBy, ownerReference } from './owners.js';
import type { RecordEvent } from './owners.js';
import { nodeMatches, tolerates, type TaintLike, type Toleration } from './scheduling.js';
import { obj, type Json, type KubeObject, type ObjectStore } from './store.js';

/**
 * kube-system/cilium, the agent's DaemonSet as the cilium install makes it (the cilium chart's cilium-agent
 * DaemonSet: label k8s-app=cilium, the host's network, every taint tolerated); its pod on a node is what makes the
 * node Ready.
 */
export const CILIUM_DAEMONSET: Json = {
  metadata: { name: 'cilium', labels: { 'k8s-app': 'cilium', 'app.kubernetes.io/name': 'cilium-agent', 'app.kubernetes.io/part-of': 'cilium' } },
  spec: {
    selector: { matchLabels: { 'k8s-app': 'cilium' } },
    updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 2, maxSurge: 0 } },
    template: {
      metadata: { labels: { 'k8s-app': 'cilium', 'app.kubernetes.io/name': 'cilium-agent', 'app.kubernetes.io/part-of': 'cilium' } },
      spec: {
        containers: [{ name: 'cilium-agent', image: 'quay.io/cilium/cilium' }],
        hostNetwork: true,
        priorityClassName: 'system-node-critical',
        serviceAccountName: 'cilium',
        tolerations: [{ operator: 'Exists' }],
      },
    },
  },
};

const DAEMON_TOLERATIONS: Toleration[] = [
  { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/pid-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
];

function podReady(pod: KubeObject): boolean {
  return ((obj(pod['status'])?.['conditions'] as Json[] | undefined) ?? []).some((c) => c['type'] === 'Ready' && c['status'] === 'True');
}

/** The API server's defaults for an apps/v1 DaemonSet's spec (pkg/apis/apps/v1/defaults.go SetDefaults_DaemonSet). */
export function defaultDaemonSetSpec(spec: Json): Json {
  const strategy = obj(spec['updateStrategy']) ?? {};
  const type = strategy['type'] ?? 'RollingUpdate';
  return {
    ...spec,
    updateStrategy:
      type === 'RollingUpdate'
        ? { ...strategy, type, rollingUpdate: { maxUnavailable: 1, maxSurge: 0, ...(obj(strategy['rollingUpdate']) ?? {}) } }
        : { ...strategy, type },
    revisionHistoryLimit: spec['revisionHistoryLimit'] ?? 10,
  };
}

/**
 * The DaemonSet's history (daemon/update.go constructHistory): one ControllerRevision per template it has had, named
 * <daemonset>-<hash>, its data the patch that puts the template back (what `kubectl rollout undo daemonset` applies),
 * numbered by revision; the current template's takes the next number when an older one held it; old ones beyond
 * spec.revisionHistoryLimit go. Returns the current template's hash (the pods' controller-revision-hash).
 */
function syncHistory(store: ObjectStore, ds: KubeObject, template: Json, nowMs: number): string {
  const ns = ds.metadata.namespace ?? 'default';
  const hash = podTemplateHash(template);
  const name = `${ds.metadata.name}-${hash}`;
  const owned = store.list('controllerrevisions', ns).filter((cr) => ownedBy(cr, ds));
  const max = owned.reduce((m, cr) => Math.max(m, Number(cr['revision'] ?? 0)), 0);
  const current = owned.find((cr) => cr.metadata.name === name);
  if (!current) {
    if (store.get('controllerrevisions', ns, name)) return hash;
    store.create(
      'controllerrevisions',
      {
        apiVersion: 'apps/v1',
        kind: 'ControllerRevision',
        metadata: {
          name,
          namespace: ns,
          labels: { ...((obj(obj(template['metadata'])?.['labels']) ?? {}) as Record<string, string>), 'controller-revision-hash': hash },
          ...(ds.metadata['annotations'] ? { annotations: structuredClone(ds.metadata['annotations']) } : {}),
          ownerReferences: [ownerReference(ds, 'apps/v1', 'DaemonSet')],
        },
        data: { spec: { template: { ...structuredClone(template), $patch: 'replace' } } },
        revision: max + 1,
      },
      nowMs,
    );
  } else if (Number(current['revision'] ?? 0) < max) {
    store.replace('controllerrevisions', { ...current, revision: max + 1 });
  }
  const limit = typeof obj(ds['spec'])?.['revisionHistoryLimit'] === 'number' ? Number(obj(ds['spec'])?.['revisionHistoryLimit']) : 10;
  const old = store
    .list('controllerrevisions', ns)
    .filter((cr) => ownedBy(cr, ds) && cr.metadata.name !== name)
    .sort((a, b) => Number(a['revision'] ?? 0) - Number(b['revision'] ?? 0));
  for (const cr of old.slice(0, Math.max(0, old.length - limit))) store.delete('controllerrevisions', ns, cr.metadata.name);
  return hash;
}

/** Brings every DaemonSet's pods in line with the nodes; `start` has a new bound pod's kubelet start it. */
export function reconcileDaemonSets(store: ObjectStore, nowMs: number, start: (pod: KubeObject) => void, record?: RecordEvent): void {
  const nodes = store.list('nodes');
  for (const ds of store.list('daemonsets')) {
    const ns = ds.metadata.namespace ?? 'default';
    // A DaemonSet being deleted makes no more pods (daemon_controller.go syncDaemonSet): the garbage collector takes them.
    if (ds.metadata['deletionTimestamp'] !== undefined) continue;
    const uid = String(ds.metadata['uid']);
    const template = obj(obj(ds['spec'])?.['template']) ?? {};
    const podSpec = obj(template['spec']) ?? {};
    const hash = syncHistory(store, ds, template, nowMs);
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
      if (!wanted.has(node) || p.metadata.labels?.['controller-revision-hash'] !== hash) {
        store.delete('pods', ns, p.metadata.name);
        record?.(ds, 'daemonset-controller', 'SuccessfulDelete', `Deleted pod: ${p.metadata.name}`);
      }
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
            name: `${ds.metadata.name}-${nameSuffix(`${uid}/${node.metadata.name}/${store.revision}`)}`,
            generateName: `${ds.metadata.name}-`,
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
      record?.(ds, 'daemonset-controller', 'SuccessfulCreate', `Created pod: ${created.metadata.name}`);
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
