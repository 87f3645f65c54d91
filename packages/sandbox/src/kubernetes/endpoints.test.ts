// The endpoints controller (endpoints.ts): a Service with a selector lists its pods' addresses and target ports.
import { describe, expect, it } from 'vitest';
import { clusterWorld } from './fixture.js';
import type { Json, KubeObject } from './store.js';
import { KUBE_TIMINGS } from './timings.js';

const subsets = (e: KubeObject | undefined) => (e?.['subsets'] ?? []) as Json[];

describe('the endpoints controller', () => {
  it("lists a Service's pods by address, ready or not, with the named target port resolved, and drops the Endpoints with the Service", () => {
    const { api, advance, now } = clusterWorld();
    api.create(
      'deployments',
      'default',
      {
        metadata: { name: 'web', labels: { app: 'web' } },
        spec: {
          replicas: 2,
          selector: { matchLabels: { app: 'web' } },
          template: {
            metadata: { labels: { app: 'web' } },
            spec: { containers: [{ name: 'web', image: 'nginx:1.28', ports: [{ name: 'http', containerPort: 8080 }] }] },
          },
        },
      },
      now(),
    );
    api.create(
      'services',
      'default',
      { metadata: { name: 'web', labels: { tier: 'front' } }, spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] } },
      now(),
    );
    // Before the pods run they have no address: the Endpoints exists, with no subsets.
    expect(api.get('endpoints', 'default', 'web')).toMatchObject({ kind: 'Endpoints', metadata: { labels: { tier: 'front' } } });
    expect(subsets(api.get('endpoints', 'default', 'web'))).toEqual([]);
    advance(KUBE_TIMINGS.podStartMs);
    const pods = api.list('pods', 'default').filter((p) => p.metadata.labels?.['app'] === 'web');
    const [subset] = subsets(api.get('endpoints', 'default', 'web'));
    expect(subset?.['ports']).toEqual([{ name: 'http', port: 8080, protocol: 'TCP' }]);
    expect(((subset?.['addresses'] as Json[]) ?? []).map((a) => (a['targetRef'] as Json)['name']).sort()).toEqual(pods.map((p) => p.metadata.name).sort());
    for (const a of (subset?.['addresses'] as Json[]) ?? []) {
      const pod = pods.find((p) => p.metadata.name === (a['targetRef'] as Json)['name']);
      expect(a).toMatchObject({
        ip: (pod?.['status'] as Json)['podIP'],
        nodeName: (pod?.['spec'] as Json)['nodeName'],
        targetRef: { kind: 'Pod', uid: pod?.metadata['uid'] },
      });
    }
    // The Service's EndpointSlice says the same, endpoint by endpoint.
    const [slice, ...moreSlices] = api.list('endpointslices', 'default').filter((s) => s.metadata.labels?.['kubernetes.io/service-name'] === 'web');
    expect(moreSlices).toEqual([]);
    expect(slice).toMatchObject({
      addressType: 'IPv4',
      ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
      metadata: {
        name: expect.stringMatching(/^web-[a-z]{5}$/),
        labels: { 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io', tier: 'front' },
      },
    });
    expect(((slice?.['endpoints'] as Json[]) ?? []).map((e) => [(e['addresses'] as string[])[0], e['conditions']]).sort()).toEqual(
      pods.map((p) => [(p['status'] as Json)['podIP'], { ready: true, serving: true, terminating: false }]).sort(),
    );
    api.delete('services', 'default', 'web', now());
    expect(api.list('endpointslices', 'default').filter((s) => s.metadata.labels?.['kubernetes.io/service-name'] === 'web')).toEqual([]);
    expect(api.store.get('endpoints', 'default', 'web')).toBeUndefined();
    // A Service without a selector leaves its Endpoints to whoever writes it.
    api.create('services', 'default', { metadata: { name: 'ext' }, spec: { ports: [{ port: 5432 }] } }, now());
    api.create('endpoints', 'default', { metadata: { name: 'ext' }, subsets: [{ addresses: [{ ip: '192.0.2.10' }], ports: [{ port: 5432 }] }] }, now());
    advance(1_000);
    expect(subsets(api.get('endpoints', 'default', 'ext'))).toEqual([{ addresses: [{ ip: '192.0.2.10' }], ports: [{ port: 5432 }] }]);
  });
});
