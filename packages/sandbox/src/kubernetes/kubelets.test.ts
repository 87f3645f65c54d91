// Simulated kubelets booting from user-data rendered by the real bootstrap renderer: the order and virtual times
// nodes register in, and wiring mistakes (token, discovery hash, endpoint) that keep a worker out, as on a cloud.
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Redacted } from '@kubeplane/sdk';
import { renderBootstrapTokenSecret, renderNode, type RenderContext, type RenderedCluster } from '@kubeplane/sdk/internal';
import { VirtualClock } from '@kubeplane/sdk/provider';
import { parse } from 'yaml';
import { kubernetesConnector } from '@kubeplane/providers';
import { KubernetesEmulator } from './emulator.js';
import { FakeVms, publicAddresses, RENDER_NOW, renderGolden, sandboxContext } from './fixture.js';
import type { SandboxVm } from './vm-source.js';
import { KUBE_TIMINGS } from './timings.js';

const T0 = RENDER_NOW.getTime();
const S = 1000;
const ENDPOINT = 'api.hybrid.example.com:6443';

let ctx: RenderContext;
let rendered: RenderedCluster;
let clock: VirtualClock;
let vms: FakeVms;
let emulator: KubernetesEmulator;
const server = setupServer();

function node(name: string) {
  const n = rendered.nodes.find((x) => x.name === name);
  if (!n) throw new Error(`no rendered node ${name}`);
  return n;
}

/** The first control plane and the API load balancer in front of it (the engine creates the load balancers first). */
function runApiPath(): void {
  vms.run(node('lb-1'));
  vms.run(node('aws-cp-1'));
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
  ({ ctx, rendered } = await renderGolden());
  server.listen({ onUnhandledRequest: 'error' });
});

afterAll(() => server.close());

function fresh(): void {
  clock = new VirtualClock(T0);
  vms = new FakeVms(clock, publicAddresses(ctx.cluster));
  emulator = new KubernetesEmulator(sandboxContext(clock), { vms });
  server.resetHandlers(...emulator.handlers());
}

afterEach(() => server.resetHandlers());

describe('a cluster booting from rendered user-data', () => {
  it('brings the API up at the endpoint 105 s after the first control plane runs (60 s OS preparation + 45 s kubeadm init)', async () => {
    fresh();
    runApiPath();
    const api = kubernetesConnector({ clock })(rendered.pki.secret.adminKubeconfig);
    clock.advance(KUBE_TIMINGS.osPreparationMs + KUBE_TIMINGS.kubeadmInitMs - 1);
    const before = await api.ready();
    expect(before.status).toBe('pending');
    clock.advance(1);
    expect((await api.ready()).status).toBe('done');
    expect(emulator.inventory().clusters.map((c) => [c.name, c.endpoint, c.up])).toEqual([['hybrid', ENDPOINT, true]]);
  });

  it('registers the control planes one at a time and the workers as soon as the API answers, then Ready after Cilium', async () => {
    fresh();
    for (const n of rendered.nodes) vms.run(n);
    clock.advance(300 * S);
    const rows = emulator
      .kubelets()
      .filter((k) => k.registeredAtMs !== undefined)
      .map((k) => [k.node, ((k.registeredAtMs ?? 0) - T0) / S, ((k.readyAtMs ?? 0) - T0) / S])
      .sort((a, b) => Number(a[1]) - Number(b[1]) || String(a[0]).localeCompare(String(b[0])));
    expect(rows).toEqual([
      ['aws-cp-1', 105, 135],
      ['aws-worker-1', 125, 155],
      ['htz-worker-1', 125, 155],
      ['htz-worker-2', 125, 155],
      ['aws-cp-2', 145, 175],
      ['aws-cp-3', 185, 215],
    ]);
    // Load balancers run no kubelet.
    expect(status('lb-1').state).toBe('load-balancer');
    const nodes = await kubernetesConnector({ clock })(rendered.pki.secret.adminKubeconfig).listNodes();
    expect(nodes.map((n) => [n.name, n.ready]).sort()).toEqual([
      ['aws-cp-1', true],
      ['aws-cp-2', true],
      ['aws-cp-3', true],
      ['aws-worker-1', true],
      ['htz-worker-1', true],
      ['htz-worker-2', true],
    ]);
    const cp1 = nodes.find((n) => n.name === 'aws-cp-1');
    expect(cp1?.readySince).toBe(T0 + 135 * S);
  });

  it('gives nodes the labels, taints and internal IP kubeadm and the kubelet would set', async () => {
    fresh();
    for (const n of rendered.nodes) vms.run(n);
    clock.advance(300 * S);
    const nodes = await kubernetesConnector({ clock })(rendered.pki.secret.adminKubeconfig).listNodes();
    const cp = nodes.find((n) => n.name === 'aws-cp-2');
    const worker = nodes.find((n) => n.name === 'aws-worker-1');
    const batch = nodes.find((n) => n.name === 'htz-worker-2');
    expect(cp?.taints).toEqual([{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }]);
    expect(cp?.labels).toMatchObject({
      'node-role.kubernetes.io/control-plane': '',
      'kubernetes.io/hostname': 'aws-cp-2',
      'topology.kubernetes.io/zone': 'eu-central-1b',
      'kubeplane.dev/pool': 'aws-control',
    });
    expect(cp?.internalIp).toBe('192.168.2.2');
    expect(worker?.labels).toMatchObject({ 'kubernetes.io/arch': 'arm64', 'kubeplane.dev/workload': 'general', 'kubeplane.dev/provider': 'aws' });
    // NodeRestriction forbids the kubelet this label; the engine patches it later (deferredLabels).
    expect(worker?.labels['node-role.kubernetes.io/worker']).toBeUndefined();
    expect(node('aws-worker-1').deferredLabels).toEqual({ 'node-role.kubernetes.io/worker': '' });
    expect(worker?.taints).toEqual([]);
    expect(worker?.kubeletVersion).toBe('v1.31.4');
    expect(batch?.taints).toEqual([{ key: 'kubeplane.dev/batch', value: 'true', effect: 'NoSchedule' }]);
    expect(worker?.providerId).toBeUndefined();
  });

  it('creates the mesh ConfigMap the first control plane applies (empty until the engine signs a bundle), and kube-public/cluster-info with the CA', async () => {
    fresh();
    runApiPath();
    clock.advance(110 * S);
    const api = kubernetesConnector({ clock })(rendered.pki.secret.adminKubeconfig);
    const mesh = await api.getConfigMap('kube-system', 'kubeplane-mesh');
    expect(mesh).toEqual({});
    const info = await api.getConfigMap('kube-public', 'cluster-info');
    const kubeconfig = parse(info?.['kubeconfig'] ?? '') as { clusters: Array<{ cluster: { 'certificate-authority-data': string; server: string } }> };
    expect(Buffer.from(kubeconfig.clusters[0]?.cluster['certificate-authority-data'] ?? '', 'base64').toString('utf8')).toBe(
      rendered.pki.public.clusterCaCertificate,
    );
  });

  it('uploads kubeadm-config and kubelet-config as kubeadm init does (what every join reads), without the bootstrap token', async () => {
    fresh();
    runApiPath();
    clock.advance(110 * S);
    const api = kubernetesConnector({ clock })(rendered.pki.secret.adminKubeconfig);
    const kubeadm = await api.getConfigMap('kube-system', 'kubeadm-config');
    const cluster = parse(kubeadm?.['ClusterConfiguration'] ?? '') as { kind: string; networking: { serviceSubnet: string }; controlPlaneEndpoint: string };
    expect(cluster.kind).toBe('ClusterConfiguration');
    expect(cluster.networking.serviceSubnet).toMatch(/^\d+\.\d+\.\d+\.\d+\/\d+$/);
    expect(cluster.controlPlaneEndpoint).toContain(':6443');
    const kubelet = parse((await api.getConfigMap('kube-system', 'kubelet-config'))?.['kubelet'] ?? '') as { kind: string; cgroupDriver: string };
    expect(kubelet).toMatchObject({ kind: 'KubeletConfiguration', cgroupDriver: 'systemd' });
    expect(JSON.stringify([kubeadm, kubelet])).not.toMatch(/[a-z0-9]{6}\.[a-z0-9]{16}/);
  });

  it('reads user-data as the clouds hold it: plain text, base64 and gzip bytes', async () => {
    fresh();
    const cp = node('aws-cp-1');
    expect(cp.userData.compressed).toBe(true);
    vms.run(node('lb-1'));
    vms.run(cp, { userData: cp.userData.bytes.reveal() });
    vms.run(node('htz-worker-1'), { userData: Buffer.from(node('htz-worker-1').userData.bytes.reveal()).toString('base64') });
    expect(node('htz-worker-2').userData.compressed).toBe(false);
    vms.run(node('htz-worker-2'), { userData: Buffer.from(node('htz-worker-2').userData.bytes.reveal()).toString('utf8') });
    clock.advance(200 * S);
    expect(['aws-cp-1', 'htz-worker-1', 'htz-worker-2'].map((n) => status(n).state)).toEqual(['ready', 'ready', 'ready']);
  });

  it('makes a node NotReady 40 s after its machine disappears, and leaves deleting it to the engine', async () => {
    fresh();
    for (const n of rendered.nodes) vms.run(n);
    clock.advance(300 * S);
    emulator.tick();
    vms.terminate('htz-worker-1');
    const api = kubernetesConnector({ clock })(rendered.pki.secret.adminKubeconfig);
    expect((await api.listNodes()).find((n) => n.name === 'htz-worker-1')?.ready).toBe(true);
    clock.advance(KUBE_TIMINGS.nodeMonitorGraceMs - 1);
    expect((await api.listNodes()).find((n) => n.name === 'htz-worker-1')?.ready).toBe(true);
    clock.advance(1);
    const lost = (await api.listNodes()).find((n) => n.name === 'htz-worker-1');
    expect(lost?.ready).toBe(false);
    expect(lost?.taints).toContainEqual({ key: 'node.kubernetes.io/unreachable', effect: 'NoSchedule' });
    await api.deleteNode('htz-worker-1');
    expect((await api.listNodes()).map((n) => n.name)).not.toContain('htz-worker-1');
  });

  it('still boots a machine that ran and stopped between two looks, when the cloud lists it as terminated', async () => {
    fresh();
    for (const n of rendered.nodes) vms.run(n);
    clock.advance(300 * S);
    vms.terminate('htz-worker-1', { keep: true });
    clock.advance(60 * S);
    const lost = (await kubernetesConnector({ clock })(rendered.pki.secret.adminKubeconfig).listNodes()).find((n) => n.name === 'htz-worker-1');
    expect(lost?.ready).toBe(false);
    expect(status('htz-worker-1').readyAtMs).toBe(T0 + 155 * S);
  });
});

describe('a machine beside a terminated machine of its name', () => {
  it('keeps running (one boot, one kubeadm init) when a duplicate launch of its name was terminated before it ran', async () => {
    fresh();
    // EC2 lists a terminated instance for an hour: here a duplicate launch the engine terminated while pending.
    const cp = node('aws-cp-1');
    vms.vms.set('duplicate', { cloud: 'ec2', name: cp.name, id: 'i-duplicate', state: 'terminated', stoppedAtMs: T0 - 60 * S, userData: '' });
    vms.run(node('lb-1'));
    vms.run(cp, { id: 'i-kept' });
    for (let t = 0; t < 600; t += 10) {
      clock.advance(10 * S);
      emulator.tick();
    }
    const boots = emulator.kubelets().filter((k) => k.vm === cp.name);
    expect(boots.map((k) => k.state)).toEqual(['ready']);
    expect(boots[0]?.log.filter((l) => l.message.startsWith('kubeadm init: control plane up'))).toHaveLength(1);
  });
});

describe('a worker with a wiring mistake never registers', () => {
  async function bootWith(mistake: Partial<Parameters<typeof renderNode>[0]>, name = 'htz-worker-1') {
    fresh();
    runApiPath();
    const bad = await renderNode({ ...ctx, pki: rendered.pki, node: name, ...mistake });
    vms.run(bad);
    // Long past the discovery timeout and every kubeadm retry of the script.
    clock.advance(3 * 3600 * S);
    const api = kubernetesConnector({ clock })(rendered.pki.secret.adminKubeconfig);
    const names = (await api.listNodes()).map((n) => n.name);
    expect(names).toEqual(['aws-cp-1']);
    return status(name);
  }

  it('when its bootstrap token does not exist in the cluster', async () => {
    const s = await bootWith({ bootstrapToken: Redacted.of('abcdef.0123456789abcdef') });
    expect(s.state).toBe('failed');
    expect(s.reason).toContain('could not find a JWS signature in the cluster-info ConfigMap for token ID "abcdef"');
  });

  it('when its discovery hash is not the cluster CA public key', async () => {
    const wrongHash = `sha256:${'0'.repeat(64)}`;
    const s = await bootWith({ pki: { ...rendered.pki, public: { ...rendered.pki.public, discoveryHash: wrongHash } } });
    expect(s.state).toBe('failed');
    expect(s.reason).toContain('none of the public keys');
  });

  it('when its API endpoint is not the cluster endpoint', async () => {
    const elsewhere = { ...ctx.cluster, apiEndpoint: { ...ctx.cluster.apiEndpoint, host: 'api.other.example.com' } };
    const s = await bootWith({ cluster: elsewhere });
    expect(s.state).toBe('failed');
    expect(s.reason).toContain('could not reach the API server at https://api.other.example.com:6443');
  });

  it('when its token expired before it joined (24 h after kubeadm init)', async () => {
    fresh();
    runApiPath();
    clock.advance(25 * 3600 * S);
    vms.run(node('htz-worker-1'));
    clock.advance(3 * 3600 * S);
    expect(status('htz-worker-1').reason).toContain('expired');
    expect(status('htz-worker-1').registeredAtMs).toBeUndefined();
  });
});

describe('a worker added later', () => {
  it('joins with a fresh token once the engine has created its bootstrap-token Secret', async () => {
    fresh();
    runApiPath();
    clock.advance(25 * 3600 * S);
    const token = Redacted.of('k8pl4n.abcdefghij012345');
    const api = kubernetesConnector({ clock })(rendered.pki.secret.adminKubeconfig);
    const manifest = parse(renderBootstrapTokenSecret(token, new Date(clock.now() + 3600 * S)).reveal()) as {
      metadata: { name: string };
      stringData: Record<string, string>;
    };
    await api.applySecret('kube-system', manifest.metadata.name, Object.fromEntries(Object.entries(manifest.stringData).map(([k, v]) => [k, Redacted.of(v)])));
    vms.run(await renderNode({ ...ctx, pki: rendered.pki, node: 'htz-worker-2', bootstrapToken: token }));
    clock.advance(200 * S);
    const joined = status('htz-worker-2');
    expect(joined.state).toBe('ready');
    expect(((joined.registeredAtMs ?? 0) - (clock.now() - 200 * S)) / S).toBe(80);
  });
});

describe('a cluster behind a reserved IP', () => {
  async function bootReservedIp(publicIPv4: string) {
    const cluster = { ...ctx.cluster, apiEndpoint: { host: '3.120.10.50', port: 6443, kind: 'reserved-ip' as const } };
    const { rendered: r } = await renderGolden(cluster);
    fresh();
    const first = r.nodes.find((n) => n.name === 'aws-cp-1');
    if (!first) throw new Error('no aws-cp-1');
    vms.run(first, { publicIPv4 });
    clock.advance(120 * S);
    return { r, status: status('aws-cp-1') };
  }

  it('comes up when the reserved IP is attached to the first control plane', async () => {
    const { r, status: s } = await bootReservedIp('3.120.10.50');
    expect(s.state).toBe('registered');
    expect((await kubernetesConnector({ clock })(r.pki.secret.adminKubeconfig).ready()).status).toBe('done');
  });

  it('fails kubeadm init when the reserved IP is attached elsewhere', async () => {
    const { r, status: s } = await bootReservedIp('3.120.10.11');
    expect(s.state).toBe('failed');
    expect(s.reason).toContain('3.120.10.50:6443 is not an address of this machine');
    expect((await kubernetesConnector({ clock })(r.pki.secret.adminKubeconfig).ready()).status).toBe('pending');
  });
});

describe('a machine whose user-data is not a kubeplane bootstrap', () => {
  it('never registers and says why, like cloud-init would', async () => {
    fresh();
    runApiPath();
    vms.run(node('htz-worker-1'), { name: 'plain-vm', userData: '#!/bin/sh\necho hello\n' });
    vms.run(node('htz-worker-1'), { name: 'no-runcmd', userData: '#cloud-config\nhostname: x\n' });
    clock.advance(300 * S);
    expect(status('plain-vm').reason).toContain('not a #cloud-config');
    expect(status('no-runcmd').reason).toContain('runcmd is empty');
    expect(emulator.inventory().clusters[0]?.nodes.map((n) => n.name)).toEqual(['aws-cp-1']);
  });
});

describe('the overlay at first boot, by WireGuard rules', () => {
  /** The golden cluster rendered as if no machine existed yet: no peer has an endpoint (how nodes were rendered before). */
  async function renderedWithoutEndpoints(): Promise<RenderedCluster> {
    const cluster = { ...ctx.cluster, nodes: ctx.cluster.nodes.map(({ publicEndpoint: _unused, ...n }) => n) };
    return (await renderGolden(cluster)).rendered;
  }
  const nodeOf = (r: RenderedCluster, name: string) => {
    const n = r.nodes.find((x) => x.name === name);
    if (!n) throw new Error(`no rendered node ${name}`);
    return n;
  };

  it('fails kubeadm init behind a load balancer when neither the LB nor the control plane knows where the other is', async () => {
    const r = await renderedWithoutEndpoints();
    fresh();
    vms.run(nodeOf(r, 'lb-1'));
    vms.run(nodeOf(r, 'aws-cp-1'));
    clock.advance(20 * 60 * S);
    const s = status('aws-cp-1');
    expect(s.state).toBe('failed');
    expect(s.reason).toContain('timed out waiting for the API server at https://api.hybrid.example.com:6443');
    expect(s.reason).toContain("no WireGuard handshake between lb-1 and aws-cp-1: neither knows the other's endpoint");
    expect(emulator.inventory().clusters).toEqual([]);
  });

  it('never registers a worker no control plane can reach over WireGuard', async () => {
    const r = await renderedWithoutEndpoints();
    fresh();
    runApiPath();
    // The control plane was rendered before this worker had an address; the worker without the control plane's.
    vms.run(nodeOf(r, 'aws-worker-1'));
    clock.advance(300 * S);
    const s = status('aws-worker-1');
    expect(s.state).toBe('failed');
    expect(s.reason).toContain(
      "node-ip 192.168.2.21 is unreachable from control plane aws-cp-1: no WireGuard handshake between aws-worker-1 and aws-cp-1: neither knows the other's endpoint",
    );
    expect(emulator.inventory().clusters[0]?.nodes.map((n) => n.name)).toEqual(['aws-cp-1']);
  });

  it('refuses a control-plane join whose etcd peer cannot be reached, and accepts one that knows the first control plane', async () => {
    const r = await renderedWithoutEndpoints();
    fresh();
    runApiPath();
    // aws-cp-2 does not know aws-cp-1, and came up at another address than the one aws-cp-1 has for it.
    vms.run(nodeOf(r, 'aws-cp-2'), { publicIPv4: '198.18.7.7' });
    vms.run(node('aws-cp-3'));
    clock.advance(400 * S);
    expect(status('aws-cp-2').state).toBe('failed');
    expect(status('aws-cp-2').reason).toContain('kubeadm join --control-plane: cannot reach etcd at 192.168.2.1:2380');
    expect(status('aws-cp-3').state).toBe('ready');
  });

  it("takes an endpoint that is not the peer's address for no endpoint at all", async () => {
    fresh();
    runApiPath();
    vms.run(node('aws-worker-1'));
    // aws-cp-1 came up at another address than the one aws-worker-1 was rendered with (and does not know the worker).
    vms.vms.set('aws-cp-1', { ...(vms.vms.get('aws-cp-1') as SandboxVm), publicIPv4: '198.18.9.9' });
    clock.advance(300 * S);
    expect(status('aws-worker-1').state).toBe('failed');
    expect(status('aws-worker-1').reason).toContain('aws-worker-1 has 3.120.10.11:51820 for aws-cp-1 (it listens at 198.18.9.9:51820)');
  });
});

describe("kubeadm join's preflight, from the shared rule table", () => {
  it('joins a worker whose user-data writes /etc/kubernetes/pki/ca.crt before the join, after the reset between attempts', async () => {
    fresh();
    runApiPath();
    const worker = node('htz-worker-1');
    const text = Buffer.from(worker.userData.bytes.reveal()).toString('utf8');
    const placed = text.replace(
      'write_files:\n',
      `write_files:\n  - path: /etc/kubernetes/pki/ca.crt\n    owner: root:root\n    permissions: "0644"\n    content: |\n${rendered.pki.public.clusterCaCertificate
        .trim()
        .split('\n')
        .map((l) => `      ${l}`)
        .join('\n')}\n`,
    );
    expect(placed).not.toBe(text);
    vms.run(worker, { userData: placed });
    clock.advance(300 * S);
    // The first attempt's preflight fails; the boot script's `kubeadm reset --force` empties /etc/kubernetes/pki and
    // the next attempt joins, as on a real machine (kubeadm_once in the bootstrap script).
    const s = status('htz-worker-1');
    expect(s.state).not.toBe('failed');
    expect(s.log.map((l) => l.message).join('\n')).toContain('[ERROR FileAvailable--etc-kubernetes-pki-ca.crt]: /etc/kubernetes/pki/ca.crt already exists');
    expect(s.log.map((l) => l.message).join('\n')).toContain('kubeadm join failed; resetting before the next attempt');
  });
});
