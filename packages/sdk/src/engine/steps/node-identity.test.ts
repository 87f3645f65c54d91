// The identity each cloud's CCM would give a Node, as kubeplane derives it from its own records (node-identity.ts).
import { describe, expect, it } from 'vitest';
import type { PoolSpec, PoolProvider } from '../../model/types.js';
import type { NodeResource } from '../records.js';
import { nodeIdentity } from './node-identity.js';

function pool(name: string, provider: PoolProvider | undefined, serverType?: string): PoolSpec {
  return {
    name,
    kind: provider ? 'dynamic' : 'static',
    role: 'compute',
    sourcePath: `nodePools.dynamic[0]`,
    ...(provider ? { provider } : {}),
    ...(serverType ? { serverType } : {}),
    storageDiskSize: 0,
    spot: false,
    count: 1,
    labels: {},
    annotations: {},
    taints: [],
    templateHash: 'h',
    nodes: [],
  };
}

function machine(provider: string, region: string, providerId: string, zone?: string): NodeResource {
  return {
    pool: 'p',
    role: 'compute',
    provider,
    region,
    ...(zone ? { zone } : {}),
    id: providerId.split('/').at(-1) ?? '',
    providerId,
    state: 'running',
    createdAt: 0,
  };
}

describe('nodeIdentity', () => {
  it('Hetzner: the location as region and its legacy data center as zone, as hcloud-cloud-controller-manager sets them', () => {
    const p = pool('workers', { name: 'hetzner-1', type: 'hetzner', region: 'fsn1' }, 'cpx32');
    expect(nodeIdentity('c-workers-01', p, machine('hetzner-1', 'fsn1', 'hcloud://4711', 'fsn1'))).toEqual({
      providerId: 'hcloud://4711',
      labels: {
        'kubeplane.dev/provider': 'hetzner',
        'kubeplane.dev/pool': 'workers',
        'topology.kubernetes.io/region': 'fsn1',
        'topology.kubernetes.io/zone': 'fsn1-dc14',
        'node.kubernetes.io/instance-type': 'cpx32',
      },
    });
    // A pool written with a data center as its zone is in that data center's location.
    expect(nodeIdentity('n', pool('w', { name: 'h', type: 'hetzner', region: 'nbg1', zone: 'nbg1-dc3' }, 'cpx22'), undefined).labels).toMatchObject({
      'topology.kubernetes.io/region': 'nbg1',
      'topology.kubernetes.io/zone': 'nbg1-dc3',
    });
  });

  it("AWS: the zone the instance runs in, read from its providerID, over the pool's", () => {
    const p = pool('aws-worker', { name: 'aws-1', type: 'aws', region: 'eu-central-1' }, 't3.large');
    expect(nodeIdentity('n', p, machine('aws-1', 'eu-central-1', 'aws:///eu-central-1c/i-0abc'))).toEqual({
      providerId: 'aws:///eu-central-1c/i-0abc',
      labels: {
        'kubeplane.dev/provider': 'aws',
        'kubeplane.dev/pool': 'aws-worker',
        'topology.kubernetes.io/region': 'eu-central-1',
        'topology.kubernetes.io/zone': 'eu-central-1c',
        'node.kubernetes.io/instance-type': 't3.large',
      },
    });
  });

  it('Crusoe: the location as region and as zone', () => {
    const p = pool('gpu', { name: 'crusoe-1', type: 'crusoe', region: 'us-east1-a' }, 'h100-80gb-sxm-ib.8x');
    expect(nodeIdentity('n', p, machine('crusoe-1', 'us-east1-a', 'crusoe://0b7e', 'us-east1-a')).labels).toMatchObject({
      'topology.kubernetes.io/region': 'us-east1-a',
      'topology.kubernetes.io/zone': 'us-east1-a',
      'node.kubernetes.io/instance-type': 'h100-80gb-sxm-ib.8x',
    });
  });

  it('static machines: kubeplane://static/<node>, and no topology no cloud gives', () => {
    expect(nodeIdentity('c-rack-01', pool('rack', undefined), undefined)).toEqual({
      providerId: 'kubeplane://static/c-rack-01',
      labels: { 'kubeplane.dev/provider': 'static', 'kubeplane.dev/pool': 'rack' },
    });
  });

  it("leaves the providerID alone while the machine's create is unanswered", () => {
    expect(nodeIdentity('n', pool('w', { name: 'h', type: 'hetzner', region: 'fsn1' }, 'cpx22'), undefined).providerId).toBe('');
  });
});
