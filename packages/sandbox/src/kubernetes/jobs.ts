// batch/v1 Jobs as a cluster runs them: the API server's defaults and validation (pkg/apis/batch/v1/defaults.go,
// pkg/apis/batch/validation), the selector it generates from the Job's uid (pkg/registry/batch/job/strategy.go), and
// the Job controller (pkg/controller/job/job_controller.go): pods up to `parallelism` until `completions` succeed,
// Indexed completion, `suspend`, `activeDeadlineSeconds`, the status counts and conditions, and the TTL-after-finished
// controller. What a container does is the one thing the sandbox cannot know; its kubelets run a Job's container
// for KUBE_TIMINGS.jobContainerMs and see it exit 0. The helm-controller's own Jobs (owned by a HelmChart) are run by
// the helm stand-in, which decides how its helm command ends (helm-controller.ts).
import { createHash } from 'node:crypto';
import { invalidFields, obj, type Json, type KubeObject, type ObjectStore } from './store.js';

const CONTROLLER_UID = 'batch.kubernetes.io/controller-uid';
const JOB_NAME = 'batch.kubernetes.io/job-name';
const COMPLETION_INDEX = 'batch.kubernetes.io/job-completion-index';

function iso(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** A pod that has run its course (Succeeded or Failed). */
function terminated(pod: KubeObject): boolean {
  const phase = obj(pod['status'])?.['phase'];
  return phase === 'Succeeded' || phase === 'Failed';
}

function conditionsOf(job: KubeObject): Json[] {
  return (obj(job['status'])?.['conditions'] as Json[] | undefined) ?? [];
}

function hasCondition(job: KubeObject, type: string): boolean {
  return conditionsOf(job).some((c) => c['type'] === type && c['status'] === 'True');
}

/** Whether the Job has finished: Complete or Failed. */
export function jobFinished(job: KubeObject): boolean {
  return hasCondition(job, 'Complete') || hasCondition(job, 'Failed');
}

/** A Job the helm-controller made for a HelmChart: the helm stand-in runs it, not this controller. */
export function helmControllerJob(job: KubeObject): boolean {
  return ((job.metadata['ownerReferences'] as Json[] | undefined) ?? []).some((r) => r['kind'] === 'HelmChart' && r['controller'] === true);
}

/** The Job that controls a pod, if any. */
export function controllingJob(store: ObjectStore, pod: KubeObject): KubeObject | undefined {
  const ref = ((pod.metadata['ownerReferences'] as Json[] | undefined) ?? []).find((r) => r['kind'] === 'Job' && r['controller'] === true);
  if (!ref) return undefined;
  const job = store.get('jobs', pod.metadata.namespace, String(ref['name']));
  return job && job.metadata['uid'] === ref['uid'] ? job : undefined;
}

/** The pods a Job controls. */
export function jobPods(store: ObjectStore, job: KubeObject): KubeObject[] {
  return store
    .list('pods', job.metadata.namespace)
    .filter((p) => ((p.metadata['ownerReferences'] as Json[] | undefined) ?? []).some((r) => r['kind'] === 'Job' && r['uid'] === job.metadata['uid']));
}

/**
 * A Job as the API server stores it on create or update: the defaults (completions and parallelism 1 when neither is
 * given, backoffLimit 6, NonIndexed, not suspended, podReplacementPolicy TerminatingOrFailed), then validation: a
 * pod template that restarts Always (the pod defaults give it one without a restartPolicy) is refused, as are
 * negative counts and an Indexed Job without completions.
 */
export function prepareJob(next: KubeObject, current: KubeObject | null): KubeObject {
  const spec = { ...(obj(next['spec']) ?? {}) };
  const name = next.metadata.name;
  if (spec['completions'] === undefined && spec['parallelism'] === undefined) spec['completions'] = 1;
  spec['parallelism'] ??= 1;
  spec['backoffLimit'] ??= 6;
  spec['completionMode'] ??= 'NonIndexed';
  spec['suspend'] ??= false;
  spec['podReplacementPolicy'] ??= 'TerminatingOrFailed';
  const causes: Array<{ reason: string; message: string; field: string }> = [];
  const restartPolicy = obj(obj(spec['template'])?.['spec'])?.['restartPolicy'];
  if (restartPolicy !== 'OnFailure' && restartPolicy !== 'Never')
    causes.push({
      reason: 'FieldValueNotSupported',
      message: `Unsupported value: ${JSON.stringify(restartPolicy ?? '')}: supported values: "OnFailure", "Never"`,
      field: 'spec.template.spec.restartPolicy',
    });
  for (const field of ['completions', 'parallelism', 'backoffLimit', 'activeDeadlineSeconds', 'ttlSecondsAfterFinished']) {
    const v = spec[field];
    if (v !== undefined && v !== null && (typeof v !== 'number' || v < (field === 'activeDeadlineSeconds' ? 1 : 0)))
      causes.push({
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${JSON.stringify(v)}: must be ${field === 'activeDeadlineSeconds' ? 'greater than zero' : 'greater than or equal to 0'}`,
        field: `spec.${field}`,
      });
  }
  if (spec['completionMode'] === 'Indexed' && typeof spec['completions'] !== 'number')
    causes.push({ reason: 'FieldValueRequired', message: 'Required value: when completion mode is Indexed', field: 'spec.completions' });
  if (current) {
    // The selector and the pod template are immutable once the Job exists (a suspended Job's template may change).
    const was = obj(current['spec']) ?? {};
    spec['selector'] = was['selector'];
    if (was['suspend'] !== true && JSON.stringify(withJobLabels(spec['template'], current)) !== JSON.stringify(was['template']))
      causes.push({ reason: 'FieldValueInvalid', message: 'Invalid value: field is immutable', field: 'spec.template' });
    else spec['template'] = withJobLabels(spec['template'], current);
  }
  if (causes.length > 0) throw invalidFields('jobs', name, causes);
  return { ...next, apiVersion: 'batch/v1', kind: 'Job', spec, status: current ? current['status'] : {} };
}

function withJobLabels(template: unknown, job: KubeObject): Json {
  const t = obj(template) ?? {};
  const uid = String(job.metadata['uid']);
  const name = job.metadata.name;
  const labels = { ...(obj(obj(t['metadata'])?.['labels']) ?? {}), [CONTROLLER_UID]: uid, [JOB_NAME]: name, 'controller-uid': uid, 'job-name': name };
  return { ...t, metadata: { ...(obj(t['metadata']) ?? {}), labels } };
}

/**
 * The created Job with the selector the API server generates from its uid (unless `manualSelector`), and the
 * labels it adds to the pod template so that the selector matches (both the batch.kubernetes.io/ keys and the legacy
 * ones, as since Kubernetes 1.27).
 */
export function withGeneratedSelector(job: KubeObject): KubeObject {
  const spec = obj(job['spec']) ?? {};
  if (spec['manualSelector'] === true) return job;
  return {
    ...job,
    spec: { ...spec, selector: { matchLabels: { [CONTROLLER_UID]: String(job.metadata['uid']) } }, template: withJobLabels(spec['template'], job) },
  };
}

/** What the Job controller needs of the cluster: its objects, a pod's start, and a later look. */
export interface JobHost {
  store: ObjectStore;
  /** The Kubernetes minor the cluster runs (conditions differ by version). */
  minor: number;
  /** Looks at the cluster's Jobs again at `atMs` (a deadline, a TTL). */
  wakeAt(atMs: number, key: string): void;
  /** Deletes a Job and, in the background, its pods (the TTL controller's deletion). */
  deleteJob(job: KubeObject, nowMs: number): void;
}

/** The Job controller's pass over every Job but the helm-controller's. */
export function reconcileJobs(host: JobHost, nowMs: number): void {
  for (const job of host.store.list('jobs')) {
    if (job.metadata['deletionTimestamp'] !== undefined || helmControllerJob(job)) continue;
    syncJob(host, job, nowMs);
  }
}

function syncJob(host: JobHost, job: KubeObject, nowMs: number): void {
  const store = host.store;
  const spec = obj(job['spec']) ?? {};
  const status = obj(job['status']) ?? {};
  const pods = jobPods(store, job);
  const live = pods.filter((p) => !terminated(p) && p.metadata['deletionTimestamp'] === undefined);
  const succeeded = pods.filter((p) => obj(p['status'])?.['phase'] === 'Succeeded');
  const failed = pods.filter((p) => obj(p['status'])?.['phase'] === 'Failed').length;
  const ready = live.filter((p) =>
    ((obj(p['status'])?.['conditions'] as Json[] | undefined) ?? []).some((c) => c['type'] === 'Ready' && c['status'] === 'True'),
  );
  if (jobFinished(job)) {
    const ttl = spec['ttlSecondsAfterFinished'];
    const finishedAt = Date.parse(String(status['completionTime'] ?? conditionsOf(job).find((c) => c['type'] === 'Failed')?.['lastTransitionTime'] ?? ''));
    if (typeof ttl === 'number' && Number.isFinite(finishedAt)) {
      if (finishedAt + ttl * 1000 <= nowMs) host.deleteJob(job, nowMs);
      else host.wakeAt(finishedAt + ttl * 1000, `ttl/${String(job.metadata['uid'])}`);
    }
    return;
  }
  const indexed = spec['completionMode'] === 'Indexed';
  const completions = typeof spec['completions'] === 'number' ? spec['completions'] : undefined;
  const parallelism = typeof spec['parallelism'] === 'number' ? spec['parallelism'] : 1;
  const doneIndexes = new Set(succeeded.map((p) => Number(obj(p.metadata['annotations'])?.[COMPLETION_INDEX])));
  const succeededCount = indexed ? doneIndexes.size : succeeded.length;
  const conditions: Json[] = conditionsOf(job).filter((c) => c['type'] !== 'Suspended' || spec['suspend'] === true);
  const at = iso(nowMs);
  const next: Json = {
    ...status,
    ...(spec['suspend'] === true ? {} : { startTime: status['startTime'] ?? at }),
    ready: ready.length,
    terminating: pods.filter((p) => p.metadata['deletionTimestamp'] !== undefined).length,
    uncountedTerminatedPods: {},
  };
  const counts = (active: number): Json => ({
    ...(active > 0 ? { active } : {}),
    ...(succeededCount > 0 ? { succeeded: succeededCount } : {}),
    ...(failed > 0 ? { failed } : {}),
    ...(indexed && doneIndexes.size > 0 ? { completedIndexes: indexRanges([...doneIndexes]) } : {}),
  });
  for (const k of ['active', 'succeeded', 'failed', 'completedIndexes']) delete next[k];
  const complete = completions !== undefined ? succeededCount >= completions : succeededCount > 0 && live.length === 0;
  const deadline = spec['activeDeadlineSeconds'];
  const startedAt = Date.parse(String(next['startTime'] ?? ''));
  if (complete) {
    // Since 1.31 (JobSuccessPolicy) the Job first meets its success criteria, then completes.
    const met =
      host.minor >= 31
        ? [
            {
              type: 'SuccessCriteriaMet',
              status: 'True',
              reason: 'CompletionsReached',
              message: 'Reached expected number of succeeded pods',
              lastProbeTime: at,
              lastTransitionTime: at,
            },
          ]
        : [];
    writeStatus(store, job, {
      ...next,
      ...counts(0),
      completionTime: at,
      conditions: [...conditions, ...met, { type: 'Complete', status: 'True', lastProbeTime: at, lastTransitionTime: at }],
    });
    for (const p of live) store.delete('pods', p.metadata.namespace, p.metadata.name);
    return syncJob(host, store.get('jobs', job.metadata.namespace, job.metadata.name) ?? job, nowMs);
  }
  if (typeof deadline === 'number' && Number.isFinite(startedAt) && spec['suspend'] !== true) {
    if (startedAt + deadline * 1000 <= nowMs) {
      for (const p of live) store.delete('pods', p.metadata.namespace, p.metadata.name);
      const failedCondition = { type: 'Failed', status: 'True', reason: 'DeadlineExceeded', message: 'Job was active longer than specified deadline' };
      const target = host.minor >= 31 ? [{ ...failedCondition, type: 'FailureTarget', lastProbeTime: at, lastTransitionTime: at }] : [];
      writeStatus(store, job, {
        ...next,
        ...counts(0),
        conditions: [...conditions, ...target, { ...failedCondition, lastProbeTime: at, lastTransitionTime: at }],
      });
      return syncJob(host, store.get('jobs', job.metadata.namespace, job.metadata.name) ?? job, nowMs);
    }
    host.wakeAt(startedAt + deadline * 1000, `deadline/${String(job.metadata['uid'])}`);
  }
  if (spec['suspend'] === true) {
    for (const p of live) store.delete('pods', p.metadata.namespace, p.metadata.name);
    const suspended = conditions.some((c) => c['type'] === 'Suspended')
      ? conditions
      : [...conditions, { type: 'Suspended', status: 'True', reason: 'JobSuspended', message: 'Job suspended', lastProbeTime: at, lastTransitionTime: at }];
    writeStatus(store, job, { ...next, ...counts(0), conditions: suspended });
    return;
  }
  // Pods to start: up to parallelism at once, no more than the completions still to come.
  const wanted = completions === undefined ? (succeededCount > 0 ? 0 : parallelism) : Math.min(parallelism, completions - succeededCount);
  const running = new Set(live.map((p) => Number(obj(p.metadata['annotations'])?.[COMPLETION_INDEX])));
  let active = live.length;
  for (let index = 0; active < wanted && (!indexed || index < (completions ?? 0)); index++) {
    if (indexed && (doneIndexes.has(index) || running.has(index))) continue;
    store.create('pods', jobPod(job, indexed ? index : undefined, pods.length + active), nowMs);
    active++;
  }
  writeStatus(store, job, { ...next, ...counts(active), conditions });
}

function writeStatus(store: ObjectStore, job: KubeObject, status: Json): void {
  const clean = { ...status };
  if ((clean['conditions'] as Json[] | undefined)?.length === 0) delete clean['conditions'];
  if (JSON.stringify(job['status'] ?? {}) === JSON.stringify(clean)) return;
  store.replace('jobs', { ...job, status: clean });
}

/** `0-2,4`: succeeded indexes as the Job status writes them. */
function indexRanges(indexes: number[]): string {
  const sorted = [...new Set(indexes)].filter(Number.isFinite).sort((a, b) => a - b);
  const out: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === (sorted[j] ?? 0) + 1) j++;
    out.push(i === j ? `${sorted[i]}` : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return out.join(',');
}

/** A pod of the Job, as the controller makes it from the template (generateName `<job>-`, or `<job>-<index>-`). */
function jobPod(job: KubeObject, index: number | undefined, seq: number): KubeObject {
  const spec = obj(job['spec']) ?? {};
  const template = obj(spec['template']) ?? {};
  const uid = String(job.metadata['uid']);
  const suffix = createHash('sha256').update(`${uid}/${seq}`).digest('hex').replace(/[0-9]/g, '').padEnd(5, 'x').slice(0, 5);
  const templateMeta = obj(template['metadata']) ?? {};
  const podSpec = structuredClone(obj(template['spec']) ?? {});
  if (index !== undefined)
    podSpec['containers'] = ((podSpec['containers'] as Json[] | undefined) ?? []).map((c) => ({
      ...c,
      env: [
        ...((c['env'] as Json[] | undefined) ?? []),
        { name: 'JOB_COMPLETION_INDEX', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: `metadata.labels['${COMPLETION_INDEX}']` } } },
      ],
    }));
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `${job.metadata.name}-${index !== undefined ? `${index}-` : ''}${suffix}`,
      generateName: `${job.metadata.name}-${index !== undefined ? `${index}-` : ''}`,
      namespace: job.metadata.namespace ?? 'default',
      labels: { ...(obj(templateMeta['labels']) ?? {}), ...(index !== undefined ? { [COMPLETION_INDEX]: String(index) } : {}) },
      ...(index !== undefined || templateMeta['annotations']
        ? { annotations: { ...(obj(templateMeta['annotations']) ?? {}), ...(index !== undefined ? { [COMPLETION_INDEX]: String(index) } : {}) } }
        : {}),
      ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: job.metadata.name, uid, controller: true, blockOwnerDeletion: true }],
    },
    spec: podSpec,
    status: { phase: 'Pending' },
  };
}

/**
 * A Job's pod whose containers have run their course: Succeeded, each container terminated with exit code 0
 * (reason Completed), Ready and ContainersReady False with reason PodCompleted, as the kubelet reports it.
 */
export function completedPod(pod: KubeObject, nowMs: number): KubeObject {
  const status = obj(pod['status']) ?? {};
  const at = iso(nowMs);
  const containers = ((status['containerStatuses'] as Json[] | undefined) ?? []).map((c) => {
    const startedAt = obj(obj(c['state'])?.['running'])?.['startedAt'] ?? at;
    return { ...c, ready: false, started: false, state: { terminated: { exitCode: 0, reason: 'Completed', startedAt, finishedAt: at } } };
  });
  const conditions = ((status['conditions'] as Json[] | undefined) ?? []).map((c) =>
    c['type'] === 'Ready' || c['type'] === 'ContainersReady' ? { ...c, status: 'False', reason: 'PodCompleted', lastTransitionTime: at } : c,
  );
  return { ...pod, status: { ...status, phase: 'Succeeded', conditions, containerStatuses: containers } };
}
