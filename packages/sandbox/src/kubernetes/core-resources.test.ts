// The core objects a real API server keeps beside the workloads: Services and their cluster IPs, node Leases and
// Events from the node lifecycle, field selectors per resource, capacity from the machine, uids, access reviews.
import { describe, expect, it } from 'vitest';
import { selfSubjectAccessReview } from './access-review.js';
import { decodeProtobufBody } from './protobuf.js';
import { ClusterApi, type RegisterNode } from './cluster.js';
import { nodeResources } from './node-resources.js';
import { refused } from './fixture.js';
import { ObjectStore, uuidFrom } from './store.js';

const t0 = Date.parse('2026-01-01T00:00:00Z');

function cluster(serviceSubnet?: string): ClusterApi {
  const api = new ClusterApi(
    { name: 'c', endpoint: 'c.example.com:6443', kubernetesVersion: 'v1.32.1', caPem: '', ...(serviceSubnet ? { serviceSubnet } : {}) },
    () => undefined,
    t0,
  );
  api.bootstrap({ tokens: [], configMaps: [] }, t0);
  return api;
}

function node(name: string, controlPlane: boolean, internalIp: string): RegisterNode {
  return {
    name,
    labels: {},
    taints: [],
    internalIp,
    kubeletVersion: 'v1.32.1',
    arch: 'amd64',
    controlPlane,
    machine: { vcpus: 4, memoryMiB: 8192, diskGiB: 80 },
  };
}

describe('Services', () => {
  it('start with kubernetes on the first address of the service subnet and kube-dns on the tenth, as kubeadm sets them', () => {
    const api = cluster('10.128.0.0/16');
    expect(api.get('services', 'default', 'kubernetes')['spec']).toMatchObject({
      clusterIP: '10.128.0.1',
      ports: [{ name: 'https', port: 443, targetPort: 6443, protocol: 'TCP' }],
    });
    expect(api.get('services', 'kube-system', 'kube-dns')['spec']).toMatchObject({ clusterIP: '10.128.0.10' });
    expect(cluster().get('services', 'default', 'kubernetes')['spec']).toMatchObject({ clusterIP: '10.96.0.1' });
  });

  it('get a free cluster IP, default ports to TCP and their own number, and keep the IP immutable', () => {
    const api = cluster();
    const a = api.create('services', 'default', { metadata: { name: 'a' }, spec: { ports: [{ port: 80 }] } }, t0);
    const b = api.create('services', 'default', { metadata: { name: 'b' }, spec: { ports: [{ port: 80 }] } }, t0);
    expect(a['spec']).toMatchObject({ type: 'ClusterIP', ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }] });
    expect((a['spec'] as { clusterIP: string }).clusterIP).not.toBe((b['spec'] as { clusterIP: string }).clusterIP);
    expect(refused(() => api.patch('services', 'default', 'a', { spec: { clusterIP: '10.96.0.200' } }, 'application/merge-patch+json', t0)).code).toBe(422);
  });

  it("list the control planes' addresses in default/kubernetes's Endpoints, and drop a deleted one", () => {
    const api = cluster();
    api.registerNode(node('cp-1', true, '10.0.0.1'), t0);
    api.registerNode(node('cp-2', true, '10.0.0.2'), t0);
    api.registerNode(node('w-1', false, '10.0.0.9'), t0);
    const ips = () =>
      ((api.get('endpoints', 'default', 'kubernetes')['subsets'] as Array<{ addresses: Array<{ ip: string }> }>)[0]?.addresses ?? []).map((a) => a.ip);
    expect(ips()).toEqual(['10.0.0.1', '10.0.0.2']);
    api.delete('nodes', undefined, 'cp-1', t0);
    expect(ips()).toEqual(['10.0.0.2']);
  });
});

describe('the node lifecycle', () => {
  it('gives a registering node a Lease in kube-node-lease, and the Lease goes with the Node', () => {
    const api = cluster();
    api.registerNode(node('w-1', false, '10.0.0.9'), t0);
    expect(api.get('leases', 'kube-node-lease', 'w-1')['spec']).toEqual({
      holderIdentity: 'w-1',
      leaseDurationSeconds: 40,
      renewTime: '2026-01-01T00:00:00.000000Z',
    });
    api.delete('nodes', undefined, 'w-1', t0);
    expect(api.store.get('leases', 'kube-node-lease', 'w-1')).toBeUndefined();
  });

  it('keeps the annotations of a Node whose kubelet registers it again (a reboot), as the kubelet does', () => {
    const api = cluster();
    api.registerNode(node('w-1', false, '10.0.0.9'), t0);
    api.patch('nodes', undefined, 'w-1', { metadata: { annotations: { 'example.com/owner': 'team-a' } } }, 'application/merge-patch+json', t0);
    api.registerNode(node('w-1', false, '10.0.0.9'), t0 + 60_000);
    const annotations = api.get('nodes', undefined, 'w-1').metadata['annotations'];
    expect(annotations).toMatchObject({ 'example.com/owner': 'team-a', 'node.alpha.kubernetes.io/ttl': '0' });
  });

  it("records the kubelet's and the node controller's events, and the scheduler's", () => {
    const api = cluster();
    api.registerNode(node('w-1', false, '10.0.0.9'), t0);
    api.setNodeReady('w-1', t0 + 30_000);
    const nodeEvents = api.list('events', 'default', undefined, 'involvedObject.name=w-1');
    expect(nodeEvents.map((e) => e['reason'])).toEqual([
      'Starting',
      'NodeHasSufficientMemory',
      'NodeHasNoDiskPressure',
      'NodeHasSufficientPID',
      'NodeAllocatableEnforced',
      'RegisteredNode',
      'NodeReady',
    ]);
    expect(nodeEvents.at(-1)).toMatchObject({
      type: 'Normal',
      source: { component: 'kubelet', host: 'w-1' },
      involvedObject: { kind: 'Node', name: 'w-1' },
      count: 1,
    });
    const scheduled = api.list('events', 'kube-system', undefined, 'reason=Scheduled');
    expect(scheduled.length).toBeGreaterThan(0);
    expect(scheduled[0]?.['message']).toMatch(/^Successfully assigned kube-system\/\S+ to w-1$/);
  });

  it("records the kubelet's Created and Started events on each container of a pod that starts", () => {
    const api = cluster();
    api.registerNode(node('w-1', false, '10.0.0.9'), t0);
    api.setNodeReady('w-1', t0 + 30_000);
    const cilium = api.list('pods', 'kube-system', 'k8s-app=cilium')[0];
    const events = api.list('events', 'kube-system', undefined, `involvedObject.name=${cilium?.metadata.name ?? ''}`);
    expect(events.map((e) => [e['reason'], e['message'], (e['involvedObject'] as { fieldPath?: string }).fieldPath])).toEqual([
      ['Created', 'Created container: cilium-agent', 'spec.containers{cilium-agent}'],
      ['Started', 'Started container cilium-agent', 'spec.containers{cilium-agent}'],
    ]);
    // A node that turns Ready again does not restart a running pod's containers.
    api.setNodeReady('w-1', t0 + 60_000);
    expect(api.list('events', 'kube-system', undefined, `involvedObject.name=${cilium?.metadata.name ?? ''}`)).toHaveLength(2);
  });

  it("expires events after the API server's one-hour TTL", () => {
    const api = cluster();
    api.registerNode(node('w-1', false, '10.0.0.9'), t0);
    api.registerNode(node('w-2', false, '10.0.0.8'), t0 + 3601_000);
    expect(api.list('events', 'default', undefined, 'involvedObject.name=w-1')).toEqual([]);
  });

  it("reports capacity from the machine and allocatable less the kubelet's hard eviction thresholds", () => {
    expect(nodeResources({ vcpus: 4, memoryMiB: 8192, diskGiB: 80 })).toMatchObject({
      capacity: { cpu: '4', memory: '8388608Ki', pods: '110', 'ephemeral-storage': '83886080Ki' },
      allocatable: { cpu: '4', memory: '8286208Ki', pods: '110', 'ephemeral-storage': String(Math.floor(80 * 1024 ** 3 * 0.9)) },
    });
  });
});

describe('field selectors', () => {
  it('select pods by spec.nodeName and status.phase, with != and several clauses', () => {
    const api = cluster();
    api.registerNode(node('w-1', false, '10.0.0.9'), t0);
    const onNode = api.list('pods', undefined, undefined, 'spec.nodeName=w-1');
    expect(onNode.length).toBeGreaterThan(0);
    expect(
      api.list('pods', undefined, undefined, 'spec.nodeName!=w-1,status.phase==Pending').every((p) => (p['spec'] as { nodeName?: string }).nodeName !== 'w-1'),
    ).toBe(true);
  });

  it('select nodes by spec.unschedulable, false when the field is absent', () => {
    const api = cluster();
    api.registerNode(node('w-1', false, '10.0.0.9'), t0);
    expect(api.list('nodes', undefined, undefined, 'spec.unschedulable=false').map((n) => n.metadata.name)).toEqual(['w-1']);
  });

  it('refuse a field the resource does not index, as the API server does', () => {
    const error = refused(() => cluster().list('configmaps', undefined, undefined, 'data.x=1'));
    expect([error.code, error.message]).toEqual([400, 'field label not supported: data.x']);
    expect(refused(() => cluster().list('nodes', undefined, undefined, 'spec.nodeName=x')).message).toBe('field label not supported: spec.nodeName');
  });
});

describe('uids', () => {
  it('are RFC 4122 version 4 UUIDs that repeat for the same store and differ between stores', () => {
    const a = new ObjectStore('one');
    const uid = String(a.create('namespaces', { metadata: { name: 'x' } }, t0).metadata['uid']);
    expect(uid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(uid).toBe(uuidFrom('one', 1));
    expect(uuidFrom('two', 1)).not.toBe(uid);
  });
});

describe('SelfSubjectAccessReview', () => {
  it('allows the admin, and reads the review kubectl sends as protobuf', () => {
    // kubectl auth can-i create pods -n default, as kubectl 1.32 encodes it (k8s\0 + runtime.Unknown).
    const str = (field: number, s: string): Buffer => Buffer.concat([Buffer.from([(field << 3) | 2, Buffer.byteLength(s)]), Buffer.from(s)]);
    const msg = (field: number, body: Buffer): Buffer => Buffer.concat([Buffer.from([(field << 3) | 2, body.length]), body]);
    const attributes = Buffer.concat([str(1, 'default'), str(2, 'create'), str(3, ''), str(5, 'pods')]);
    const review = Buffer.concat([msg(1, Buffer.alloc(0)), msg(2, msg(1, attributes))]);
    const unknown = Buffer.concat([msg(1, Buffer.concat([str(1, 'authorization.k8s.io/v1'), str(2, 'SelfSubjectAccessReview')])), msg(2, review)]);
    const decoded = decodeProtobufBody(Buffer.concat([Buffer.from('k8s\0', 'binary'), unknown]));
    expect(decoded['spec']).toEqual({ resourceAttributes: { namespace: 'default', verb: 'create', resource: 'pods' } });
    expect(selfSubjectAccessReview(decoded)).toMatchObject({ kind: 'SelfSubjectAccessReview', status: { allowed: true } });
  });

  it('refuses a review with neither resource nor non-resource attributes', () => {
    expect(refused(() => selfSubjectAccessReview({ spec: {} })).code).toBe(422);
  });
});

describe('Label selectors', () => {
  it('take the set-based forms a real API server takes, and refuse a malformed one with 400 instead of listing nothing', () => {
    const api = cluster();
    for (const [name, tier] of [
      ['web', 'front'],
      ['api', 'back'],
      ['db', 'data'],
    ] as const) {
      api.create('configmaps', 'default', { metadata: { name, labels: { tier } } }, t0);
    }
    const names = (selector: string) => api.list('configmaps', 'default', selector).map((o) => o.metadata.name);
    expect(names('tier in (front, back)')).toEqual(['api', 'web']);
    expect(names('tier notin (front),tier')).toEqual(['api', 'db']);
    expect(names('!tier').filter((n) => ['web', 'api', 'db'].includes(n))).toEqual([]);
    const error = refused(() => api.list('configmaps', 'default', 'tier=front=back'));
    expect(error.code).toBe(400);
    expect(error.message).toContain('unable to parse requirement');
  });
});

describe('Pods the kubelet runs', () => {
  it("report each container running and ready (kubectl counts READY from them) and the node's address as hostIP", () => {
    const events: Array<{ at: number; event: Parameters<ClusterApi['runEvent']>[0] }> = [];
    const api = new ClusterApi(
      { name: 'c', endpoint: 'c.example.com:6443', kubernetesVersion: 'v1.32.1', caPem: '' },
      (at, event) => events.push({ at, event }),
      t0,
    );
    api.bootstrap({ tokens: [], configMaps: [] }, t0);
    api.registerNode(node('w-1', false, '10.0.0.9'), t0);
    api.setNodeReady('w-1', t0);
    api.create('pods', 'default', { metadata: { name: 'web' }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] } }, t0);
    api.reconcile(t0);
    for (const { at, event } of events.splice(0)) api.runEvent(event, at);
    const status = api.get('pods', 'default', 'web')['status'] as { phase: string; hostIP?: string; containerStatuses?: Array<Record<string, unknown>> };
    expect(status.phase).toBe('Running');
    expect(status.hostIP).toBe('10.0.0.9');
    expect(status.containerStatuses).toEqual([
      expect.objectContaining({ name: 'nginx', image: 'nginx:1.27', ready: true, restartCount: 0, state: { running: { startedAt: expect.any(String) } } }),
    ]);
  });
});
