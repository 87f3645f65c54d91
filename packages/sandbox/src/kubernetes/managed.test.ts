// Control planes a cloud runs itself (Crusoe CMK) in the Kubernetes sandbox: the API answers while the cloud lists
// the cluster running, holds what CMK installs, and node-pool machines join on their own, without user-data.
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Redacted } from '@kubeplane/sdk';
import { renderKubeconfig } from '@kubeplane/sdk/internal';
import { VirtualClock } from '@kubeplane/sdk/provider';
import { kubernetesConnector } from '@kubeplane/providers';
import { issueCmkPki, type CmkPki } from '../crusoe/cmk-pki.js';
import { KubernetesEmulator } from './emulator.js';
import { RENDER_NOW, sandboxContext } from './fixture.js';
import { KUBE_TIMINGS } from './timings.js';
import type { SandboxManagedCluster, SandboxVm, SandboxVmSource } from './vm-source.js';

const T0 = RENDER_NOW.getTime();
const S = 1000;
const NAME = 'gpu-abc1234';
const ENDPOINT = `${NAME}.crusoecloudcompute.com:6443`;
const server = setupServer();
let pki: CmkPki;

/** A cloud with managed control planes, driven by the test. */
class FakeCloud implements SandboxVmSource {
  readonly vms = new Map<string, SandboxVm>();
  readonly clusters = new Map<string, SandboxManagedCluster>();

  listVms(): SandboxVm[] {
    return [...this.vms.values()].map((v) => structuredClone(v));
  }

  listManagedClusters(): SandboxManagedCluster[] {
    return [...this.clusters.values()].map((c) => structuredClone(c));
  }

  controlPlane(state: SandboxManagedCluster['state'], runningSinceMs?: number, addons = ['cluster_autoscaler']): void {
    const serving = { certPem: pki.servingCertPem, keyPem: pki.servingKeyPem };
    this.clusters.set(NAME, {
      cloud: 'crusoe',
      name: NAME,
      endpoint: ENDPOINT,
      kubernetesVersion: 'v1.33.4',
      state,
      ...(runningSinceMs !== undefined ? { runningSinceMs } : {}),
      caPem: pki.caPem,
      addons,
      serving,
    });
  }

  poolVm(name: string, runningSinceMs: number, index: number): void {
    const id = `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`;
    this.vms.set(name, {
      cloud: 'crusoe',
      name,
      state: 'running',
      runningSinceMs,
      userData: '',
      privateIPv4: `172.27.0.${10 + index}`,
      managed: {
        endpoint: ENDPOINT,
        nodeName: name,
        labels: { tier: 'gpu', 'crusoe.ai/nodepool.name': 'h100' },
        taints: [{ key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' }],
        providerId: `crusoe://${id}`,
        kubeletVersion: 'v1.33.4',
      },
    });
  }
}

let clock: VirtualClock;
let cloud: FakeCloud;
let emulator: KubernetesEmulator;

function fresh(): void {
  clock = new VirtualClock(T0);
  cloud = new FakeCloud();
  emulator = new KubernetesEmulator(sandboxContext(clock), { vms: cloud });
  server.resetHandlers(...emulator.handlers());
}

/** Time passes and the simulation looks at the cloud, as it does on every request. */
function step(ms: number): void {
  clock.advance(ms);
  emulator.tick();
}

function admin() {
  const kubeconfig = renderKubeconfig({
    clusterName: NAME,
    server: `https://${ENDPOINT}`,
    caCertificatePem: pki.caPem,
    user: 'admin',
    clientCertificatePem: pki.adminCertPem,
    clientKeyPem: Redacted.of(pki.adminKeyPem),
  });
  return kubernetesConnector({ clock })(kubeconfig);
}

function status(vm: string) {
  const s = emulator
    .kubelets()
    .filter((k) => k.vm === vm)
    .pop();
  if (!s) throw new Error(`no kubelet for ${vm}`);
  return s;
}

beforeAll(async () => {
  pki = await issueCmkPki({ seed: 'managed-test', name: NAME, version: '1.33.4-cmk.15', nowMs: T0 });
  server.listen({ onUnhandledRequest: 'error' });
});
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

describe('a control plane the cloud runs', () => {
  it('answers from the instant the cloud lists it running, and not while it provisions', async () => {
    fresh();
    cloud.controlPlane('provisioning');
    expect((await admin().ready()).status).toBe('pending');
    clock.advance(275 * S);
    cloud.controlPlane('running', T0 + 275 * S);
    expect((await admin().ready()).status).toBe('done');
    expect(emulator.inventory().clusters.map((c) => [c.name, c.endpoint, c.up, c.managedBy])).toEqual([[NAME, ENDPOINT, true, 'crusoe']]);
  });

  it('holds what CMK installs: crusoe-system, the cmk-<cluster> Secret and the autoscaler without --nodes limits', async () => {
    fresh();
    cloud.controlPlane('running', T0);
    const api = admin();
    expect(Object.keys((await api.getSecret('crusoe-system', `cmk-${NAME}`)) ?? {}).sort()).toEqual(['CRUSOE_ACCESS_KEY', 'CRUSOE_SECRET_KEY']);
    expect(await api.getDeploymentArgs('crusoe-system', 'cluster-autoscaler')).toEqual(['--cloud-provider=crusoecloud', '--expander=least-waste']);
    expect(
      emulator
        .cluster(ENDPOINT)
        ?.list('deployments', 'kube-system')
        .map((d) => d.metadata.name),
    ).toEqual(['cilium-operator', 'coredns']);
    expect(
      emulator
        .cluster(ENDPOINT)
        ?.list('namespaces', undefined)
        .map((n) => n.metadata.name)
        .sort(),
    ).toEqual(['crusoe-system', 'default', 'kube-node-lease', 'kube-public', 'kube-system']);
  });

  it('has no autoscaler Deployment when the add-on was not chosen', async () => {
    fresh();
    cloud.controlPlane('running', T0, ['crusoe_csi']);
    expect(await admin().getDeploymentArgs('crusoe-system', 'cluster-autoscaler')).toBeNull();
  });

  it('stops answering once the cloud deletes it', async () => {
    fresh();
    cloud.controlPlane('running', T0);
    step(60 * S);
    cloud.controlPlane('deleting', T0);
    expect((await admin().ready()).status).toBe('pending');
    cloud.clusters.clear();
    expect(emulator.inventory().clusters.map((c) => [c.name, c.up])).toEqual([[NAME, false]]);
  });
});

describe('a managed node-pool machine', () => {
  it('registers 20 s after it runs and is Ready 30 s later, with the labels, taints, providerID and IP its pool gave it', async () => {
    fresh();
    cloud.controlPlane('running', T0);
    clock.advance(10 * S);
    cloud.poolVm('np-1a2b3c4d-1', T0 + 10 * S, 1);
    clock.advance(KUBE_TIMINGS.kubeadmJoinMs - 1);
    expect(await admin().listNodes()).toEqual([]);
    clock.advance(1 + KUBE_TIMINGS.ciliumReadyMs);
    const [node, ...others] = await admin().listNodes();
    expect(others).toEqual([]);
    expect(node).toMatchObject({
      name: 'np-1a2b3c4d-1',
      ready: true,
      readySince: T0 + 10 * S + KUBE_TIMINGS.kubeadmJoinMs + KUBE_TIMINGS.ciliumReadyMs,
      providerId: 'crusoe://00000000-0000-4000-8000-000000000001',
      internalIp: '172.27.0.11',
      kubeletVersion: 'v1.33.4',
      taints: [{ key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' }],
    });
    expect(node?.labels).toMatchObject({ tier: 'gpu', 'crusoe.ai/nodepool.name': 'h100', 'kubernetes.io/hostname': 'np-1a2b3c4d-1' });
    expect(status('np-1a2b3c4d-1')).toMatchObject({ state: 'ready', endpoint: ENDPOINT, node: 'np-1a2b3c4d-1' });
  });

  it('waits while its control plane does not answer yet, retrying as kubeadm discovery does', () => {
    fresh();
    cloud.poolVm('np-1a2b3c4d-1', T0, 1);
    cloud.controlPlane('provisioning');
    clock.advance(12 * S);
    cloud.controlPlane('running', T0 + 12 * S);
    clock.advance(60 * S);
    // Tried at 0, 5 and 10 s; the attempt at 15 s finds the API and joins 20 s later.
    expect(status('np-1a2b3c4d-1').registeredAtMs).toBe(T0 + 15 * S + KUBE_TIMINGS.kubeadmJoinMs);
  });

  it('loses its Node 40 s after the machine goes: NotReady, then deleted by the cloud controller manager', async () => {
    fresh();
    cloud.controlPlane('running', T0);
    cloud.poolVm('np-1a2b3c4d-1', T0, 1);
    cloud.poolVm('np-1a2b3c4d-2', T0, 2);
    step(60 * S);
    cloud.vms.delete('np-1a2b3c4d-1');
    step(0);
    clock.advance(KUBE_TIMINGS.nodeMonitorGraceMs - 1);
    expect((await admin().listNodes()).map((n) => [n.name, n.ready])).toEqual([
      ['np-1a2b3c4d-1', true],
      ['np-1a2b3c4d-2', true],
    ]);
    clock.advance(1);
    expect((await admin().listNodes()).map((n) => n.name)).toEqual(['np-1a2b3c4d-2']);
    expect(emulator.inventory().clusters[0]?.pods.filter((p) => p.node === 'np-1a2b3c4d-1')).toEqual([]);
  });
});

describe('a snapshot of managed clusters', () => {
  it('restores the control plane and machines mid-join, pending events included, and continues identically', () => {
    const run = (restore: boolean) => {
      /** Continues in a new emulator from a JSON copy of this one's state. */
      const restart = () => {
        if (!restore) return;
        const saved = JSON.parse(JSON.stringify(emulator.state())) as ReturnType<KubernetesEmulator['state']>;
        expect(saved.simulation.events.length).toBeGreaterThan(0);
        emulator = new KubernetesEmulator(sandboxContext(clock), { vms: cloud });
        emulator.restore(saved);
        server.resetHandlers(...emulator.handlers());
      };
      fresh();
      cloud.controlPlane('running', T0);
      cloud.poolVm('np-1a2b3c4d-1', T0, 1);
      step(5 * S);
      cloud.poolVm('np-1a2b3c4d-2', T0 + 5 * S, 2);
      step(20 * S);
      restart(); // one node registered, the other joining
      step(30 * S);
      cloud.vms.delete('np-1a2b3c4d-1');
      step(0);
      restart(); // its Node's deletion pending
      step(60 * S);
      cloud.controlPlane('deleting', T0);
      step(S);
      return { inventory: emulator.inventory(), kubelets: emulator.kubelets(), state: JSON.parse(JSON.stringify(emulator.state())) as unknown };
    };
    const without = run(false);
    const restored = run(true);
    expect(restored).toEqual(without);
    expect(without.kubelets.map((k) => [k.vm, k.state])).toEqual([
      ['np-1a2b3c4d-1', 'stopped'],
      ['np-1a2b3c4d-2', 'ready'],
    ]);
    expect(without.inventory.clusters.map((c) => [c.name, c.up, c.nodes.map((n) => n.name)])).toEqual([[NAME, false, ['np-1a2b3c4d-2']]]);
  });
});
