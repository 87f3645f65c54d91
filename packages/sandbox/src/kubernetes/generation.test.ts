// metadata.generation as the registries keep it: only on the kinds whose strategy sets it, bumped on the changes
// each names, never by a request, and on a deletion that starts.
import { describe, expect, it } from 'vitest';
import { clusterWorld } from './fixture.js';
import type { Json, KubeObject } from './store.js';

const t0 = Date.parse('2026-01-01T00:00:00Z');
const generation = (o: KubeObject): unknown => o.metadata['generation'];
const status = (o: KubeObject): Json => (o['status'] ?? {}) as Json;

const deployment = (replicas: number, image = 'nginx:1.25'): Json => ({
  metadata: { name: 'web' },
  spec: {
    replicas,
    selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image }] } },
  },
});

const crd = (withStatus: boolean): Json => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        ...(withStatus ? { subresources: { status: {} } } : {}),
      },
    ],
  },
});

describe('metadata.generation', () => {
  it('is absent on kinds whose registry does not keep one, whatever the request says', () => {
    const { api } = clusterWorld();
    const cm = api.create('configmaps', 'default', { metadata: { name: 'c' }, data: { a: '1' } }, t0);
    expect(generation(cm)).toBeUndefined();
    const updated = api.replace('configmaps', 'default', 'c', { ...cm, metadata: { ...cm.metadata, generation: 7 }, data: { a: '2' } }, t0);
    expect(generation(updated)).toBeUndefined();
    for (const [resource, body] of [
      ['serviceaccounts', { metadata: { name: 'sa' } }],
      ['services', { metadata: { name: 's' }, spec: { ports: [{ port: 80 }] } }],
      ['secrets', { metadata: { name: 's' }, stringData: { a: 'b' } }],
    ] as const) {
      expect(generation(api.create(resource, 'default', body, t0)), resource).toBeUndefined();
    }
    expect(generation(api.get('namespaces', undefined, 'default'))).toBeUndefined();
    expect(generation(api.get('nodes', undefined, 'w-1'))).toBeUndefined();
  });

  it('of a Deployment: 1 after its controller wrote the revision, bumped by spec and annotations, not by labels or a request', () => {
    const { api, advance } = clusterWorld();
    api.create('deployments', 'default', deployment(2), t0);
    advance(30_000);
    let d = api.get('deployments', 'default', 'web');
    expect(generation(d)).toBe(1);
    expect(d.metadata['annotations']).toMatchObject({ 'deployment.kubernetes.io/revision': '1' });
    expect(status(d)['observedGeneration']).toBe(1);
    d = api.patch('deployments', 'default', 'web', { metadata: { labels: { tier: 'front' }, generation: 40 } }, 'application/merge-patch+json', t0);
    expect(generation(d)).toBe(1);
    d = api.patch('deployments', 'default', 'web', { metadata: { annotations: { note: 'x' } } }, 'application/merge-patch+json', t0);
    expect(generation(d)).toBe(2);
    d = api.patch('deployments', 'default', 'web', { spec: { replicas: 3 } }, 'application/merge-patch+json', t0);
    expect(generation(d)).toBe(3);
    advance(30_000);
    expect(status(api.get('deployments', 'default', 'web'))['observedGeneration']).toBe(3);
  });

  it("of a ReplicaSet: bumped when its Deployment's controller scales it, and observed", () => {
    const { api, advance } = clusterWorld();
    api.create('deployments', 'default', deployment(2), t0);
    advance(30_000);
    const before = api.list('replicasets', 'default')[0] as KubeObject;
    expect(generation(before)).toBe(1);
    api.patch('deployments', 'default', 'web', { spec: { replicas: 4 } }, 'application/merge-patch+json', t0 + 30_000);
    advance(30_000);
    const after = api.get('replicasets', 'default', before.metadata.name);
    expect(generation(after)).toBe(2);
    expect(status(after)['observedGeneration']).toBe(2);
  });

  it('of a Job: 1 though the registry adds its selector after the uid is known', () => {
    const { api } = clusterWorld();
    const job = api.create(
      'jobs',
      'default',
      { metadata: { name: 'j' }, spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'j', image: 'busybox' }] } } } },
      t0,
    );
    expect(generation(job)).toBe(1);
  });

  it('of pods from 1.33 on (KEP-5067): 1, not bumped by scheduling, bumped by a graceful deletion; none before 1.33', () => {
    const pod = { metadata: { name: 'p' }, spec: { containers: [{ name: 'p', image: 'nginx' }] } };
    const { api, advance } = clusterWorld({ version: 'v1.34.2' });
    expect(generation(api.create('pods', 'default', pod, t0))).toBe(1);
    advance(30_000);
    const scheduled = api.get('pods', 'default', 'p');
    expect((scheduled['spec'] as Json)['nodeName']).toBeDefined();
    expect(generation(scheduled)).toBe(1);
    const old = clusterWorld({ version: 'v1.32.9' });
    expect(generation(old.api.create('pods', 'default', pod, t0))).toBeUndefined();
  });

  it('is bumped when a deletion starts on an object that has one, and not again', () => {
    const { api } = clusterWorld();
    api.create('poddisruptionbudgets', 'default', { metadata: { name: 'pdb', finalizers: ['example.com/hold'] }, spec: { minAvailable: 1 } }, t0);
    const marked = api.delete('poddisruptionbudgets', 'default', 'pdb', t0);
    expect(marked.metadata['deletionTimestamp']).toBeDefined();
    expect(generation(marked)).toBe(2);
    expect(generation(api.delete('poddisruptionbudgets', 'default', 'pdb', t0))).toBe(2);
    const cm = api.create('configmaps', 'default', { metadata: { name: 'held', finalizers: ['example.com/hold'] } }, t0);
    expect(generation(api.delete('configmaps', 'default', cm.metadata.name, t0))).toBeUndefined();
  });

  it('of an EndpointSlice: bumped by its endpoints or its labels', () => {
    const { api } = clusterWorld();
    const slice = { metadata: { name: 's', labels: { a: '1' } }, addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.1'] }], ports: [{ port: 80 }] };
    api.create('endpointslices', 'default', slice, t0);
    const relabelled = api.patch('endpointslices', 'default', 's', { metadata: { labels: { a: '2' } } }, 'application/merge-patch+json', t0);
    expect(generation(relabelled)).toBe(2);
    const annotated = api.patch('endpointslices', 'default', 's', { metadata: { annotations: { n: 'x' } } }, 'application/merge-patch+json', t0);
    expect(generation(annotated)).toBe(2);
    const moved = api.patch('endpointslices', 'default', 's', { endpoints: [{ addresses: ['10.0.0.2'] }] }, 'application/merge-patch+json', t0);
    expect(generation(moved)).toBe(3);
  });

  it('of custom resources: bumped by anything but metadata, and but status when the CRD declares the status subresource', () => {
    for (const withStatus of [true, false]) {
      const { api } = clusterWorld();
      api.create('customresourcedefinitions', undefined, crd(withStatus), t0);
      const resource = 'widgets.example.com';
      expect(
        generation(api.create(resource, 'default', { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { size: 1 } }, t0)),
      ).toBe(1);
      const labelled = api.patch(resource, 'default', 'w', { metadata: { labels: { a: 'b' } } }, 'application/merge-patch+json', t0);
      expect(generation(labelled)).toBe(1);
      const statused = api.patch(resource, 'default', 'w', { status: { ready: true } }, 'application/merge-patch+json', t0);
      expect(generation(statused), `status subresource: ${withStatus}`).toBe(withStatus ? 1 : 2);
      const resized = api.patch(resource, 'default', 'w', { spec: { size: 2 } }, 'application/merge-patch+json', t0);
      expect(generation(resized)).toBe(withStatus ? 2 : 3);
    }
  });
});
