// batch/v1 Jobs as a cluster runs them (jobs.ts): the API server's defaults, validation and generated selector, and
// the Job controller's pods, counts, conditions, Indexed completion, suspension, deadline and TTL.
import { describe, expect, it } from 'vitest';
import type { ClusterApi } from './cluster.js';
import { clusterWorld, refused } from './fixture.js';
import type { Json, KubeObject } from './store.js';
import { KUBE_TIMINGS } from './timings.js';

const t0 = Date.parse('2026-01-01T00:00:00Z');

const world = (version?: string) => clusterWorld({ nodes: ['w-1', 'w-2'], ...(version ? { version } : {}) });

const job = (name: string, spec: Json = {}, restartPolicy: string | null = 'Never'): Json => ({
  metadata: { name },
  spec: {
    ...spec,
    template: { spec: { ...(restartPolicy ? { restartPolicy } : {}), containers: [{ name: 'work', image: 'busybox:1.37', command: ['true'] }] } },
  },
});
const status = (o: KubeObject | undefined) => (o?.['status'] ?? {}) as Json;
const conditionTypes = (o: KubeObject | undefined) => ((status(o)['conditions'] ?? []) as Json[]).map((c) => `${String(c['type'])}=${String(c['status'])}`);
const podsOf = (api: ClusterApi, name: string) => api.list('pods', 'default').filter((p) => p.metadata.labels?.['batch.kubernetes.io/job-name'] === name);

describe('a Job', () => {
  it('is refused with a pod template that restarts Always, as the defaults give one without a restartPolicy', () => {
    const { api } = world();
    const e = refused(() => api.create('jobs', 'default', job('pi', {}, null), t0));
    expect(e.code).toBe(422);
    expect(e.message).toBe('Job.batch "pi" is invalid: spec.template.spec.restartPolicy: Unsupported value: "Always": supported values: "OnFailure", "Never"');
  });

  it('gets its defaults and a selector made from its uid, which its pods carry', () => {
    const { api, now } = world();
    const created = api.create('jobs', 'default', job('pi'), now());
    const uid = String(created.metadata['uid']);
    expect(created['spec']).toMatchObject({
      completions: 1,
      parallelism: 1,
      backoffLimit: 6,
      completionMode: 'NonIndexed',
      suspend: false,
      podReplacementPolicy: 'TerminatingOrFailed',
      selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } },
      template: { metadata: { labels: { 'batch.kubernetes.io/controller-uid': uid, 'batch.kubernetes.io/job-name': 'pi', 'job-name': 'pi' } } },
    });
    const [pod, ...more] = podsOf(api, 'pi');
    expect(more).toEqual([]);
    expect(pod?.metadata.name).toMatch(/^pi-[a-z]{5}$/);
    expect(pod?.metadata['ownerReferences']).toEqual([{ apiVersion: 'batch/v1', kind: 'Job', name: 'pi', uid, controller: true, blockOwnerDeletion: true }]);
    // The template cannot change once the Job exists.
    const changed = structuredClone(api.get('jobs', 'default', 'pi')) as Json;
    ((changed['spec'] as Json)['template'] as { spec: { containers: Array<{ image: string }> } }).spec.containers[0]!.image = 'busybox:1.36';
    expect(refused(() => api.replace('jobs', 'default', 'pi', changed, now())).message).toContain('spec.template: Invalid value: field is immutable');
  });

  it('runs its pod, which exits 0, and completes: counts, completionTime and conditions as the controller writes them', () => {
    const { api, advance, now } = world();
    api.create('jobs', 'default', job('pi'), now());
    advance(KUBE_TIMINGS.podStartMs);
    expect(status(api.get('jobs', 'default', 'pi'))).toMatchObject({ active: 1, ready: 1 });
    expect(conditionTypes(api.get('jobs', 'default', 'pi'))).toEqual([]);
    advance(KUBE_TIMINGS.jobContainerMs);
    const done = api.get('jobs', 'default', 'pi');
    expect(status(done)).toMatchObject({ succeeded: 1, ready: 0, completionTime: expect.any(String), startTime: expect.any(String) });
    expect(status(done)['active']).toBeUndefined();
    expect(conditionTypes(done)).toEqual(['SuccessCriteriaMet=True', 'Complete=True']);
    const [pod] = podsOf(api, 'pi');
    expect(status(pod)).toMatchObject({
      phase: 'Succeeded',
      containerStatuses: [{ name: 'work', ready: false, state: { terminated: { exitCode: 0, reason: 'Completed' } } }],
    });
    // Before 1.31 a Job completes without the interim condition.
    const old = world('v1.30.6');
    old.api.create('jobs', 'default', job('pi'), old.now());
    old.advance(60_000);
    expect(conditionTypes(old.api.get('jobs', 'default', 'pi'))).toEqual(['Complete=True']);
  });

  it('keeps parallelism pods at once until completions succeed; an Indexed Job gives each pod its index', () => {
    const { api, advance, now } = world();
    api.create('jobs', 'default', job('batch', { completions: 5, parallelism: 2 }), now());
    expect(podsOf(api, 'batch')).toHaveLength(2);
    advance(KUBE_TIMINGS.podStartMs + KUBE_TIMINGS.jobContainerMs);
    expect(status(api.get('jobs', 'default', 'batch'))).toMatchObject({ succeeded: 2, active: 2 });
    advance(120_000);
    expect(status(api.get('jobs', 'default', 'batch'))).toMatchObject({ succeeded: 5 });
    expect(podsOf(api, 'batch')).toHaveLength(5);
    api.create('jobs', 'default', job('idx', { completions: 3, parallelism: 3, completionMode: 'Indexed' }), now());
    const pods = podsOf(api, 'idx');
    expect(pods.map((p) => (p.metadata['annotations'] as Record<string, string> | undefined)?.['batch.kubernetes.io/job-completion-index']).sort()).toEqual([
      '0',
      '1',
      '2',
    ]);
    expect(pods.map((p) => p.metadata.name).sort()[0]).toMatch(/^idx-0-[a-z]{5}$/);
    advance(60_000);
    expect(status(api.get('jobs', 'default', 'idx'))).toMatchObject({ succeeded: 3, completedIndexes: '0-2' });
  });

  it('starts no pod while suspended, fails at its active deadline, and goes its TTL after finishing', () => {
    const { api, advance, now } = world();
    api.create('jobs', 'default', job('later', { suspend: true }), now());
    expect(podsOf(api, 'later')).toEqual([]);
    expect(conditionTypes(api.get('jobs', 'default', 'later'))).toEqual(['Suspended=True']);
    api.create('jobs', 'default', job('slow', { activeDeadlineSeconds: 3 }), now());
    advance(4_000);
    const slow = api.get('jobs', 'default', 'slow');
    expect(conditionTypes(slow)).toEqual(['FailureTarget=True', 'Failed=True']);
    expect(((status(slow)['conditions'] as Json[])[1] as Json)['reason']).toBe('DeadlineExceeded');
    expect(podsOf(api, 'slow').map((p) => [p.metadata.name, status(p)['phase'], p.metadata['deletionTimestamp']])).toEqual([]);
    api.create('jobs', 'default', job('brief', { ttlSecondsAfterFinished: 30 }), now());
    advance(KUBE_TIMINGS.podStartMs + KUBE_TIMINGS.jobContainerMs + 29_000);
    expect(api.list('jobs', 'default').map((j) => j.metadata.name)).toContain('brief');
    advance(2_000);
    expect(api.list('jobs', 'default').map((j) => j.metadata.name)).not.toContain('brief');
    expect(podsOf(api, 'brief')).toEqual([]);
  });
});
