// The values kubeplane builds per add-on: Cilium as bootstrap installs it, CSI drivers pinned to their own cloud's
// nodes with topology-aware classes and exactly one default, the autoscaler on externalgrpc, user values on top.
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { WIREGUARD_MTU } from '../bootstrap/wireguard-mesh.js';
import { validateManifestText } from '../manifest/validate.js';
import { buildDesiredState } from '../model/desired-state.js';
import type { ClusterSpec } from '../model/types.js';
import { CATALOG, CHART_ADDON_IDS, compareChartVersions } from './catalog.js';
import { helmChartObject, helmControllerObjects } from './helm-controller.js';
import { addonValues, builtValues, defaultStorageAddon, mergeValues } from './values.js';

function specOf(addons: string, controlProvider = 'aws-1'): ClusterSpec {
  const text = `apiVersion: kubeplane.dev/v1
kind: Manifest
metadata: { name: demo }
providers:
  - { name: hetzner-1, providerType: hetzner, secretRef: { env: { credentials: HCLOUD_TOKEN } } }
  - { name: aws-1, providerType: aws, secretRef: { env: { accesskey: AWS_ACCESS_KEY_ID, secretkey: AWS_SECRET_ACCESS_KEY } } }
nodePools:
  dynamic:
    - { name: control, providerSpec: { name: ${controlProvider}, region: ${controlProvider === 'aws-1' ? 'eu-central-1, zone: eu-central-1a' : 'fsn1'} }, count: 1, serverType: ${controlProvider === 'aws-1' ? 't3.medium' : 'cpx22'}, image: ${controlProvider === 'aws-1' ? 'ami-0965bd5ba4d59211c' : 'ubuntu-24.04'} }
    - { name: aws-workers, providerSpec: { name: aws-1, region: eu-central-1, zone: eu-central-1b }, count: 1, serverType: t3.large, image: ami-0965bd5ba4d59211c }
    - { name: htz-workers, providerSpec: { name: hetzner-1, region: nbg1 }, count: 1, serverType: cpx32, image: ubuntu-24.04 }
    - { name: lb, providerSpec: { name: hetzner-1, region: nbg1 }, count: 1, serverType: cpx22, image: ubuntu-24.04 }
kubernetes:
  clusters:
    - name: demo
      version: "1.34.2"
      network: 10.0.0.0/24
      pools: { control: [control], compute: [aws-workers, htz-workers] }
      addons:
${addons}
loadBalancers:
  roles:
    - { name: api, protocol: tcp, port: 6443, targetPort: 6443, targetPools: [control] }
  clusters:
    - { name: api-lb, roles: [api], dns: { dnsZone: example.com, provider: hetzner-1, hostname: api }, targetedK8s: demo, pools: [lb] }
`;
  const r = validateManifestText(text);
  if (!r.ok || !r.manifests[0]) throw new Error(r.issues.map((i) => `${i.path}: ${i.message}`).join('\n'));
  return buildDesiredState(r.manifests[0]).clusters[0]!;
}

const BOTH_CSI = `        - { name: hcloud_csi, secretRef: { fromProvider: hetzner-1 } }
        - { name: aws_ebs_csi, secretRef: { fromProvider: aws-1 } }`;

type Values = Record<string, Record<string, unknown>>;
const affinityCloud = (v: unknown) =>
  (
    v as {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: Array<{ matchExpressions: Array<{ key: string; values: string[] }> }> };
      };
    }
  ).nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]?.matchExpressions[0];

describe('catalog values', () => {
  it('gives Cilium the settings the bootstrap installs it with, the overlay MTU included', () => {
    const spec = specOf('        - name: metrics_server');
    expect(builtValues('cilium', { spec, apiServer: { host: 'api.example.com', port: 6443 } })).toEqual({
      kubeProxyReplacement: true,
      k8sServiceHost: 'api.example.com',
      k8sServicePort: 6443,
      ipam: { mode: 'kubernetes' },
      routingMode: 'tunnel',
      tunnelProtocol: 'vxlan',
      MTU: WIREGUARD_MTU,
    });
  });

  it("pins each cloud's CSI driver to that cloud's nodes, with a WaitForFirstConsumer class limited to its places", () => {
    const spec = specOf(BOTH_CSI);
    const hcloud = builtValues('hcloud_csi', { spec }) as Values;
    const ebs = builtValues('aws_ebs_csi', { spec }) as Values;
    expect(affinityCloud(hcloud['node']?.['affinity'])).toEqual({ key: 'kubeplane.dev/provider', operator: 'In', values: ['hetzner'] });
    expect(affinityCloud(hcloud['controller']?.['affinity'])?.values).toEqual(['hetzner']);
    expect(affinityCloud(ebs['node']?.['affinity'])?.values).toEqual(['aws']);
    expect(hcloud['storageClasses']).toEqual([
      expect.objectContaining({
        name: 'hcloud-volumes',
        volumeBindingMode: 'WaitForFirstConsumer',
        allowedTopologies: [{ matchLabelExpressions: [{ key: 'csi.hetzner.cloud/location', values: ['nbg1'] }] }],
      }),
    ]);
    expect(ebs['storageClasses']).toEqual([
      expect.objectContaining({
        name: 'ebs-gp3',
        volumeBindingMode: 'WaitForFirstConsumer',
        allowedTopologies: [{ matchLabelExpressions: [{ key: 'topology.kubernetes.io/zone', values: ['eu-central-1a', 'eu-central-1b'] }] }],
      }),
    ]);
  });

  it("makes exactly one class the default: the first control-plane pool's cloud's CSI, else Longhorn", () => {
    const onAws = specOf(`${BOTH_CSI}\n        - name: longhorn`);
    expect(defaultStorageAddon(onAws)).toBe('aws_ebs_csi');
    const defaults = (spec: ClusterSpec) => ({
      hcloud: ((builtValues('hcloud_csi', { spec }) as Values)['storageClasses'] as unknown as Array<{ defaultStorageClass: boolean }>)[0]?.defaultStorageClass,
      ebs: ((builtValues('aws_ebs_csi', { spec }) as Values)['storageClasses'] as unknown as Array<{ annotations?: Record<string, string> }>)[0]?.annotations?.[
        'storageclass.kubernetes.io/is-default-class'
      ],
      longhorn: (builtValues('longhorn', { spec }) as Values)['persistence']?.['defaultClass'],
    });
    expect(defaults(onAws)).toEqual({ hcloud: false, ebs: 'true', longhorn: false });
    const onHetzner = specOf(`${BOTH_CSI}\n        - name: longhorn`, 'hetzner-1');
    expect(defaults(onHetzner)).toEqual({ hcloud: true, ebs: undefined, longhorn: false });
    expect(defaultStorageAddon(specOf('        - name: longhorn'))).toBe('longhorn');
    expect(defaultStorageAddon(specOf('        - name: metrics_server'))).toBeUndefined();
  });

  it("runs the cluster autoscaler on externalgrpc, pointed at kubeplane's adapter Service", () => {
    const values = builtValues('cluster_autoscaler', { spec: specOf('        - name: cluster_autoscaler') }) as Values;
    expect(values['cloudProvider']).toBe('externalgrpc');
    // The expander the simulated autoscaler follows, and one that needs no prices.
    expect(values['extraArgs']).toEqual({ 'cloud-config': '/etc/kubeplane-autoscaler/cloud-config', expander: 'least-waste' });
  });

  it("points Crusoe's CSI driver at the Secret kubeplane writes, by the key paths the seed and charts since 0.7.0 use", () => {
    const spec = specOf('        - name: metrics_server');
    const credential = CATALOG.crusoe_csi.credential;
    expect(credential?.keys).toEqual({ accesskey: 'CRUSOE_ACCESS_KEY', secretkey: 'CRUSOE_SECRET_KEY' });
    expect(builtValues('crusoe_csi', { spec })).toMatchObject({
      crusoe: { secrets: { crusoeApiKeys: { secretName: 'crusoe-api-keys', accessKeyPath: 'CRUSOE_ACCESS_KEY', secretKeyPath: 'CRUSOE_SECRET_KEY' } } },
    });
  });

  it("has the GPU operator's toolkit set up the containerd runtime", () => {
    expect(builtValues('nvidia_gpu_operator', { spec: specOf('        - name: metrics_server') })).toMatchObject({
      toolkit: { enabled: true },
      operator: { defaultRuntime: 'containerd' },
    });
  });

  it("merges the user's values over kubeplane's: objects key by key, lists whole, the user winning", () => {
    expect(mergeValues({ a: { b: 1, c: [1, 2] }, d: 'x' }, { a: { c: [3] }, d: 'y', e: true })).toEqual({ a: { b: 1, c: [3] }, d: 'y', e: true });
    const spec = specOf('        - name: metrics_server\n          values: { args: [--v=2] }');
    const addon = spec.addons[0]!;
    expect(addonValues({ ...addon, name: 'metrics_server' }, { spec })).toEqual({ args: ['--v=2'] });
  });

  it("writes one HelmChart per add-on with the chart's coordinates and the values as YAML", () => {
    const chart = helmChartObject('longhorn', '1.9.2', { persistence: { defaultClass: true } });
    expect(chart).toMatchObject({
      apiVersion: 'helm.cattle.io/v1',
      kind: 'HelmChart',
      metadata: { name: 'longhorn', namespace: 'kube-system', labels: { 'app.kubernetes.io/managed-by': 'kubeplane', 'kubeplane.dev/addon': 'longhorn' } },
      spec: { repo: 'https://charts.longhorn.io', chart: 'longhorn', version: '1.9.2', targetNamespace: 'longhorn-system', createNamespace: true },
    });
    expect(parseYaml((chart['spec'] as { valuesContent: string }).valuesContent)).toEqual({ persistence: { defaultClass: true } });
  });

  it('installs the helm-controller with its CRDs first and its Deployment last, tolerating control planes', () => {
    const objects = helmControllerObjects();
    expect(objects.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual([
      'CustomResourceDefinition/helmcharts.helm.cattle.io',
      'CustomResourceDefinition/helmchartconfigs.helm.cattle.io',
      'ServiceAccount/helm-controller',
      'ClusterRoleBinding/helm-controller',
      'Deployment/helm-controller',
    ]);
    expect(JSON.stringify(objects.at(-1))).toContain('"JOB_CLUSTER_ROLE","value":"cluster-admin"');
    expect(JSON.stringify(objects.at(-1))).toContain('node-role.kubernetes.io/control-plane');
  });

  it('names the target namespaces of the contract and pins a version per chart', () => {
    expect(Object.fromEntries(CHART_ADDON_IDS.map((id) => [id, CATALOG[id].targetNamespace]))).toEqual({
      cilium: 'kube-system',
      hcloud_csi: 'kube-system',
      aws_ebs_csi: 'kube-system',
      crusoe_csi: 'kube-system',
      longhorn: 'longhorn-system',
      metrics_server: 'kube-system',
      nvidia_gpu_operator: 'gpu-operator',
      nvidia_network_operator: 'nvidia-network-operator',
      cluster_autoscaler: 'kube-system',
    });
    for (const id of CHART_ADDON_IDS) expect(CATALOG[id].version).toMatch(/^v?\d+\.\d+\.\d+$/);
    expect(compareChartVersions('v25.3.2', '25.3.10')).toBeLessThan(0);
    expect(compareChartVersions('0.10.3', '0.10.3')).toBe(0);
  });
});
