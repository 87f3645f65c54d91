// The add-on rules as a user meets them: wrong types of the values kubeplane understands, credentials that must be
// named, clouds the cluster does not use, GPU and InfiniBand add-ons without pools to serve, NFS on an old chart,
// each reported at its manifest path and line.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { validateManifestText } from './validate.js';

const AWS_PROVIDER = `  - name: aws-1
    providerType: aws
    secretRef: { env: { accesskey: AWS_ACCESS_KEY_ID, secretkey: AWS_SECRET_ACCESS_KEY } }
`;
/** test/fixtures/addons/hetzner.yaml with an AWS provider beside Hetzner's; the first add-on is on line 22. */
const manifest = (addons: string, workerSpec = '') =>
  readFileSync(new URL('../../../../test/fixtures/addons/hetzner.yaml', import.meta.url), 'utf8').replace(
    /\$\{(\w+)\}/g,
    (_, k: string) => ({ project: 'demo', hetznerSecretRef: '{ env: { credentials: HCLOUD_TOKEN } }', providers: AWS_PROVIDER, workerSpec, addons })[k] ?? '',
  );

function issues(text: string) {
  return validateManifestText(text, { file: 'demo.yaml' }).issues.map((i) => ({ severity: i.severity, path: i.path, line: i.line, message: i.message }));
}

describe('add-on rules', () => {
  it('accepts add-ons with their own credentials, a version and values of the right types', () => {
    expect(
      issues(
        manifest(`        - name: hcloud_csi
          version: "2.18.1"
          secretRef: { env: { credentials: CSI_TOKEN } }
          values: { storageClasses: [{ name: fast, defaultStorageClass: true }], somethingElse: { passes: through } }
        - name: metrics_server
        - name: longhorn
          values: { persistence: { defaultClass: false } }`),
      ),
    ).toEqual([]);
  });

  it('reports a wrong type of a known value at its path and line', () => {
    const found = issues(
      manifest(`        - name: longhorn
          values:
            persistence:
              defaultClass: "yes"`),
    );
    expect(found).toEqual([
      { severity: 'error', path: 'kubernetes.clusters[0].addons[0].values.persistence.defaultClass', line: 25, message: expect.stringContaining('boolean') },
    ]);
  });

  it("refuses a CSI driver without its own credential, and a provider's credentials unless named with fromProvider", () => {
    const found = issues(manifest('        - name: hcloud_csi'));
    expect(found).toEqual([
      { severity: 'error', path: 'kubernetes.clusters[0].addons[0]', line: 22, message: expect.stringContaining('needs its own hetzner credential') },
    ]);
    expect(issues(manifest('        - { name: hcloud_csi, secretRef: { fromProvider: hetzner-1 } }'))).toEqual([]);
  });

  it('refuses fromProvider naming a provider of another cloud or none', () => {
    expect(issues(manifest('        - { name: hcloud_csi, secretRef: { fromProvider: aws-1 } }'))).toEqual([
      {
        severity: 'error',
        path: 'kubernetes.clusters[0].addons[0].secretRef.fromProvider',
        line: 22,
        message: 'provider "aws-1" is of type aws; hcloud_csi needs hetzner credentials',
      },
    ]);
    expect(issues(manifest('        - { name: hcloud_csi, secretRef: { fromProvider: nobody } }')).map((i) => i.message)).toEqual([
      'provider "nobody" is not defined in providers[]',
    ]);
  });

  it("checks an add-on's own secretRef against its cloud's credential keys", () => {
    expect(issues(manifest('        - { name: hcloud_csi, secretRef: { env: { token: CSI_TOKEN } } }')).map((i) => i.path)).toEqual([
      'kubernetes.clusters[0].addons[0].secretRef.env.token',
    ]);
  });

  it('refuses the CSI driver of a cloud the cluster has no pool on', () => {
    expect(issues(manifest('        - { name: aws_ebs_csi, secretRef: { fromProvider: aws-1 } }'))).toEqual([
      {
        severity: 'error',
        path: 'kubernetes.clusters[0].addons[0].name',
        line: 22,
        message: 'aws_ebs_csi is the CSI driver of aws, and this cluster has no aws pool; it would run nowhere',
      },
    ]);
  });

  it('warns about the GPU operator without a GPU pool, and the network operator without an InfiniBand pool', () => {
    expect(issues(manifest('        - name: nvidia_gpu_operator\n        - name: nvidia_network_operator')).map((i) => [i.severity, i.path])).toEqual([
      ['warning', 'kubernetes.clusters[0].addons[0].name'],
      ['warning', 'kubernetes.clusters[0].addons[1].name'],
    ]);
  });

  it('accepts the GPU operator on a cluster with a GPU pool', () => {
    const text = manifest('        - name: nvidia_gpu_operator', ', machineSpec: { nvidiaGpuCount: 1 }');
    expect(issues(text)).toEqual([]);
  });

  it('refuses CSI NFS mode on a crusoe-csi-driver chart older than 0.10.3', () => {
    const text = `apiVersion: kubeplane.dev/v1
kind: Manifest
metadata: { name: demo }
providers:
  - { name: crusoe-1, providerType: crusoe, secretRef: { env: { accesskey: CRUSOE_ACCESS_KEY, secretkey: CRUSOE_SECRET_KEY } } }
nodePools:
  dynamic:
    - { name: control, providerSpec: { name: crusoe-1, region: us-east1-a }, count: 1, serverType: c1a.8x, image: ubuntu22.04 }
kubernetes:
  clusters:
    - name: demo
      version: "1.34.2"
      network: 10.0.0.0/24
      pools: { control: [control] }
      addons:
        - { name: crusoe_csi, version: "0.10.2", config: { nfs: true }, secretRef: { fromProvider: crusoe-1 } }
`;
    expect(issues(text).filter((i) => i.path.includes('.addons'))).toEqual([
      { severity: 'error', path: 'kubernetes.clusters[0].addons[0].version', line: 16, message: 'crusoe_csi NFS mode needs chart 0.10.3 or later, not 0.10.2' },
    ]);
  });

  it('refuses kubeplane settings for an add-on that has none, and a cluster autoscaler not on externalgrpc', () => {
    expect(issues(manifest('        - { name: metrics_server, config: { replicas: 2 } }')).map((i) => i.message)).toEqual([
      "metrics_server has no kubeplane settings; its chart's settings go in values",
    ]);
    expect(issues(manifest('        - { name: cluster_autoscaler, values: { cloudProvider: aws } }')).map((i) => [i.severity, i.message])).toEqual([
      ['error', 'cloudProvider must be externalgrpc: kubeplane scales its pools through its own adapter'],
      ['warning', expect.stringContaining('the cluster autoscaler needs a way to change pool sizes')],
    ]);
  });

  it('warns of a cluster autoscaler with no way to change pool sizes, and refuses two ways at once', () => {
    const both = issues(manifest('        - { name: cluster_autoscaler, config: { apiUrl: "https://api.example.com", adapterAddress: "198.51.100.7:8086" } }'));
    expect(both).toEqual([
      { severity: 'error', path: 'kubernetes.clusters[0].addons[0].config.adapterAddress', line: 22, message: expect.stringContaining('name one') },
    ]);
    expect(issues(manifest('        - { name: cluster_autoscaler, config: { adapterAddress: "198.51.100.7" } }')).map((i) => i.message)).toEqual([
      'config.adapterAddress must be host:port, where the cluster reaches the adapter',
    ]);
    expect(issues(manifest('        - { name: cluster_autoscaler, config: { adapterAddress: "198.51.100.7:8086" } }'))).toEqual([]);
    expect(issues(manifest('        - name: cluster_autoscaler'))).toEqual([
      { severity: 'warning', path: 'kubernetes.clusters[0].addons[0].config', line: 22, message: expect.stringContaining('config.adapterAddress (host:port') },
    ]);
  });

  it('warns of an autoscaled pool in a cluster without a cluster autoscaler, at the pool, saying how to add one', () => {
    const example = readFileSync(new URL('../../../../examples/autoscaled.yaml', import.meta.url), 'utf8');
    expect(issues(example).filter((i) => i.path.endsWith('.autoscaler'))).toEqual([]);
    const without = example.replace(/^ {6}addons:\n(?: {8}.*\n)+/m, '');
    expect(without).not.toEqual(example);
    const warned = issues(without).filter((i) => i.path.endsWith('.autoscaler'));
    expect(warned).toEqual([
      { severity: 'warning', path: 'nodePools.dynamic[1].autoscaler', line: 26, message: expect.stringContaining('made with 1 node and stays there') },
      { severity: 'warning', path: 'nodePools.dynamic[2].autoscaler', line: 36, message: expect.stringContaining('made with 0 nodes and stays there') },
    ]);
    expect(warned[0]?.message).toContain('add {name: cluster_autoscaler} to the addons of cluster "');
  });
});
