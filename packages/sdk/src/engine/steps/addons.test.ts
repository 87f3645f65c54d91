// The addons step against an in-memory cluster whose helm-controller is simulated here as issue 14 and k3s-io/helm-controller describe it:
// first install, upgrade on a version change, removal, helm's failure message, and credentials that never reach
// the record, the events or an error.
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { inspect } from 'node:util';
import { parse as parseYaml } from 'yaml';
import { beforeEach, describe, expect, it } from 'vitest';
import { buildDesiredState } from '../../model/desired-state.js';
import { validateManifestText } from '../../manifest/validate.js';
import { KubeplaneError } from '../../errors.js';
import { Redacted } from '../../redacted.js';
import { systemRandomSource } from '../../bootstrap/random.js';
import { freshKeyPairs } from '../../bootstrap/pki.js';
import { MemorySecretStore } from '../adapters/memory.js';
import { ClusterSecrets } from '../cluster-secrets.js';
import { emptyLedger, RECORD_VERSION, type ClusterRecord, type ProjectRecord } from '../records.js';
import type { KubeNode, KubeObject, KubernetesApi } from '../ports/kubernetes.js';
import { done, type Outcome } from '../../provider/outcome.js';
import { VirtualClock } from '../../provider/clock.js';
import type { Provider } from '../../provider/types.js';
import { readAutoscalerCloudConfig } from '../../addons/values.js';
import { addons } from './addons.js';
import type { AddonCredentialResolver, EmitInput, StepContext, StepResult } from './types.js';

const TOKEN = 'a'.repeat(20) + 'hcloudtokenvalue0123456789abcdefghijklmnopqrstu'.slice(0, 44);

/** A cluster API in memory: objects by apiVersion/kind/namespace/name, Secrets with their data, server-side apply as replace. */
class FakeCluster implements KubernetesApi {
  readonly objects = new Map<string, KubeObject>();
  readonly secrets = new Map<string, Record<string, Redacted<string>>>();
  /** What the simulated chart repositories publish: chart -> versions. */
  published: Record<string, string[]> = {};
  revisions = new Map<string, number>();
  now = Date.UTC(2026, 11, 2);

  key(apiVersion: string, kind: string, namespace: string | undefined, name: string): string {
    return `${apiVersion}/${kind}/${namespace ?? ''}/${name}`;
  }
  async ready(): Promise<Outcome<void>> {
    return done(undefined);
  }
  async listNodes(): Promise<KubeNode[]> {
    return [];
  }
  async patchNode(): Promise<void> {}
  async drainNode(): Promise<Outcome<void>> {
    return done(undefined);
  }
  async deleteNode(): Promise<void> {}
  async applyConfigMap(): Promise<void> {}
  async getConfigMap(): Promise<Record<string, string> | null> {
    return null;
  }
  async applySecret(namespace: string, name: string, data: Record<string, Redacted<string>>): Promise<void> {
    this.secrets.set(`${namespace}/${name}`, data);
  }
  async getSecret(namespace: string, name: string): Promise<Record<string, Redacted<string>> | null> {
    return this.secrets.get(`${namespace}/${name}`) ?? null;
  }
  async deleteSecret(namespace: string, name: string): Promise<void> {
    this.secrets.delete(`${namespace}/${name}`);
  }
  async getDeploymentArgs(): Promise<string[] | null> {
    return null;
  }
  async setDeploymentArgs(): Promise<void> {}
  async applyObject(object: KubeObject): Promise<KubeObject> {
    const k = this.key(object.apiVersion, object.kind, object.metadata.namespace, object.metadata.name);
    const before = this.objects.get(k);
    const stored: KubeObject = structuredClone({ ...object, ...(before?.['status'] ? { status: before['status'] } : {}) });
    this.objects.set(k, stored);
    return stored;
  }
  async getObject(apiVersion: string, kind: string, namespace: string | undefined, name: string): Promise<KubeObject | null> {
    return this.objects.get(this.key(apiVersion, kind, namespace, name)) ?? null;
  }
  async listObjects(apiVersion: string, kind: string, namespace?: string, labelSelector?: string): Promise<KubeObject[]> {
    const wanted = (labelSelector ?? '')
      .split(',')
      .filter(Boolean)
      .map((t) => t.split('=') as [string, string]);
    return [...this.objects.values()].filter(
      (o) =>
        o.apiVersion === apiVersion &&
        o.kind === kind &&
        (namespace === undefined || o.metadata.namespace === namespace) &&
        wanted.every(([k, v]) => o.metadata.labels?.[k] === v),
    );
  }
  async deleteObject(apiVersion: string, kind: string, namespace: string | undefined, name: string): Promise<void> {
    this.objects.delete(this.key(apiVersion, kind, namespace, name));
  }

  /** The helm-controller's Deployment gets a ready pod. */
  startController(): void {
    const d = this.objects.get(this.key('apps/v1', 'Deployment', 'kube-system', 'helm-controller'));
    if (d) d['status'] = { readyReplicas: 1 };
  }

  /** A Helm 3 release revision as its storage driver writes it: the earlier ones superseded (issue 14). */
  release(release: string, namespace: string, spec: { chart: string; version: string; valuesContent: string }): void {
    const revision = (this.revisions.get(release) ?? 0) + 1;
    this.revisions.set(release, revision);
    for (const s of [...this.objects.values()].filter((o) => o.kind === 'Secret' && o.metadata.labels?.['name'] === release)) {
      s.metadata.labels = { ...s.metadata.labels, status: 'superseded' };
    }
    const json = {
      name: release,
      namespace,
      version: revision,
      info: {
        status: 'deployed',
        description: revision === 1 ? 'Install complete' : 'Upgrade complete',
        first_deployed: new Date(this.now).toISOString(),
        last_deployed: new Date(this.now).toISOString(),
      },
      chart: { metadata: { name: spec.chart, version: spec.version, appVersion: spec.version } },
      config: parseYaml(spec.valuesContent) as unknown,
    };
    const inner = gzipSync(Buffer.from(JSON.stringify(json))).toString('base64');
    const name = `sh.helm.release.v1.${release}.v${revision}`;
    this.objects.set(this.key('v1', 'Secret', namespace, name), {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, namespace, labels: { name: release, owner: 'helm', status: 'deployed', version: String(revision) } },
      type: 'helm.sh/release.v1',
      data: { release: Buffer.from(inner).toString('base64') },
    });
  }

  /** One reconcile of every HelmChart, as k3s-io/helm-controller and Helm 3 record it (issue 14). */
  reconcile(): void {
    for (const chart of [...this.objects.values()].filter((o) => o.kind === 'HelmChart')) {
      const spec = chart['spec'] as { chart: string; version: string; repo: string; targetNamespace: string; valuesContent: string };
      const release = chart.metadata.name;
      const jobName = `helm-install-${release}`;
      if (!(this.published[spec.chart] ?? []).includes(spec.version)) {
        chart['status'] = {
          jobName,
          conditions: [
            { type: 'JobCreated', status: 'True', reason: 'Job created', message: `Applying HelmChart using Job kube-system/${jobName}` },
            {
              type: 'Failed',
              status: 'True',
              reason: 'Error',
              message: `chart "${spec.chart}" version "${spec.version}" not found in ${spec.repo} repository`,
            },
          ],
        };
        continue;
      }
      this.release(release, spec.targetNamespace, spec);
      chart['status'] = {
        jobName,
        conditions: [{ type: 'JobCreated', status: 'True', reason: 'Job created', message: `Applying HelmChart using Job kube-system/${jobName}` }],
      };
    }
  }
}

const fixture = (name: string, vars: Record<string, string>) =>
  readFileSync(new URL(`../../../../../test/fixtures/addons/${name}`, import.meta.url), 'utf8').replace(/\$\{(\w+)\}/g, (_, k: string) => vars[k] ?? '');
const MANIFEST = (addons: string) => fixture('hetzner.yaml', { project: 'demo', hetznerSecretRef: '{ env: { credentials: HCLOUD_TOKEN } }', addons });

function recordOf(addonsYaml: string, before?: ClusterRecord): { record: ClusterRecord; project: ProjectRecord } {
  const result = validateManifestText(MANIFEST(addonsYaml));
  const manifest = result.manifests[0];
  if (!result.ok || !manifest) throw new Error(result.issues.map((i) => `${i.path}: ${i.message}`).join('\n'));
  const spec = buildDesiredState(manifest).clusters[0]!;
  const record: ClusterRecord = before
    ? { ...before, desired: spec, lastManifest: manifest }
    : {
        v: RECORD_VERSION,
        project: 'demo',
        name: 'demo',
        clusterId: spec.id,
        incarnation: 'i1',
        generation: 1,
        target: 'present',
        desired: spec,
        current: null,
        // The API on a reserved IP (the fixture has no API load balancer), as the infrastructure steps record it.
        ledger: { ...emptyLedger(), reservedIp: { provider: 'hetzner-1', region: 'fsn1', name: 'demo-api', id: '7', ip: '203.0.113.10' } },
        pki: null,
        step: { phase: 'addons', name: 'addons', seq: 1, since: 0, attempts: 0 },
        status: { state: 'IN_PROGRESS', phase: 'addons', message: '', previous: [] },
        lastManifest: manifest,
      };
  return { record, project: { v: RECORD_VERSION, project: 'demo', generation: 1, manifest, clusters: { demo: spec.id }, updatedAt: 0 } };
}

let cluster: FakeCluster;
let events: EmitInput[];
let resolved: string[];
const credentials: AddonCredentialResolver = async (ref, keys, what) => {
  resolved.push(`${what}: ${JSON.stringify(ref)}`);
  return Object.fromEntries(keys.filter((k) => k.required).map((k) => [k.key, Redacted.of(TOKEN)]));
};

async function run(record: ClusterRecord, project: ProjectRecord, provider?: StepContext['provider']): Promise<StepResult> {
  const store = new MemorySecretStore();
  const secrets = new ClusterSecrets(store, record.clusterId, {});
  await secrets.putManagedKubeconfig(Redacted.of('apiVersion: v1\nkind: Config\n'));
  const clock = new VirtualClock(cluster.now);
  const ctx: StepContext = {
    record,
    project,
    now: cluster.now,
    clock,
    random: systemRandomSource(),
    keyPairs: freshKeyPairs,
    secrets,
    provider: provider ?? (() => Promise.reject(new Error('no provider in this test'))),
    kubernetes: () => cluster,
    catalogs: undefined as never,
    attempt: 0,
    addonCredentials: credentials,
    emit: (e) => events.push(e),
    checkpoint: async () => {},
  };
  return addons.run(ctx);
}

const helmChart = (name: string) => cluster.objects.get(cluster.key('helm.cattle.io/v1', 'HelmChart', 'kube-system', name));

beforeEach(() => {
  cluster = new FakeCluster();
  cluster.published = { cilium: ['1.18.5', '1.18.6'], 'hcloud-csi': ['2.18.0', '2.18.1'], 'metrics-server': ['3.13.0'] };
  events = [];
  resolved = [];
});

const HCLOUD = `        - name: hcloud_csi
          secretRef: { env: { credentials: ADDON_HCLOUD_TOKEN } }`;

describe('the addons step', () => {
  it('installs the helm-controller, a credentials Secret and one HelmChart per add-on, and waits until they are deployed', async () => {
    const { record, project } = recordOf(HCLOUD);
    const first = await run(record, project);
    expect(first.kind).toBe('wait');
    expect(cluster.objects.has(cluster.key('apiextensions.k8s.io/v1', 'CustomResourceDefinition', undefined, 'helmcharts.helm.cattle.io'))).toBe(true);
    const deployment = cluster.objects.get(cluster.key('apps/v1', 'Deployment', 'kube-system', 'helm-controller'));
    expect(JSON.stringify(deployment)).toContain('rancher/helm-controller:');
    expect(helmChart('cilium')?.metadata.labels).toEqual({ 'app.kubernetes.io/managed-by': 'kubeplane', 'kubeplane.dev/addon': 'cilium' });
    expect(parseYaml((helmChart('cilium')?.['spec'] as { valuesContent: string }).valuesContent)).toMatchObject({
      k8sServiceHost: '203.0.113.10',
      k8sServicePort: 6443,
      kubeProxyReplacement: true,
    });
    const hcloud = helmChart('hcloud-csi');
    expect(hcloud?.['spec']).toMatchObject({
      repo: 'https://charts.hetzner.cloud',
      chart: 'hcloud-csi',
      version: '2.18.0',
      targetNamespace: 'kube-system',
      createNamespace: true,
    });
    expect(Object.keys(cluster.secrets.get('kube-system/hcloud-csi-token') ?? {})).toEqual(['token']);
    expect(record.status.addons?.map((a) => [a.name, a.state])).toEqual([
      ['cilium', 'installing'],
      ['hcloud_csi', 'installing'],
    ]);
    expect(record.status.addons?.[0]?.message).toContain('waiting for the helm-controller Deployment');

    cluster.startController();
    cluster.reconcile();
    const second = await run(record, project);
    expect(second).toMatchObject({ kind: 'next' });
    expect(record.status.addons?.map((a) => [a.name, a.installedVersion, a.state])).toEqual([
      ['cilium', '1.18.5', 'installed'],
      ['hcloud_csi', '2.18.0', 'installed'],
    ]);
    expect(events.filter((e) => e.type === 'addon').map((e) => e.type === 'addon' && `${e.name} ${e.state}`)).toContain('hcloud_csi installed');
  });

  it('upgrades an add-on when its version changes, reporting the old version until the new release is deployed', async () => {
    const { record, project } = recordOf(HCLOUD);
    await run(record, project);
    cluster.startController();
    cluster.reconcile();
    await run(record, project);
    const { record: changed } = recordOf(`${HCLOUD}\n          version: "2.18.1"`, record);
    expect((await run(changed, project)).kind).toBe('wait');
    expect(helmChart('hcloud-csi')?.['spec']).toMatchObject({ version: '2.18.1' });
    expect(changed.status.addons?.find((a) => a.name === 'hcloud_csi')).toMatchObject({
      declaredVersion: '2.18.1',
      installedVersion: '2.18.0',
      state: 'installing',
    });
    cluster.reconcile();
    expect((await run(changed, project)).kind).toBe('next');
    expect(changed.status.addons?.find((a) => a.name === 'hcloud_csi')).toMatchObject({ installedVersion: '2.18.1', state: 'installed' });
  });

  it('removes the HelmChart, credentials Secret and status of an add-on no longer declared', async () => {
    const { record, project } = recordOf(HCLOUD);
    await run(record, project);
    cluster.startController();
    cluster.reconcile();
    await run(record, project);
    const { record: changed } = recordOf('        - name: metrics_server', record);
    cluster.reconcile();
    const result = await run(changed, project);
    expect(helmChart('hcloud-csi')).toBeUndefined();
    expect(cluster.secrets.has('kube-system/hcloud-csi-token')).toBe(false);
    expect(events).toContainEqual({ type: 'resource-deleted', kind: 'helm-chart', name: 'hcloud-csi' });
    expect(result.kind).toBe('wait'); // metrics-server is new
    cluster.reconcile();
    expect((await run(changed, project)).kind).toBe('next');
    expect(changed.status.addons?.map((a) => a.name)).toEqual(['cilium', 'metrics_server']);
  });

  it("fails with helm's message when the chart version is not published", async () => {
    const { record, project } = recordOf(`${HCLOUD}\n          version: "9.9.9"`);
    await run(record, project);
    cluster.startController();
    cluster.reconcile();
    const result = await run(record, project);
    expect(result.kind).toBe('failed');
    expect(result.kind === 'failed' && result.error.message).toContain(
      'add-on hcloud_csi (hcloud-csi 9.9.9) failed: chart "hcloud-csi" version "9.9.9" not found in https://charts.hetzner.cloud repository',
    );
    expect(record.status.addons?.find((a) => a.name === 'hcloud_csi')).toMatchObject({ state: 'failed' });
  });

  it("does not take the failure of a version since corrected for the corrected one's", async () => {
    const { record, project } = recordOf(`${HCLOUD}\n          version: "9.9.9"`);
    await run(record, project);
    cluster.startController();
    cluster.reconcile();
    expect((await run(record, project)).kind).toBe('failed');
    const { record: fixed } = recordOf(`${HCLOUD}\n          version: "2.18.1"`, record);
    const first = await run(fixed, project);
    expect(first.kind).toBe('wait');
    expect(fixed.status.addons?.find((a) => a.name === 'hcloud_csi')).toMatchObject({ state: 'installing', declaredVersion: '2.18.1' });
    cluster.reconcile();
    expect((await run(fixed, project)).kind).toBe('next');
  });

  it('waits while the API server does not serve HelmCharts yet (a CRD just applied is not established at once)', async () => {
    const { record, project } = recordOf(HCLOUD);
    const apply = cluster.applyObject.bind(cluster);
    let established = false;
    cluster.applyObject = async (o) => {
      if (o.kind === 'HelmChart' && !established)
        throw new KubeplaneError('retryable', 'the API server does not serve HelmChart (helm.cattle.io/v1) yet', { code: 'KindNotServed' });
      return apply(o);
    };
    expect(await run(record, project)).toMatchObject({ kind: 'wait', seconds: 5 });
    established = true;
    expect((await run(record, project)).kind).toBe('wait');
    expect(helmChart('hcloud-csi')).toBeDefined();
  });

  it("points the cluster's autoscaler at an adapter outside the cluster over mutual TLS, and runs none in it", async () => {
    const inCluster = recordOf('        - name: cluster_autoscaler');
    await run(inCluster.record, inCluster.project);
    const adapterKey = cluster.key('apps/v1', 'Deployment', 'kube-system', 'kubeplane-autoscaler-adapter');
    expect(cluster.objects.has(adapterKey)).toBe(true);
    const remote = recordOf('        - { name: cluster_autoscaler, config: { adapterAddress: "203.0.113.20:8443" } }', inCluster.record);
    await run(remote.record, remote.project);
    expect(cluster.objects.has(adapterKey)).toBe(false);
    const secret = cluster.secrets.get('kube-system/kubeplane-autoscaler-cloud-config') ?? {};
    expect(Object.keys(secret).sort()).toEqual(['ca.crt', 'cloud-config', 'tls.crt', 'tls.key']);
    expect(readAutoscalerCloudConfig(secret['cloud-config']?.reveal() ?? '')).toEqual({
      address: '203.0.113.20:8443',
      cert: '/etc/kubeplane-autoscaler/tls.crt',
      key: '/etc/kubeplane-autoscaler/tls.key',
      cacert: '/etc/kubeplane-autoscaler/ca.crt',
    });
    // A client certificate (clientAuth) from the CA beside it; the CA's key stays in the SecretStore.
    const client = new X509Certificate(secret['tls.crt']?.reveal() ?? '');
    expect(client.checkIssued(new X509Certificate(secret['ca.crt']?.reveal() ?? ''))).toBe(true);
    expect(client.subject).toBe('CN=cluster-autoscaler');
    expect(JSON.stringify([...cluster.objects.values()])).not.toContain('PRIVATE KEY');
  });

  it('keeps the credentials out of the record, the events and the HelmChart', async () => {
    const { record, project } = recordOf(HCLOUD);
    await run(record, project);
    cluster.startController();
    cluster.reconcile();
    await run(record, project);
    expect(cluster.secrets.get('kube-system/hcloud-csi-token')?.['token']?.reveal()).toBe(TOKEN);
    const texts = [JSON.stringify(record), inspect(record, { depth: 12 }), JSON.stringify(events), JSON.stringify([...cluster.objects.values()])];
    for (const t of texts) {
      expect(t).not.toContain(TOKEN);
      expect(t).not.toContain(Buffer.from(TOKEN).toString('base64'));
    }
  });

  it("merges the user's values over kubeplane's and uses a provider's credentials only when told to", async () => {
    const { record, project } = recordOf(`        - name: hcloud_csi
          secretRef: { fromProvider: hetzner-1 }
          values:
            storageClasses: [{ name: fast, defaultStorageClass: true }]
            node: { priorityClassName: system-node-critical }`);
    await run(record, project);
    expect(resolved).toEqual(['add-on hcloud_csi (credentials of provider hetzner-1): {"env":{"credentials":"HCLOUD_TOKEN"}}']);
    const values = parseYaml((helmChart('hcloud-csi')?.['spec'] as { valuesContent: string }).valuesContent) as Record<string, Record<string, unknown>>;
    expect(values['storageClasses']).toEqual([{ name: 'fast', defaultStorageClass: true }]);
    expect(values['node']?.['priorityClassName']).toBe('system-node-critical');
    expect(values['node']?.['affinity']).toEqual({
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubeplane.dev/provider', operator: 'In', values: ['hetzner'] }] }],
        },
      },
    });
  });

  it("emits an add-on event only when an add-on's state changes", async () => {
    const { record, project } = recordOf(HCLOUD);
    await run(record, project);
    const first = events.filter((e) => e.type === 'addon').length;
    await run(record, project);
    expect(events.filter((e) => e.type === 'addon').length).toBe(first);
  });

  it("on a CMK cluster installs only the add-ons the service did not install at creation, with the cmk Secret's keys for Crusoe's", async () => {
    const text = fixture('cmk.yaml', { version: '1.33.4-cmk.20', addons: '        - name: nvidia_gpu_operator\n        - name: crusoe_csi' });
    const result = validateManifestText(text);
    const manifest = result.manifests[0]!;
    const spec = buildDesiredState(manifest).clusters[0]!;
    const { record: base } = recordOf(HCLOUD);
    const record: ClusterRecord = {
      ...base,
      clusterId: spec.id,
      name: 'lab',
      desired: spec,
      lastManifest: manifest,
      ledger: {
        ...emptyLedger(),
        managed: { provider: 'crusoe-1', region: 'us-east1-a', name: 'lab-cmk', id: 'c-1', pools: {}, addonsAtCreation: ['nvidia_gpu_operator'] },
      },
    };
    const project: ProjectRecord = { v: RECORD_VERSION, project: 'lab', generation: 1, manifest, clusters: { lab: spec.id }, updatedAt: 0 };
    cluster.published = { 'crusoe-csi-driver': ['0.10.3'] };
    await cluster.applySecret('crusoe-system', 'cmk-lab-cmk', { CRUSOE_ACCESS_KEY: Redacted.of('cmk-access'), CRUSOE_SECRET_KEY: Redacted.of('cmk-secret') });
    const provider = async () => ({ managedKubernetes: {} }) as unknown as Provider;
    await run(record, project, provider);
    expect([...cluster.objects.values()].filter((o) => o.kind === 'HelmChart').map((o) => o.metadata.name)).toEqual(['crusoe-csi-driver']);
    const keys = cluster.secrets.get('kube-system/crusoe-api-keys');
    expect(Object.fromEntries(Object.entries(keys ?? {}).map(([k, v]) => [k, v.reveal()]))).toEqual({
      CRUSOE_ACCESS_KEY: 'cmk-access',
      CRUSOE_SECRET_KEY: 'cmk-secret',
    });
    expect(resolved).toEqual([]);
    cluster.startController();
    cluster.reconcile();
    // CMK's own release of the GPU operator, as it installed it at creation.
    cluster.release('nvidia-gpu-operator', 'crusoe-system', { chart: 'gpu-operator', version: 'v25.3.1', valuesContent: '{}' });
    expect((await run(record, project, provider)).kind).toBe('next');
    expect(record.status.addons?.map((a) => `${a.name} ${a.installedVersion} ${a.state}`)).toEqual([
      'nvidia_gpu_operator v25.3.1 installed',
      'crusoe_csi 0.10.3 installed',
    ]);
    expect(record.status.addons?.[0]?.message).toContain('installed by the managed service at creation (release crusoe-system/nvidia-gpu-operator, deployed)');
  });
});
