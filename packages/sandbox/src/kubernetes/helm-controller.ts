// A simulated k3s-io/helm-controller (issue 14): HelmChart objects (helm.cattle.io/v1) reconciled by install,
// upgrade and uninstall Jobs, the Helm 3 release records they leave, and what the charts kubeplane's catalog pins do
// to the cluster (issue 14): CSI drivers with their StorageClasses and node registrations, the GPU capacity the
// GPU operator's device plugin advertises, the Deployments of metrics-server and cluster-autoscaler.
//
// What it follows:
// - k3s-io/helm-controller pkg/controllers/chart/chart.go: only charts with spec.chart are managed; the controller
//   claims a chart with the `helmcharts.helm.cattle.io/managed-by` annotation and its
//   `wrangler.cattle.io/on-helm-chart-remove` finalizer; Job `helm-install-<name>` (or `helm-delete-<name>` when the
//   chart is deleted) in the chart's namespace, status.jobName, conditions JobCreated (True, reason "Job created",
//   "Applying HelmChart using Job <ns>/<job>") and Failed (False, or True with reason "Job failed"); events ApplyJob,
//   JobFailed, RemoveJob. A Job is replaced when the chart's spec changes (its config hash).
// - helm/helm pkg/storage/driver/secrets.go and util.go: a release is Secret `sh.helm.release.v1.<name>.v<revision>`
//   of type `helm.sh/release.v1` in the release namespace, labels name, owner=helm, status, version, createdAt (and
//   modifiedAt on an update, as when a revision is superseded); data.release = base64(gzip(JSON release)).
//   pkg/action/upgrade.go: the new revision is deployed and the previous deployed one superseded; descriptions
//   "Install complete" / "Upgrade complete"; pkg/action/uninstall.go: uninstall deletes the release's history.
// Deviations, on purpose: a chart version the repository does not publish fails the Job at its first attempt (the
// real Job retries up to backOffLimit 1000 with back-off), and the chart's Failed condition carries helm's own error
// (the real one says "Job has reached configured number of retries without succeeding" and helm's error is in the
// Job's pod log); the effects below stand in for the charts' templates, only for the charts the catalog pins.
import { helmControllerJob } from './jobs.js';
import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { parse as parseYaml } from 'yaml';
import { findChart } from './chart-repositories.js';
import { DEFAULT_CLASS_ANNOTATION } from './storage.js';
import { iso, obj, type Json, type KubeObject, type ObjectStore } from './store.js';
import { KUBE_TIMINGS } from './timings.js';

export const HELMCHARTS = 'helmcharts.helm.cattle.io';
const FINALIZER = 'wrangler.cattle.io/on-helm-chart-remove';
const MANAGED_BY = 'helmcharts.helm.cattle.io/managed-by';
const CONFIG_HASH = 'helmcharts.helm.cattle.io/configHash';
const RELEASE_TYPE = 'helm.sh/release.v1';

/** What a cluster offers the controller: its objects, its event recorder, its clock's queue and its machines' GPUs. */
export interface HelmHost {
  readonly store: ObjectStore;
  recordEvent(involved: KubeObject, e: { type: 'Normal' | 'Warning'; reason: string; message: string; component: string }, atMs: number): void;
  /** Calls `helmJobDone` for the Job at `atMs` (a ClusterEvent, so a snapshot keeps it). */
  scheduleJobDone(atMs: number, job: KubeObject): void;
  /** The NVIDIA GPUs of the machine a node runs on (0 when none or unknown). */
  machineGpus(node: string): number;
}

/** One Helm release as the inventory shows it (decoded from its newest release Secret). */
export interface HelmReleaseRecord {
  namespace: string;
  name: string;
  chart: string;
  version: string;
  appVersion: string;
  revision: number;
  status: string;
  description: string;
  values: Json;
}

function labelsOf(o: KubeObject): Record<string, string> {
  return o.metadata.labels ?? {};
}

function annotationsOf(o: KubeObject): Record<string, string> {
  return (obj(o.metadata['annotations']) ?? {}) as Record<string, string>;
}

function specOf(chart: KubeObject): Json {
  return obj(chart['spec']) ?? {};
}

function targetNamespace(chart: KubeObject): string {
  const t = specOf(chart)['targetNamespace'];
  return typeof t === 'string' && t !== '' ? t : (chart.metadata.namespace ?? 'default');
}

function configHash(chart: KubeObject): string {
  const s = specOf(chart);
  return `SHA256=${createHash('sha256')
    .update(JSON.stringify([s['repo'], s['chart'], s['version'], s['valuesContent'] ?? '', s['set'] ?? {}, targetNamespace(chart)]))
    .digest('hex')
    .toUpperCase()}`;
}

/** The values a chart's valuesContent holds (a YAML document), or {} when it holds none or is not a mapping. */
export function valuesOf(chart: KubeObject): Json {
  const text = specOf(chart)['valuesContent'];
  if (typeof text !== 'string' || text.trim() === '') return {};
  try {
    return obj(parseYaml(text)) ?? {};
  } catch {
    return {};
  }
}

/** Helm's release encoding (pkg/storage/driver/util.go encodeRelease): JSON, gzip, base64. */
export function encodeRelease(release: Json): string {
  return gzipSync(Buffer.from(JSON.stringify(release)), { level: 9 }).toString('base64');
}

export function decodeRelease(data: string): Json {
  const bytes = Buffer.from(data, 'base64');
  // Helm reads releases with or without gzip (the magic header tells).
  const json = bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes) : bytes;
  return JSON.parse(json.toString('utf8')) as Json;
}

const decoded = new Map<string, Json>();

/** The release a release Secret holds (Secret.data is base64 of Helm's own base64). */
function releaseOf(secret: KubeObject): Json {
  // Keyed by the data itself: uids repeat across seeded worlds, the content says what it is.
  const outer = String(obj(secret['data'])?.['release'] ?? '');
  let r = decoded.get(outer);
  if (!r) {
    r = decodeRelease(Buffer.from(outer, 'base64').toString('utf8'));
    if (decoded.size > 500) decoded.clear();
    decoded.set(outer, r);
  }
  return structuredClone(r);
}

function releaseSecrets(store: ObjectStore, namespace: string, name: string): KubeObject[] {
  return store
    .list('secrets', namespace)
    .filter((s) => s['type'] === RELEASE_TYPE && labelsOf(s)['owner'] === 'helm' && labelsOf(s)['name'] === name)
    .sort((a, b) => Number(labelsOf(a)['version']) - Number(labelsOf(b)['version']));
}

/** Every release in the cluster at its newest revision (the record of what was installed, with chart, version and values). */
export function helmReleases(store: ObjectStore): HelmReleaseRecord[] {
  const newest = new Map<string, KubeObject>();
  for (const s of store.sortedList('secrets')) {
    if (s['type'] !== RELEASE_TYPE || labelsOf(s)['owner'] !== 'helm') continue;
    const key = `${s.metadata.namespace ?? ''}/${labelsOf(s)['name'] ?? ''}`;
    const seen = newest.get(key);
    if (!seen || Number(labelsOf(s)['version']) > Number(labelsOf(seen)['version'])) newest.set(key, s);
  }
  return [...newest.values()].map((s) => {
    const r = releaseOf(s);
    const meta = obj(obj(r['chart'])?.['metadata']) ?? {};
    const info = obj(r['info']) ?? {};
    return {
      namespace: String(r['namespace'] ?? ''),
      name: String(r['name'] ?? ''),
      chart: String(meta['name'] ?? ''),
      version: String(meta['version'] ?? ''),
      appVersion: String(meta['appVersion'] ?? ''),
      revision: Number(r['version'] ?? 0),
      status: String(info['status'] ?? ''),
      description: String(info['description'] ?? ''),
      values: obj(r['config']) ?? {},
    };
  });
}

/** Nothing is reconciled unless the controller runs: kube-system/helm-controller with a Running pod. */
function controllerRuns(store: ObjectStore): boolean {
  if (!store.get('deployments', 'kube-system', 'helm-controller')) return false;
  return store.list('pods', 'kube-system').some((p) => {
    const refs = (p.metadata['ownerReferences'] as Json[] | undefined) ?? [];
    return refs.some((r) => r['kind'] === 'ReplicaSet' && String(r['name']).startsWith('helm-controller-')) && obj(p['status'])?.['phase'] === 'Running';
  });
}

function condition(type: string, status: 'True' | 'False', reason?: string, message?: string): Json {
  return { type, status, ...(reason ? { reason } : {}), ...(message ? { message } : {}) };
}

/** The Job helm-controller creates for a chart: its klipper-helm pod, scheduled as any pod, on control planes too. */
function helmJob(chart: KubeObject, name: string, mode: 'install' | 'delete', hash: string): KubeObject {
  const s = specOf(chart);
  const ns = chart.metadata.namespace ?? 'default';
  const labels = { 'helmcharts.helm.cattle.io/chart': chart.metadata.name };
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name,
      namespace: ns,
      labels,
      annotations: { [CONFIG_HASH]: hash },
      ownerReferences: [
        {
          apiVersion: 'helm.cattle.io/v1',
          kind: 'HelmChart',
          name: chart.metadata.name,
          uid: chart.metadata['uid'],
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {
      backoffLimit: typeof s['backOffLimit'] === 'number' ? s['backOffLimit'] : 1000,
      template: {
        metadata: { labels: { ...labels, 'batch.kubernetes.io/job-name': name }, annotations: { [CONFIG_HASH]: hash } },
        spec: {
          restartPolicy: 'OnFailure',
          serviceAccountName: `helm-${chart.metadata.name}`,
          // k3s's job tolerations (not-ready, uninitialized), and the control plane's, which it adds for bootstrap
          // charts: kubeplane's add-ons include the CNI, and a cluster may have no other nodes.
          tolerations: [
            { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' },
            { key: 'node.cloudprovider.kubernetes.io/uninitialized', operator: 'Equal', value: 'true', effect: 'NoSchedule' },
            { key: 'node-role.kubernetes.io/control-plane', operator: 'Exists', effect: 'NoSchedule' },
            { key: 'CriticalAddonsOnly', operator: 'Exists' },
          ],
          containers: [
            {
              name: 'helm',
              image: 'rancher/klipper-helm:v0.9.8-build20250709',
              args: [mode === 'install' ? 'install' : 'delete'],
              env: [
                { name: 'NAME', value: chart.metadata.name },
                { name: 'VERSION', value: String(s['version'] ?? '') },
                { name: 'REPO', value: String(s['repo'] ?? '') },
                { name: 'TARGET_NAMESPACE', value: targetNamespace(chart) },
                { name: 'CHART', value: String(s['chart'] ?? '') },
              ],
            },
          ],
        },
      },
    },
    status: {},
  };
}

/**
 * The Job controller's part for the helm-controller's Jobs: one without a pod gets one (not yet bound: the scheduler
 * places it). Other Jobs are run by jobs.ts.
 */
function reconcileHelmJobs(store: ObjectStore, nowMs: number): void {
  for (const job of store.list('jobs')) {
    if (job.metadata['deletionTimestamp'] !== undefined || !helmControllerJob(job)) continue;
    const status = obj(job['status']) ?? {};
    if (
      status['completionTime'] !== undefined ||
      ((status['conditions'] as Json[] | undefined) ?? []).some((c) => c['type'] === 'Failed' && c['status'] === 'True')
    )
      continue;
    const ns = job.metadata.namespace ?? 'default';
    if (jobPod(store, job)) continue;
    const template = obj(obj(job['spec'])?.['template']) ?? {};
    const suffix = createHash('sha256')
      .update(`${String(job.metadata['uid'])}/pod`)
      .digest('hex')
      .slice(0, 5);
    store.create(
      'pods',
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {
          name: `${job.metadata.name}-${suffix}`,
          namespace: ns,
          labels: {
            ...((obj(obj(template['metadata'])?.['labels']) ?? {}) as Record<string, string>),
            'batch.kubernetes.io/controller-uid': String(job.metadata['uid']),
            'job-name': job.metadata.name,
          },
          ownerReferences: [
            { apiVersion: 'batch/v1', kind: 'Job', name: job.metadata.name, uid: job.metadata['uid'], controller: true, blockOwnerDeletion: true },
          ],
        },
        spec: structuredClone(obj(template['spec']) ?? {}),
        status: { phase: 'Pending', conditions: [{ type: 'Ready', status: 'False' }] },
      },
      nowMs,
    );
  }
}

function jobPod(store: ObjectStore, job: KubeObject): KubeObject | undefined {
  return store
    .list('pods', job.metadata.namespace)
    .find((p) => ((p.metadata['ownerReferences'] as Json[] | undefined) ?? []).some((r) => r['kind'] === 'Job' && r['uid'] === job.metadata['uid']));
}

function deleteJob(store: ObjectStore, namespace: string, name: string): void {
  const job = store.get('jobs', namespace, name);
  if (!job) return;
  const pod = jobPod(store, job);
  if (pod) store.delete('pods', pod.metadata.namespace, pod.metadata.name);
  store.delete('jobs', namespace, name);
}

/** Writes a chart's status when it changed. */
function setStatus(store: ObjectStore, chart: KubeObject, status: Json): KubeObject {
  if (JSON.stringify(chart['status'] ?? {}) === JSON.stringify(status)) return chart;
  return store.replace(HELMCHARTS, { ...chart, status });
}

/** The controller's pass over every HelmChart; called whenever the cluster's objects change. */
export function reconcileHelmCharts(host: HelmHost, nowMs: number): void {
  const store = host.store;
  if (!store.get('customresourcedefinitions', undefined, HELMCHARTS)) return;
  if (controllerRuns(store)) {
    for (const chart of store.list(HELMCHARTS)) reconcileChart(host, chart, nowMs);
  }
  reconcileHelmJobs(store, nowMs);
  // A Job's pod started: its helm command runs from now for helmJobMs.
  for (const job of store.list('jobs')) {
    if (!job.metadata.name.startsWith('helm-install-') && !job.metadata.name.startsWith('helm-delete-')) continue;
    const status = obj(job['status']) ?? {};
    if (status['startTime'] !== undefined) continue;
    const pod = jobPod(store, job);
    if (obj(pod?.['status'])?.['phase'] !== 'Running') continue;
    const started = store.replace('jobs', { ...job, status: { ...status, startTime: iso(nowMs), active: 1 } });
    host.scheduleJobDone(nowMs + KUBE_TIMINGS.helmJobMs, started);
  }
  applyNodeEffects(host, nowMs);
}

function reconcileChart(host: HelmHost, chart: KubeObject, nowMs: number): void {
  const store = host.store;
  const spec = specOf(chart);
  if (typeof spec['chart'] !== 'string' || spec['chart'] === '') return;
  const ns = chart.metadata.namespace ?? 'default';
  const annotations = annotationsOf(chart);
  if (annotations[MANAGED_BY] !== undefined && annotations[MANAGED_BY] !== 'helm-controller') return;
  const finalizers = (chart.metadata['finalizers'] as string[] | undefined) ?? [];
  if (chart.metadata['deletionTimestamp'] !== undefined) {
    if (!finalizers.includes(FINALIZER)) return;
    const name = `helm-delete-${chart.metadata.name}`;
    if (!store.get('jobs', ns, name)) {
      deleteJob(store, ns, `helm-install-${chart.metadata.name}`);
      store.create('jobs', helmJob(chart, name, 'delete', configHash(chart)), nowMs);
      host.recordEvent(
        chart,
        { type: 'Normal', component: 'helm-controller', reason: 'RemoveJob', message: `Uninstalling HelmChart using Job ${ns}/${name} ` },
        nowMs,
      );
      setStatus(store, chart, { ...(obj(chart['status']) ?? {}), jobName: name });
    }
    return;
  }
  if (annotations[MANAGED_BY] === undefined || !finalizers.includes(FINALIZER)) {
    chart = store.replace(HELMCHARTS, {
      ...chart,
      metadata: {
        ...chart.metadata,
        annotations: { ...annotations, [MANAGED_BY]: 'helm-controller' },
        finalizers: [...finalizers.filter((f) => f !== FINALIZER), FINALIZER],
      },
    });
  }
  const name = `helm-install-${chart.metadata.name}`;
  const hash = configHash(chart);
  const job = store.get('jobs', ns, name);
  if (job && annotationsOf(job)[CONFIG_HASH] === hash) return;
  // A changed spec: the Job is replaced (the real controller deletes and re-creates it with the new hash).
  if (job) deleteJob(store, ns, name);
  store.create('jobs', helmJob(chart, name, 'install', hash), nowMs);
  const source = `${String(spec['repo'] ?? '')} ${String(spec['chart'])}:${String(spec['version'] ?? '')}`.trim();
  host.recordEvent(
    chart,
    { type: 'Normal', component: 'helm-controller', reason: 'ApplyJob', message: `Applying HelmChart from ${source} using Job ${ns}/${name} ` },
    nowMs,
  );
  setStatus(store, chart, {
    jobName: name,
    conditions: [condition('JobCreated', 'True', 'Job created', `Applying HelmChart using Job ${ns}/${name}`), condition('Failed', 'False')],
  });
}

/** A Job's helm command finished (the event the cluster's queue delivers): install, upgrade or uninstall. */
export function helmJobDone(host: HelmHost, namespace: string, name: string, uid: string, nowMs: number): void {
  const store = host.store;
  const job = store.get('jobs', namespace, name);
  if (!job || job.metadata['uid'] !== uid) return;
  const chartName = name.replace(/^helm-(install|delete)-/, '');
  const chart = store.get(HELMCHARTS, namespace, chartName);
  const pod = jobPod(store, job);
  const finish = (ok: boolean, message?: string): void => {
    const status = obj(job['status']) ?? {};
    store.replace('jobs', {
      ...job,
      status: ok
        ? {
            ...status,
            active: 0,
            succeeded: 1,
            completionTime: iso(nowMs),
            conditions: [{ type: 'Complete', status: 'True', lastProbeTime: iso(nowMs), lastTransitionTime: iso(nowMs) }],
          }
        : {
            ...status,
            active: 0,
            failed: 1,
            conditions: [
              {
                type: 'Failed',
                status: 'True',
                reason: 'BackoffLimitExceeded',
                message: 'Job has reached the specified backoff limit',
                lastProbeTime: iso(nowMs),
                lastTransitionTime: iso(nowMs),
              },
            ],
          },
    });
    if (pod) {
      const cs = ((obj(pod['status'])?.['containerStatuses'] as Json[] | undefined) ?? []).map((c) => ({
        ...c,
        ready: false,
        state: { terminated: { exitCode: ok ? 0 : 1, reason: ok ? 'Completed' : 'Error', ...(message ? { message } : {}), finishedAt: iso(nowMs) } },
      }));
      store.replace('pods', {
        ...pod,
        status: {
          ...(obj(pod['status']) ?? {}),
          phase: ok ? 'Succeeded' : 'Failed',
          conditions: [
            { type: 'PodScheduled', status: 'True' },
            { type: 'Ready', status: 'False', reason: 'PodCompleted' },
          ],
          containerStatuses: cs,
        },
      });
    }
  };
  if (!chart) {
    finish(true);
    return;
  }
  const target = targetNamespace(chart);
  if (name.startsWith('helm-delete-')) {
    undoEffects(store, target, chartName, nowMs);
    for (const s of releaseSecrets(store, target, chartName)) store.delete('secrets', target, s.metadata.name);
    finish(true);
    host.recordEvent(
      chart,
      {
        type: 'Normal',
        component: 'helm-controller',
        reason: 'RemoveJob',
        message: `Uninstalled HelmChart using Job ${namespace}/${name}, removing resources`,
      },
      nowMs,
    );
    deleteJob(store, namespace, `helm-install-${chartName}`);
    deleteJob(store, namespace, name);
    // The finalizer goes: the API server then deletes the chart (ClusterApi's replace path sees that through the host).
    const still = store.get(HELMCHARTS, namespace, chartName);
    if (still) store.delete(HELMCHARTS, namespace, chartName);
    return;
  }
  const spec = specOf(chart);
  const found = findChart(
    String(spec['repo'] ?? ''),
    String(spec['chart'] ?? ''),
    typeof spec['version'] === 'string' && spec['version'] !== '' ? spec['version'] : undefined,
  );
  if ('error' in found) {
    const message = `Error: ${found.error}`;
    finish(false, message);
    host.recordEvent(
      chart,
      { type: 'Warning', component: 'helm-controller', reason: 'JobFailed', message: 'Job has reached configured number of retries without succeeding' },
      nowMs,
    );
    setStatus(store, chart, {
      jobName: name,
      conditions: [
        condition('JobCreated', 'True', 'Job created', `Applying HelmChart using Job ${namespace}/${name}`),
        condition('Failed', 'True', 'Job failed', found.error),
      ],
    });
    return;
  }
  if (spec['createNamespace'] === true && !store.get('namespaces', undefined, target)) {
    store.create(
      'namespaces',
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: target, labels: { 'kubernetes.io/metadata.name': target } }, status: { phase: 'Active' } },
      nowMs,
    );
  }
  if (!store.get('namespaces', undefined, target)) {
    const error = `create: failed to create: namespaces "${target}" not found`;
    finish(false, `Error: ${error}`);
    setStatus(store, chart, {
      jobName: name,
      conditions: [
        condition('JobCreated', 'True', 'Job created', `Applying HelmChart using Job ${namespace}/${name}`),
        condition('Failed', 'True', 'Job failed', error),
      ],
    });
    return;
  }
  const values = valuesOf(chart);
  const history = releaseSecrets(store, target, chartName);
  const revision = history.reduce((m, s) => Math.max(m, Number(labelsOf(s)['version'] ?? 0)), 0) + 1;
  const previous = history.filter((s) => labelsOf(s)['status'] === 'deployed' || labelsOf(s)['status'] === 'failed');
  const firstDeployed = history[0] ? String(obj(releaseOf(history[0])['info'])?.['first_deployed'] ?? iso(nowMs)) : iso(nowMs);
  for (const s of previous) {
    // Helm's upgrade marks the previous release superseded (an Update of its Secret: modifiedAt).
    const r = releaseOf(s);
    const updated = { ...r, info: { ...(obj(r['info']) ?? {}), status: 'superseded' } };
    store.replace('secrets', {
      ...s,
      metadata: { ...s.metadata, labels: { ...labelsOf(s), status: 'superseded', modifiedAt: String(Math.floor(nowMs / 1000)) } },
      data: { release: Buffer.from(encodeRelease(updated)).toString('base64') },
    });
  }
  const release: Json = {
    name: chartName,
    info: {
      first_deployed: firstDeployed,
      last_deployed: iso(nowMs),
      deleted: '',
      description: revision === 1 ? 'Install complete' : 'Upgrade complete',
      status: 'deployed',
      notes: '',
    },
    chart: {
      metadata: {
        name: String(spec['chart']),
        version: found.found.version,
        description: found.found.description,
        apiVersion: 'v2',
        appVersion: found.found.appVersion,
        type: 'application',
      },
      lock: null,
      templates: [],
      values: {},
      schema: null,
      files: [],
    },
    config: values,
    manifest: '',
    version: revision,
    namespace: target,
  };
  store.create(
    'secrets',
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: `sh.helm.release.v1.${chartName}.v${revision}`,
        namespace: target,
        labels: { name: chartName, owner: 'helm', status: 'deployed', version: String(revision), createdAt: String(Math.floor(nowMs / 1000)) },
      },
      type: RELEASE_TYPE,
      data: { release: Buffer.from(encodeRelease(release)).toString('base64') },
    },
    nowMs,
  );
  applyEffects(store, String(spec['chart']), chartName, target, values, nowMs);
  finish(true);
}

/**
 * A release a managed service installed with its cluster (CMK's add-ons): revision 1, deployed, in Helm 3's storage as
 * `helm install` leaves it, so `helm upgrade` (a HelmChart of the same name and targetNamespace) finds and supersedes it.
 */
export function recordServiceRelease(
  store: ObjectStore,
  r: { chart: string; version: string; appVersion: string; release: string; namespace: string; values: Json; render: boolean },
  nowMs: number,
): void {
  const release: Json = {
    name: r.release,
    info: { first_deployed: iso(nowMs), last_deployed: iso(nowMs), deleted: '', description: 'Install complete', status: 'deployed', notes: '' },
    chart: {
      metadata: { name: r.chart, version: r.version, apiVersion: 'v2', appVersion: r.appVersion, type: 'application' },
      lock: null,
      templates: [],
      values: {},
      schema: null,
      files: [],
    },
    config: r.values,
    manifest: '',
    version: 1,
    namespace: r.namespace,
  };
  store.create(
    'secrets',
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: `sh.helm.release.v1.${r.release}.v1`,
        namespace: r.namespace,
        labels: { name: r.release, owner: 'helm', status: 'deployed', version: '1', createdAt: String(Math.floor(nowMs / 1000)) },
      },
      type: RELEASE_TYPE,
      data: { release: Buffer.from(encodeRelease(release)).toString('base64') },
    },
    nowMs,
  );
  if (r.render) applyEffects(store, r.chart, r.release, r.namespace, r.values, nowMs);
}

// ---- what the charts do --------------------------------------------------------------------------------------

/** A CSI driver a chart installs: its name, the topology keys its node plugin reports, and where the plugin runs. */
interface CsiDriverEffect {
  driver: string;
  /** Topology key -> the Node label whose value the plugin reports for it (NodeGetInfo's accessible topology). */
  topology: Record<string, string>;
  /** The node plugin DaemonSet's placement (values node.affinity / node.nodeSelector). */
  affinity?: Json;
  nodeSelector?: Record<string, string>;
}

interface Effects {
  csi: CsiDriverEffect[];
  storageClasses: KubeObject[];
  deployments: Array<{ name: string; image: string; tolerations?: Json[] }>;
  gpus: boolean;
}

const HELM_MANAGED = (release: string, namespace: string): KubeObject['metadata'] & { annotations: Record<string, string> } => ({
  name: '',
  labels: { 'app.kubernetes.io/managed-by': 'Helm' },
  annotations: { 'meta.helm.sh/release-name': release, 'meta.helm.sh/release-namespace': namespace },
});

function list(v: unknown): Json[] {
  return Array.isArray(v) ? v.map((x) => obj(x)).filter((x): x is Json => x !== undefined) : [];
}

function storageClass(
  release: string,
  namespace: string,
  name: string,
  provisioner: string,
  entry: Json,
  isDefault: boolean,
  defaults: { volumeBindingMode: string; allowVolumeExpansion: boolean },
): KubeObject {
  const meta = HELM_MANAGED(release, namespace);
  const extraAnnotations = (obj(entry['annotations']) ?? {}) as Record<string, string>;
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: {
      ...meta,
      name,
      labels: { ...meta.labels, ...((obj(entry['labels']) ?? {}) as Record<string, string>) },
      annotations: { ...meta.annotations, ...extraAnnotations, ...(isDefault ? { [DEFAULT_CLASS_ANNOTATION]: 'true' } : {}) },
    },
    provisioner,
    reclaimPolicy: typeof entry['reclaimPolicy'] === 'string' ? entry['reclaimPolicy'] : 'Delete',
    volumeBindingMode: typeof entry['volumeBindingMode'] === 'string' ? entry['volumeBindingMode'] : defaults.volumeBindingMode,
    allowVolumeExpansion: typeof entry['allowVolumeExpansion'] === 'boolean' ? entry['allowVolumeExpansion'] : defaults.allowVolumeExpansion,
    ...(obj(entry['parameters']) ? { parameters: entry['parameters'] } : obj(entry['extraParameters']) ? { parameters: entry['extraParameters'] } : {}),
    ...(Array.isArray(entry['allowedTopologies']) ? { allowedTopologies: entry['allowedTopologies'] } : {}),
  };
}

function nodePlacement(values: Json): { affinity?: Json; nodeSelector?: Record<string, string> } {
  const node = obj(values['node']) ?? {};
  return {
    ...(obj(node['affinity']) ? { affinity: obj(node['affinity']) as Json } : {}),
    ...(obj(node['nodeSelector']) ? { nodeSelector: obj(node['nodeSelector']) as Record<string, string> } : {}),
  };
}

/** The effects of the charts the catalog pins, from the values they read (each chart's values.yaml keys cited). */
function effectsOf(chart: string, release: string, namespace: string, values: Json): Effects {
  const none: Effects = { csi: [], storageClasses: [], deployments: [], gpus: false };
  switch (chart) {
    case 'hcloud-csi': {
      // hetznercloud/csi-driver chart/values.yaml: storageClasses[] {name, defaultStorageClass, reclaimPolicy,
      // extraParameters} (default one class hcloud-volumes, default), node.affinity, node.nodeSelector; the classes
      // bind WaitForFirstConsumer; the node plugin reports csi.hetzner.cloud/location (the server's location).
      const entries = Array.isArray(values['storageClasses'])
        ? list(values['storageClasses'])
        : [{ name: 'hcloud-volumes', defaultStorageClass: true, reclaimPolicy: 'Delete' }];
      return {
        ...none,
        csi: [{ driver: 'csi.hetzner.cloud', topology: { 'csi.hetzner.cloud/location': 'topology.kubernetes.io/region' }, ...nodePlacement(values) }],
        storageClasses: entries.map((e) =>
          storageClass(release, namespace, String(e['name'] ?? 'hcloud-volumes'), 'csi.hetzner.cloud', e, e['defaultStorageClass'] === true, {
            volumeBindingMode: 'WaitForFirstConsumer',
            allowVolumeExpansion: true,
          }),
        ),
      };
    }
    case 'aws-ebs-csi-driver': {
      // kubernetes-sigs/aws-ebs-csi-driver charts/aws-ebs-csi-driver/values.yaml: storageClasses[] {name,
      // annotations, labels, volumeBindingMode (WaitForFirstConsumer), reclaimPolicy, parameters, allowedTopologies}
      // (none by default), node.affinity, node.nodeSelector; the node plugin reports topology.ebs.csi.aws.com/zone and
      // topology.kubernetes.io/zone (pkg/driver/node.go NodeGetInfo).
      return {
        ...none,
        csi: [
          {
            driver: 'ebs.csi.aws.com',
            topology: { 'topology.ebs.csi.aws.com/zone': 'topology.kubernetes.io/zone', 'topology.kubernetes.io/zone': 'topology.kubernetes.io/zone' },
            ...nodePlacement(values),
          },
        ],
        storageClasses: list(values['storageClasses']).map((e) =>
          storageClass(
            release,
            namespace,
            String(e['name'] ?? 'ebs-sc'),
            'ebs.csi.aws.com',
            e,
            ((obj(e['annotations']) ?? {}) as Record<string, string>)[DEFAULT_CLASS_ANNOTATION] === 'true',
            { volumeBindingMode: 'WaitForFirstConsumer', allowVolumeExpansion: true },
          ),
        ),
      };
    }
    case 'crusoe-csi-driver': {
      // crusoecloud/crusoe-csi-driver: two drivers, ssd.csi.crusoe.ai (disks) and fs.csi.crusoe.ai (shared
      // filesystems), each reporting <driver>/location (internal/common GetTopologyKey with TopologyLocationKey).
      // The chart's class names are not verified here: storageClasses[] from the values, else crusoe-csi-driver-ssd-sc.
      const entries = Array.isArray(values['storageClasses'])
        ? list(values['storageClasses'])
        : [{ name: 'crusoe-csi-driver-ssd-sc', provisioner: 'ssd.csi.crusoe.ai' }];
      const placement = nodePlacement(values);
      return {
        ...none,
        csi: ['ssd.csi.crusoe.ai', 'fs.csi.crusoe.ai'].map((driver) => ({
          driver,
          topology: { [`${driver}/location`]: 'topology.kubernetes.io/region' },
          ...placement,
        })),
        storageClasses: entries.map((e) =>
          storageClass(
            release,
            namespace,
            String(e['name'] ?? 'crusoe-csi-driver-ssd-sc'),
            String(e['provisioner'] ?? 'ssd.csi.crusoe.ai'),
            e,
            e['defaultStorageClass'] === true || ((obj(e['annotations']) ?? {}) as Record<string, string>)[DEFAULT_CLASS_ANNOTATION] === 'true',
            { volumeBindingMode: 'WaitForFirstConsumer', allowVolumeExpansion: true },
          ),
        ),
      };
    }
    case 'longhorn': {
      // longhorn/charts chart/values.yaml: persistence.defaultClass (true), persistence.reclaimPolicy (Delete),
      // persistence.volumeBindingMode (Immediate); driver.longhorn.io runs on every node, with no topology.
      const p = obj(values['persistence']) ?? {};
      const entry: Json = {
        reclaimPolicy: p['reclaimPolicy'] ?? 'Delete',
        volumeBindingMode: p['volumeBindingMode'] ?? 'Immediate',
        parameters: { numberOfReplicas: String(p['defaultClassReplicaCount'] ?? 3), staleReplicaTimeout: '30' },
      };
      return {
        ...none,
        csi: [{ driver: 'driver.longhorn.io', topology: {} }],
        storageClasses: [
          storageClass(release, namespace, 'longhorn', 'driver.longhorn.io', entry, p['defaultClass'] !== false, {
            volumeBindingMode: 'Immediate',
            allowVolumeExpansion: true,
          }),
        ],
      };
    }
    case 'metrics-server':
      return { ...none, deployments: [{ name: 'metrics-server', image: 'registry.k8s.io/metrics-server/metrics-server' }] };
    case 'cluster-autoscaler': {
      // kubernetes/autoscaler charts/cluster-autoscaler templates/_helpers.tpl: name = <cloudProvider>-<chart>,
      // fullname = fullnameOverride, else the release name when it contains the name, else <release>-<name>.
      const provider = typeof values['cloudProvider'] === 'string' ? values['cloudProvider'] : 'aws';
      const name = `${provider}-cluster-autoscaler`;
      const full =
        typeof values['fullnameOverride'] === 'string' && values['fullnameOverride'] !== ''
          ? values['fullnameOverride']
          : release.includes(name)
            ? release
            : `${release}-${name}`;
      return { ...none, deployments: [{ name: full.slice(0, 63), image: 'registry.k8s.io/autoscaling/cluster-autoscaler' }] };
    }
    case 'gpu-operator':
      return { ...none, gpus: true };
    default:
      return none;
  }
}

function byRelease(o: KubeObject, release: string, namespace: string): boolean {
  const a = annotationsOf(o);
  return a['meta.helm.sh/release-name'] === release && a['meta.helm.sh/release-namespace'] === namespace;
}

function applyEffects(store: ObjectStore, chart: string, release: string, namespace: string, values: Json, nowMs: number): void {
  const effects = effectsOf(chart, release, namespace, values);
  const meta = HELM_MANAGED(release, namespace);
  const wanted = new Set<string>();
  const put = (resource: string, o: KubeObject, ns?: string): void => {
    wanted.add(`${resource}/${ns ?? ''}/${o.metadata.name}`);
    const existing = store.get(resource, ns, o.metadata.name);
    if (!existing) store.create(resource, o, nowMs);
    else if (
      JSON.stringify({ ...existing, metadata: undefined, status: undefined }) !== JSON.stringify({ ...o, metadata: undefined, status: undefined }) ||
      JSON.stringify(existing.metadata.labels) !== JSON.stringify(o.metadata.labels) ||
      JSON.stringify(existing.metadata['annotations']) !== JSON.stringify(o.metadata['annotations'])
    ) {
      store.replace(resource, {
        ...o,
        metadata: { ...existing.metadata, labels: o.metadata.labels, annotations: o.metadata['annotations'] },
        ...(existing['status'] !== undefined ? { status: existing['status'] } : {}),
      });
    }
  };
  for (const csi of effects.csi) {
    put('csidrivers', {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'CSIDriver',
      metadata: { ...meta, name: csi.driver },
      spec: { attachRequired: true, podInfoOnMount: false, volumeLifecycleModes: ['Persistent'], fsGroupPolicy: 'ReadWriteOnceWithFSType' },
    });
  }
  for (const sc of effects.storageClasses) put('storageclasses', sc);
  for (const d of effects.deployments) {
    const labels = { 'app.kubernetes.io/name': d.name, 'app.kubernetes.io/instance': release };
    put(
      'deployments',
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { ...meta, name: d.name, namespace, labels: { ...meta.labels, ...labels } },
        spec: {
          replicas: 1,
          selector: { matchLabels: labels },
          template: {
            metadata: { labels },
            spec: { containers: [{ name: d.name, image: d.image }], tolerations: [{ key: 'CriticalAddonsOnly', operator: 'Exists' }] },
          },
        },
        status: {},
      },
      namespace,
    );
  }
  // What an upgrade no longer renders goes (helm deletes the resources the new manifest lacks).
  removeOwned(store, release, namespace, (key) => !wanted.has(key));
}

function removeOwned(store: ObjectStore, release: string, namespace: string, which: (key: string) => boolean): void {
  for (const resource of ['storageclasses', 'csidrivers']) {
    for (const o of store.list(resource))
      if (byRelease(o, release, namespace) && which(`${resource}//${o.metadata.name}`)) store.delete(resource, undefined, o.metadata.name);
  }
  for (const o of store.list('deployments', namespace)) {
    if (!byRelease(o, release, namespace) || !which(`deployments/${namespace}/${o.metadata.name}`)) continue;
    store.delete('deployments', namespace, o.metadata.name);
    for (const p of store.list('pods', namespace)) {
      const refs = (p.metadata['ownerReferences'] as Json[] | undefined) ?? [];
      if (
        refs.some(
          (r) =>
            r['kind'] === 'ReplicaSet' &&
            typeof r['name'] === 'string' &&
            r['name'].startsWith(`${o.metadata.name}-`) &&
            r['name'].length === o.metadata.name.length + 11,
        )
      )
        store.delete('pods', namespace, p.metadata.name);
    }
  }
}

function undoEffects(store: ObjectStore, namespace: string, release: string, nowMs: number): void {
  removeOwned(store, release, namespace, () => true);
  void nowMs;
}

// ---- per node: CSI registrations and GPUs ---------------------------------------------------------------------

/** The annotation the kubelet keeps of the CSI drivers registered on its node (driver -> node id). */
export const CSI_NODE_IDS = 'csi.volume.kubernetes.io/nodeid';

function requiredTermsMatch(affinity: Json | undefined, labels: Record<string, string>): boolean {
  const required = obj(obj(affinity?.['nodeAffinity'])?.['requiredDuringSchedulingIgnoredDuringExecution']);
  const terms = list(required?.['nodeSelectorTerms']);
  if (terms.length === 0) return true;
  return terms.some((t) => list(t['matchExpressions']).every((e) => matchExpression(e, labels)));
}

/** One node selector requirement (core/v1 NodeSelectorRequirement; pkg/apis/core/helper NodeSelectorRequirementsAsSelector). */
export function matchExpression(e: Json, labels: Record<string, string>): boolean {
  const key = String(e['key'] ?? '');
  const values = Array.isArray(e['values']) ? e['values'].map(String) : [];
  const has = Object.hasOwn(labels, key);
  const value = labels[key];
  switch (e['operator']) {
    case 'In':
      return has && values.includes(value ?? '');
    case 'NotIn':
      return !has || !values.includes(value ?? '');
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
    case 'Gt':
    case 'Lt': {
      const n = Number.parseInt(value ?? '', 10);
      const bound = Number.parseInt(values[0] ?? '', 10);
      if (!has || !Number.isFinite(n) || !Number.isFinite(bound)) return false;
      return e['operator'] === 'Gt' ? n > bound : n < bound;
    }
    default:
      return false;
  }
}

/**
 * The annotation in which node-feature-discovery (which the GPU operator's feature discovery writes through) lists the
 * labels it manages, so that it removes only those (NFD's nfd-master, `nfd.node.kubernetes.io/feature-labels`).
 */
const NFD_FEATURE_LABELS = 'nfd.node.kubernetes.io/feature-labels';
const GPU_FEATURE_LABELS = ['nvidia.com/gpu.count', 'nvidia.com/gpu.present'];

/**
 * Per node: which deployed drivers' node plugins run there (their placement matches and the node is Ready) — the
 * kubelet then labels the node with the driver's topology and records the driver in its nodeid annotation; and, with
 * the GPU operator deployed, a GPU machine's nvidia.com/gpu capacity and its gpu.present label.
 */
function applyNodeEffects(host: HelmHost, nowMs: number): void {
  const store = host.store;
  const releases = helmReleases(store).filter((r) => r.status === 'deployed');
  const csi: CsiDriverEffect[] = [];
  let gpus = false;
  for (const r of releases) {
    const e = effectsOf(r.chart, r.name, r.namespace, r.values);
    csi.push(...e.csi);
    gpus ||= e.gpus;
  }
  const known = new Set(['csi.hetzner.cloud', 'ebs.csi.aws.com', 'ssd.csi.crusoe.ai', 'fs.csi.crusoe.ai', 'driver.longhorn.io']);
  for (const node of store.list('nodes')) {
    const labels = { ...labelsOf(node) };
    const annotations = { ...annotationsOf(node) };
    const ready = ((obj(node['status'])?.['conditions'] as Json[] | undefined) ?? []).some((c) => c['type'] === 'Ready' && c['status'] === 'True');
    let ids: Record<string, string> = {};
    try {
      ids = (obj(JSON.parse(annotations[CSI_NODE_IDS] ?? '{}')) ?? {}) as Record<string, string>;
    } catch {
      ids = {};
    }
    const nextIds: Record<string, string> = Object.fromEntries(Object.entries(ids).filter(([d]) => !known.has(d)));
    const topologyKeys = new Set<string>();
    for (const c of csi) {
      for (const k of Object.keys(c.topology)) topologyKeys.add(k);
      const placed = Object.entries(c.nodeSelector ?? {}).every(([k, v]) => labels[k] === v) && requiredTermsMatch(c.affinity, labels);
      if (!placed || !ready) continue;
      const topology = Object.entries(c.topology).map(([k, from]) => [k, labels[from]] as const);
      // A plugin whose topology the node cannot tell (no region or zone label yet) does not register.
      if (topology.some(([, v]) => v === undefined)) continue;
      nextIds[c.driver] = String(obj(node['spec'])?.['providerID'] ?? node.metadata.name);
      for (const [k, v] of topology) labels[k] = v ?? '';
    }
    for (const k of Object.keys(labels)) {
      if (!topologyKeys.has(k) && (k === 'csi.hetzner.cloud/location' || k === 'topology.ebs.csi.aws.com/zone' || k.endsWith('.csi.crusoe.ai/location')))
        delete labels[k];
    }
    for (const k of topologyKeys) {
      const registered = csi.some((c) => Object.hasOwn(c.topology, k) && nextIds[c.driver] !== undefined);
      if (!registered && k !== 'topology.kubernetes.io/zone') delete labels[k];
    }
    if (Object.keys(nextIds).length > 0) annotations[CSI_NODE_IDS] = JSON.stringify(Object.fromEntries(Object.entries(nextIds).sort()));
    else delete annotations[CSI_NODE_IDS];
    const count = host.machineGpus(node.metadata.name);
    const status = obj(node['status']) ?? {};
    const capacity = { ...((obj(status['capacity']) ?? {}) as Record<string, string>) };
    const allocatable = { ...((obj(status['allocatable']) ?? {}) as Record<string, string>) };
    if (gpus && count > 0 && ready) {
      capacity['nvidia.com/gpu'] = String(count);
      allocatable['nvidia.com/gpu'] = String(count);
      labels['nvidia.com/gpu.present'] = 'true';
      labels['nvidia.com/gpu.count'] = String(count);
      annotations[NFD_FEATURE_LABELS] = GPU_FEATURE_LABELS.join(',');
    } else {
      delete capacity['nvidia.com/gpu'];
      delete allocatable['nvidia.com/gpu'];
      // Only the labels feature discovery put there go with it (it lists them in its annotation); a label the node
      // was given otherwise (a pool's `nvidia.com/gpu.present: "true"`) is not its to remove.
      const managed = (annotations[NFD_FEATURE_LABELS] ?? '').split(',');
      for (const k of GPU_FEATURE_LABELS) if (managed.includes(k)) delete labels[k];
      delete annotations[NFD_FEATURE_LABELS];
    }
    const next: KubeObject = { ...node, metadata: { ...node.metadata, labels, annotations }, status: { ...status, capacity, allocatable } };
    if (JSON.stringify(next) !== JSON.stringify(node)) store.replace('nodes', next);
  }
  void nowMs;
}

/** The topology keys each known driver's node plugin reports (the keys a provisioned volume's node affinity uses). */
export const DRIVER_TOPOLOGY_KEYS: Readonly<Record<string, readonly string[]>> = {
  'csi.hetzner.cloud': ['csi.hetzner.cloud/location'],
  'ebs.csi.aws.com': ['topology.ebs.csi.aws.com/zone'],
  'ssd.csi.crusoe.ai': ['ssd.csi.crusoe.ai/location'],
  'fs.csi.crusoe.ai': ['fs.csi.crusoe.ai/location'],
  'driver.longhorn.io': [],
};

/** Whether `driver`'s node plugin is registered on `node` (the scheduler's CSI check). */
export function driverOnNode(node: KubeObject, driver: string): boolean {
  try {
    return Object.hasOwn(obj(JSON.parse(annotationsOf(node)[CSI_NODE_IDS] ?? '{}')) ?? {}, driver);
  } catch {
    return false;
  }
}
