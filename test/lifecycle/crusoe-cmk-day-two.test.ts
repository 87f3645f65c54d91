// Day two on a Crusoe Managed Kubernetes cluster (issue 40, item 7), through the engine on the sandbox clouds: the
// cluster in an existing subnet (never deleted), add-ons added after creation (the autoscaler included) alongside
// CMK's own, CMK's CSI release upgraded through the manifest's version within the seed's rules, CMK's scoped token
// left as CMK wrote it, and a control-plane version Crusoe support upgraded recorded by writing it into the manifest.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeRelease } from '@kubeplane/sdk/internal';
import type { KubernetesApi } from '@kubeplane/sdk';
import { sandboxKubernetes } from '@kubeplane/sandbox';
import { manifestOf, sandboxWorld, type World } from '../helpers/sandbox-world.js';

const SUBNET = 'default-subnet-us-east1-a';

const manifest = (o: { version?: string; addons: string }) => `
apiVersion: kubeplane.dev/v1
kind: Manifest
metadata: { name: lab }
providers:
  - { name: crusoe-1, providerType: crusoe, secretRef: { env: { accesskey: CRUSOE_ACCESS_KEY_ID, secretkey: CRUSOE_SECRET_KEY, project: CRUSOE_PROJECT_ID } } }
nodePools:
  dynamic:
    - name: cpu
      providerSpec: { name: crusoe-1, region: us-east1-a, subnet: ${SUBNET} }
      autoscaler: { min: 1, max: 3 }
      serverType: c1a.16x
      image: 1.30.8-cmk.12
kubernetes:
  clusters:
    - name: lab
      version: "${o.version ?? '1.30.8-cmk.12'}"
      network: 10.200.0.0/24
      controlPlane: managed
      pools: { compute: [cpu] }
      addons:
${o.addons}
`;

const CSI = '        - name: crusoe_csi';
const LATER = `${CSI}\n        - name: cluster_autoscaler\n        - name: metrics_server`;
const csiAt = (version: string, extra = '') =>
  `        - { name: crusoe_csi, version: "${version}"${extra} }\n        - name: cluster_autoscaler\n        - name: metrics_server`;

let w: World;
let clusterId = '';

beforeAll(() => {
  w = sandboxWorld(23);
});
afterAll(() => w.sandbox.close());

async function applyAndRun(text: string): Promise<void> {
  await w.kp.apply(manifestOf(text));
  await w.kp.run();
  const status = await w.kp.status('lab');
  expect(status.state, JSON.stringify(status.clusters, null, 1)).toBe('DONE');
  clusterId = status.clusters['lab']?.id ?? '';
}

async function cluster(): Promise<KubernetesApi> {
  return sandboxKubernetes(w.sandbox)(await w.kp.kubeconfig('lab', 'lab'));
}

const addonStates = async () => ((await w.kp.status('lab')).clusters['lab']?.addons ?? []).map((a) => [a.name, a.state, a.installedVersion]);

/** CMK's CSI release, newest revision first: chart version and the values it runs with. */
async function csiRevisions(): Promise<Array<{ revision: number; version: string; values: unknown }>> {
  const secrets = await (await cluster()).listObjects('v1', 'Secret', 'crusoe-system', 'owner=helm,name=crusoe-csi-driver');
  return secrets
    .map(decodeRelease)
    .flatMap((r) => (r ? [{ revision: r.version, version: r.chart?.metadata?.version ?? '', values: r.config }] : []))
    .sort((a, b) => b.revision - a.revision);
}

describe('a CMK cluster on day two', () => {
  it('is created in the existing subnet the manifest names, without a VPC of its own', async () => {
    await applyAndRun(manifest({ addons: CSI }));
    const subnet = w.sandbox.crusoe.subnets.find((s) => s.name === SUBNET);
    const c = [...w.sandbox.crusoe.clusters.values()].find((x) => x.name === clusterId);
    expect(c?.subnetId).toBe(subnet?.id);
    expect([...w.sandbox.crusoe.pools.values()].map((p) => p.subnetId)).toEqual([subnet?.id]);
    expect([...w.sandbox.crusoe.networks.values()].filter((n) => n.name.startsWith(clusterId))).toEqual([]);
    // The intra-VPC rules CMK asks for on a non-default VPC are kubeplane's, in the subnet's VPC, named after the cluster.
    const rules = [...w.sandbox.crusoe.firewallRules.values()].filter((r) => r.name.startsWith(`${clusterId}-`) && r.networkId === subnet?.networkId);
    expect(rules.map((r) => r.name.slice(clusterId.length + 1)).sort()).toContain('us-east1-a-intra-vpc');
  });

  it("shows CMK's CSI driver as installed, at the chart CMK's 1.30 build comes with", async () => {
    expect(await addonStates()).toEqual([['crusoe_csi', 'installed', '0.6.2']]);
  });

  it("installs add-ons added after creation, the autoscaler as Crusoe's own, and leaves CMK's token alone", async () => {
    await applyAndRun(manifest({ addons: LATER }));
    expect(await addonStates()).toEqual([
      ['crusoe_csi', 'installed', '0.6.2'],
      ['cluster_autoscaler', 'installed', '9.50.1'],
      ['metrics_server', 'installed', '3.13.0'],
    ]);
    const k8s = await cluster();
    const deployment = await k8s.getObject('apps/v1', 'Deployment', 'crusoe-system', 'cluster-autoscaler');
    expect(deployment).not.toBeNull();
    const chart = await k8s.getObject('helm.cattle.io/v1', 'HelmChart', 'kube-system', 'cluster-autoscaler');
    const values = String((chart?.['spec'] as { valuesContent?: string }).valuesContent);
    expect(values).toContain('cloudProvider: crusoecloud');
    expect(values).toMatch(/autoscalingGroups:\n\s+- maxSize: 3\n\s+minSize: 1\n\s+name: cpu/);
    // Its keys: a Secret of its own with a copy of CMK's scoped token, and the cluster it scales.
    const own = await k8s.getSecret('crusoe-system', 'kubeplane-crusoe-autoscaler');
    expect(own?.['CRUSOE_ACCESS_KEY']?.reveal()).toBe('cmk-managed-token');
    expect(own?.['CRUSOE_CLUSTER_ID']?.reveal()).toBe([...w.sandbox.crusoe.clusters.values()].find((x) => x.name === clusterId)?.id);
    expect(own?.['CRUSOE_PROJECT_ID']?.reveal()).toBeTruthy();
    const cmk = await k8s.getSecret('crusoe-system', `cmk-${clusterId}`);
    expect([cmk?.['CRUSOE_ACCESS_KEY']?.reveal(), cmk?.['CRUSOE_SECRET_KEY']?.reveal()]).toEqual(['cmk-managed-token', 'cmk-managed-token']);
  });

  it("refuses to take CMK's CSI from before 0.7.0 straight past it, before touching anything", async () => {
    const calls = w.sandbox.totalCalls();
    await expect(w.kp.apply(manifestOf(manifest({ addons: csiAt('0.10.3') })))).rejects.toThrow(
      /crusoe-csi-driver 0\.6\.2, from before 0\.7\.0.*Set version: "0\.7\.0" and apply, then version: "0\.10\.3"/,
    );
    const nfsWithoutVersion = `${CSI.replace('- name: crusoe_csi', '- { name: crusoe_csi, config: { nfs: true } }')}\n        - name: cluster_autoscaler\n        - name: metrics_server`;
    await expect(w.kp.apply(manifestOf(manifest({ addons: nfsWithoutVersion })))).rejects.toThrow(/NFS mode needs chart 0\.10\.3 or later/);
    expect(w.sandbox.totalCalls()).toBe(calls);
  });

  it("upgrades CMK's CSI release through the manifest's version, to 0.7.0 and then to 0.10.3 for NFS, keeping CMK's Secret", async () => {
    await applyAndRun(manifest({ addons: csiAt('0.7.0') }));
    expect((await csiRevisions())[0]).toMatchObject({ revision: 2, version: '0.7.0' });
    await applyAndRun(manifest({ addons: csiAt('0.10.3', ', config: { nfs: true }') }));
    const [latest] = await csiRevisions();
    expect(latest).toMatchObject({ revision: 3, version: '0.10.3' });
    expect(latest?.values).toEqual({
      crusoe: { secrets: { crusoeApiKeys: { secretName: `cmk-${clusterId}`, accessKeyPath: 'CRUSOE_ACCESS_KEY', secretKeyPath: 'CRUSOE_SECRET_KEY' } } },
    });
    expect((await addonStates()).find((a) => a[0] === 'crusoe_csi')).toEqual(['crusoe_csi', 'installed', '0.10.3']);
  });

  it('refuses a control-plane version Crusoe has not upgraded the cluster to, and records one that support did', async () => {
    const addons = csiAt('0.10.3', ', config: { nfs: true }');
    await w.kp.apply(manifestOf(manifest({ version: '1.31.7-cmk.9', addons })));
    await w.kp.run();
    const refused = (await w.kp.status('lab')).clusters['lab'];
    expect(refused?.state).toBe('ERROR');
    expect(refused?.message).toMatch(/runs 1\.30\.8-cmk\.12, the manifest asks for 1\.31\.7-cmk\.9: CMK has no in-place upgrade/);

    w.sandbox.crusoe.supportUpgrade(clusterId, '1.31.7-cmk.9');
    await applyAndRun(manifest({ version: '1.31.7-cmk.9', addons }));
    const record = await w.kp.findStatus('lab');
    expect(record?.clusters['lab']?.state).toBe('DONE');
    expect([...w.sandbox.crusoe.clusters.values()].find((x) => x.name === clusterId)?.version).toBe('1.31.7-cmk.9');
    // Once recorded, the older version is refused at apply.
    await expect(w.kp.apply(manifestOf(manifest({ addons })))).rejects.toThrow(/cannot be downgraded \(1\.31\.7-cmk\.9 -> 1\.30\.8-cmk\.12\)/);
  });

  it('is destroyed: its rules go, the existing subnet and its VPC stay', async () => {
    await w.kp.destroy('lab');
    await w.kp.run();
    expect(await w.kp.findStatus('lab')).toBeNull();
    expect(w.sandbox.inventory()).toEqual([]);
    const subnet = w.sandbox.crusoe.subnets.find((s) => s.name === SUBNET);
    expect(subnet).toBeDefined();
    expect(w.sandbox.crusoe.networks.get(subnet?.networkId ?? '')).toBeDefined();
    expect([...w.sandbox.crusoe.firewallRules.values()].filter((r) => r.name.startsWith(`${clusterId}-`))).toEqual([]);
  });
});
