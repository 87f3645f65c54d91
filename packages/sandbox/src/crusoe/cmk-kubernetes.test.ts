// A CMK cluster end to end: the real CrusoeProvider drives the Crusoe emulator, and the real KubernetesClient talks
// to the cluster's API, which the Kubernetes emulator serves from the same world (one msw server, one clock).
import { X509Certificate } from 'node:crypto';
import { setupServer } from 'msw/node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { done, pending, settle, VirtualClock, type Outcome } from '@kubeplane/sdk/provider';
import { Redacted, type KubernetesApi } from '@kubeplane/sdk';
import { reconcileCmkInCluster } from '@kubeplane/providers';
import { CrusoeProvider } from '@kubeplane/providers';
import { kubernetesConnector } from '@kubeplane/providers';
import { parseKubeconfig } from '@kubeplane/providers';
import { KubernetesEmulator } from '../kubernetes/emulator.js';
import { sandboxContext } from '../kubernetes/fixture.js';
import { KUBE_TIMINGS } from '../kubernetes/timings.js';
import { CRUSOE_LATENCY, CrusoeEmulator } from './emulator.js';
import { CRUSOE_SANDBOX_CREDENTIALS, SANDBOX_SSH_PUBLIC_KEY } from './harness.js';

const S = 1000;
const region = 'us-east1-a';
const id = 'gpu-abc1234';
const ref = { clusterId: id, name: id, region };

let clock: VirtualClock;
let crusoe: CrusoeEmulator;
let kubernetes: KubernetesEmulator;
let provider: CrusoeProvider;
let server: ReturnType<typeof setupServer>;
const run = <T>(call: () => Promise<Outcome<T>>): Promise<T> => settle(call, { clock, maxAttempts: 400 });

beforeEach(() => {
  clock = new VirtualClock(Date.parse('2026-01-01T00:00:00Z'));
  const ctx = sandboxContext(clock);
  crusoe = new CrusoeEmulator(ctx, {
    keys: { [CRUSOE_SANDBOX_CREDENTIALS.accessKeyId]: CRUSOE_SANDBOX_CREDENTIALS.secretKey },
    projectId: CRUSOE_SANDBOX_CREDENTIALS.projectId,
  });
  kubernetes = new KubernetesEmulator(ctx, { vms: crusoe });
  server = setupServer(...crusoe.handlers(), ...kubernetes.handlers());
  server.listen({ onUnhandledRequest: 'error' });
  provider = new CrusoeProvider({
    accessKeyId: Redacted.of(CRUSOE_SANDBOX_CREDENTIALS.accessKeyId),
    secretKey: Redacted.of(CRUSOE_SANDBOX_CREDENTIALS.secretKey),
    projectId: CRUSOE_SANDBOX_CREDENTIALS.projectId,
    clock,
    sshPublicKey: SANDBOX_SSH_PUBLIC_KEY,
    random: () => 0.5,
  });
});
afterEach(() => server.close());

/** The admin client, from the kubeconfig CMK's get-credentials gives. */
async function adminApi(): Promise<KubernetesApi> {
  return kubernetesConnector({ clock })(Redacted.of(await run(() => provider.managedKubernetes.kubeconfig(ref))));
}

async function createCluster(): Promise<void> {
  await run(() => provider.network.ensureNetwork({ name: `${id}-net`, clusterId: id, region, cidr: '10.20.0.0/16', subnets: [{ cidr: '10.20.0.0/20' }] }));
  await run(() =>
    provider.managedKubernetes.ensureCluster({
      name: id,
      clusterId: id,
      region,
      kubernetesVersion: '1.33.4-cmk.15',
      addons: ['crusoe_csi', 'cluster_autoscaler'],
      networkName: `${id}-net`,
    }),
  );
}

describe('a CMK cluster in the sandbox', () => {
  it('answers /readyz with the real CA and admin certificate from get-credentials once the create operation finishes', async () => {
    await run(() => provider.network.ensureNetwork({ name: `${id}-net`, clusterId: id, region, cidr: '10.20.0.0/16', subnets: [{ cidr: '10.20.0.0/20' }] }));
    const request = { name: id, clusterId: id, region, kubernetesVersion: '1.33.4-cmk.15', addons: ['cluster_autoscaler'], networkName: `${id}-net` };
    expect((await provider.managedKubernetes.ensureCluster(request)).status).toBe('pending');
    clock.advance(CRUSOE_LATENCY.cmkClusterCreate - 1);
    expect(kubernetes.inventory().clusters).toEqual([]);
    await expect(fetch(`https://${id}.crusoecloudcompute.com:6443/readyz`)).rejects.toThrow();
    clock.advance(1);
    const api = await adminApi();
    expect(await api.ready()).toEqual({ status: 'done', value: undefined });
    const connection = parseKubeconfig(Redacted.of(await run(() => provider.managedKubernetes.kubeconfig(ref))));
    expect(connection.server).toBe(`https://${id}.crusoecloudcompute.com:6443`);
    const ca = new X509Certificate(connection.caPem ?? '');
    const admin = new X509Certificate(connection.clientCertificatePem ?? '');
    expect(admin.verify(ca.publicKey)).toBe(true);
    expect(admin.subject).toContain('O=system:masters');
    expect(kubernetes.inventory().clusters.map((c) => [c.name, c.up, c.managedBy])).toEqual([[id, true, 'crusoe']]);
  });

  it('registers a pool of 2 as 2 Ready Nodes with the pool labels and taints, named as the VMs, 170 s after the pool is created', async () => {
    await createCluster();
    const created = clock.now();
    const pool = await run(() =>
      provider.managedKubernetes.ensureNodePool({
        clusterId: id,
        name: 'cpu',
        serverType: 'c1a.8x',
        count: 2,
        labels: { tier: 'batch' },
        taints: [{ key: 'dedicated', value: 'batch', effect: 'NoSchedule' }],
      }),
    );
    const api = await adminApi();
    clock.advanceTo(created + CRUSOE_LATENCY.vmCreate + KUBE_TIMINGS.kubeadmJoinMs + KUBE_TIMINGS.ciliumReadyMs);
    const nodes = await api.listNodes();
    const vms = await run(() => provider.managedKubernetes.listNodePoolNodes(ref, 'cpu'));
    expect(nodes.map((n) => n.name).sort()).toEqual(vms.map((v) => v.name).sort());
    expect(nodes.map((n) => n.providerId).sort()).toEqual(pool.nodeIds.map((vm) => `crusoe://${vm}`).sort());
    for (const node of nodes) {
      expect(node).toMatchObject({
        ready: true,
        readySince: created + CRUSOE_LATENCY.vmCreate + KUBE_TIMINGS.kubeadmJoinMs + KUBE_TIMINGS.ciliumReadyMs,
        taints: [{ key: 'dedicated', value: 'batch', effect: 'NoSchedule' }],
      });
      expect(node.labels).toMatchObject({ tier: 'batch', 'crusoe.ai/nodepool.name': 'cpu', 'node.kubernetes.io/instance-type': 'c1a.8x' });
      expect(node.name).toMatch(/^np-[0-9a-f]{8}-\d+$/);
    }
  });

  it("cuts each node's podCIDR from the cluster's pod range, and gives pods addresses of their node's", async () => {
    await run(() => provider.network.ensureNetwork({ name: `${id}-net`, clusterId: id, region, cidr: '10.20.0.0/16', subnets: [{ cidr: '10.20.0.0/20' }] }));
    const request = { name: id, clusterId: id, region, kubernetesVersion: '1.33.4-cmk.15', addons: [], networkName: `${id}-net`, podCidr: '10.60.0.0/16' };
    await run(() => provider.managedKubernetes.ensureCluster(request));
    await run(() => provider.managedKubernetes.ensureNodePool({ clusterId: id, name: 'cpu', serverType: 'c1a.8x', count: 2 }));
    clock.advance(600 * S);
    const cluster = kubernetes.cluster(`${id}.crusoecloudcompute.com:6443`);
    const nodes = cluster?.store.list('nodes') ?? [];
    expect(nodes).toHaveLength(2);
    const cidrs = new Map(nodes.map((n) => [n.metadata.name, String((n['spec'] as { podCIDR?: string }).podCIDR)]));
    expect([...cidrs.values()].sort()).toEqual(['10.60.0.0/24', '10.60.1.0/24']);
    const pods = (cluster?.store.list('pods') ?? []).filter((p) => (p['spec'] as { hostNetwork?: boolean }).hostNetwork !== true);
    expect(pods.length).toBeGreaterThan(0);
    for (const pod of pods) {
      const node = (pod['spec'] as { nodeName?: string }).nodeName ?? '';
      const ip = (pod['status'] as { podIP?: string }).podIP ?? '';
      expect(ip, pod.metadata.name).toMatch(new RegExp(`^${(cidrs.get(node) ?? 'none').replace(/0\/24$/, '').replaceAll('.', '\\.')}\\d+$`));
    }
    // The Service range is the default one, as none was asked for.
    expect(crusoe.listManagedClusters()[0]).toMatchObject({ podSubnet: '10.60.0.0/16', serviceSubnet: '10.233.0.0/18', nodeCidrMaskSize: 24 });
  });

  it('gives new nodes the pool labels as they are at their creation, as CMK does', async () => {
    await createCluster();
    await run(() => provider.managedKubernetes.ensureNodePool({ clusterId: id, name: 'cpu', serverType: 'c1a.8x', count: 1, labels: { tier: 'a' } }));
    await run(() => provider.managedKubernetes.ensureNodePool({ clusterId: id, name: 'cpu', serverType: 'c1a.8x', count: 2, labels: { tier: 'b' } }));
    clock.advance(600 * S);
    const tiers = (await (await adminApi()).listNodes()).map((n) => n.labels['tier']);
    expect(tiers.sort()).toEqual(['a', 'b']);
  });

  it("sets the autoscaler limits through reconcileCmkInCluster and holds CMK's add-ons as Helm releases beside its token", async () => {
    await createCluster();
    const api = await adminApi();
    const outcome = await reconcileCmkInCluster(api, { autoscaler: [{ pool: 'cpu', min: 1, max: 4 }] });
    expect(outcome).toEqual({ status: 'done', value: { autoscalerUpdated: true } });
    expect(await api.getDeploymentArgs('crusoe-system', 'cluster-autoscaler')).toEqual([
      '--cloud-provider=crusoecloud',
      '--expander=least-waste',
      '--nodes=1:4:cpu',
    ]);
    expect((await api.getSecret('crusoe-system', `cmk-${id}`))?.['CRUSOE_SECRET_KEY']?.reveal()).toBe('cmk-managed-token');
    expect(await reconcileCmkInCluster(api, { autoscaler: [{ pool: 'cpu', min: 1, max: 4 }] })).toEqual({
      status: 'done',
      value: { autoscalerUpdated: false },
    });
    const releases = await api.listObjects('v1', 'Secret', 'crusoe-system', 'owner=helm');
    expect(releases.map((r) => `${r.metadata.name} ${r.metadata.labels?.['status']}`).sort()).toContain('sh.helm.release.v1.cluster-autoscaler.v1 deployed');
  });

  it('loses the Node of a VM the scale-down removed, and stops answering once the cluster is deleted', async () => {
    await createCluster();
    const pool = await run(() => provider.managedKubernetes.ensureNodePool({ clusterId: id, name: 'cpu', serverType: 'c1a.8x', count: 2 }));
    clock.advance(600 * S);
    const api = await adminApi();
    const victim = (await api.listNodes()).find((n) => n.providerId === `crusoe://${pool.nodeIds[0] ?? ''}`);
    expect(victim?.ready).toBe(true);
    await run(() => api.drainNode(victim?.name ?? ''));
    await run(() =>
      provider.managedKubernetes.ensureNodePool({ clusterId: id, name: 'cpu', serverType: 'c1a.8x', count: 1, removeNodes: [pool.nodeIds[0] ?? ''] }),
    );
    const deletedAt = clock.now();
    // As the engine does: look every 10 s until the Node is gone.
    const left = await run(async () => {
      const nodes = await api.listNodes();
      return nodes.length === 1 ? done(nodes) : pending('in-progress', 10, 'the removed node is still listed');
    });
    expect(left.map((n) => n.providerId)).toEqual([`crusoe://${pool.nodeIds[1] ?? ''}`]);
    expect(clock.now() - deletedAt).toBeLessThanOrEqual(KUBE_TIMINGS.nodeMonitorGraceMs + 10 * S);
    await run(() => provider.managedKubernetes.deleteNodePool({ ...ref, name: 'cpu' }));
    await run(() => provider.managedKubernetes.deleteCluster(ref));
    expect(await api.ready()).toMatchObject({ status: 'pending', reason: 'in-progress' });
    expect(kubernetes.inventory().clusters.map((c) => [c.name, c.up])).toEqual([[id, false]]);
  });
});
