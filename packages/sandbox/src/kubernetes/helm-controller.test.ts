// The simulated helm-controller over HTTP: HelmCharts installed, upgraded, failed and uninstalled by Jobs on the
// virtual clock, the Helm 3 release Secrets they leave (decoded here with node:zlib as Helm encodes them), and each
// pinned chart's effect on the cluster (issue 14).
import { gunzipSync } from 'node:zlib';
import { setupServer } from 'msw/node';
import { stringify } from 'yaml';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '@kubeplane/sdk/provider';
import { issueCmkPki, type CmkPki } from '../crusoe/cmk-pki.js';
import { KubernetesEmulator } from './emulator.js';
import { ManagedCloud, RENDER_NOW, sandboxContext } from './fixture.js';
import { HELM_CHART_CRD as HELMCHART_CRD } from '@kubeplane/sdk/internal';
import type { ClusterApi } from './cluster.js';
import type { KubeObject } from './store.js';

const T0 = RENDER_NOW.getTime();
const S = 1000;
const server = setupServer();
let pki: CmkPki;
let clock: VirtualClock;
let cloud: ManagedCloud;
let emulator: KubernetesEmulator;

beforeAll(async () => {
  pki = await issueCmkPki({ seed: 'helm-test', name: 'helm-test', version: '1.33.4-cmk.15', nowMs: T0 });
  server.listen({ onUnhandledRequest: 'error' });
});
afterAll(() => server.close());

function step(ms: number): void {
  clock.advance(ms);
  emulator.tick();
}

function api(): ClusterApi {
  const c = emulator.cluster(cloud.endpoint);
  if (!c) throw new Error('no cluster');
  return c;
}

async function apply(path: string, body: unknown): Promise<number> {
  const response = await fetch(`https://${cloud.endpoint}${path}?fieldManager=kubeplane&force=true`, {
    method: 'PATCH',
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/apply-patch+yaml' },
  });
  return response.status;
}

async function del(path: string): Promise<number> {
  return (await fetch(`https://${cloud.endpoint}${path}`, { method: 'DELETE' })).status;
}

const HETZNER = { 'topology.kubernetes.io/region': 'fsn1', 'topology.kubernetes.io/zone': 'fsn1-dc14', 'kubeplane.dev/provider': 'hetzner' };
const AWS = { 'topology.kubernetes.io/region': 'eu-central-1', 'topology.kubernetes.io/zone': 'eu-central-1a', 'kubeplane.dev/provider': 'aws' };

/** A cluster with a Hetzner and an AWS worker, Ready, and the helm-controller Deployment running (as the engine applies it). */
async function clusterWithController(options: { controller?: boolean } = {}): Promise<void> {
  cloud.node('hz-1', T0, { labels: HETZNER, providerId: 'hcloud://101', machine: { vcpus: 4, memoryMiB: 8192 } });
  cloud.node('aws-1', T0, { labels: AWS, providerId: 'aws:///eu-central-1a/i-0abc', machine: { vcpus: 4, memoryMiB: 8192 } });
  step(60 * S);
  expect(await apply('/apis/apiextensions.k8s.io/v1/customresourcedefinitions/helmcharts.helm.cattle.io', HELMCHART_CRD)).toBe(201);
  if (options.controller === false) return;
  const labels = { app: 'helm-controller' };
  expect(
    await apply('/apis/apps/v1/namespaces/kube-system/deployments/helm-controller', {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'helm-controller', namespace: 'kube-system' },
      spec: {
        replicas: 1,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            serviceAccountName: 'helm-controller',
            containers: [{ name: 'helm-controller', image: 'rancher/helm-controller:v0.16.13', env: [{ name: 'JOB_CLUSTER_ROLE', value: 'cluster-admin' }] }],
            tolerations: [{ key: 'node-role.kubernetes.io/control-plane', operator: 'Exists', effect: 'NoSchedule' }],
          },
        },
      },
    }),
  ).toBe(201);
  step(10 * S);
}

function chart(name: string, addon: string, chartName: string, repo: string, version: string, values: unknown, targetNamespace = 'kube-system') {
  return {
    apiVersion: 'helm.cattle.io/v1',
    kind: 'HelmChart',
    metadata: { name, namespace: 'kube-system', labels: { 'app.kubernetes.io/managed-by': 'kubeplane', 'kubeplane.dev/addon': addon } },
    spec: { repo, chart: chartName, version, targetNamespace, createNamespace: true, valuesContent: stringify(values) },
  };
}

const HCLOUD_VALUES = {
  storageClasses: [{ name: 'hcloud-volumes', defaultStorageClass: true, reclaimPolicy: 'Delete' }],
  node: {
    affinity: {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubeplane.dev/provider', operator: 'In', values: ['hetzner'] }] }],
        },
      },
    },
  },
};

const hcloud = (version: string) => chart('hcloud-csi', 'hcloud_csi', 'hcloud-csi', 'https://charts.hetzner.cloud', version, HCLOUD_VALUES);
const CHARTS = '/apis/helm.cattle.io/v1/namespaces/kube-system/helmcharts';

/** The release a Helm 3 release Secret holds: Secret.data base64, then Helm's base64 of gzipped JSON. */
function release(secret: KubeObject): Record<string, any> {
  const helm = Buffer.from(String((secret['data'] as Record<string, string>)['release']), 'base64').toString('utf8');
  return JSON.parse(gunzipSync(Buffer.from(helm, 'base64')).toString('utf8')) as Record<string, any>;
}

function releaseSecrets(namespace: string, name: string): KubeObject[] {
  return api().list('secrets', namespace, `owner=helm,name=${name}`);
}

function conditions(name: string): Array<[string, string, string?, string?]> {
  const c = api().get('helmcharts.helm.cattle.io', 'kube-system', name);
  return ((c['status'] as { conditions?: Array<Record<string, string>> }).conditions ?? []).map((x) => [
    x['type'] ?? '',
    x['status'] ?? '',
    x['reason'],
    x['message'],
  ]);
}

beforeEach(() => {
  clock = new VirtualClock(T0);
  cloud = new ManagedCloud('helm-test', T0, pki);
  emulator = new KubernetesEmulator(sandboxContext(clock), { vms: cloud });
  server.resetHandlers(...emulator.handlers());
});

describe('the simulated helm-controller', () => {
  it('installs a chart with a Job that takes virtual time, and records the release as Helm 3 does', async () => {
    await clusterWithController();
    expect(await apply(`${CHARTS}/hcloud-csi`, hcloud('2.18.0'))).toBe(201);
    const c = api().get('helmcharts.helm.cattle.io', 'kube-system', 'hcloud-csi');
    expect(c.metadata['finalizers']).toEqual(['wrangler.cattle.io/on-helm-chart-remove']);
    expect((c['status'] as { jobName: string }).jobName).toBe('helm-install-hcloud-csi');
    expect(conditions('hcloud-csi')).toEqual([
      ['JobCreated', 'True', 'Job created', 'Applying HelmChart using Job kube-system/helm-install-hcloud-csi'],
      ['Failed', 'False', undefined, undefined],
    ]);
    expect(releaseSecrets('kube-system', 'hcloud-csi')).toEqual([]);
    step(10 * S);
    expect(releaseSecrets('kube-system', 'hcloud-csi')).toEqual([]);
    step(20 * S);
    const [secret] = releaseSecrets('kube-system', 'hcloud-csi');
    expect(secret?.metadata.name).toBe('sh.helm.release.v1.hcloud-csi.v1');
    expect(secret?.['type']).toBe('helm.sh/release.v1');
    expect(secret?.metadata.labels).toMatchObject({ name: 'hcloud-csi', owner: 'helm', status: 'deployed', version: '1' });
    const r = release(secret as KubeObject);
    expect(r).toMatchObject({
      name: 'hcloud-csi',
      namespace: 'kube-system',
      version: 1,
      info: { status: 'deployed', description: 'Install complete' },
      chart: { metadata: { name: 'hcloud-csi', version: '2.18.0', appVersion: '2.18.0' } },
      config: HCLOUD_VALUES,
    });
    expect(api().get('jobs', 'kube-system', 'helm-install-hcloud-csi')['status']).toMatchObject({
      succeeded: 1,
      conditions: [{ type: 'Complete', status: 'True' }],
    });
    expect(emulator.helmReleases(cloud.endpoint)).toEqual([
      {
        namespace: 'kube-system',
        name: 'hcloud-csi',
        chart: 'hcloud-csi',
        version: '2.18.0',
        appVersion: '2.18.0',
        revision: 1,
        status: 'deployed',
        description: 'Install complete',
        values: HCLOUD_VALUES,
      },
    ]);
  });

  it('upgrades to a new revision and supersedes the old one', async () => {
    await clusterWithController();
    await apply(`${CHARTS}/hcloud-csi`, hcloud('2.18.0'));
    step(40 * S);
    await apply(`${CHARTS}/hcloud-csi`, hcloud('2.18.1'));
    step(40 * S);
    const secrets = releaseSecrets('kube-system', 'hcloud-csi');
    expect(secrets.map((s) => [s.metadata.name, s.metadata.labels?.['status']])).toEqual([
      ['sh.helm.release.v1.hcloud-csi.v1', 'superseded'],
      ['sh.helm.release.v1.hcloud-csi.v2', 'deployed'],
    ]);
    expect(secrets[0]?.metadata.labels?.['modifiedAt']).toBeDefined();
    expect(release(secrets[1] as KubeObject)).toMatchObject({
      version: 2,
      info: { status: 'deployed', description: 'Upgrade complete' },
      chart: { metadata: { version: '2.18.1' } },
    });
    expect(release(secrets[0] as KubeObject)['info']).toMatchObject({ status: 'superseded' });
  });

  it("fails a version the repository does not publish with helm's message, and deploys nothing", async () => {
    await clusterWithController();
    await apply(`${CHARTS}/hcloud-csi`, hcloud('9.9.9'));
    step(40 * S);
    expect(conditions('hcloud-csi')).toEqual([
      ['JobCreated', 'True', 'Job created', 'Applying HelmChart using Job kube-system/helm-install-hcloud-csi'],
      ['Failed', 'True', 'Job failed', 'chart "hcloud-csi" version "9.9.9" not found in https://charts.hetzner.cloud repository'],
    ]);
    expect(releaseSecrets('kube-system', 'hcloud-csi')).toEqual([]);
    expect(api().list('storageclasses', undefined)).toEqual([]);
    // Fixing the version installs it.
    await apply(`${CHARTS}/hcloud-csi`, hcloud('2.18.1'));
    step(40 * S);
    expect(conditions('hcloud-csi')[1]).toEqual(['Failed', 'False', undefined, undefined]);
    expect(releaseSecrets('kube-system', 'hcloud-csi').map((s) => s.metadata.labels?.['status'])).toEqual(['deployed']);
  });

  it('uninstalls a deleted chart: the chart stays while the delete Job runs, then the release and its effects go', async () => {
    await clusterWithController();
    await apply(`${CHARTS}/hcloud-csi`, hcloud('2.18.0'));
    step(40 * S);
    expect(
      api()
        .list('storageclasses', undefined)
        .map((s) => s.metadata.name),
    ).toEqual(['hcloud-volumes']);
    expect(await del(`${CHARTS}/hcloud-csi`)).toBe(200);
    const removing = api().get('helmcharts.helm.cattle.io', 'kube-system', 'hcloud-csi');
    expect(removing.metadata['deletionTimestamp']).toBeDefined();
    expect((removing['status'] as { jobName: string }).jobName).toBe('helm-delete-hcloud-csi');
    step(40 * S);
    expect(api().list('helmcharts.helm.cattle.io', 'kube-system')).toEqual([]);
    expect(releaseSecrets('kube-system', 'hcloud-csi')).toEqual([]);
    expect(api().list('storageclasses', undefined)).toEqual([]);
    expect(api().list('csidrivers', undefined)).toEqual([]);
    expect(api().list('jobs', 'kube-system')).toEqual([]);
    expect(api().get('nodes', undefined, 'hz-1').metadata.labels?.['csi.hetzner.cloud/location']).toBeUndefined();
  });

  it('reconciles nothing while its Deployment has no running pod', async () => {
    await clusterWithController({ controller: false });
    await apply(`${CHARTS}/hcloud-csi`, hcloud('2.18.0'));
    step(120 * S);
    expect(api().get('helmcharts.helm.cattle.io', 'kube-system', 'hcloud-csi')['status']).toBeUndefined();
    expect(api().list('jobs', 'kube-system')).toEqual([]);
  });
});

describe("the charts' effects", () => {
  it('hcloud-csi: its CSIDriver, a default WaitForFirstConsumer class, and its node plugin registered on Hetzner nodes only', async () => {
    await clusterWithController();
    await apply(`${CHARTS}/hcloud-csi`, hcloud('2.18.0'));
    step(40 * S);
    expect(
      api()
        .list('csidrivers', undefined)
        .map((d) => d.metadata.name),
    ).toEqual(['csi.hetzner.cloud']);
    const sc = api().get('storageclasses', undefined, 'hcloud-volumes');
    expect(sc).toMatchObject({
      provisioner: 'csi.hetzner.cloud',
      volumeBindingMode: 'WaitForFirstConsumer',
      reclaimPolicy: 'Delete',
      metadata: { annotations: { 'storageclass.kubernetes.io/is-default-class': 'true', 'meta.helm.sh/release-name': 'hcloud-csi' } },
    });
    expect(api().get('nodes', undefined, 'hz-1').metadata.labels?.['csi.hetzner.cloud/location']).toBe('fsn1');
    expect(api().get('nodes', undefined, 'aws-1').metadata.labels?.['csi.hetzner.cloud/location']).toBeUndefined();
    // kubectl get storageclass / helmcharts: the server's Table, the default class marked, the CRD's printer columns.
    const table = async (path: string) =>
      (await (await fetch(`https://${cloud.endpoint}${path}`, { headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } })).json()) as {
        rows: Array<{ cells: unknown[] }>;
        columnDefinitions: Array<{ name: string }>;
      };
    const classes = await table('/apis/storage.k8s.io/v1/storageclasses');
    expect(classes.rows.map((r) => r.cells.slice(0, 5))).toEqual([['hcloud-volumes (default)', 'csi.hetzner.cloud', 'Delete', 'WaitForFirstConsumer', 'true']]);
    const charts = await table(CHARTS);
    expect(charts.columnDefinitions.map((c) => c.name)).toEqual(['Name', 'Repo', 'Chart', 'Version', 'TargetNamespace', 'Bootstrap', 'Failed', 'Job']);
    expect(charts.rows.map((r) => r.cells)).toEqual([
      ['hcloud-csi', 'https://charts.hetzner.cloud', 'hcloud-csi', '2.18.0', 'kube-system', null, 'False', 'helm-install-hcloud-csi'],
    ]);
    // A Hetzner node that joins later registers the driver too.
    cloud.node('hz-2', clock.now(), { labels: HETZNER, providerId: 'hcloud://102' });
    step(60 * S);
    expect(api().get('nodes', undefined, 'hz-2').metadata.labels?.['csi.hetzner.cloud/location']).toBe('fsn1');
  });

  it('aws-ebs-csi-driver: the classes its values list, the default from their annotation, zone topology on AWS nodes', async () => {
    await clusterWithController();
    const values = {
      storageClasses: [
        {
          name: 'ebs-gp3',
          annotations: { 'storageclass.kubernetes.io/is-default-class': 'false' },
          parameters: { type: 'gp3' },
          allowedTopologies: [{ matchLabelExpressions: [{ key: 'topology.ebs.csi.aws.com/zone', values: ['eu-central-1a'] }] }],
        },
      ],
      node: { nodeSelector: { 'kubeplane.dev/provider': 'aws' } },
    };
    await apply(
      `${CHARTS}/aws-ebs-csi-driver`,
      chart('aws-ebs-csi-driver', 'aws_ebs_csi', 'aws-ebs-csi-driver', 'https://kubernetes-sigs.github.io/aws-ebs-csi-driver', '2.48.0', values),
    );
    step(40 * S);
    const sc = api().get('storageclasses', undefined, 'ebs-gp3');
    expect(sc).toMatchObject({
      provisioner: 'ebs.csi.aws.com',
      volumeBindingMode: 'WaitForFirstConsumer',
      parameters: { type: 'gp3' },
      allowedTopologies: values.storageClasses[0]?.allowedTopologies,
    });
    expect((sc.metadata['annotations'] as Record<string, string>)['storageclass.kubernetes.io/is-default-class']).toBe('false');
    expect(api().get('nodes', undefined, 'aws-1').metadata.labels?.['topology.ebs.csi.aws.com/zone']).toBe('eu-central-1a');
    expect(api().get('nodes', undefined, 'hz-1').metadata.labels?.['topology.ebs.csi.aws.com/zone']).toBeUndefined();
  });

  it('longhorn: a default Immediate class from persistence.defaultClass, in its own namespace', async () => {
    await clusterWithController();
    await apply(
      `${CHARTS}/longhorn`,
      chart('longhorn', 'longhorn', 'longhorn', 'https://charts.longhorn.io', '1.9.1', { persistence: { defaultClass: true } }, 'longhorn-system'),
    );
    step(40 * S);
    expect(api().get('storageclasses', undefined, 'longhorn')).toMatchObject({
      provisioner: 'driver.longhorn.io',
      volumeBindingMode: 'Immediate',
      metadata: { annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
    });
    expect(releaseSecrets('longhorn-system', 'longhorn').length).toBe(1);
    expect(api().get('namespaces', undefined, 'longhorn-system').metadata.name).toBe('longhorn-system');
  });

  it('gpu-operator: GPU machines advertise nvidia.com/gpu, others do not, and removal takes it back', async () => {
    cloud.node('gpu-1', T0, { labels: { 'kubeplane.dev/provider': 'crusoe' }, machine: { vcpus: 48, memoryMiB: 480 * 1024, gpus: 8 } });
    await clusterWithController();
    const capacity = (n: string) => (api().get('nodes', undefined, n)['status'] as { capacity: Record<string, string> }).capacity['nvidia.com/gpu'];
    expect(capacity('gpu-1')).toBeUndefined();
    await apply(
      `${CHARTS}/gpu-operator`,
      chart('gpu-operator', 'nvidia_gpu_operator', 'gpu-operator', 'https://helm.ngc.nvidia.com/nvidia', 'v25.3.2', {}, 'gpu-operator'),
    );
    step(40 * S);
    expect(capacity('gpu-1')).toBe('8');
    expect((api().get('nodes', undefined, 'gpu-1')['status'] as { allocatable: Record<string, string> }).allocatable['nvidia.com/gpu']).toBe('8');
    expect(api().get('nodes', undefined, 'gpu-1').metadata.labels?.['nvidia.com/gpu.present']).toBe('true');
    expect(capacity('hz-1')).toBeUndefined();
    await del(`${CHARTS}/gpu-operator`);
    step(40 * S);
    expect(capacity('gpu-1')).toBeUndefined();
  });

  it('metrics-server and cluster-autoscaler: their Deployments run', async () => {
    await clusterWithController();
    await apply(
      `${CHARTS}/metrics-server`,
      chart('metrics-server', 'metrics_server', 'metrics-server', 'https://kubernetes-sigs.github.io/metrics-server/', '3.13.0', {}),
    );
    await apply(
      `${CHARTS}/cluster-autoscaler`,
      chart('cluster-autoscaler', 'cluster_autoscaler', 'cluster-autoscaler', 'https://kubernetes.github.io/autoscaler', '9.50.1', {
        cloudProvider: 'externalgrpc',
        fullnameOverride: 'cluster-autoscaler',
      }),
    );
    step(60 * S);
    const ready = (name: string) => (api().get('deployments', 'kube-system', name)['status'] as { readyReplicas?: number }).readyReplicas;
    expect(ready('metrics-server')).toBe(1);
    expect(ready('cluster-autoscaler')).toBe(1);
  });
});
