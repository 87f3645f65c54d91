// The Deployment and ReplicaSet controllers (kubernetes/pkg/controller/deployment and pkg/controller/replicaset): a
// Deployment owns one ReplicaSet per pod template it has had, named <deployment>-<pod-template-hash> and numbered by
// the `deployment.kubernetes.io/revision` annotation; the ReplicaSet of the current template holds the replicas, older
// ones are scaled to zero and kept up to spec.revisionHistoryLimit (sync.go cleanupDeployment), which is what
// `kubectl rollout history` lists and `kubectl rollout undo` copies a template back from. The status and its
// `Available` and `Progressing` conditions are worded as pkg/controller/deployment/util/deployment_util.go and
// progress.go word them. Not modelled: surge and pacing (a new template takes every replica at once, the old
// ReplicaSets go to zero in the same pass), minReadySeconds (ready is available) and the ReplicaFailure condition.
import { createHash } from 'node:crypto';
import { matchesSelector, ownedBy, controllerOf, ownerReference, type RecordEvent } from './owners.js';
import { iso, obj, type Json, type KubeObject, type ObjectStore } from './store.js';

export const REVISION = 'deployment.kubernetes.io/revision';
const REVISION_HISTORY = 'deployment.kubernetes.io/revision-history';
const DESIRED_REPLICAS = 'deployment.kubernetes.io/desired-replicas';
const MAX_REPLICAS = 'deployment.kubernetes.io/max-replicas';
const HASH_LABEL = 'pod-template-hash';
/** Annotations a Deployment does not pass on to its ReplicaSets (deployment_util.go skipCopyAnnotation). */
const NOT_COPIED = new Set([
  'kubectl.kubernetes.io/last-applied-configuration',
  REVISION,
  REVISION_HISTORY,
  DESIRED_REPLICAS,
  MAX_REPLICAS,
  'deprecated.deployment.rollback.to',
]);

const list = (v: unknown): Json[] => (Array.isArray(v) ? v.filter((x): x is Json => obj(x) !== undefined) : []);

/**
 * JSON with sorted keys and without null or empty-object fields: two templates are the same whatever order a patch
 * left their fields in, and the API server, decoding into Go structs, sees no difference between a field sent as
 * null or {} and one left out (kubectl sends a template's `creationTimestamp: null`).
 */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const o = obj(value);
  if (!o) return JSON.stringify(value ?? null);
  // Each field is written once: asking canonical() of a field in a filter and again in the map doubled the work at
  // every level of nesting, which a pod template's depth made the sandbox's hottest path.
  const fields: string[] = [];
  for (const k of Object.keys(o).sort()) {
    if (o[k] === undefined || o[k] === null) continue;
    const field = canonical(o[k]);
    if (field !== '{}') fields.push(`${JSON.stringify(k)}:${field}`);
  }
  return `{${fields.join(',')}}`;
}

/** A pod template without the pod-template-hash label (deployment_util.go EqualIgnoreHash compares templates so). */
function withoutHash(template: unknown): Json {
  const t = structuredClone(obj(template) ?? {});
  const meta = obj(t['metadata']);
  const labels = obj(meta?.['labels']);
  if (meta && labels) {
    delete labels[HASH_LABEL];
    if (Object.keys(labels).length === 0) delete meta['labels'];
  }
  if (meta && Object.keys(meta).length === 0) delete t['metadata'];
  return t;
}

const SAFE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/**
 * The pod-template-hash: Kubernetes takes FNV-32a of the template (controller.ComputeHash) and writes the number in
 * rand.SafeEncodeString's alphabet (no vowels, no 0, 1, 3); the same alphabet here over a hash of the canonical template.
 */
export function podTemplateHash(template: unknown): string {
  const hex = createHash('sha256')
    .update(canonical(withoutHash(template)))
    .digest('hex');
  let n = BigInt(`0x${hex.slice(0, 15)}`);
  let out = '';
  for (let i = 0; i < 10; i++) {
    out += SAFE_ALPHABET[Number(n % 27n)];
    n /= 27n;
  }
  return out;
}

/** Five characters of the safe alphabet from `seed`: the random suffix of a generated name (names.SimpleNameGenerator). */
export function nameSuffix(seed: string): string {
  const digest = createHash('sha256').update(seed).digest();
  let out = '';
  for (let i = 0; i < 5; i++) out += SAFE_ALPHABET[(digest[i] ?? 0) % 27];
  return out;
}

function revisionOf(rs: KubeObject): number {
  const v = Number((rs.metadata['annotations'] as Record<string, string> | undefined)?.[REVISION] ?? '0');
  return Number.isFinite(v) ? v : 0;
}

function replicasOf(o: KubeObject): number {
  const r = obj(o['spec'])?.['replicas'];
  return typeof r === 'number' ? r : 1;
}

/** An int-or-percent of `total` (intstr.GetScaledValueFromIntOrPercent). */
export function scaled(value: unknown, total: number, roundUp: boolean): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && /^\d+%$/.test(value)) {
    const v = (Number(value.slice(0, -1)) * total) / 100;
    return roundUp ? Math.ceil(v) : Math.floor(v);
  }
  if (typeof value === 'string' && /^\d+$/.test(value)) return Number(value);
  return 0;
}

/** maxSurge and maxUnavailable resolved against the replicas (deployment_util.go ResolveFenceposts, MaxUnavailable). */
function fenceposts(deployment: KubeObject): { surge: number; unavailable: number } {
  const spec = obj(deployment['spec']) ?? {};
  const strategy = obj(spec['strategy']) ?? {};
  const replicas = replicasOf(deployment);
  if (strategy['type'] === 'Recreate') return { surge: 0, unavailable: 0 };
  const rolling = obj(strategy['rollingUpdate']) ?? {};
  const surge = scaled(rolling['maxSurge'] ?? '25%', replicas, true);
  let unavailable = scaled(rolling['maxUnavailable'] ?? '25%', replicas, false);
  if (surge === 0 && unavailable === 0) unavailable = 1;
  return { surge, unavailable: replicas === 0 ? 0 : Math.min(unavailable, replicas) };
}

/** The API server's defaults for an apps/v1 Deployment's spec (pkg/apis/apps/v1/defaults.go SetDefaults_Deployment). */
export function defaultDeploymentSpec(spec: Json): Json {
  const strategy = obj(spec['strategy']) ?? {};
  const type = strategy['type'] ?? 'RollingUpdate';
  return {
    ...spec,
    replicas: spec['replicas'] ?? 1,
    strategy:
      type === 'RollingUpdate'
        ? { ...strategy, type, rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%', ...(obj(strategy['rollingUpdate']) ?? {}) } }
        : { ...strategy, type },
    revisionHistoryLimit: spec['revisionHistoryLimit'] ?? 10,
    progressDeadlineSeconds: spec['progressDeadlineSeconds'] ?? 600,
  };
}

function annotationsOf(o: KubeObject): Record<string, string> {
  return { ...((o.metadata['annotations'] as Record<string, string> | undefined) ?? {}) };
}

function podActive(pod: KubeObject): boolean {
  const phase = obj(pod['status'])?.['phase'];
  return phase !== 'Succeeded' && phase !== 'Failed' && pod.metadata['deletionTimestamp'] === undefined;
}

function podReady(pod: KubeObject): boolean {
  return list(obj(pod['status'])?.['conditions']).some((c) => c['type'] === 'Ready' && c['status'] === 'True');
}

/** The ReplicaSets a Deployment controls, adopting orphans its selector matches (controller_ref_manager.go). */
export function replicaSetsOf(store: ObjectStore, deployment: KubeObject): KubeObject[] {
  const ns = deployment.metadata.namespace;
  const selector = obj(obj(deployment['spec'])?.['selector']);
  const out: KubeObject[] = [];
  for (const rs of store.list('replicasets', ns)) {
    if (ownedBy(rs, deployment)) out.push(rs);
    else if (
      !controllerOf(rs) &&
      rs.metadata['deletionTimestamp'] === undefined &&
      deployment.metadata['deletionTimestamp'] === undefined &&
      matchesSelector(selector, rs.metadata.labels ?? {})
    ) {
      out.push(
        store.replace('replicasets', {
          ...rs,
          metadata: { ...rs.metadata, ownerReferences: [...list(rs.metadata['ownerReferences']), ownerReference(deployment, 'apps/v1', 'Deployment')] },
        }),
      );
    }
  }
  return out;
}

/** The pods a ReplicaSet controls, adopting orphans its selector matches; only active ones. */
function podsOf(store: ObjectStore, rs: KubeObject): KubeObject[] {
  const selector = obj(obj(rs['spec'])?.['selector']);
  const out: KubeObject[] = [];
  for (const pod of store.list('pods', rs.metadata.namespace)) {
    if (!podActive(pod)) continue;
    if (ownedBy(pod, rs)) out.push(pod);
    else if (!controllerOf(pod) && rs.metadata['deletionTimestamp'] === undefined && matchesSelector(selector, pod.metadata.labels ?? {})) {
      out.push(
        store.replace('pods', {
          ...pod,
          metadata: { ...pod.metadata, ownerReferences: [...list(pod.metadata['ownerReferences']), ownerReference(rs, 'apps/v1', 'ReplicaSet')] },
        }),
      );
    }
  }
  return out;
}

/**
 * Which pods go first when a ReplicaSet scales down (controller_utils.go ActivePods ordering): unscheduled before
 * scheduled, pending before running, not ready before ready, then the newest.
 */
function deletionRank(pod: KubeObject): string {
  const scheduled = typeof obj(pod['spec'])?.['nodeName'] === 'string' ? 1 : 0;
  const running = obj(pod['status'])?.['phase'] === 'Running' ? 1 : 0;
  const ready = podReady(pod) ? 1 : 0;
  const created = Date.parse(String(pod.metadata['creationTimestamp'] ?? '')) || 0;
  return `${scheduled}${running}${ready}${String(9e15 - created).padStart(16, '0')}`;
}

function setCondition(conditions: Json[], next: Json): Json[] {
  const current = conditions.find((c) => c['type'] === next['type']);
  if (current && current['status'] === next['status'] && current['reason'] === next['reason']) return conditions;
  const kept = current && current['status'] === next['status'] ? { ...next, lastTransitionTime: current['lastTransitionTime'] } : next;
  return [...conditions.filter((c) => c['type'] !== next['type']), kept];
}

function condition(type: string, status: 'True' | 'False' | 'Unknown', reason: string, message: string, nowMs: number): Json {
  return { type, status, lastUpdateTime: iso(nowMs), lastTransitionTime: iso(nowMs), reason, message };
}

/**
 * The Deployment controller's sync: the new ReplicaSet made or found, revisions numbered, the replicas moved to it,
 * old ReplicaSets beyond the history limit deleted. A paused Deployment only scales (no new ReplicaSet).
 */
export function reconcileDeployments(store: ObjectStore, nowMs: number, record: RecordEvent): void {
  // sync.go scaleReplicaSet's event; a new ReplicaSet's first scale names no "from".
  const scaledEvent = (deployment: KubeObject, rs: KubeObject, to: number, from: number | undefined) =>
    record(
      deployment,
      'deployment-controller',
      'ScalingReplicaSet',
      `Scaled ${from === undefined || to > from ? 'up' : 'down'} replica set ${rs.metadata.name} to ${to}${from === undefined ? '' : ` from ${from}`}`,
    );
  for (const deployment of store.list('deployments')) {
    if (deployment.metadata['deletionTimestamp'] !== undefined) continue;
    const spec = obj(deployment['spec']) ?? {};
    const template = obj(spec['template']) ?? {};
    const replicas = replicasOf(deployment);
    const ns = deployment.metadata.namespace ?? 'default';
    const owned = replicaSetsOf(store, deployment);
    let current = owned.find((rs) => canonical(withoutHash(obj(rs['spec'])?.['template'])) === canonical(withoutHash(template)));
    const old = owned.filter((rs) => rs !== current);
    const maxOld = old.reduce((m, rs) => Math.max(m, revisionOf(rs)), 0);
    const paused = spec['paused'] === true;
    const { surge } = fenceposts(deployment);
    const copied = Object.fromEntries(Object.entries(annotationsOf(deployment)).filter(([k]) => !NOT_COPIED.has(k)));
    let status = obj(deployment['status']) ?? {};
    if (!current && !paused) {
      const hash = podTemplateHash(template);
      const templateMeta = obj(template['metadata']) ?? {};
      const labels = { ...((obj(templateMeta['labels']) ?? {}) as Record<string, string>), [HASH_LABEL]: hash };
      const selector = obj(spec['selector']) ?? {};
      const name = `${deployment.metadata.name}-${hash}`;
      const taken = store.get('replicasets', ns, name);
      // A name held by a ReplicaSet this Deployment does not own: the real controller counts a collision and rehashes.
      if (taken) continue;
      current = store.create(
        'replicasets',
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          metadata: {
            name,
            namespace: ns,
            labels,
            annotations: { ...copied, [DESIRED_REPLICAS]: String(replicas), [MAX_REPLICAS]: String(replicas + surge), [REVISION]: String(maxOld + 1) },
            ownerReferences: [ownerReference(deployment, 'apps/v1', 'Deployment')],
          },
          spec: {
            replicas,
            ...(spec['minReadySeconds'] !== undefined ? { minReadySeconds: spec['minReadySeconds'] } : {}),
            selector: { ...selector, matchLabels: { ...((obj(selector['matchLabels']) ?? {}) as Record<string, string>), [HASH_LABEL]: hash } },
            template: { ...structuredClone(template), metadata: { ...structuredClone(templateMeta), labels } },
          },
          status: { replicas: 0 },
        },
        nowMs,
      );
      if (replicas > 0) scaledEvent(deployment, current, replicas, undefined);
      status = {
        ...status,
        conditions: setCondition(
          list(status['conditions']),
          condition('Progressing', 'True', 'NewReplicaSetCreated', `Created new replica set "${name}"`, nowMs),
        ),
      };
    } else if (current) {
      // The current template's ReplicaSet takes the next revision when an older one held it (a rollback), and keeps
      // the revisions it had in revision-history (sync.go getNewReplicaSet, SetNewReplicaSetAnnotations).
      const annotations = annotationsOf(current);
      const revision = revisionOf(current);
      const next: Record<string, string> = { ...annotations, ...copied, [DESIRED_REPLICAS]: String(replicas), [MAX_REPLICAS]: String(replicas + surge) };
      if (!paused && revision <= maxOld) {
        next[REVISION] = String(maxOld + 1);
        if (revision > 0) next[REVISION_HISTORY] = [annotations[REVISION_HISTORY], String(revision)].filter((x) => x).join(',');
      }
      if (replicasOf(current) !== replicas || canonical(next) !== canonical(annotations)) {
        if (replicasOf(current) !== replicas) scaledEvent(deployment, current, replicas, replicasOf(current));
        current = store.replace(
          'replicasets',
          {
            ...current,
            metadata: { ...current.metadata, annotations: next },
            spec: { ...(obj(current['spec']) ?? {}), replicas },
          },
          { update: true },
        );
      }
      if (!list(status['conditions']).some((c) => c['type'] === 'Progressing')) {
        status = {
          ...status,
          conditions: setCondition(
            list(status['conditions']),
            condition('Progressing', 'True', 'FoundNewReplicaSet', `Found new replica set "${current.metadata.name}"`, nowMs),
          ),
        };
      }
    }
    // Without pacing: the old ReplicaSets give up their replicas in the same pass (a paused rollout keeps them).
    if (current) {
      for (const rs of old) {
        if (replicasOf(rs) === 0 || paused) continue;
        scaledEvent(deployment, rs, 0, replicasOf(rs));
        store.replace('replicasets', { ...rs, spec: { ...(obj(rs['spec']) ?? {}), replicas: 0 } }, { update: true });
      }
    }
    // sync.go cleanupDeployment: old ReplicaSets with no replicas left beyond the history limit go, oldest first.
    const limit = typeof spec['revisionHistoryLimit'] === 'number' ? spec['revisionHistoryLimit'] : 10;
    const idle = old
      .map((rs) => store.get('replicasets', ns, rs.metadata.name) ?? rs)
      .filter((rs) => replicasOf(rs) === 0 && Number(obj(rs['status'])?.['replicas'] ?? 0) === 0 && rs.metadata['deletionTimestamp'] === undefined)
      .sort((a, b) => revisionOf(a) - revisionOf(b));
    for (const rs of idle.slice(0, Math.max(0, idle.length - limit))) store.delete('replicasets', ns, rs.metadata.name);
    const revision = current ? String(revisionOf(store.get('replicasets', ns, current.metadata.name) ?? current)) : undefined;
    const annotations = annotationsOf(deployment);
    const fresh = store.get('deployments', ns, deployment.metadata.name) ?? deployment;
    if ((revision !== undefined && annotations[REVISION] !== revision) || canonical(status) !== canonical(obj(deployment['status']) ?? {})) {
      store.replace('deployments', {
        ...fresh,
        metadata: { ...fresh.metadata, annotations: { ...annotationsOf(fresh), ...(revision !== undefined ? { [REVISION]: revision } : {}) } },
        status,
      });
    }
  }
}

/** The ReplicaSet controller: as many pods as spec.replicas, made from its template; status counted from them. */
export function reconcileReplicaSets(store: ObjectStore, nowMs: number, record: RecordEvent): void {
  for (const rs of store.list('replicasets')) {
    const ns = rs.metadata.namespace ?? 'default';
    const pods = podsOf(store, rs);
    if (rs.metadata['deletionTimestamp'] === undefined) {
      const want = replicasOf(rs);
      const template = obj(obj(rs['spec'])?.['template']) ?? {};
      const templateMeta = obj(template['metadata']) ?? {};
      for (let i = pods.length; i < want; i++) {
        const pod = store.create(
          'pods',
          {
            apiVersion: 'v1',
            kind: 'Pod',
            metadata: {
              ...structuredClone(templateMeta),
              name: `${rs.metadata.name}-${nameSuffix(`${String(rs.metadata['uid'])}/${store.revision}`)}`,
              generateName: `${rs.metadata.name}-`,
              namespace: ns,
              ownerReferences: [ownerReference(rs, 'apps/v1', 'ReplicaSet')],
            },
            spec: structuredClone(obj(template['spec']) ?? {}),
            status: { phase: 'Pending', conditions: [{ type: 'Ready', status: 'False' }] },
          },
          nowMs,
        );
        record(rs, 'replicaset-controller', 'SuccessfulCreate', `Created pod: ${pod.metadata.name}`);
        pods.push(pod);
      }
      if (pods.length > want) {
        const surplus = [...pods].sort((a, b) => (deletionRank(a) < deletionRank(b) ? -1 : 1)).slice(0, pods.length - want);
        for (const pod of surplus) {
          store.delete('pods', ns, pod.metadata.name);
          record(rs, 'replicaset-controller', 'SuccessfulDelete', `Deleted pod: ${pod.metadata.name}`);
          pods.splice(pods.indexOf(pod), 1);
        }
      }
    }
    const templateLabels = (obj(obj(obj(rs['spec'])?.['template'])?.['metadata'])?.['labels'] ?? {}) as Record<string, string>;
    const ready = pods.filter(podReady).length;
    const fullyLabeled = pods.filter((p) => Object.entries(templateLabels).every(([k, v]) => p.metadata.labels?.[k] === v)).length;
    // ReplicaSetStatus: replicas always, the other counts only when not zero (omitempty).
    const status: Json = {
      replicas: pods.length,
      ...(fullyLabeled > 0 ? { fullyLabeledReplicas: fullyLabeled } : {}),
      ...(ready > 0 ? { readyReplicas: ready, availableReplicas: ready } : {}),
      observedGeneration: rs.metadata['generation'],
    };
    const fresh = store.get('replicasets', ns, rs.metadata.name);
    if (fresh && canonical(fresh['status']) !== canonical(status)) store.replace('replicasets', { ...fresh, status });
  }
}

/**
 * Each Deployment's status from its ReplicaSets (sync.go calculateStatus, progress.go syncRolloutStatus): counts, the
 * Available condition (minimum availability: available ≥ replicas − maxUnavailable) and the Progressing condition
 * (progressing while counts move, NewReplicaSetAvailable once complete, ProgressDeadlineExceeded past the deadline).
 */
export function deploymentStatuses(store: ObjectStore, nowMs: number): void {
  for (const deployment of store.list('deployments')) {
    const ns = deployment.metadata.namespace;
    const spec = obj(deployment['spec']) ?? {};
    const owned = store.list('replicasets', ns).filter((rs) => ownedBy(rs, deployment));
    const template = obj(spec['template']) ?? {};
    const newRs = owned.find((rs) => canonical(withoutHash(obj(rs['spec'])?.['template'])) === canonical(withoutHash(template)));
    const st = (rs: KubeObject | undefined, k: string): number => Number(obj(rs?.['status'])?.[k] ?? 0);
    const sum = (k: string) => owned.reduce((n, rs) => n + st(rs, k), 0);
    const replicas = sum('replicas');
    const updated = st(newRs, 'replicas');
    const ready = sum('readyReplicas');
    const available = sum('availableReplicas');
    const total = owned.reduce((n, rs) => n + replicasOf(rs), 0);
    const unavailable = Math.max(0, total - available);
    const before = obj(deployment['status']) ?? {};
    const wanted = replicasOf(deployment);
    const generation = deployment.metadata['generation'];
    let conditions = list(before['conditions']);
    const { unavailable: maxUnavailable } = fenceposts(deployment);
    conditions =
      available >= wanted - maxUnavailable
        ? setCondition(conditions, condition('Available', 'True', 'MinimumReplicasAvailable', 'Deployment has minimum availability.', nowMs))
        : setCondition(conditions, condition('Available', 'False', 'MinimumReplicasUnavailable', 'Deployment does not have minimum availability.', nowMs));
    const progressing = conditions.find((c) => c['type'] === 'Progressing');
    // deployment_util.go DeploymentComplete (the new status's observedGeneration is the generation it was made for).
    const complete = updated === wanted && replicas === wanted && available === wanted;
    const oldReplicas = (s: Json) => Number(s['replicas'] ?? 0) - Number(s['updatedReplicas'] ?? 0);
    const moved =
      updated > Number(before['updatedReplicas'] ?? 0) ||
      replicas - updated < oldReplicas(before) ||
      ready > Number(before['readyReplicas'] ?? 0) ||
      available > Number(before['availableReplicas'] ?? 0);
    const deadline = typeof spec['progressDeadlineSeconds'] === 'number' ? spec['progressDeadlineSeconds'] : 600;
    if (spec['paused'] === true) {
      if (progressing?.['reason'] !== 'DeploymentPaused')
        conditions = setCondition(conditions, condition('Progressing', 'Unknown', 'DeploymentPaused', 'Deployment is paused', nowMs));
    } else if (progressing?.['reason'] === 'DeploymentPaused') {
      conditions = setCondition(conditions, condition('Progressing', 'Unknown', 'DeploymentResumed', 'Deployment is resumed', nowMs));
    } else if (complete && newRs && !(replicas === updated && progressing?.['reason'] === 'NewReplicaSetAvailable')) {
      conditions = setCondition(
        conditions,
        condition('Progressing', 'True', 'NewReplicaSetAvailable', `ReplicaSet "${newRs.metadata.name}" has successfully progressed.`, nowMs),
      );
    } else if (!complete && moved) {
      const message = newRs ? `ReplicaSet "${newRs.metadata.name}" is progressing.` : `Deployment "${deployment.metadata.name}" is progressing.`;
      const next = condition('Progressing', 'True', 'ReplicaSetUpdated', message, nowMs);
      if (progressing?.['status'] === 'True') next['lastTransitionTime'] = progressing['lastTransitionTime'];
      conditions = [...conditions.filter((c) => c['type'] !== 'Progressing'), next];
    } else if (
      !complete &&
      progressing !== undefined &&
      progressing['reason'] !== 'NewReplicaSetAvailable' &&
      progressing['reason'] !== 'ProgressDeadlineExceeded' &&
      Date.parse(String(progressing['lastUpdateTime'] ?? '')) + deadline * 1000 < nowMs
    ) {
      const name = newRs ? `ReplicaSet "${newRs.metadata.name}"` : `Deployment "${deployment.metadata.name}"`;
      conditions = setCondition(conditions, condition('Progressing', 'False', 'ProgressDeadlineExceeded', `${name} has timed out progressing.`, nowMs));
    }
    // DeploymentStatus: every count is omitempty.
    const status: Json = {
      observedGeneration: generation,
      ...(replicas > 0 ? { replicas } : {}),
      ...(updated > 0 ? { updatedReplicas: updated } : {}),
      ...(ready > 0 ? { readyReplicas: ready } : {}),
      ...(available > 0 ? { availableReplicas: available } : {}),
      ...(unavailable > 0 ? { unavailableReplicas: unavailable } : {}),
      conditions,
    };
    if (canonical(status) !== canonical(before)) store.replace('deployments', { ...deployment, status });
  }
}
