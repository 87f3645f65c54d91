// Server-side Table output: the columns and cells the API server's printers give kubectl.
import { describe, expect, it } from 'vitest';
import { humanDuration, includeObjectOf, tableVersion, toTable } from './table.js';
import type { Json, KubeObject } from './store.js';

const NOW = Date.parse('2026-01-02T00:00:00Z');
const KUBECTL_ACCEPT = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';

function node(name: string, labels: Record<string, string>, ready: string, extra: Json = {}): KubeObject {
  return {
    metadata: { name, labels, creationTimestamp: '2026-01-01T23:00:00Z' },
    spec: extra,
    status: {
      conditions: [{ type: 'Ready', status: ready }],
      addresses: [
        { type: 'InternalIP', address: '10.0.0.1' },
        { type: 'ExternalIP', address: '203.0.113.9' },
      ],
      nodeInfo: { kubeletVersion: 'v1.32.1', osImage: 'Ubuntu 24.04.1 LTS', kernelVersion: '6.8.0-49-generic', containerRuntimeVersion: 'containerd://1.7.24' },
    },
  };
}

const rows = (t: Json) => t['rows'] as Array<{ cells: unknown[]; object?: Json }>;

describe('server-side tables', () => {
  it("reads kubectl's Accept header as a request for a meta.k8s.io/v1 Table, and a plain one as none", () => {
    expect(tableVersion(KUBECTL_ACCEPT)).toBe('v1');
    expect(tableVersion('application/json;as=Table;v=v1beta1;g=meta.k8s.io')).toBe('v1beta1');
    expect(tableVersion('application/json')).toBeUndefined();
    expect(tableVersion('application/vnd.kubernetes.protobuf, */*')).toBeUndefined();
    expect(tableVersion(null)).toBeUndefined();
  });

  it('prints nodes as NAME STATUS ROLES AGE VERSION, wide columns at priority 1', () => {
    const t = toTable({
      resource: 'nodes',
      objects: [node('cp-1', { 'node-role.kubernetes.io/control-plane': '' }, 'True'), node('w-1', {}, 'False', { unschedulable: true })],
      nowMs: NOW,
      version: 'v1',
      include: 'None',
      listMeta: { resourceVersion: '9' },
    });
    const columns = t['columnDefinitions'] as Array<{ name: string; priority: number }>;
    expect(columns.filter((c) => c.priority === 0).map((c) => c.name)).toEqual(['Name', 'Status', 'Roles', 'Age', 'Version']);
    expect(columns.filter((c) => c.priority === 1).map((c) => c.name)).toEqual([
      'Internal-IP',
      'External-IP',
      'OS-Image',
      'Kernel-Version',
      'Container-Runtime',
    ]);
    expect(rows(t).map((r) => r.cells)).toEqual([
      ['cp-1', 'Ready', 'control-plane', '60m', 'v1.32.1', '10.0.0.1', '203.0.113.9', 'Ubuntu 24.04.1 LTS', '6.8.0-49-generic', 'containerd://1.7.24'],
      [
        'w-1',
        'NotReady,SchedulingDisabled',
        '<none>',
        '60m',
        'v1.32.1',
        '10.0.0.1',
        '203.0.113.9',
        'Ubuntu 24.04.1 LTS',
        '6.8.0-49-generic',
        'containerd://1.7.24',
      ],
    ]);
    expect(t).toMatchObject({ kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata: { resourceVersion: '9' } });
    expect(rows(t)[0]).not.toHaveProperty('object');
  });

  it("counts a pod's ready containers and restarts and shows a waiting container's reason", () => {
    const pod: KubeObject = {
      metadata: { name: 'web-1', namespace: 'default', creationTimestamp: '2026-01-01T23:59:30Z' },
      spec: { nodeName: 'w-1', containers: [{ name: 'a' }, { name: 'b' }] },
      status: {
        phase: 'Running',
        podIP: '10.244.1.5',
        containerStatuses: [
          { name: 'a', ready: true, restartCount: 1, state: { running: {} } },
          { name: 'b', ready: false, restartCount: 2, state: { waiting: { reason: 'CrashLoopBackOff' } } },
        ],
      },
    };
    const t = toTable({ resource: 'pods', objects: [pod], nowMs: NOW, version: 'v1', include: 'None', listMeta: {} });
    expect(rows(t)[0]?.cells).toEqual(['web-1', '1/2', 'CrashLoopBackOff', '3', '30s', '10.244.1.5', 'w-1', '<none>', '<none>']);
  });

  it('prints services with their type, cluster IP, external address and ports, as printService does', () => {
    const svc = (spec: Json, status: Json = {}): KubeObject => ({ metadata: { name: 's', creationTimestamp: '2026-01-01T23:00:00Z' }, spec, status });
    // Services are served once kube-b's RESOURCES entry lands; the printer is keyed by resource name.
    const cells = (o: KubeObject) =>
      rows(toTable({ resource: 'services' as never, objects: [o], nowMs: NOW, version: 'v1', include: 'None', listMeta: {} }))[0]?.cells;
    expect(
      cells(
        svc({
          type: 'ClusterIP',
          clusterIP: '10.96.0.10',
          ports: [
            { port: 53, protocol: 'UDP' },
            { port: 53, protocol: 'TCP' },
          ],
          selector: { 'k8s-app': 'kube-dns' },
        }),
      ),
    ).toEqual(['s', 'ClusterIP', '10.96.0.10', '<none>', '53/UDP,53/TCP', '60m', 'k8s-app=kube-dns']);
    expect(cells(svc({ type: 'NodePort', clusterIP: '10.96.1.1', ports: [{ port: 80, nodePort: 30080 }] }))?.slice(3, 5)).toEqual(['<none>', '80:30080/TCP']);
    expect(cells(svc({ type: 'LoadBalancer', clusterIP: '10.96.1.2', ports: [] }))?.slice(3, 5)).toEqual(['<pending>', '<none>']);
    expect(cells(svc({ type: 'LoadBalancer', clusterIP: '10.96.1.2' }, { loadBalancer: { ingress: [{ ip: '203.0.113.7' }] } }))?.[3]).toBe('203.0.113.7');
  });

  it('prints endpoints as ip:port, the first three and how many more', () => {
    const ep: KubeObject = {
      metadata: { name: 'e' },
      subsets: [{ addresses: ['10.0.0.1', '10.0.0.2', '10.0.0.3', '10.0.0.4'].map((ip) => ({ ip })), ports: [{ port: 6443 }] }],
    };
    expect(rows(toTable({ resource: 'endpoints' as never, objects: [ep], nowMs: NOW, version: 'v1', include: 'None', listMeta: {} }))[0]?.cells).toEqual([
      'e',
      '10.0.0.1:6443,10.0.0.2:6443,10.0.0.3:6443 + 1 more...',
      '<unknown>',
    ]);
  });

  it('gives a kind without a printer the default Name and Created At columns', () => {
    const t = toTable({
      resource: 'roles',
      objects: [{ metadata: { name: 'r', creationTimestamp: '2026-01-01T00:00:00Z' } }],
      nowMs: NOW,
      version: 'v1',
      include: 'None',
      listMeta: {},
    });
    expect((t['columnDefinitions'] as Array<{ name: string }>).map((c) => c.name)).toEqual(['Name', 'Created At']);
    expect(rows(t)[0]?.cells).toEqual(['r', '2026-01-01T00:00:00Z']);
  });

  it("embeds each row's object whole for includeObject=Object and as PartialObjectMetadata by default", () => {
    const cm: KubeObject = { metadata: { name: 'c', namespace: 'default' }, data: { a: '1' } };
    expect(includeObjectOf(null)).toBe('Metadata');
    const full = toTable({ resource: 'configmaps', objects: [cm], nowMs: NOW, version: 'v1', include: includeObjectOf('Object'), listMeta: {} });
    expect(rows(full)[0]?.object).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', metadata: cm.metadata, data: { a: '1' } });
    expect(rows(full)[0]?.cells).toEqual(['c', 1, '<unknown>']);
    const meta = toTable({ resource: 'configmaps', objects: [cm], nowMs: NOW, version: 'v1', include: includeObjectOf(null), listMeta: {} });
    expect(rows(meta)[0]?.object).toEqual({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: cm.metadata });
  });

  it('writes ages as the API server does: two units at most, coarser as they grow', () => {
    const s = 1000;
    expect(
      [
        59 * s,
        119 * s,
        150 * s,
        600 * s,
        179 * 60 * s,
        3 * 3600 * s + 5 * 60 * s,
        30 * 3600 * s,
        50 * 3600 * s,
        30 * 86400 * s,
        800 * 86400 * s,
        3000 * 86400 * s,
      ].map(humanDuration),
    ).toEqual(['59s', '119s', '2m30s', '10m', '179m', '3h5m', '30h', '2d2h', '30d', '2y70d', '8y']);
    expect(humanDuration(-500)).toBe('0s');
    expect(humanDuration(-5000)).toBe('<invalid>');
  });
});
