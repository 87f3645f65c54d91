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

const WIDGET_CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, listKind: WidgetList, plural: widgets, singular: widget}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    additionalPrinterColumns:
    - {jsonPath: .spec.size, name: Size, type: integer}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer}
`;

const WIDGET = `apiVersion: example.com/v1
kind: Widget
metadata:
  name: small
  namespace: default
spec:
  size: 3
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
  it("lists the HelmChart CRD kubeplane installed, established, and the charts with its columns; a CRD of the user's is served", async () => {
    expect((await kubectl('get', 'crd', 'helmcharts.helm.cattle.io', '-o', 'jsonpath={.status.conditions[?(@.type=="Established")].status}')).stdout).toBe(
      'True',
    );
    const charts = await kubectl('get', 'helmcharts', '-A');
    // Name, then exactly the columns the CRD lists (helm-controller's: no Age; Job has priority 10, shown with -o wide).
    expect(charts.stdout).toMatch(/^NAMESPACE\s+NAME\s+REPO\s+CHART\s+VERSION\s+TARGETNAMESPACE\s+BOOTSTRAP\s+FAILED\n/);
    expect(charts.stdout).toMatch(/kube-system\s+cilium\s+https:\/\/helm\.cilium\.io\s+cilium\s+1\.18\.5\s+kube-system/);
    const crd = await apply('widget-crd.yaml', WIDGET_CRD);
    expect(crd.stderr).toBe('');
    expect(crd.stdout).toContain('customresourcedefinition.apiextensions.k8s.io/widgets.example.com created');
    expect((await kubectl('get', 'crd')).stdout).toMatch(/^NAME\s+CREATED AT\n/);
    const widget = await apply('widget.yaml', WIDGET);
    expect(widget.stderr).toBe('');
    expect(widget.stdout).toContain('widget.example.com/small created');
    expect((await kubectl('get', 'widgets')).stdout).toMatch(/^NAME\s+SIZE\nsmall\s+3\n?$/);
  });

  it('installs a chart applied with kubectl through the running helm-controller: a default StorageClass, and a claim that binds with it', async () => {
    expect((await apply('longhorn.yaml', LONGHORN)).code).toBe(0);
    await until(['get', 'helmchart', 'longhorn', '-n', 'kube-system', '-o', 'jsonpath={.status.jobName}'], (o) => o === 'helm-install-longhorn');
    const classes = await until(['get', 'storageclass'], (o) => o.includes('longhorn (default)'));
    expect(classes).toMatch(/^NAME\s+PROVISIONER\s+RECLAIMPOLICY\s+VOLUMEBINDINGMODE\s+ALLOWVOLUMEEXPANSION\s+AGE\n/);
    expect(classes).toMatch(/longhorn \(default\)\s+driver\.longhorn\.io\s+Delete\s+Immediate\s+true/);
    expect((await kubectl('get', 'secrets', '-n', 'longhorn-system', '-l', 'owner=helm', '-o', 'jsonpath={.items[*].metadata.name}')).stdout).toBe(
      'sh.helm.release.v1.longhorn.v1',
    );
    expect((await apply('claim.yaml', CLAIM)).code).toBe(0);
    const claims = await until(['get', 'pvc'], (o) => /data\s+Bound/.test(o));
    expect(claims).toMatch(/^NAME\s+STATUS\s+VOLUME\s+CAPACITY\s+ACCESS MODES\s+STORAGECLASS\s+VOLUMEATTRIBUTESCLASS\s+AGE\n/);
    expect(claims).toMatch(/data\s+Bound\s+pvc-[0-9a-f-]+\s+1Gi\s+RWO\s+longhorn\s+<unset>/);
  });
});
