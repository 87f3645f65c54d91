// The client's generic object operations on the wire: the path from API discovery (core group under /api, others
// under /apis, namespaced or not), server-side apply as kubectl sends it, lists by label selector across pages and
// namespaces, deletes that take a 404 as done, and a kind not served yet (a CRD not established).
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isKubeplaneError, Redacted, type KubeplaneError } from '@kubeplane/sdk';
import { KubernetesClient } from './client.js';

const SERVER = 'https://k8s.objects.test:6443';
const server = setupServer();
let client: KubernetesClient;
let seen: Array<{ method: string; path: string; query: string; contentType: string | null; body: string }>;

const resources = {
  v1: [
    { name: 'secrets', kind: 'Secret', namespaced: true },
    { name: 'namespaces', kind: 'Namespace', namespaced: false },
    { name: 'serviceaccounts', kind: 'ServiceAccount', namespaced: true },
  ],
  'helm.cattle.io/v1': [
    { name: 'helmcharts', kind: 'HelmChart', namespaced: true },
    { name: 'helmcharts/status', kind: 'HelmChart', namespaced: true },
  ],
  'rbac.authorization.k8s.io/v1': [{ name: 'clusterrolebindings', kind: 'ClusterRoleBinding', namespaced: false }],
};

function discoveryHandlers(served: Partial<typeof resources> = resources) {
  return Object.entries(served).map(([gv, list]) =>
    http.get(`${SERVER}/${gv.includes('/') ? 'apis' : 'api'}/${gv}`, () =>
      HttpResponse.json({ kind: 'APIResourceList', apiVersion: 'v1', groupVersion: gv, resources: list }),
    ),
  );
}

async function record(request: Request): Promise<void> {
  const url = new URL(request.url);
  seen.push({ method: request.method, path: url.pathname, query: url.search, contentType: request.headers.get('content-type'), body: await request.text() });
}

/** The KubeplaneError a call rejects with (the test fails if it resolves or throws anything else). */
const caught = (promise: Promise<unknown>): Promise<KubeplaneError> =>
  promise.then(
    () => expect.unreachable('expected a KubeplaneError'),
    (error: unknown) => (isKubeplaneError(error) ? error : Promise.reject(error)),
  );

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterAll(() => server.close());
beforeEach(() => {
  seen = [];
  client = new KubernetesClient({ connection: { server: SERVER, clusterName: 'objects', token: Redacted.of('token-not-for-logs') } });
});

const chart = {
  apiVersion: 'helm.cattle.io/v1',
  kind: 'HelmChart',
  metadata: { name: 'hcloud-csi', namespace: 'kube-system', labels: { 'app.kubernetes.io/managed-by': 'kubeplane' } },
  spec: { chart: 'hcloud-csi', version: '2.18.0' },
};

describe('generic objects', () => {
  it('server-side applies a custom resource at the path discovery gives, as kubectl apply --server-side --force-conflicts does', async () => {
    server.resetHandlers(
      ...discoveryHandlers(),
      http.patch(`${SERVER}/apis/helm.cattle.io/v1/namespaces/kube-system/helmcharts/hcloud-csi`, async ({ request }) => {
        await record(request);
        return HttpResponse.json({ ...chart, metadata: { ...chart.metadata, resourceVersion: '7' } });
      }),
    );
    const stored = await client.applyObject(chart);
    expect(stored.metadata.resourceVersion).toBe('7');
    expect(seen).toHaveLength(1);
    expect(seen[0]?.query).toBe('?fieldManager=kubeplane&force=true');
    expect(seen[0]?.contentType).toBe('application/apply-patch+yaml');
    expect(JSON.parse(seen[0]?.body ?? '{}')).toEqual(chart);
  });

  it('applies cluster-scoped kinds without a namespace in the path', async () => {
    server.resetHandlers(
      ...discoveryHandlers(),
      http.patch(`${SERVER}/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/helm-controller`, async ({ request }) => {
        await record(request);
        return HttpResponse.json({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'helm-controller' } });
      }),
    );
    await client.applyObject({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'helm-controller', namespace: 'ignored' },
    });
    expect(seen.map((s) => s.path)).toEqual(['/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/helm-controller']);
  });

  it('says a kind is not served yet (retryable) and looks again, so a CRD established since is found', async () => {
    let established = false;
    server.resetHandlers(
      http.get(`${SERVER}/apis/helm.cattle.io/v1`, () =>
        established
          ? HttpResponse.json({ kind: 'APIResourceList', groupVersion: 'helm.cattle.io/v1', resources: resources['helm.cattle.io/v1'] })
          : HttpResponse.json({ kind: 'Status', reason: 'NotFound', code: 404 }, { status: 404 }),
      ),
      http.patch(`${SERVER}/apis/helm.cattle.io/v1/namespaces/kube-system/helmcharts/hcloud-csi`, () => HttpResponse.json(chart)),
    );
    const error = await caught(client.applyObject(chart));
    expect(error.kind).toBe('retryable');
    expect(error.details.code).toBe('KindNotServed');
    expect(error.message).toContain('does not serve HelmChart (helm.cattle.io/v1) yet');
    expect(await client.getObject('helm.cattle.io/v1', 'HelmChart', 'kube-system', 'hcloud-csi')).toBeNull();
    expect(await client.listObjects('helm.cattle.io/v1', 'HelmChart', 'kube-system')).toEqual([]);
    await client.deleteObject('helm.cattle.io/v1', 'HelmChart', 'kube-system', 'hcloud-csi');
    established = true;
    expect((await client.applyObject(chart)).metadata.name).toBe('hcloud-csi');
  });

  it('gets an object, and null for one that does not exist', async () => {
    server.resetHandlers(
      ...discoveryHandlers(),
      http.get(`${SERVER}/apis/helm.cattle.io/v1/namespaces/kube-system/helmcharts/hcloud-csi`, () =>
        HttpResponse.json({ ...chart, status: { jobName: 'helm-install-hcloud-csi' } }),
      ),
      http.get(`${SERVER}/apis/helm.cattle.io/v1/namespaces/kube-system/helmcharts/gone`, () =>
        HttpResponse.json({ kind: 'Status', reason: 'NotFound', code: 404 }, { status: 404 }),
      ),
    );
    expect((await client.getObject('helm.cattle.io/v1', 'HelmChart', 'kube-system', 'hcloud-csi'))?.['status']).toEqual({ jobName: 'helm-install-hcloud-csi' });
    expect(await client.getObject('helm.cattle.io/v1', 'HelmChart', 'kube-system', 'gone')).toBeNull();
  });

  it('lists by label selector, page by page, giving each item its apiVersion and kind', async () => {
    server.resetHandlers(
      ...discoveryHandlers(),
      http.get(`${SERVER}/api/v1/namespaces/kube-system/secrets`, async ({ request }) => {
        await record(request);
        const cont = new URL(request.url).searchParams.get('continue');
        const name = cont ? 'sh.helm.release.v1.cilium.v2' : 'sh.helm.release.v1.cilium.v1';
        return HttpResponse.json({
          kind: 'SecretList',
          apiVersion: 'v1',
          metadata: cont ? {} : { continue: 'page-2' },
          items: [{ metadata: { name, namespace: 'kube-system', labels: { owner: 'helm' } } }],
        });
      }),
    );
    const items = await client.listObjects('v1', 'Secret', 'kube-system', 'owner=helm,name=cilium');
    expect(items.map((i) => [i.apiVersion, i.kind, i.metadata.name])).toEqual([
      ['v1', 'Secret', 'sh.helm.release.v1.cilium.v1'],
      ['v1', 'Secret', 'sh.helm.release.v1.cilium.v2'],
    ]);
    expect(new URLSearchParams(seen[0]?.query).get('labelSelector')).toBe('owner=helm,name=cilium');
    expect(new URLSearchParams(seen[1]?.query).get('continue')).toBe('page-2');
  });

  it('lists a namespaced kind in every namespace when no namespace is named', async () => {
    server.resetHandlers(
      ...discoveryHandlers(),
      http.get(`${SERVER}/apis/helm.cattle.io/v1/helmcharts`, async ({ request }) => {
        await record(request);
        return HttpResponse.json({ items: [chart] });
      }),
    );
    expect((await client.listObjects('helm.cattle.io/v1', 'HelmChart')).map((c) => c.metadata.name)).toEqual(['hcloud-csi']);
  });

  it('deletes with background propagation, and takes a 404 as done', async () => {
    server.resetHandlers(
      ...discoveryHandlers(),
      http.delete(`${SERVER}/apis/helm.cattle.io/v1/namespaces/kube-system/helmcharts/:name`, async ({ request, params }) => {
        await record(request);
        return params['name'] === 'gone'
          ? HttpResponse.json({ kind: 'Status', reason: 'NotFound', code: 404 }, { status: 404 })
          : HttpResponse.json({ kind: 'Status', status: 'Success' });
      }),
    );
    await client.deleteObject('helm.cattle.io/v1', 'HelmChart', 'kube-system', 'hcloud-csi');
    await client.deleteObject('helm.cattle.io/v1', 'HelmChart', 'kube-system', 'gone');
    expect(seen.map((s) => s.path)).toEqual([
      '/apis/helm.cattle.io/v1/namespaces/kube-system/helmcharts/hcloud-csi',
      '/apis/helm.cattle.io/v1/namespaces/kube-system/helmcharts/gone',
    ]);
    expect(JSON.parse(seen[0]?.body ?? '{}')).toMatchObject({ kind: 'DeleteOptions', propagationPolicy: 'Background' });
  });

  it('refuses a namespaced object without a namespace, naming it', async () => {
    server.resetHandlers(...discoveryHandlers());
    const error = await caught(client.applyObject({ ...chart, metadata: { name: 'hcloud-csi' } }));
    expect(error.kind).toBe('invalid');
    expect(error.message).toContain('HelmChart (helm.cattle.io/v1) hcloud-csi is namespaced');
  });

  it("maps the server's refusal of an apply to an error kind with its message", async () => {
    server.resetHandlers(
      ...discoveryHandlers(),
      http.patch(`${SERVER}/api/v1/namespaces/kube-system/serviceaccounts/helm-controller`, () =>
        HttpResponse.json(
          { kind: 'Status', status: 'Failure', reason: 'Invalid', code: 422, message: 'ServiceAccount "helm-controller" is invalid' },
          { status: 422 },
        ),
      ),
    );
    const error = await caught(
      client.applyObject({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'helm-controller', namespace: 'kube-system' } }),
    );
    expect(error.kind).toBe('invalid');
    expect(error.message).toContain('serviceaccounts kube-system/helm-controller');
    expect(error.message).not.toContain('token-not-for-logs');
  });
});
