// The KubernetesApi client against the sandbox's API server (a cluster booted from rendered user-data) and against
// hand-written answers for the error paths: round trips, drain with and without a PodDisruptionBudget, error kinds, no leaks.
import { inspect } from 'node:util';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isKubeplaneError, type KubeplaneError, Redacted, type KubernetesApi } from '@kubeplane/sdk';
import { VirtualClock } from '@kubeplane/sdk/provider';
import type { RenderedCluster } from '@kubeplane/sdk/internal';
import { KubernetesEmulator } from '@kubeplane/sandbox';
import { FakeVms, goldenCluster, publicAddresses, RENDER_NOW, renderGolden, sandboxContext } from '@kubeplane/sandbox/testing';
import { KubernetesClient, kubernetesConnector } from './client.js';
import { parseKubeconfig } from './kubeconfig.js';

const S = 1000;
const SECRET_VALUE = 'hunter2-sandbox-secret-value-0f9e8d7c';
const SECRET_B64 = Buffer.from(SECRET_VALUE).toString('base64');

let rendered: RenderedCluster;
let clock: VirtualClock;
let emulator: KubernetesEmulator;
let api: KubernetesApi;
const server = setupServer();

function nodeOf(name: string) {
  const n = rendered.nodes.find((x) => x.name === name);
  if (!n) throw new Error(`no node ${name}`);
  return n;
}

async function caught(promise: Promise<unknown>): Promise<KubeplaneError> {
  try {
    await promise;
  } catch (error) {
    if (isKubeplaneError(error)) return error;
    throw error;
  }
  throw new Error('expected a KubeplaneError');
}

function leaks(error: unknown): boolean {
  const texts = [String(error), JSON.stringify(error), inspect(error, { depth: 8 }), error instanceof Error ? (error.stack ?? '') : ''];
  return texts.some((t) => t.includes(SECRET_VALUE) || t.includes(SECRET_B64));
}

beforeAll(async () => {
  ({ rendered } = await renderGolden());
  server.listen({ onUnhandledRequest: 'error' });
});

afterAll(() => server.close());

/** The first control plane and two workers, booted and Ready (coredns: both replicas on the control plane). */
beforeEach(() => {
  clock = new VirtualClock(RENDER_NOW.getTime());
  const vms = new FakeVms(clock, publicAddresses(goldenCluster()));
  emulator = new KubernetesEmulator(sandboxContext(clock), { vms });
  server.resetHandlers(...emulator.handlers());
  vms.run(nodeOf('lb-1'));
  vms.run(nodeOf('aws-cp-1'));
  vms.run(nodeOf('aws-worker-1'));
  vms.run(nodeOf('htz-worker-1'));
  clock.advance(300 * S);
  api = kubernetesConnector({ clock })(rendered.pki.secret.adminKubeconfig);
});

describe('config maps and secrets', () => {
  it('creates a config map, then replaces it with its resourceVersion when it exists', async () => {
    await api.applyConfigMap('kube-system', 'kubeplane-meta', { a: '1' }, { 'kubeplane.dev/cluster-id': 'hybrid-4f2a9c1e' });
    expect(await api.getConfigMap('kube-system', 'kubeplane-meta')).toEqual({ a: '1' });
    await api.applyConfigMap('kube-system', 'kubeplane-meta', { a: '2', b: 'x' });
    expect(await api.getConfigMap('kube-system', 'kubeplane-meta')).toEqual({ a: '2', b: 'x' });
    const stored = emulator.cluster('api.hybrid.example.com:6443')?.store.get('configmaps', 'kube-system', 'kubeplane-meta');
    // Labels given once are kept by a replace that names none.
    expect(stored?.metadata.labels).toEqual({ 'kubeplane.dev/cluster-id': 'hybrid-4f2a9c1e' });
    expect(stored?.metadata.resourceVersion).not.toBe('1');
    expect(await api.getConfigMap('kube-system', 'nothing-here')).toBeNull();
  });

  it('creates the namespace a config map needs, as the autoscaler add-on does for crusoe-system', async () => {
    await api.applyConfigMap('crusoe-system', 'cluster-autoscaler-status', { status: 'ok' });
    expect(await api.getConfigMap('crusoe-system', 'cluster-autoscaler-status')).toEqual({ status: 'ok' });
  });

  it('round-trips secrets as base64 data and hands the values back Redacted', async () => {
    await api.applySecret('kube-system', 'kubeplane-outputs', { token: Redacted.of(SECRET_VALUE), empty: Redacted.of('') });
    const stored = emulator.cluster('api.hybrid.example.com:6443')?.store.get('secrets', 'kube-system', 'kubeplane-outputs');
    expect(stored?.['data']).toEqual({ token: SECRET_B64, empty: '' });
    expect(stored?.['type']).toBe('Opaque');
    const read = await api.getSecret('kube-system', 'kubeplane-outputs');
    expect(String(read?.['token'])).toBe('[redacted]');
    expect(read?.['token']?.reveal()).toBe(SECRET_VALUE);
    await api.applySecret('kube-system', 'kubeplane-outputs', { token: Redacted.of('rotated') });
    expect((await api.getSecret('kube-system', 'kubeplane-outputs'))?.['token']?.reveal()).toBe('rotated');
    await api.deleteSecret('kube-system', 'kubeplane-outputs');
    await api.deleteSecret('kube-system', 'kubeplane-outputs');
    expect(await api.getSecret('kube-system', 'kubeplane-outputs')).toBeNull();
  });

  it('keeps secret values out of errors, even when the server echoes the request', async () => {
    // A refused name: the sandbox's own Status names the object, never its data.
    const refused = await caught(api.applySecret('kube-system', 'Not_A_Name', { token: Redacted.of(SECRET_VALUE) }));
    expect(refused.kind).toBe('invalid');
    expect(refused.message).toContain('Not_A_Name');
    expect(leaks(refused)).toBe(false);
    // A server (or proxy) that quotes the body back in its message.
    server.use(
      http.post('https://api.hybrid.example.com:6443/api/v1/namespaces/kube-system/secrets', async ({ request }) => {
        const body = await request.text();
        return HttpResponse.json(
          { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Invalid', code: 422, message: `cannot store ${body} (${SECRET_VALUE})` },
          { status: 422 },
        );
      }),
    );
    const echoed = await caught(api.applySecret('kube-system', 'echo', { token: Redacted.of(SECRET_VALUE) }));
    expect(echoed.kind).toBe('invalid');
    expect(echoed.message).toContain('[redacted]');
    expect(leaks(echoed)).toBe(false);
  });

  it('keeps the client key out of errors and of the client when printed', async () => {
    const key = parseKubeconfig(rendered.pki.secret.adminKubeconfig).clientKeyPem?.reveal() ?? '';
    expect(key).toContain('PRIVATE KEY');
    const client = kubernetesConnector({ clock })(rendered.pki.secret.adminKubeconfig);
    server.use(http.get('https://api.hybrid.example.com:6443/api/v1/nodes', () => HttpResponse.error()));
    const failed = await caught(client.listNodes());
    expect(failed.kind).toBe('retryable');
    for (const text of [String(failed), JSON.stringify(failed), inspect(failed, { depth: 8 }), JSON.stringify(client), inspect(client, { depth: 8 })]) {
      expect(text).not.toContain('PRIVATE KEY');
      expect(text).not.toContain(key.slice(40, 80));
    }
  });
});

describe('error kinds', () => {
  const status = (code: number, reason: string, message: string) => ({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason,
    code,
  });

  it('maps 404 to not-found, 409 to conflict, 429 to throttled with Retry-After, 500 to retryable', async () => {
    const base = 'https://api.hybrid.example.com:6443/api/v1/nodes';
    server.use(
      http.patch(`${base}/gone`, () => HttpResponse.json(status(404, 'NotFound', 'nodes "gone" not found'), { status: 404 })),
      http.patch(`${base}/busy`, () => HttpResponse.json(status(409, 'Conflict', 'the object has been modified'), { status: 409 })),
      http.patch(`${base}/slow`, () =>
        HttpResponse.json(status(429, 'TooManyRequests', 'too many requests'), { status: 429, headers: { 'Retry-After': '7' } }),
      ),
      http.patch(`${base}/broken`, () => HttpResponse.json(status(500, 'InternalError', 'etcdserver: leader changed'), { status: 500 })),
      http.patch(`${base}/proxy`, () => new HttpResponse('<html>bad gateway</html>', { status: 502 })),
    );
    const kinds = await Promise.all(['gone', 'busy', 'slow', 'broken', 'proxy'].map(async (n) => caught(api.patchNode(n, { unschedulable: true }))));
    expect(kinds.map((e) => [e.kind, e.details.status, e.details.code])).toEqual([
      ['not-found', 404, 'NotFound'],
      ['conflict', 409, 'Conflict'],
      ['throttled', 429, 'TooManyRequests'],
      ['retryable', 500, 'InternalError'],
      ['retryable', 502, 'http_502'],
    ]);
    expect(kinds[2]?.details.retryAfterSeconds).toBe(7);
    expect(kinds[0]?.message).toContain('nodes "gone" not found');
  });

  it('maps a 409 on create to a replace, and a conflict that persists to a conflict error', async () => {
    server.use(
      http.put('https://api.hybrid.example.com:6443/api/v1/namespaces/kube-system/configmaps/kubeplane-mesh', () =>
        HttpResponse.json(status(409, 'Conflict', 'Operation cannot be fulfilled on configmaps "kubeplane-mesh": the object has been modified'), {
          status: 409,
        }),
      ),
    );
    const error = await caught(api.applyConfigMap('kube-system', 'kubeplane-mesh', { peers: '' }));
    expect(error.kind).toBe('conflict');
  });

  it('treats deleting a node or secret that is gone as done, and a missing deployment as null', async () => {
    await api.deleteNode('never-existed');
    await api.deleteSecret('default', 'never-existed');
    expect(await api.getDeploymentArgs('crusoe-system', 'cluster-autoscaler')).toBeNull();
    const missing = await caught(api.setDeploymentArgs('crusoe-system', 'cluster-autoscaler', ['--x']));
    expect(missing.kind).toBe('not-found');
  });

  it('says pending while the API server does not answer, and auth when it refuses the credentials', async () => {
    const other = new KubernetesClient({
      connection: { ...parseKubeconfig(rendered.pki.secret.adminKubeconfig), server: 'https://api.booting.example.com:6443' },
      clock,
    });
    const outcome = await other.ready();
    expect(outcome.status).toBe('pending');
    server.use(http.get('https://api.hybrid.example.com:6443/readyz', () => HttpResponse.json(status(401, 'Unauthorized', 'Unauthorized'), { status: 401 })));
    expect((await caught(api.ready())).kind).toBe('auth');
  });

  it('refuses a kubeconfig that turns TLS verification off or is not https', () => {
    const text = rendered.pki.secret.adminKubeconfig.reveal();
    const insecure = text.replace(/certificate-authority-data: \S+/, 'insecure-skip-tls-verify: true');
    expect(() => parseKubeconfig(Redacted.of(insecure))).toThrow(/TLS verification/);
    expect(() => parseKubeconfig(Redacted.of(text.replace('https://', 'http://')))).toThrow(/not https/);
  });
});

describe('nodes', () => {
  it('patches labels (null removes one), replaces taints and cordons', async () => {
    await api.patchNode('aws-worker-1', {
      labels: { 'node-role.kubernetes.io/worker': '', 'kubeplane.dev/workload': null },
      taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }],
      unschedulable: true,
    });
    const node = (await api.listNodes()).find((n) => n.name === 'aws-worker-1');
    expect(node?.labels['node-role.kubernetes.io/worker']).toBe('');
    expect(node?.labels['kubeplane.dev/workload']).toBeUndefined();
    expect(node?.taints).toEqual([{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }]);
    expect(node?.unschedulable).toBe(true);
    expect(node?.ready).toBe(true);
  });

  it('sets and removes annotations (null removes one) and leaves the ones it does not name, also when it uncordons', async () => {
    await api.patchNode('aws-worker-1', { annotations: { 'example.com/team': 'ml', 'example.com/owner': 'a' } });
    await api.patchNode('aws-worker-1', { annotations: { 'example.com/owner': null }, unschedulable: false });
    const node = (await api.listNodes()).find((n) => n.name === 'aws-worker-1');
    expect(node?.annotations['example.com/team']).toBe('ml');
    expect(node?.annotations['example.com/owner']).toBeUndefined();
    // The kubelet's own stay.
    expect(node?.annotations['node.alpha.kubernetes.io/ttl']).toBe('0');
    expect(node?.unschedulable).toBe(false);
  });

  it('lists every node across pages', async () => {
    const client = kubernetesConnector({ clock })(rendered.pki.secret.adminKubeconfig) as KubernetesClient;
    server.use(
      http.get('https://api.hybrid.example.com:6443/api/v1/nodes', ({ request }) => {
        const page = new URL(request.url).searchParams.get('continue');
        const item = (name: string) => ({
          metadata: { name },
          spec: {},
          status: { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-01-01T00:02:15Z' }] },
        });
        return HttpResponse.json({ kind: 'NodeList', apiVersion: 'v1', metadata: page ? {} : { continue: 'next' }, items: page ? [item('b')] : [item('a')] });
      }),
    );
    const nodes = await client.listNodes();
    expect(nodes.map((n) => [n.name, n.ready, n.readySince])).toEqual([
      ['a', true, Date.parse('2026-01-01T00:02:15Z')],
      ['b', true, Date.parse('2026-01-01T00:02:15Z')],
    ]);
  });
});

describe('drain', () => {
  it('evicts what it may, waits while the PodDisruptionBudget refuses, and is done once the replacement is Ready', async () => {
    // kubeadm creates no budget for CoreDNS; a cluster's operator adds one, as KubeOne (Claudie) and k0s do.
    emulator
      .cluster('api.hybrid.example.com:6443')
      ?.create(
        'poddisruptionbudgets',
        'kube-system',
        { metadata: { name: 'coredns' }, spec: { minAvailable: 1, selector: { matchLabels: { 'k8s-app': 'kube-dns' } } } },
        clock.now(),
      );
    const before = emulator.inventory().clusters[0]?.pods.filter((p) => p.name.startsWith('coredns-')) ?? [];
    expect(before.map((p) => [p.node, p.ready])).toEqual([
      ['aws-cp-1', true],
      ['aws-cp-1', true],
    ]);
    const first = await api.drainNode('aws-cp-1');
    expect(first.status).toBe('pending');
    if (first.status !== 'pending') return;
    expect(first.reason).toBe('dependency');
    expect(first.message).toContain('PodDisruptionBudget');
    expect(first.message).toContain('coredns needs 1 healthy pods and has 1 currently');
    // The replacement is scheduled elsewhere but not Ready yet: still refused.
    expect((await api.drainNode('aws-cp-1')).status).toBe('pending');
    clock.advance(first.retryAfterSeconds * S);
    expect(await api.drainNode('aws-cp-1')).toEqual({ status: 'done', value: undefined });
    const pods = emulator.inventory().clusters[0]?.pods ?? [];
    const left = pods.filter((p) => p.node === 'aws-cp-1').map((p) => p.owner?.split('/')[0]);
    expect(new Set(left)).toEqual(new Set(['DaemonSet', 'Node']));
    const coredns = pods.filter((p) => p.name.startsWith('coredns-'));
    expect(coredns).toHaveLength(2);
    expect(coredns.every((p) => p.node !== 'aws-cp-1')).toBe(true);
    clock.advance(5 * S);
    expect(
      emulator
        .inventory()
        .clusters[0]?.pods.filter((p) => p.name.startsWith('coredns-'))
        .every((p) => p.ready),
    ).toBe(true);
    expect((await api.listNodes()).find((n) => n.name === 'aws-cp-1')?.unschedulable).toBe(true);
  });

  it("evicts kubeadm's CoreDNS at once, even with nowhere else to run it: kubeadm gives it no PodDisruptionBudget", async () => {
    // Every worker tainted (a pool's taints, a GPU pool's NoExecute): the replicas wait Pending, the drain does not.
    for (const worker of ['aws-worker-1', 'htz-worker-1']) await api.patchNode(worker, { taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoExecute' }] });
    const coredns = () => emulator.inventory().clusters[0]?.pods.filter((p) => p.name.startsWith('coredns-')) ?? [];
    expect(coredns().map((p) => p.node)).toEqual(['aws-cp-1', 'aws-cp-1']);
    const first = await api.drainNode('aws-cp-1');
    expect(first.status === 'done' ? 'done' : (clock.advance(5 * S), (await api.drainNode('aws-cp-1')).status)).toBe('done');
    expect(coredns().map((p) => [p.node ?? null, p.ready])).toEqual([
      [null, false],
      [null, false],
    ]);
  });

  it('waits for the pods it evicted, not for a replacement the scheduler puts back on the cordoned node', async () => {
    // cilium-operator tolerates every taint (`operator: Exists`), node.kubernetes.io/unschedulable included, so
    // kube-scheduler may place its replacement on the node being drained; kubectl drain waits for the evicted pods only.
    const cluster = emulator.cluster('api.hybrid.example.com:6443');
    if (!cluster) throw new Error('no cluster');
    const labels = { app: 'tolerates-all' };
    cluster.create(
      'deployments',
      'kube-system',
      {
        metadata: { name: 'tolerates-all' },
        spec: {
          replicas: 1,
          selector: { matchLabels: labels },
          template: {
            metadata: { labels },
            spec: { nodeSelector: { 'kubernetes.io/hostname': 'htz-worker-1' }, tolerations: [{ operator: 'Exists' }], containers: [{ name: 'c' }] },
          },
        },
      },
      clock.now(),
    );
    clock.advance(5 * S);
    const onNode = () => emulator.inventory().clusters[0]?.pods.filter((p) => p.name.startsWith('tolerates-all-')) ?? [];
    const [before] = onNode();
    expect(before?.node).toBe('htz-worker-1');
    const first = await api.drainNode('htz-worker-1');
    clock.advance(5 * S);
    const [after] = onNode();
    expect(after?.node).toBe('htz-worker-1');
    expect(after?.name).not.toBe(before?.name);
    expect(first.status === 'done' ? 'done' : (await api.drainNode('htz-worker-1')).status).toBe('done');
    // Uncordoned, the drain's record goes with it.
    await api.patchNode('htz-worker-1', { unschedulable: false });
    const node = cluster.store.get('nodes', undefined, 'htz-worker-1');
    expect((node?.metadata as { annotations?: Record<string, string> }).annotations?.['kubeplane.dev/drain-pods']).toBeUndefined();
  });

  it('is done at once for a node with only DaemonSet pods', async () => {
    expect(await api.drainNode('htz-worker-1')).toEqual({ status: 'done', value: undefined });
  });

  it('is done for a node that never registered (a machine whose join failed)', async () => {
    expect(await api.drainNode('htz-worker-2')).toEqual({ status: 'done', value: undefined });
  });
});

describe('deployments', () => {
  it('reads and sets the first container args of a deployment the engine created, rolling its pods', async () => {
    const cluster = emulator.cluster('api.hybrid.example.com:6443');
    if (!cluster) throw new Error('no cluster');
    cluster.create('namespaces', undefined, { metadata: { name: 'crusoe-system' } }, clock.now());
    cluster.create(
      'deployments',
      'crusoe-system',
      {
        metadata: { name: 'cluster-autoscaler' },
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: 'cluster-autoscaler' } },
          template: {
            metadata: { labels: { app: 'cluster-autoscaler' } },
            spec: { containers: [{ name: 'cluster-autoscaler', args: ['--cloud-provider=crusoe', '--nodes=1:5:pool-a'] }, { name: 'sidecar' }] },
          },
        },
      },
      clock.now(),
    );
    expect(await api.getDeploymentArgs('crusoe-system', 'cluster-autoscaler')).toEqual(['--cloud-provider=crusoe', '--nodes=1:5:pool-a']);
    const podBefore = emulator.inventory().clusters[0]?.pods.find((p) => p.namespace === 'crusoe-system')?.name;
    await api.setDeploymentArgs('crusoe-system', 'cluster-autoscaler', ['--cloud-provider=crusoe', '--nodes=1:9:pool-a']);
    expect(await api.getDeploymentArgs('crusoe-system', 'cluster-autoscaler')).toEqual(['--cloud-provider=crusoe', '--nodes=1:9:pool-a']);
    const stored = cluster.store.get('deployments', 'crusoe-system', 'cluster-autoscaler');
    const containers = (stored?.['spec'] as { template: { spec: { containers: Array<{ name: string }> } } }).template.spec.containers.map((c) => c.name);
    expect(containers).toEqual(['cluster-autoscaler', 'sidecar']);
    const podAfter = emulator.inventory().clusters[0]?.pods.find((p) => p.namespace === 'crusoe-system')?.name;
    expect(podAfter).toBeDefined();
    expect(podAfter).not.toBe(podBefore);
  });
});
