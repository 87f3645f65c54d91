// CRDs and custom resources over HTTP, as kubectl and the engine's client use them: discovery, create, SSA, list
// with label selectors, schema validation, 404 for unknown kinds, finalizers, and deleting a CRD with its objects;
// and the built-in kinds the add-on mechanism needs (issue 14).
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '@kubeplane/sdk/provider';
import { KubernetesEmulator } from './emulator.js';
import { ManagedCloud, RENDER_NOW, sandboxContext } from './fixture.js';
import { HELM_CHART_CRD as HELMCHART_CRD } from '@kubeplane/sdk/internal';
import { issueCmkPki, type CmkPki } from '../crusoe/cmk-pki.js';

const T0 = RENDER_NOW.getTime();
const server = setupServer();
let cloud: ManagedCloud;
let pki: CmkPki;

beforeAll(async () => {
  pki = await issueCmkPki({ seed: 'crd-test', name: 'crd-test', version: '1.33.4-cmk.15', nowMs: T0 });
  server.listen({ onUnhandledRequest: 'error' });
});
afterAll(() => server.close());
beforeEach(() => {
  const clock = new VirtualClock(T0);
  cloud = new ManagedCloud('crd-test', T0, pki);
  server.resetHandlers(...new KubernetesEmulator(sandboxContext(clock), { vms: cloud }).handlers());
});

async function call(
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`https://${cloud.endpoint}${path}`, {
    method,
    ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body), headers: { 'content-type': contentType } } : {}),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const apply = (path: string, body: unknown) => call('PATCH', `${path}?fieldManager=kubeplane&force=true`, body, 'application/apply-patch+yaml');

function chart(
  name: string,
  labels: Record<string, string> = {},
  spec: Record<string, unknown> = { chart: 'hcloud-csi', repo: 'https://charts.hetzner.cloud', version: '2.18.0' },
) {
  return { apiVersion: 'helm.cattle.io/v1', kind: 'HelmChart', metadata: { name, namespace: 'kube-system', labels }, spec };
}

describe('a CustomResourceDefinition', () => {
  it('is established as the API server reports it, and its kind is served from then on', async () => {
    expect((await call('GET', '/apis/helm.cattle.io/v1/namespaces/kube-system/helmcharts')).status).toBe(404);
    const groups = (await call('GET', '/apis')).body['groups'] as Array<{ name: string }>;
    expect(groups.map((g) => g.name)).not.toContain('helm.cattle.io');

    const created = await apply('/apis/apiextensions.k8s.io/v1/customresourcedefinitions/helmcharts.helm.cattle.io', HELMCHART_CRD);
    expect(created.status).toBe(201);
    expect(
      (created.body['status'] as { conditions: Array<{ type: string; status: string; reason: string }> }).conditions.map((c) => [c.type, c.status, c.reason]),
    ).toEqual([
      ['NamesAccepted', 'True', 'NoConflicts'],
      ['Established', 'True', 'InitialNamesAccepted'],
    ]);
    const after = (await call('GET', '/apis')).body['groups'] as Array<{ name: string; preferredVersion: { groupVersion: string } }>;
    expect(after.find((g) => g.name === 'helm.cattle.io')?.preferredVersion.groupVersion).toBe('helm.cattle.io/v1');
    const resources = (await call('GET', '/apis/helm.cattle.io/v1')).body['resources'] as Array<{
      name: string;
      kind: string;
      namespaced: boolean;
      singularName: string;
    }>;
    expect(resources.map((r) => [r.name, r.kind, r.namespaced, r.singularName])).toEqual([['helmcharts', 'HelmChart', true, 'helmchart']]);
    const crds = (await call('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions')).body;
    expect((crds['items'] as Array<{ metadata: { name: string } }>).map((c) => c.metadata.name)).toEqual(['helmcharts.helm.cattle.io']);
  });

  it('is refused when its name is not <plural>.<group> or it has no storage version', async () => {
    const bad = await call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      ...HELMCHART_CRD,
      metadata: { name: 'charts.helm.cattle.io' },
    });
    expect(bad.status).toBe(422);
    expect(String(bad.body['message'])).toContain('metadata.name: Invalid value: "charts.helm.cattle.io": must be spec.names.plural+"."+spec.group');
    const spec = HELMCHART_CRD['spec'] as { versions: Array<Record<string, unknown>> };
    const noStorage = await call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      ...HELMCHART_CRD,
      spec: { ...spec, versions: spec.versions.map((v) => ({ ...v, storage: false })) },
    });
    expect(noStorage.status).toBe(422);
    expect(String(noStorage.body['message'])).toContain('must have exactly one version marked as storage version');
  });
});

describe('custom resources', () => {
  beforeEach(async () => {
    expect((await call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', HELMCHART_CRD)).status).toBe(201);
  });

  it('are created, applied again, read, and listed by label selector', async () => {
    const path = '/apis/helm.cattle.io/v1/namespaces/kube-system/helmcharts';
    expect((await apply(`${path}/hcloud-csi`, chart('hcloud-csi', { 'kubeplane.dev/addon': 'hcloud_csi' }))).status).toBe(201);
    expect((await call('POST', path, chart('longhorn', { 'kubeplane.dev/addon': 'longhorn' }))).status).toBe(201);
    const again = await apply(
      `${path}/hcloud-csi`,
      chart('hcloud-csi', { 'kubeplane.dev/addon': 'hcloud_csi' }, { chart: 'hcloud-csi', repo: 'https://charts.hetzner.cloud', version: '2.18.1' }),
    );
    expect(again.status).toBe(200);
    expect(again.body['spec']).toMatchObject({ version: '2.18.1' });
    expect((again.body['metadata'] as { generation: number }).generation).toBe(2);
    const one = await call('GET', `${path}/hcloud-csi`);
    expect(one.body).toMatchObject({ apiVersion: 'helm.cattle.io/v1', kind: 'HelmChart', metadata: { name: 'hcloud-csi', namespace: 'kube-system' } });
    const listed = await call('GET', `${path}?labelSelector=${encodeURIComponent('kubeplane.dev/addon=longhorn')}`);
    expect(listed.body['kind']).toBe('HelmChartList');
    expect((listed.body['items'] as Array<{ metadata: { name: string } }>).map((i) => i.metadata.name)).toEqual(['longhorn']);
    const everywhere = await call('GET', '/apis/helm.cattle.io/v1/helmcharts');
    expect((everywhere.body['items'] as unknown[]).length).toBe(2);
  });

  it('are checked against the version schema: types and enums', async () => {
    const path = '/apis/helm.cattle.io/v1/namespaces/kube-system/helmcharts';
    const wrongType = await call('POST', path, chart('x', {}, { chart: 'x', version: 2 }));
    expect(wrongType.status).toBe(422);
    expect(String(wrongType.body['message'])).toContain(
      'HelmChart.helm.cattle.io "x" is invalid: spec.version: Invalid value: "integer": spec.version in body must be of type string: "integer"',
    );
    const missing = await call('POST', path, { ...chart('y'), spec: { chart: 'x', failurePolicy: 'sometimes' } });
    expect(missing.status).toBe(422);
    expect(String(missing.body['message'])).toContain('spec.failurePolicy: Unsupported value: "sometimes": supported values: "abort", "reinstall"');
  });

  it('of a kind nobody defined, or at a version the CRD does not serve, are 404', async () => {
    expect((await call('GET', '/apis/helm.cattle.io/v1/namespaces/kube-system/helmchartconfigs')).status).toBe(404);
    expect((await call('GET', '/apis/helm.cattle.io/v2/namespaces/kube-system/helmcharts')).status).toBe(404);
    const missing = await call('GET', '/apis/helm.cattle.io/v1/namespaces/kube-system/helmcharts/nope');
    expect(missing.status).toBe(404);
    expect(missing.body['message']).toBe('helmcharts.helm.cattle.io "nope" not found');
  });

  it('with a finalizer stay, marked for deletion, until it is removed', async () => {
    const path = '/apis/helm.cattle.io/v1/namespaces/kube-system/helmcharts/held';
    await apply(path, { ...chart('held'), metadata: { name: 'held', namespace: 'kube-system', finalizers: ['example.com/hold'] } });
    const deleting = await call('DELETE', path);
    expect(deleting.status).toBe(200);
    expect((deleting.body['metadata'] as Record<string, unknown>)['deletionTimestamp']).toBeDefined();
    expect((await call('GET', path)).status).toBe(200);
    await call('PATCH', path, { metadata: { finalizers: null } }, 'application/merge-patch+json');
    expect((await call('GET', path)).status).toBe(404);
  });

  it('are watched: a chart created after the watch opens arrives as a typed ADDED event', async () => {
    const response = await fetch(
      `https://${cloud.endpoint}/apis/helm.cattle.io/v1/namespaces/kube-system/helmcharts?watch=true&timeoutSeconds=1&labelSelector=${encodeURIComponent('kubeplane.dev/addon=longhorn')}`,
    );
    expect(response.status).toBe(200);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    await call('POST', '/apis/helm.cattle.io/v1/namespaces/kube-system/helmcharts', chart('other', { 'kubeplane.dev/addon': 'other' }));
    await call('POST', '/apis/helm.cattle.io/v1/namespaces/kube-system/helmcharts', chart('longhorn', { 'kubeplane.dev/addon': 'longhorn' }));
    let text = '';
    const decoder = new TextDecoder();
    // The watch ends after its timeoutSeconds, with what it saw.
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value);
    }
    expect(text.split('\n').filter((l) => l !== '').length).toBe(1);
    const first = JSON.parse(text.split('\n')[0] ?? '{}') as { type: string; object: { apiVersion: string; kind: string; metadata: { name: string } } };
    expect([first.type, first.object.apiVersion, first.object.kind, first.object.metadata.name]).toEqual([
      'ADDED',
      'helm.cattle.io/v1',
      'HelmChart',
      'longhorn',
    ]);
  });

  it('go with their CRD', async () => {
    await call('POST', '/apis/helm.cattle.io/v1/namespaces/kube-system/helmcharts', chart('a'));
    expect((await call('DELETE', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/helmcharts.helm.cattle.io')).status).toBe(200);
    expect((await call('GET', '/apis/helm.cattle.io/v1/namespaces/kube-system/helmcharts')).status).toBe(404);
    await call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', HELMCHART_CRD);
    expect(((await call('GET', '/apis/helm.cattle.io/v1/namespaces/kube-system/helmcharts')).body['items'] as unknown[]).length).toBe(0);
  });
});

describe('the built-in kinds add-ons use', () => {
  it('are served, stored and defaulted as the API server does', async () => {
    const cases: Array<[string, Record<string, unknown>]> = [
      [
        '/api/v1/namespaces/kube-system/serviceaccounts/helm-controller',
        { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'helm-controller', namespace: 'kube-system' } },
      ],
      [
        '/apis/rbac.authorization.k8s.io/v1/clusterroles/system:helm',
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRole',
          metadata: { name: 'system:helm' },
          rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }],
        },
      ],
      [
        '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/helm-controller',
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRoleBinding',
          metadata: { name: 'helm-controller' },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
          subjects: [{ kind: 'ServiceAccount', name: 'helm-controller', namespace: 'kube-system' }],
        },
      ],
      [
        '/apis/storage.k8s.io/v1/csidrivers/csi.example.com',
        { apiVersion: 'storage.k8s.io/v1', kind: 'CSIDriver', metadata: { name: 'csi.example.com' }, spec: { attachRequired: true } },
      ],
      [
        '/apis/storage.k8s.io/v1/storageclasses/fast',
        {
          apiVersion: 'storage.k8s.io/v1',
          kind: 'StorageClass',
          metadata: { name: 'fast', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
          provisioner: 'csi.example.com',
        },
      ],
      [
        '/api/v1/persistentvolumes/pv-1',
        {
          apiVersion: 'v1',
          kind: 'PersistentVolume',
          metadata: { name: 'pv-1' },
          spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], csi: { driver: 'csi.example.com', volumeHandle: '1' } },
        },
      ],
      [
        '/api/v1/namespaces/default/persistentvolumeclaims/data',
        {
          apiVersion: 'v1',
          kind: 'PersistentVolumeClaim',
          metadata: { name: 'data', namespace: 'default' },
          spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
        },
      ],
      [
        '/apis/apps/v1/namespaces/kube-system/daemonsets/node-agent',
        {
          apiVersion: 'apps/v1',
          kind: 'DaemonSet',
          metadata: { name: 'node-agent', namespace: 'kube-system' },
          spec: {
            selector: { matchLabels: { app: 'a' } },
            template: { metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'a', image: 'a' }] } },
          },
        },
      ],
      [
        '/apis/batch/v1/namespaces/kube-system/jobs/once',
        {
          apiVersion: 'batch/v1',
          kind: 'Job',
          metadata: { name: 'once', namespace: 'kube-system' },
          spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'a', image: 'a' }] } } },
        },
      ],
    ];
    for (const [path, body] of cases) {
      const created = await apply(path, body);
      expect(created.status, path).toBe(201);
      expect((await call('GET', path)).body['kind'], path).toBe(body['kind']);
    }
    expect((await call('GET', '/apis/storage.k8s.io/v1/storageclasses/fast')).body).toMatchObject({ reclaimPolicy: 'Delete', volumeBindingMode: 'Immediate' });
    expect((await call('GET', '/api/v1/namespaces/default/persistentvolumeclaims/data')).body['spec']).toMatchObject({ storageClassName: 'fast' });
    const changed = await apply('/apis/storage.k8s.io/v1/storageclasses/fast', {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'StorageClass',
      metadata: { name: 'fast' },
      provisioner: 'other.example.com',
    });
    expect(changed.status).toBe(422);
    const v1 = (await call('GET', '/api/v1')).body['resources'] as Array<{ name: string; shortNames?: string[] }>;
    expect(v1.find((r) => r.name === 'persistentvolumeclaims')?.shortNames).toEqual(['pvc']);
  });
});
