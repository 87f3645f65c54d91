// kubectl against a served cluster for what kubeplane's add-ons need: a CRD applied and listed, HelmCharts with the
// CRD's printer columns, the simulated helm-controller installing a chart, StorageClasses with the default marked,
// and a claim bound by the class the chart installed.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useKubectlWorld } from './test-support/kubectl-world.js';
import type { ToolRun } from './test-support/tools.js';

const served = useKubectlWorld('examples/hybrid-aws-hetzner.yaml', 'hybrid');
const kubectl = (...args: string[]) => served.kubectl(...args);

async function apply(name: string, text: string): Promise<ToolRun> {
  const file = join(served.world.dir, name);
  await writeFile(file, text);
  return kubectl('apply', '-f', file);
}

/** Polls `kubectl args` until its stdout satisfies `done` (the served world's clock runs 10x). */
async function until(args: string[], done: (out: string) => boolean, timeoutMs = 60_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let out = '';
  while (Date.now() < deadline) {
    out = (await kubectl(...args)).stdout;
    if (done(out)) return out;
    await new Promise((r) => setTimeout(r, 1000));
  }
  throw new Error(`kubectl ${args.join(' ')} never got there; last output:\n${out}`);
}

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: helmcharts.helm.cattle.io
spec:
  group: helm.cattle.io
  names: {kind: HelmChart, listKind: HelmChartList, plural: helmcharts, singular: helmchart}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    additionalPrinterColumns:
    - {jsonPath: .spec.chart, name: Chart, type: string}
    - {jsonPath: .spec.version, name: Version, type: string}
    - {jsonPath: ".status.conditions[?(@.type=='Failed')].status", name: Failed, type: string}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              repo: {type: string}
              chart: {type: string}
              version: {type: string}
              targetNamespace: {type: string}
              createNamespace: {type: boolean}
              valuesContent: {type: string}
          status:
            type: object
            x-kubernetes-preserve-unknown-fields: true
`;

const CONTROLLER = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: helm-controller
  namespace: kube-system
spec:
  replicas: 1
  selector:
    matchLabels: {app: helm-controller}
  template:
    metadata:
      labels: {app: helm-controller}
    spec:
      containers:
      - name: helm-controller
        image: rancher/helm-controller:v0.16.13
      tolerations:
      - {key: node-role.kubernetes.io/control-plane, operator: Exists, effect: NoSchedule}
`;

const LONGHORN = `apiVersion: helm.cattle.io/v1
kind: HelmChart
metadata:
  name: longhorn
  namespace: kube-system
  labels: {app.kubernetes.io/managed-by: kubeplane, kubeplane.dev/addon: longhorn}
spec:
  repo: https://charts.longhorn.io
  chart: longhorn
  version: 1.9.1
  targetNamespace: longhorn-system
  createNamespace: true
  valuesContent: |
    persistence:
      defaultClass: true
`;

const CLAIM = `apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: data
  namespace: default
spec:
  accessModes: [ReadWriteOnce]
  resources:
    requests: {storage: 1Gi}
`;

describe('kubectl and the add-on mechanism', () => {
  it('applies and lists a CRD, and its custom resources with the CRD\'s columns', async () => {
    const crd = await apply('crd.yaml', CRD);
    expect(crd.stderr).toBe('');
    expect(crd.stdout).toContain('customresourcedefinition.apiextensions.k8s.io/helmcharts.helm.cattle.io created');
    const crds = await kubectl('get', 'crd');
    expect(crds.stdout).toMatch(/^NAME\s+CREATED AT\n/);
    expect(crds.stdout).toContain('helmcharts.helm.cattle.io');
    expect((await kubectl('get', 'crd', 'helmcharts.helm.cattle.io', '-o', 'jsonpath={.status.conditions[?(@.type=="Established")].status}')).stdout).toBe('True');
    const chart = await apply('longhorn.yaml', LONGHORN);
    expect(chart.stderr).toBe('');
    expect(chart.stdout).toContain('helmchart.helm.cattle.io/longhorn created');
    const charts = await kubectl('get', 'helmcharts', '-A');
    // Name, then exactly the columns the CRD lists (no Age: it lists none).
    expect(charts.stdout).toMatch(/^NAMESPACE\s+NAME\s+CHART\s+VERSION\s+FAILED\n/);
    expect(charts.stdout).toMatch(/kube-system\s+longhorn\s+longhorn\s+1\.9\.1/);
  });

  it('installs the chart once the helm-controller runs: a default StorageClass, and a claim that binds with it', async () => {
    expect((await apply('controller.yaml', CONTROLLER)).code).toBe(0);
    await until(['get', 'helmchart', 'longhorn', '-n', 'kube-system', '-o', 'jsonpath={.status.jobName}'], (o) => o === 'helm-install-longhorn');
    const classes = await until(['get', 'storageclass'], (o) => o.includes('longhorn (default)'));
    expect(classes).toMatch(/^NAME\s+PROVISIONER\s+RECLAIMPOLICY\s+VOLUMEBINDINGMODE\s+ALLOWVOLUMEEXPANSION\s+AGE\n/);
    expect(classes).toMatch(/longhorn \(default\)\s+driver\.longhorn\.io\s+Delete\s+Immediate\s+true/);
    expect((await kubectl('get', 'secrets', '-n', 'longhorn-system', '-l', 'owner=helm', '-o', 'jsonpath={.items[*].metadata.name}')).stdout).toBe('sh.helm.release.v1.longhorn.v1');
    expect((await apply('claim.yaml', CLAIM)).code).toBe(0);
    const claims = await until(['get', 'pvc'], (o) => /data\s+Bound/.test(o));
    expect(claims).toMatch(/^NAME\s+STATUS\s+VOLUME\s+CAPACITY\s+ACCESS MODES\s+STORAGECLASS\s+VOLUMEATTRIBUTESCLASS\s+AGE\n/);
    expect(claims).toMatch(/data\s+Bound\s+pvc-[0-9a-f-]+\s+1Gi\s+RWO\s+longhorn\s+<unset>/);
  });
});
