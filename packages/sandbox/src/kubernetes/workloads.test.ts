// The controllers whose effects clients read: Deployments' ReplicaSets and rollouts, the garbage collector, the
// cilium DaemonSet, PodDisruptionBudgets and evictions, and pod addresses from each node's podCIDR.
import { describe, expect, it } from 'vitest';
import { discovery } from './discovery.js';
import { clusterWorld, refused } from './fixture.js';
import type { Json, KubeObject } from './store.js';

const t0 = Date.parse('2026-01-01T00:00:00Z');

const world = () => clusterWorld();

const deployment = (name: string, image: string, replicas: number): Json => ({
  metadata: { name },
  spec: {
    replicas,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name, image }] } },
  },
});

const annotations = (o: KubeObject) => (o.metadata['annotations'] ?? {}) as Record<string, string>;
const refs = (o: KubeObject) => (o.metadata['ownerReferences'] ?? []) as Json[];
const status = (o: KubeObject) => (o['status'] ?? {}) as Json;
const conditions = (o: KubeObject) => (status(o)['conditions'] ?? []) as Json[];

describe('Deployments', () => {
  it('own a ReplicaSet named by the pod-template-hash, at revision 1, whose pods name it by uid', () => {
    const { api, advance } = world();
    const d = api.create('deployments', 'default', deployment('web', 'nginx:1.25', 3), t0);
    advance(30_000);
    const [rs, ...more] = api.list('replicasets', 'default');
    expect(more).toEqual([]);
    const hash = rs?.metadata.labels?.['pod-template-hash'];
    expect(rs?.metadata.name).toBe(`web-${hash}`);
    expect(annotations(rs as KubeObject)['deployment.kubernetes.io/revision']).toBe('1');
    expect(refs(rs as KubeObject)).toEqual([
      { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: d.metadata['uid'], controller: true, blockOwnerDeletion: true },
    ]);
    const pods = api.list('pods', 'default');
    expect(pods).toHaveLength(3);
    for (const p of pods) expect(refs(p)[0]).toMatchObject({ kind: 'ReplicaSet', name: rs?.metadata.name, uid: rs?.metadata['uid'] });
  });

  it('roll a new template out as revision 2 with revision 1 at zero, and an undo reuses revision 1 as revision 3', () => {
    const { api, advance } = world();
    api.create('deployments', 'default', deployment('web', 'nginx:1.25', 2), t0);
    advance(30_000);
    const first = api.list('replicasets', 'default')[0] as KubeObject;
    const template = (first['spec'] as Json)['template'];
    api.patch(
      'deployments',
      'default',
      'web',
      { spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:1.26' }] } } } },
      'application/strategic-merge-patch+json',
      t0,
    );
    advance(30_000);
    const byRevision = () => Object.fromEntries(api.list('replicasets', 'default').map((r) => [annotations(r)['deployment.kubernetes.io/revision'], r]));
    expect(Object.keys(byRevision()).sort()).toEqual(['1', '2']);
    expect(((byRevision()['1'] as KubeObject)['spec'] as Json)['replicas']).toBe(0);
    expect(((byRevision()['2'] as KubeObject)['spec'] as Json)['replicas']).toBe(2);
    // kubectl rollout undo: the old ReplicaSet's template (without its hash label, and with the creationTimestamp: null
    // kubectl's Go structs write) goes back into the Deployment.
    const back = structuredClone(template) as Json;
    const meta = back['metadata'] as Json;
    delete (meta['labels'] as Record<string, string>)['pod-template-hash'];
    meta['creationTimestamp'] = null;
    api.patch('deployments', 'default', 'web', [{ op: 'replace', path: '/spec/template', value: back }], 'application/json-patch+json', t0);
    advance(30_000);
    expect(Object.keys(byRevision()).sort()).toEqual(['2', '3']);
    expect(byRevision()['3']?.metadata.name).toBe(first.metadata.name);
    expect(annotations(byRevision()['3'] as KubeObject)['deployment.kubernetes.io/revision-history']).toBe('1');
    expect(annotations(api.get('deployments', 'default', 'web'))['deployment.kubernetes.io/revision']).toBe('3');
  });

  it('keep no more old ReplicaSets than revisionHistoryLimit', () => {
    const { api, advance } = world();
    api.create(
      'deployments',
      'default',
      { ...deployment('web', 'nginx:1', 1), spec: { ...(deployment('web', 'nginx:1', 1)['spec'] as Json), revisionHistoryLimit: 1 } },
      t0,
    );
    for (const v of ['2', '3', '4']) {
      advance(30_000);
      api.patch(
        'deployments',
        'default',
        'web',
        { spec: { template: { spec: { containers: [{ name: 'web', image: `nginx:${v}` }] } } } },
        'application/strategic-merge-patch+json',
        t0,
      );
    }
    advance(30_000);
    expect(
      api
        .list('replicasets', 'default')
        .map((r) => annotations(r)['deployment.kubernetes.io/revision'])
        .sort(),
    ).toEqual(['3', '4']);
  });

  it('report Available and Progressing as the deployment controller words them, and the counts', () => {
    const { api, advance } = world();
    api.create('deployments', 'default', deployment('web', 'nginx:1.25', 3), t0);
    const progressing = conditions(api.get('deployments', 'default', 'web')).find((c) => c['type'] === 'Progressing');
    expect(progressing).toMatchObject({ status: 'True', reason: 'ReplicaSetUpdated' });
    expect(conditions(api.get('deployments', 'default', 'web')).find((c) => c['type'] === 'Available')).toMatchObject({
      status: 'False',
      reason: 'MinimumReplicasUnavailable',
      message: 'Deployment does not have minimum availability.',
    });
    advance(30_000);
    const d = api.get('deployments', 'default', 'web');
    const rs = api.list('replicasets', 'default')[0] as KubeObject;
    expect(status(d)).toMatchObject({ observedGeneration: 1, replicas: 3, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 3 });
    expect(status(d)['unavailableReplicas']).toBeUndefined();
    expect(conditions(d).map((c) => [c['type'], c['status'], c['reason'], c['message']])).toEqual([
      ['Available', 'True', 'MinimumReplicasAvailable', 'Deployment has minimum availability.'],
      ['Progressing', 'True', 'NewReplicaSetAvailable', `ReplicaSet "${rs.metadata.name}" has successfully progressed.`],
    ]);
  });
});

describe('Deployment events and deadlines', () => {
  it('record the scaling of ReplicaSets and the pods they make, as the controllers word them', () => {
    const { api, advance } = world();
    api.create('deployments', 'default', deployment('web', 'nginx:1.25', 2), t0);
    advance(30_000);
    const first = api.list('replicasets', 'default')[0]?.metadata.name;
    api.patch('deployments', 'default', 'web', { spec: { replicas: 3 } }, 'application/merge-patch+json', t0);
    const events = api.list('events', 'default').map((e) => [(e['source'] as Json)['component'], e['reason'], e['message']]);
    expect(events).toContainEqual(['deployment-controller', 'ScalingReplicaSet', `Scaled up replica set ${first} to 2`]);
    expect(events).toContainEqual(['deployment-controller', 'ScalingReplicaSet', `Scaled up replica set ${first} to 3 from 2`]);
    expect(events.filter((e) => e[1] === 'SuccessfulCreate' && String(e[2]).startsWith(`Created pod: ${first}-`))).toHaveLength(3);
  });

  it('report ProgressDeadlineExceeded once a rollout makes no progress for progressDeadlineSeconds', () => {
    const { api, advance, now } = world();
    const stuck = deployment('stuck', 'nginx', 1);
    const spec = stuck['spec'] as Json;
    api.create(
      'deployments',
      'default',
      {
        ...stuck,
        spec: {
          ...spec,
          progressDeadlineSeconds: 30,
          template: { ...(spec['template'] as Json), spec: { containers: [{ name: 'stuck', image: 'nginx' }], nodeSelector: { no: 'such' } } },
        },
      },
      now(),
    );
    advance(20_000);
    expect(conditions(api.get('deployments', 'default', 'stuck')).find((c) => c['type'] === 'Progressing')?.['reason']).not.toBe('ProgressDeadlineExceeded');
    advance(20_000);
    const rs = api.list('replicasets', 'default')[0]?.metadata.name;
    expect(conditions(api.get('deployments', 'default', 'stuck')).find((c) => c['type'] === 'Progressing')).toMatchObject({
      status: 'False',
      reason: 'ProgressDeadlineExceeded',
      message: `ReplicaSet "${rs}" has timed out progressing.`,
    });
  });
});

describe('the garbage collector', () => {
  it('deletes a Deployment’s ReplicaSets and pods after it (Background, the default)', () => {
    const { api, advance } = world();
    api.create('deployments', 'default', deployment('web', 'nginx', 2), t0);
    advance(30_000);
    api.delete('deployments', 'default', 'web', t0);
    expect(api.list('replicasets', 'default')).toEqual([]);
    expect(api.list('pods', 'default')).toEqual([]);
  });

  it('leaves the dependents without their references to the owner (Orphan)', () => {
    const { api, advance } = world();
    api.create('deployments', 'default', deployment('web', 'nginx', 2), t0);
    advance(30_000);
    api.delete('deployments', 'default', 'web', t0, 'Orphan');
    const rs = api.list('replicasets', 'default');
    expect(rs).toHaveLength(1);
    expect(rs[0]?.metadata['ownerReferences']).toBeUndefined();
    expect(api.list('pods', 'default')).toHaveLength(2);
  });

  it('keeps a Foreground-deleted owner, with the foregroundDeletion finalizer, while a blocking dependent remains', () => {
    const { api, advance } = world();
    const owner = api.create('configmaps', 'default', { metadata: { name: 'owner' } }, t0);
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata['uid'], blockOwnerDeletion: true };
    api.create('configmaps', 'default', { metadata: { name: 'held', ownerReferences: [ref], finalizers: ['example.com/hold'] } }, t0);
    api.delete('configmaps', 'default', 'owner', t0, 'Foreground');
    advance(1_000);
    const waiting = api.get('configmaps', 'default', 'owner');
    expect(waiting.metadata['finalizers']).toEqual(['foregroundDeletion']);
    expect(waiting.metadata['deletionTimestamp']).toBeDefined();
    expect(api.get('configmaps', 'default', 'held').metadata['deletionTimestamp']).toBeDefined();
    api.patch('configmaps', 'default', 'held', { metadata: { finalizers: null } }, 'application/merge-patch+json', t0);
    expect(api.list('configmaps', 'default').map((c) => c.metadata.name)).not.toContain('owner');
  });

  it('refuses an owner reference without a uid, as the API server validates it', () => {
    const { api } = world();
    const e = refused(() =>
      api.create('configmaps', 'default', { metadata: { name: 'x', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }] } }, t0),
    );
    expect(e.code).toBe(422);
    expect(e.message).toBe('ConfigMap "x" is invalid: metadata.ownerReferences.uid: Invalid value: "": uid must not be empty');
  });
});

describe('DaemonSets', () => {
  it('kube-system/cilium exists and owns, by uid, the agent on every node', () => {
    const { api } = world();
    const ds = api.get('daemonsets', 'kube-system', 'cilium');
    const agents = api.list('pods', 'kube-system', 'k8s-app=cilium');
    expect(agents.map((p) => (p['spec'] as Json)['nodeName']).sort()).toEqual(['w-1', 'w-2', 'w-3']);
    for (const p of agents) expect(refs(p)[0]).toMatchObject({ kind: 'DaemonSet', name: 'cilium', uid: ds.metadata['uid'] });
    expect(status(ds)).toMatchObject({ desiredNumberScheduled: 3, currentNumberScheduled: 3, numberReady: 3, numberAvailable: 3 });
  });

  it('keep each template as a ControllerRevision, numbered, the one rolled back to taking the next number', () => {
    const { api } = world();
    const image = (i: string) => ({ spec: { template: { spec: { containers: [{ name: 'cilium-agent', image: i }] } } } });
    api.patch('daemonsets', 'kube-system', 'cilium', image('quay.io/cilium/cilium:v2'), 'application/strategic-merge-patch+json', t0);
    const revisions = () => Object.fromEntries(api.list('controllerrevisions', 'kube-system').map((cr) => [cr['revision'], cr]));
    expect(Object.keys(revisions()).sort()).toEqual(['1', '2']);
    const first = revisions()['1'] as KubeObject;
    expect(refs(first)[0]).toMatchObject({ kind: 'DaemonSet', name: 'cilium', uid: api.get('daemonsets', 'kube-system', 'cilium').metadata['uid'] });
    // kubectl rollout undo daemonset applies the revision's data as a strategic merge patch.
    api.patch('daemonsets', 'kube-system', 'cilium', first['data'], 'application/strategic-merge-patch+json', t0);
    expect(Object.keys(revisions()).sort()).toEqual(['2', '3']);
    expect(revisions()['3']?.metadata.name).toBe(first.metadata.name);
    const hash = first.metadata.labels?.['controller-revision-hash'];
    for (const p of api.list('pods', 'kube-system', 'k8s-app=cilium')) expect(p.metadata.labels?.['controller-revision-hash']).toBe(hash);
  });

  it('answer a create with the status counts the API requires, at zero', () => {
    const { api } = world();
    const ds = api.create(
      'daemonsets',
      'default',
      {
        metadata: { name: 'd' },
        spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c' }] } } },
      },
      t0,
    );
    expect(status(ds)).toEqual({ currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 });
  });
});

describe('pod addresses', () => {
  it("give each node a /24 of the pod subnet, each pod an address of its node's, and host-network pods the node's", () => {
    const { api, advance } = world();
    const cidrs = Object.fromEntries(api.list('nodes', undefined).map((n) => [n.metadata.name, (n['spec'] as Json)['podCIDR']]));
    expect(cidrs).toEqual({ 'w-1': '10.244.0.0/24', 'w-2': '10.244.1.0/24', 'w-3': '10.244.2.0/24' });
    api.create('deployments', 'default', deployment('web', 'nginx', 3), t0);
    advance(30_000);
    const ips = new Set<string>();
    for (const p of api.list('pods', 'default')) {
      const ip = String(status(p)['podIP']);
      const node = String((p['spec'] as Json)['nodeName']);
      expect(ip.startsWith(String(cidrs[node]).replace('0/24', ''))).toBe(true);
      ips.add(ip);
    }
    expect(ips.size).toBe(3);
    for (const agent of api.list('pods', 'kube-system', 'k8s-app=cilium')) expect(status(agent)['podIP']).toBe(status(agent)['hostIP']);
  });
});

describe('PodDisruptionBudgets', () => {
  it('keep their status current and make an eviction they forbid answer 429 as the API server words it', () => {
    const { api, advance } = world();
    api.create('deployments', 'default', deployment('web', 'nginx', 3), t0);
    const created = api.create(
      'poddisruptionbudgets',
      'default',
      { metadata: { name: 'web' }, spec: { minAvailable: 3, selector: { matchLabels: { app: 'web' } } } },
      t0,
    );
    expect(status(created)).toEqual({ disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 });
    advance(30_000);
    expect(status(api.get('poddisruptionbudgets', 'default', 'web'))).toMatchObject({
      currentHealthy: 3,
      desiredHealthy: 3,
      expectedPods: 3,
      disruptionsAllowed: 0,
      observedGeneration: 1,
      conditions: [{ type: 'DisruptionAllowed', status: 'False', reason: 'InsufficientPods' }],
    });
    const victim = api.list('pods', 'default')[0] as KubeObject;
    const e = refused(() => api.evict('default', victim.metadata.name, t0));
    expect(e.status()).toMatchObject({
      code: 429,
      reason: 'TooManyRequests',
      message: "Cannot evict pod as it would violate the pod's disruption budget.",
      details: { causes: [{ reason: 'DisruptionBudget', message: 'The disruption budget web needs 3 healthy pods and has 3 currently' }] },
    });
    api.patch('poddisruptionbudgets', 'default', 'web', { spec: { maxUnavailable: '34%', minAvailable: null } }, 'application/merge-patch+json', t0);
    // maxUnavailable 34% of the ReplicaSet's 3, rounded up: 2 may go; 1 must stay.
    expect(status(api.get('poddisruptionbudgets', 'default', 'web'))).toMatchObject({ desiredHealthy: 1, disruptionsAllowed: 2 });
    api.evict('default', victim.metadata.name, t0);
    expect(api.list('pods', 'default').map((p) => p.metadata.name)).not.toContain(victim.metadata.name);
  });

  it('are what drain evicts through: discovery lists pods/eviction as a policy/v1 Eviction', () => {
    const list = discovery('/api/v1', 'c:6443') as { resources: Json[] };
    expect(list.resources.find((r) => r['name'] === 'pods/eviction')).toMatchObject({ kind: 'Eviction', group: 'policy', version: 'v1', verbs: ['create'] });
  });
});

describe("the API server's pod defaults (core/v1 defaults.go)", () => {
  it('fill a pod and a Deployment template where the client left them unset, keep what it set, and reach the pods made from the template', () => {
    const { api, advance } = world();
    const pod = api.create(
      'pods',
      'default',
      { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'nginx', ports: [{ containerPort: 80 }] }], restartPolicy: 'Never' } },
      t0,
    );
    const spec = pod['spec'] as Json;
    expect(spec).toMatchObject({
      restartPolicy: 'Never',
      dnsPolicy: 'ClusterFirst',
      terminationGracePeriodSeconds: 30,
      schedulerName: 'default-scheduler',
      securityContext: {},
      enableServiceLinks: true,
    });
    expect((spec['containers'] as Json[])[0]).toMatchObject({
      imagePullPolicy: 'Always',
      terminationMessagePath: '/dev/termination-log',
      terminationMessagePolicy: 'File',
      resources: {},
      ports: [{ containerPort: 80, protocol: 'TCP' }],
    });
    const d = api.create('deployments', 'default', deployment('web', 'nginx:1.27', 1), t0);
    const template = ((d['spec'] as Json)['template'] as Json)['spec'] as Json;
    expect(template).toMatchObject({ restartPolicy: 'Always', dnsPolicy: 'ClusterFirst' });
    expect((template['containers'] as Json[])[0]).toMatchObject({ imagePullPolicy: 'IfNotPresent' });
    advance(30_000);
    const made = api.list('pods', 'default').filter((p) => p.metadata.name.startsWith('web-'));
    expect(made.length).toBe(1);
    expect((made[0]?.['spec'] as Json)['restartPolicy']).toBe('Always');
  });
});
