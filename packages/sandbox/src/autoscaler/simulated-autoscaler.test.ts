// The simulated cluster-autoscaler's decisions on pods and nodes built by hand, against an in-memory cloud provider:
// which group grows (least waste, selectors and taints respected), by how much, and that scale-down waits the
// unneeded time and never goes below min. (Against the real adapter over gRPC: handlers/src/autoscaler/simulated.test.ts.)
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '@kubeplane/sdk/provider';
import type { KubeObject } from '../kubernetes/store.js';
import { resourcesOf } from './fit.js';
import { unschedulablePod } from './cluster-view.js';
import { CA_DEFAULTS, SimulatedClusterAutoscaler, type AutoscalerCloudProvider } from './simulated-autoscaler.js';

interface Group {
  id: string;
  min: number;
  max: number;
  target: number;
  cpu: string;
  memory: string;
  labels: Record<string, string>;
  taints: Array<{ key: string; value?: string; effect: string }>;
}

function provider(groups: Group[]): AutoscalerCloudProvider & { asked: Array<[string, number]>; deleted: string[] } {
  const asked: Array<[string, number]> = [];
  const deleted: string[] = [];
  const find = (id: string) => {
    const g = groups.find((x) => x.id === id);
    if (!g) throw new Error(`no group ${id}`);
    return g;
  };
  return {
    asked,
    deleted,
    refresh: async () => undefined,
    nodeGroups: async () => groups.map((g) => ({ id: g.id, minSize: g.min, maxSize: g.max })),
    nodeGroupForNode: async (n) => ({ id: groups.find((g) => n.name?.startsWith(`${g.id}-`))?.id ?? '' }),
    targetSize: async (id) => find(id).target,
    increaseSize: async (id, delta) => {
      asked.push([id, delta]);
      find(id).target += delta;
    },
    deleteNodes: async (id, nodes) => {
      deleted.push(...nodes.map((n) => n.name ?? ''));
      find(id).target -= nodes.length;
    },
    nodeGroupNodes: async () => [],
    templateNodeInfo: async (id) => {
      const g = find(id);
      return {
        metadata: { labels: g.labels },
        spec: { taints: g.taints },
        status: { allocatable: { cpu: { string: g.cpu }, memory: { string: g.memory }, pods: { string: '110' } } },
      };
    },
  };
}

function node(name: string, cpu: string, labels: Record<string, string> = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels },
    spec: {},
    status: { allocatable: { cpu, memory: '16Gi', pods: '110' }, conditions: [{ type: 'Ready', status: 'True' }] },
  };
}

describe('the simulated cluster-autoscaler', () => {
  it("reads resources as the scheduler counts them, in JSON and in the adapter's protobuf Quantities", () => {
    expect(resourcesOf({ cpu: '500m', memory: '2Gi', pods: '110' })).toEqual({ cpu: 500, memory: 2 * 2 ** 30, pods: 110 });
    expect(resourcesOf({ cpu: { string: '16' }, 'nvidia.com/gpu': { string: '8' } })).toEqual({ cpu: 16_000, 'nvidia.com/gpu': 8 });
  });

  it('grows the group that wastes least, by the nodes the pods need, and only groups whose selector and taints admit them', async () => {
    const clock = new VirtualClock(0);
    const groups: Group[] = [
      { id: 'big', min: 0, max: 5, target: 0, cpu: '16', memory: '64Gi', labels: { tier: 'batch' }, taints: [] },
      { id: 'small', min: 0, max: 5, target: 0, cpu: '4', memory: '16Gi', labels: { tier: 'batch' }, taints: [] },
      {
        id: 'gpu',
        min: 0,
        max: 5,
        target: 0,
        cpu: '4',
        memory: '16Gi',
        labels: { tier: 'batch' },
        taints: [{ key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' }],
      },
    ];
    const p = provider(groups);
    const pods = [0, 1].map((i) => unschedulablePod({ name: `job-${i}`, requests: { cpu: '3', memory: '8Gi' }, nodeSelector: { tier: 'batch' }, nodes: 1 }));
    const ca = new SimulatedClusterAutoscaler({ clock, provider: p, cluster: { pods: () => pods, nodes: () => [] } });
    await ca.settle();
    // Two 3-CPU pods: two 4-CPU nodes waste less than one 16-CPU node; the tainted group is not for them.
    expect(p.asked).toEqual([['small', 2]]);
    // The nodes are coming: the next scan asks for nothing more.
    clock.advance(CA_DEFAULTS.scanIntervalMs);
    await ca.settle();
    expect(p.asked).toEqual([['small', 2]]);
  });

  it("removes an idle node only after the unneeded time, and never below the group's min", async () => {
    const clock = new VirtualClock(0);
    const groups: Group[] = [{ id: 'pool', min: 1, max: 5, target: 2, cpu: '4', memory: '16Gi', labels: {}, taints: [] }];
    const p = provider(groups);
    const nodes = [node('pool-1', '4'), node('pool-2', '4')];
    const ca = new SimulatedClusterAutoscaler({ clock, provider: p, cluster: { pods: () => [], nodes: () => nodes } });
    await ca.settle();
    for (let t = 0; t < CA_DEFAULTS.unneededMs - CA_DEFAULTS.scanIntervalMs; t += CA_DEFAULTS.scanIntervalMs) {
      clock.advance(CA_DEFAULTS.scanIntervalMs);
      await ca.settle();
    }
    expect(p.deleted).toEqual([]);
    clock.advance(2 * CA_DEFAULTS.scanIntervalMs);
    await ca.settle();
    // Both are idle, but the group may lose only one.
    expect(p.deleted).toHaveLength(1);
    expect(groups[0]?.target).toBe(1);
  });
});
