// Scheduling as kube-scheduler does it (issue 14): requests against allocatable (cpu, memory, pods, GPUs), node
// selectors and required affinity, taints and cordons, the unschedulable condition with the scheduler's message and
// its event, retries when a node joins, standalone pods, and volume binding with WaitForFirstConsumer topology.
import { describe, expect, it } from 'vitest';
import { ClusterApi, type ClusterEvent, type RegisterNode } from './cluster.js';
import type { Json, KubeObject } from './store.js';
import { toTable } from './table.js';

const t0 = Date.parse('2026-01-01T00:00:00Z');

class World {
  readonly queue: Array<[number, ClusterEvent]> = [];
  readonly api: ClusterApi;
  now = t0;

  constructor() {
    this.api = new ClusterApi({ name: 'c', endpoint: 'c.example.com:6443', kubernetesVersion: 'v1.33.4', caPem: '' }, (at, e) => this.queue.push([at, e]), t0);
    this.api.bootstrap({ tokens: [], configMaps: [] }, t0);
  }

  /** Time passes: what the controllers scheduled until then runs, in order. */
  advance(ms: number): void {
    const until = this.now + ms;
    for (;;) {
      this.queue.sort((a, b) => a[0] - b[0]);
      const next = this.queue[0];
      if (!next || next[0] > until) break;
      this.queue.shift();
      this.api.runEvent(next[1], next[0]);
    }
    this.now = until;
  }

  node(name: string, options: Partial<RegisterNode> & { gpus?: number } = {}): void {
    this.api.registerNode(
      {
        name,
        labels: {},
        taints: [],
        kubeletVersion: 'v1.33.4',
        arch: 'amd64',
        controlPlane: false,
        machine: { vcpus: 2, memoryMiB: 4096, ...(options.gpus ? { gpus: options.gpus } : {}) },
        ...options,
      },
      this.now,
    );
    this.api.setNodeReady(name, this.now);
  }

  pod(name: string, spec: Json): KubeObject {
    return this.api.create('pods', 'default', { metadata: { name }, spec: { containers: [{ name: 'main', image: 'busybox' }], ...spec } }, this.now);
  }

  get(name: string): KubeObject {
    return this.api.get('pods', 'default', name);
  }

  nodeOf(name: string): string | undefined {
    return (this.get(name)['spec'] as { nodeName?: string }).nodeName;
  }

  scheduledCondition(name: string): Json | undefined {
    return ((this.get(name)['status'] as { conditions?: Json[] }).conditions ?? []).find((c) => c['type'] === 'PodScheduled');
  }
}

const requests = (r: Record<string, string>): Json => ({ containers: [{ name: 'main', image: 'busybox', resources: { requests: r } }] });

describe('resource fit', () => {
  it("places pods by cpu and memory requests against allocatable, and leaves the one that fits nowhere Pending with the scheduler's message", () => {
    const w = new World();
    w.node('n1');
    w.node('n2');
    w.pod('a', requests({ cpu: '1500m', memory: '1Gi' }));
    w.pod('b', requests({ cpu: '1500m', memory: '1Gi' }));
    expect(new Set([w.nodeOf('a'), w.nodeOf('b')])).toEqual(new Set(['n1', 'n2']));
    w.pod('c', requests({ cpu: '1' }));
    expect(w.nodeOf('c')).toBeUndefined();
    expect(w.scheduledCondition('c')).toMatchObject({
      status: 'False',
      reason: 'Unschedulable',
      message: '0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.',
    });
    w.pod('d', requests({ memory: '4Gi' }));
    expect(String(w.scheduledCondition('d')?.['message'])).toMatch(/^0\/2 nodes are available: 2 Insufficient memory\./);
    const events = w.api.list('events', 'default').filter((e) => e['reason'] === 'FailedScheduling');
    expect(events.map((e) => (e['involvedObject'] as Json)['name'])).toEqual(['c', 'd']);
    expect(events[0]?.['type']).toBe('Warning');
  });

  it('counts limits as requests when requests are absent, and frees what finished pods held', () => {
    const w = new World();
    w.node('n1');
    w.pod('a', { containers: [{ name: 'main', image: 'x', resources: { limits: { cpu: '2' } } }] });
    w.pod('b', requests({ cpu: '100m' }));
    expect(w.nodeOf('a')).toBe('n1');
    expect(w.nodeOf('b')).toBeUndefined();
    w.api.delete('pods', 'default', 'a', w.now);
    expect(w.nodeOf('b')).toBe('n1');
  });

  it('places GPU pods only on nodes that advertise nvidia.com/gpu, and no more than they have', () => {
    const w = new World();
    w.node('cpu-1');
    w.node('gpu-1', { gpus: 2 });
    // Without the GPU operator no node advertises GPUs.
    w.pod('g0', requests({ 'nvidia.com/gpu': '1' }));
    expect(String(w.scheduledCondition('g0')?.['message'])).toContain('2 Insufficient nvidia.com/gpu');
    const node = w.api.get('nodes', undefined, 'gpu-1');
    const status = node['status'] as { allocatable: Record<string, string>; capacity: Record<string, string> };
    w.api.store.replace('nodes', {
      ...node,
      status: { ...status, allocatable: { ...status.allocatable, 'nvidia.com/gpu': '2' }, capacity: { ...status.capacity, 'nvidia.com/gpu': '2' } },
    });
    w.api.reconcile(w.now);
    expect(w.nodeOf('g0')).toBe('gpu-1');
    w.pod('g1', requests({ 'nvidia.com/gpu': '1' }));
    w.pod('g2', requests({ 'nvidia.com/gpu': '1' }));
    expect(w.nodeOf('g1')).toBe('gpu-1');
    expect(w.nodeOf('g2')).toBeUndefined();
  });
});

describe('placement rules', () => {
  it('honours nodeSelector and every operator of required node affinity', () => {
    const w = new World();
    w.node('hz', { labels: { 'kubeplane.dev/provider': 'hetzner', cores: '8' } });
    w.node('aws', { labels: { 'kubeplane.dev/provider': 'aws', cores: '2' } });
    w.pod('sel', { nodeSelector: { 'kubeplane.dev/provider': 'aws' } });
    const affinity = (op: string, values?: string[], key = 'kubeplane.dev/provider'): Json => ({
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key, operator: op, ...(values ? { values } : {}) }] }] },
        },
      },
    });
    w.pod('in', affinity('In', ['hetzner']));
    w.pod('notin', affinity('NotIn', ['hetzner']));
    w.pod('exists', affinity('Exists', undefined, 'cores'));
    w.pod('gt', affinity('Gt', ['4'], 'cores'));
    w.pod('lt', affinity('Lt', ['4'], 'cores'));
    w.pod('none', affinity('DoesNotExist', undefined, 'cores'));
    expect(['sel', 'in', 'notin', 'gt', 'lt'].map((p) => w.nodeOf(p))).toEqual(['aws', 'hz', 'aws', 'hz', 'aws']);
    expect(w.nodeOf('exists')).toBeDefined();
    expect(w.nodeOf('none')).toBeUndefined();
    expect(w.scheduledCondition('none')?.['message']).toBe(
      "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.",
    );
  });

  it('keeps pods off tainted nodes unless they tolerate the taint, and off cordoned nodes; PreferNoSchedule does not block', () => {
    const w = new World();
    w.node('gpu', { taints: [{ key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' }] });
    w.node('soft', { taints: [{ key: 'spot', effect: 'PreferNoSchedule' }] });
    w.api.patch('nodes', undefined, 'soft', { spec: { unschedulable: true } }, 'application/merge-patch+json', w.now);
    w.pod('plain', {});
    expect(w.scheduledCondition('plain')?.['message']).toBe(
      '0/2 nodes are available: 1 node(s) had untolerated taint {nvidia.com/gpu: present}, 1 node(s) were unschedulable. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.',
    );
    w.pod('tolerant', { tolerations: [{ key: 'nvidia.com/gpu', operator: 'Equal', value: 'present', effect: 'NoSchedule' }] });
    expect(w.nodeOf('tolerant')).toBe('gpu');
    w.api.patch('nodes', undefined, 'soft', { spec: { unschedulable: false } }, 'application/merge-patch+json', w.now);
    expect(w.nodeOf('plain')).toBe('soft');
  });

  it('retries a pending pod when a node joins, and starts it there', () => {
    const w = new World();
    w.node('small');
    w.pod('big', requests({ cpu: '3' }));
    expect(w.nodeOf('big')).toBeUndefined();
    w.advance(30_000);
    w.api.registerNode(
      { name: 'large', labels: {}, taints: [], kubeletVersion: 'v1.33.4', arch: 'amd64', controlPlane: false, machine: { vcpus: 8, memoryMiB: 16384 } },
      w.now,
    );
    expect(w.nodeOf('big')).toBeUndefined();
    w.api.setNodeReady('large', w.now);
    expect(w.nodeOf('big')).toBe('large');
    w.advance(10_000);
    expect((w.get('big')['status'] as { phase: string }).phase).toBe('Running');
  });

  it('starts a standalone pod created with spec.nodeName', () => {
    const w = new World();
    w.node('n1');
    w.pod('pinned', { nodeName: 'n1' });
    w.advance(10_000);
    expect((w.get('pinned')['status'] as { phase: string }).phase).toBe('Running');
  });
});

describe('DaemonSets', () => {
  it('run one pod on each node their selector picks and whose taints they tolerate, and go with the DaemonSet', () => {
    const w = new World();
    w.node('hz-1', { labels: { 'kubeplane.dev/provider': 'hetzner' } });
    w.node('hz-2', { labels: { 'kubeplane.dev/provider': 'hetzner' }, taints: [{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }] });
    w.node('aws-1', { labels: { 'kubeplane.dev/provider': 'aws' } });
    const labels = { app: 'csi-node' };
    w.api.create(
      'daemonsets',
      'default',
      {
        metadata: { name: 'csi-node' },
        spec: {
          selector: { matchLabels: labels },
          template: {
            metadata: { labels },
            spec: {
              nodeSelector: { 'kubeplane.dev/provider': 'hetzner' },
              containers: [{ name: 'plugin', image: 'csi', resources: { requests: { cpu: '100m' } } }],
            },
          },
        },
      },
      w.now,
    );
    const pods = () => w.api.list('pods', 'default', 'app=csi-node').map((p) => (p['spec'] as { nodeName: string }).nodeName);
    expect(pods()).toEqual(['hz-1']);
    w.advance(10_000);
    expect(w.api.get('daemonsets', 'default', 'csi-node')['status']).toMatchObject({ desiredNumberScheduled: 1, currentNumberScheduled: 1, numberReady: 1 });
    w.api.patch(
      'daemonsets',
      'default',
      'csi-node',
      { spec: { template: { spec: { tolerations: [{ key: 'dedicated', operator: 'Exists' }] } } } },
      'application/strategic-merge-patch+json',
      w.now,
    );
    expect(pods().sort()).toEqual(['hz-1', 'hz-2']);
    w.api.delete('daemonsets', 'default', 'csi-node', w.now);
    expect(pods()).toEqual([]);
  });
});

describe('volume binding', () => {
  /** Two Hetzner nodes in fsn1 and nbg1 with the hcloud driver registered, one AWS node without it. */
  function storageWorld(): World {
    const w = new World();
    const hetzner = (location: string) => ({ labels: { 'kubeplane.dev/provider': 'hetzner', 'csi.hetzner.cloud/location': location } });
    w.node('hz-fsn', hetzner('fsn1'));
    w.node('hz-nbg', hetzner('nbg1'));
    w.node('aws-1', { labels: { 'kubeplane.dev/provider': 'aws' } });
    for (const n of ['hz-fsn', 'hz-nbg'])
      w.api.patch(
        'nodes',
        undefined,
        n,
        { metadata: { annotations: { 'csi.volume.kubernetes.io/nodeid': JSON.stringify({ 'csi.hetzner.cloud': n }) } } },
        'application/merge-patch+json',
        w.now,
      );
    w.api.create('csidrivers', undefined, { metadata: { name: 'csi.hetzner.cloud' }, spec: {} }, w.now);
    w.api.create(
      'storageclasses',
      undefined,
      {
        metadata: { name: 'hcloud-volumes' },
        provisioner: 'csi.hetzner.cloud',
        volumeBindingMode: 'WaitForFirstConsumer',
        allowedTopologies: [{ matchLabelExpressions: [{ key: 'csi.hetzner.cloud/location', values: ['fsn1'] }] }],
      },
      w.now,
    );
    w.api.create(
      'persistentvolumeclaims',
      'default',
      {
        metadata: { name: 'data' },
        spec: { storageClassName: 'hcloud-volumes', accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '10Gi' } } },
      },
      w.now,
    );
    return w;
  }

  const withClaim = (extra: Json = {}): Json => ({ volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data' } }], ...extra });

  it("binds a WaitForFirstConsumer claim when its first pod lands in the class's topology where the driver runs", () => {
    const w = storageWorld();
    expect((w.api.get('persistentvolumeclaims', 'default', 'data')['status'] as Json)['phase']).toBe('Pending');
    w.pod('db', withClaim());
    expect(w.nodeOf('db')).toBe('hz-fsn');
    const pvc = w.api.get('persistentvolumeclaims', 'default', 'data');
    expect(pvc['status']).toMatchObject({ phase: 'Bound', capacity: { storage: '10Gi' } });
    expect((pvc.metadata['annotations'] as Record<string, string>)['volume.kubernetes.io/selected-node']).toBe('hz-fsn');
    const row = (
      toTable({ resource: 'persistentvolumeclaims', objects: [pvc], nowMs: w.now, version: 'v1', include: 'None', listMeta: {} })['rows'] as Array<{
        cells: unknown[];
      }>
    )[0];
    expect(row?.cells.slice(0, 7)).toEqual(['data', 'Bound', (pvc['spec'] as Json)['volumeName'], '10Gi', 'RWO', 'hcloud-volumes', '<unset>']);
    const pv = w.api.get('persistentvolumes', undefined, String((pvc['spec'] as Json)['volumeName']));
    expect(pv['spec']).toMatchObject({
      storageClassName: 'hcloud-volumes',
      csi: { driver: 'csi.hetzner.cloud' },
      claimRef: { name: 'data', namespace: 'default' },
      nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'csi.hetzner.cloud/location', operator: 'In', values: ['fsn1'] }] }] } },
    });
  });

  it('deletes a Delete-policy volume with its claim', () => {
    const w = storageWorld();
    w.pod('db', withClaim());
    const volume = String((w.api.get('persistentvolumeclaims', 'default', 'data')['spec'] as Json)['volumeName']);
    w.api.delete('pods', 'default', 'db', w.now);
    w.api.delete('persistentvolumeclaims', 'default', 'data', w.now);
    expect(w.api.store.get('persistentvolumes', undefined, volume)).toBeUndefined();
  });

  it("sends a later pod of the claim only where the volume's node affinity allows", () => {
    const w = storageWorld();
    w.pod('db', withClaim());
    w.api.delete('pods', 'default', 'db', w.now);
    w.pod('elsewhere', withClaim({ nodeSelector: { 'kubernetes.io/hostname': 'hz-nbg' } }));
    expect(w.nodeOf('elsewhere')).toBeUndefined();
    expect(w.scheduledCondition('elsewhere')?.['message']).toBe(
      "0/3 nodes are available: 1 node(s) had volume node affinity conflict, 2 node(s) didn't match Pod's node affinity/selector. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
    );
    w.pod('again', withClaim());
    expect(w.nodeOf('again')).toBe('hz-fsn');
  });

  it('keeps a pod Pending when no node can provision its claim, or its claim is missing', () => {
    const w = storageWorld();
    w.api.patch('nodes', undefined, 'hz-fsn', { spec: { unschedulable: true } }, 'application/merge-patch+json', w.now);
    w.pod('db', withClaim());
    expect(w.scheduledCondition('db')?.['message']).toBe(
      "0/3 nodes are available: 1 node(s) were unschedulable, 2 node(s) didn't find available persistent volumes to bind. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
    );
    w.pod('lost', { volumes: [{ name: 'x', persistentVolumeClaim: { claimName: 'nope' } }] });
    expect(w.scheduledCondition('lost')?.['message']).toBe(
      '0/3 nodes are available: persistentvolumeclaim "nope" not found. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.',
    );
  });

  it('binds an Immediate claim at once when its driver exists', () => {
    const w = new World();
    w.node('n1');
    w.api.create('csidrivers', undefined, { metadata: { name: 'driver.longhorn.io' }, spec: {} }, w.now);
    w.api.create('storageclasses', undefined, { metadata: { name: 'longhorn' }, provisioner: 'driver.longhorn.io' }, w.now);
    w.api.create(
      'persistentvolumeclaims',
      'default',
      { metadata: { name: 'logs' }, spec: { storageClassName: 'longhorn', accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } },
      w.now,
    );
    expect((w.api.get('persistentvolumeclaims', 'default', 'logs')['status'] as Json)['phase']).toBe('Bound');
  });
});
