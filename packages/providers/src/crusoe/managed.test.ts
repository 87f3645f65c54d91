import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KubeplaneError, Redacted } from '@kubeplane/sdk';
import { settle, type Outcome } from '@kubeplane/sdk/provider';
import { CRUSOE_SANDBOX_CREDENTIALS, CrusoeSandbox, SANDBOX_SSH_PUBLIC_KEY } from '@kubeplane/sandbox';
import { autoscalerNodeArgs, reconcileCmkInCluster, withAutoscalerNodeArgs } from './cmk-in-cluster.js';
import { CrusoeProvider } from './provider.js';

let sandbox: CrusoeSandbox;
let provider: CrusoeProvider;
const run = <T>(call: (attempt: number) => Promise<Outcome<T>>): Promise<T> => settle(call, { clock: sandbox.clock, maxAttempts: 400 });
const region = 'us-east1-a';

beforeEach(() => {
  sandbox = new CrusoeSandbox({ seed: 3 });
  provider = new CrusoeProvider({
    accessKeyId: Redacted.of(CRUSOE_SANDBOX_CREDENTIALS.accessKeyId),
    secretKey: Redacted.of(CRUSOE_SANDBOX_CREDENTIALS.secretKey),
    projectId: CRUSOE_SANDBOX_CREDENTIALS.projectId,
    clock: sandbox.clock,
    sshPublicKey: SANDBOX_SSH_PUBLIC_KEY,
    random: () => 0.5,
  });
});
afterEach(() => sandbox.stop());

/** A CMK cluster in its own VPC, as the manifest's `controlPlane: managed` cluster becomes. */
async function cmkCluster(id: string, addons = ['crusoe_csi', 'nvidia_gpu_operator', 'nvidia_network_operator', 'cluster_autoscaler']) {
  await run(() => provider.network.ensureNetwork({ name: `${id}-net`, clusterId: id, region, cidr: '10.20.0.0/16', subnets: [{ cidr: '10.20.0.0/20' }] }));
  return run(() =>
    provider.managedKubernetes.ensureCluster({ name: id, clusterId: id, region, kubernetesVersion: '1.33.4-cmk.20', addons, networkName: `${id}-net` }),
  );
}

describe('Crusoe managed Kubernetes (CMK)', () => {
  it('gives a non-default VPC the intra-VPC and egress rules before the cluster, and CMK adds its cmk-cp-* rules', async () => {
    const id = 'gpu-abc1234';
    await cmkCluster(id);
    const rules = sandbox
      .inventory()
      .filter((i) => i.kind === 'firewall')
      .map((i) => i.name ?? '');
    expect(rules).toEqual(expect.arrayContaining([`${id}-net-intra-vpc`, `${id}-net-egress`]));
    const cmk = rules.filter((n) => n.startsWith('cmk-cp-')).map((n) => n.replace(/-[0-9a-f]{8}$/, ''));
    expect(cmk.sort()).toEqual(['cmk-cp-api-access-cp', 'cmk-cp-fluent-bit-access-cp', 'cmk-cp-metrics-access-cp', 'cmk-cp-ssh-access-cp']);
    expect(sandbox.liveResources(id).map((r) => r.kind)).toContain('api-token');
  });

  it('creates a GPU pool on an InfiniBand partition of its own, with labels and taints', async () => {
    const id = 'gpu-abc1234';
    await cmkCluster(id);
    const pool = await run(() =>
      provider.managedKubernetes.ensureNodePool({
        clusterId: id,
        name: 'h100',
        serverType: 'h100-80gb-sxm-ib.8x',
        count: 2,
        kubernetesVersion: '1.33.4-cmk.4',
        labels: { accelerator: 'h100' },
        taints: [{ key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' }],
      }),
    );
    expect(pool.nodeIds).toHaveLength(2);
    expect(
      sandbox
        .inventory()
        .filter((i) => i.kind === 'ib-partition')
        .map((i) => i.name),
    ).toEqual([`${id}-h100-ib`]);
    const post = sandbox.emulator.log.find((l) => l.method === 'POST' && l.path.endsWith('/kubernetes/nodepools'));
    expect(post?.body).toMatchObject({
      product_name: 'h100-80gb-sxm-ib.8x',
      count: 2,
      node_pool_version: '1.33.4-cmk.4',
      node_labels: { accelerator: 'h100' },
      node_taints: [{ key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' }],
    });
    expect(typeof post?.body?.['transport_partition_id']).toBe('string');
  });

  it('sends the current count on every PATCH, so a label change does not scale the pool to zero', async () => {
    const id = 'cpu-abc1234';
    await cmkCluster(id, []);
    await run(() => provider.managedKubernetes.ensureNodePool({ clusterId: id, name: 'cpu', serverType: 'c1a.8x', count: 3 }));
    const after = await run(() =>
      provider.managedKubernetes.ensureNodePool({ clusterId: id, name: 'cpu', serverType: 'c1a.8x', count: 3, labels: { tier: 'batch' } }),
    );
    const patches = sandbox.emulator.log.filter((l) => l.method === 'PATCH');
    expect(patches).toHaveLength(1);
    expect(patches[0]?.body).toMatchObject({ action: 'UPDATE', count: 3, node_labels: { tier: 'batch' } });
    expect(after.count).toBe(3);
    expect(after.nodeIds).toHaveLength(3);
  });

  it('keeps a deleted pool VM replaced unless the count was lowered first', async () => {
    const id = 'cpu-abc1234';
    await cmkCluster(id, []);
    const pool = await run(() => provider.managedKubernetes.ensureNodePool({ clusterId: id, name: 'cpu', serverType: 'c1a.8x', count: 2 }));
    const down = await run(() =>
      provider.managedKubernetes.ensureNodePool({ clusterId: id, name: 'cpu', serverType: 'c1a.8x', count: 1, removeNodes: [pool.nodeIds[0] ?? ''] }),
    );
    const patch = sandbox.emulator.log.findIndex((l) => l.method === 'PATCH');
    const del = sandbox.emulator.log.findIndex((l) => l.method === 'DELETE' && l.path.includes('/compute/vms/instances/'));
    expect(patch).toBeGreaterThan(-1);
    expect(del).toBeGreaterThan(patch);
    sandbox.clock.advance(600_000);
    expect(
      sandbox
        .inventory()
        .filter((i) => i.kind === 'node')
        .map((i) => i.id),
    ).toEqual(down.nodeIds);
  });

  it('refuses a version change or add-on change of an existing cluster with an actionable message', async () => {
    const id = 'cpu-abc1234';
    await cmkCluster(id, ['crusoe_csi']);
    const error = await provider.managedKubernetes
      .ensureCluster({ name: id, clusterId: id, region, kubernetesVersion: '1.32.7-cmk.18', addons: ['crusoe_csi'] })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(KubeplaneError);
    expect((error as KubeplaneError).message).toMatch(/support/);
    const addons = await provider.managedKubernetes
      .ensureCluster({ name: id, clusterId: id, region, kubernetesVersion: '1.33.4-cmk.20', addons: ['crusoe_csi', 'cluster_autoscaler'] })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect((addons as KubeplaneError).details.code).toBe('addons_immutable');
  });

  it('waits for the cluster before creating pools and before handing out credentials', async () => {
    const id = 'cpu-abc1234';
    await run(() => provider.network.ensureNetwork({ name: `${id}-net`, clusterId: id, region, cidr: '10.20.0.0/16', subnets: [{ cidr: '10.20.0.0/20' }] }));
    await provider.managedKubernetes.ensureCluster({ name: id, clusterId: id, region, kubernetesVersion: '1.33.4-cmk.15', networkName: `${id}-net` });
    expect(await provider.managedKubernetes.ensureNodePool({ clusterId: id, name: 'cpu', serverType: 'c1a.8x', count: 1 })).toMatchObject({
      status: 'pending',
      reason: 'dependency',
    });
    expect(await provider.managedKubernetes.kubeconfig({ clusterId: id, name: id, region })).toMatchObject({ status: 'pending', reason: 'dependency' });
  });

  it('sets AutoClusters overrides to exactly the requested set', async () => {
    const id = 'gpu-abc1234';
    await cmkCluster(id);
    const ref = { clusterId: id, name: id, region };
    await run(() => provider.managed.configureAutoClusters(ref, { overrides: { XID_74: 'OFF', GPU_FELL_OFF_THE_BUS: 'REPLACE_NODE' } }));
    const next = await run(() => provider.managed.configureAutoClusters(ref, { overrides: { XID_74: 'OFF' } }));
    expect(next.remediation_configs.filter((r) => r.user_override).map((r) => [r.issue_name, r.user_override])).toEqual([['XID_74', 'OFF']]);
    expect(next.remediation_configs.find((r) => r.issue_name === 'XID_74')?.effective_action).toBe('OFF');
  });

  it('tears a CMK cluster with a GPU pool and its VPC down to an empty inventory, in dependency order', async () => {
    const id = 'gpu-abc1234';
    await cmkCluster(id);
    await run(() => provider.managedKubernetes.ensureNodePool({ clusterId: id, name: 'h100', serverType: 'h100-80gb-sxm-ib.8x', count: 1 }));
    await run(() => provider.managedKubernetes.ensureNodePool({ clusterId: id, name: 'cpu', serverType: 'c1a.8x', count: 2 }));
    expect(sandbox.liveResources(id).length).toBeGreaterThan(8);
    await run(() => provider.teardownCluster(id, region));
    expect(sandbox.inventory()).toEqual([]);
    expect(await run(() => provider.listClusterResources(id, region))).toEqual([]);
  });
});

describe('CMK in-cluster data', () => {
  it('writes --nodes=<min>:<max>:<pool> per pool and replaces old ones, keeping other args', () => {
    expect(
      autoscalerNodeArgs([
        { pool: 'gpu', min: 0, max: 8 },
        { pool: 'cpu', min: 1, max: 10 },
      ]),
    ).toEqual(['--nodes=1:10:cpu', '--nodes=0:8:gpu']);
    expect(withAutoscalerNodeArgs(['--cloud-provider=crusoecloud', '--nodes=1:254:cpu', '--v=4'], [{ pool: 'cpu', min: 2, max: 5 }])).toEqual([
      '--cloud-provider=crusoecloud',
      '--v=4',
      '--nodes=2:5:cpu',
    ]);
    expect(() => autoscalerNodeArgs([{ pool: 'x', min: 3, max: 1 }])).toThrow(RangeError);
  });
});

describe('reconcileCmkInCluster', () => {
  /** The two KubernetesApi calls it uses; writes are counted. */
  const cluster = (deploymentArgs: string[] | null) => {
    let args = deploymentArgs;
    const writes: string[] = [];
    return {
      writes,
      args: () => args,
      api: {
        getDeploymentArgs: () => Promise.resolve(args),
        setDeploymentArgs: (_ns: string, _name: string, next: string[]) => {
          writes.push('autoscaler args');
          args = next;
          return Promise.resolve();
        },
      },
    };
  };

  it('writes the --nodes args once, and nothing on a second pass', async () => {
    const c = cluster(['--cloud-provider=crusoecloud']);
    const first = await reconcileCmkInCluster(c.api, { autoscaler: [{ pool: 'cpu', min: 1, max: 6 }] });
    expect(first).toEqual({ status: 'done', value: { autoscalerUpdated: true } });
    expect(c.args()).toEqual(['--cloud-provider=crusoecloud', '--nodes=1:6:cpu']);
    const second = await reconcileCmkInCluster(c.api, { autoscaler: [{ pool: 'cpu', min: 1, max: 6 }] });
    expect(second).toEqual({ status: 'done', value: { autoscalerUpdated: false } });
    expect(c.writes).toEqual(['autoscaler args']);
  });

  it('waits while the autoscaler Deployment does not exist yet', async () => {
    expect(await reconcileCmkInCluster(cluster(null).api, { autoscaler: [{ pool: 'cpu', min: 0, max: 3 }] })).toMatchObject({
      status: 'pending',
      reason: 'dependency',
    });
  });
});
