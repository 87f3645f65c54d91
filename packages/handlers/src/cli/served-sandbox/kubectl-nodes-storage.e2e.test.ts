// kubectl against the served sandbox (issue 14, "Done when"): every node of the hybrid and GPU-burst examples carries
// the providerID and the region, zone and instance-type labels its cloud's CCM would set — kubeplane sets them, no CCM
// runs — and the API server refuses to change a providerID. Then, once add-ons are installed for real (the
// helm-controller's HelmChart CRD is served), storage and GPUs: one default StorageClass, a PVC with Hetzner topology
// bound with its pod on a Hetzner node, and the GPU nodes reporting `nvidia.com/gpu`.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireTool, runTool, type ToolRun } from './test-support/tools.js';
import { ServedWorld } from './test-support/served-world.js';

let kubectlBin = '';

async function kubectl(world: ServedWorld, kubeconfig: string, args: string[]): Promise<ToolRun> {
  return runTool(kubectlBin, ['--kubeconfig', kubeconfig, ...args], { PATH: process.env.PATH ?? '', HOME: world.dir });
}

async function ok(world: ServedWorld, kubeconfig: string, args: string[]): Promise<string> {
  const run = await kubectl(world, kubeconfig, args);
  if (run.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${run.code}: ${run.stderr}`);
  return run.stdout;
}

interface NodeJson {
  metadata: { name: string; labels?: Record<string, string> };
  spec?: { providerID?: string };
  status?: { capacity?: Record<string, string>; allocatable?: Record<string, string> };
}

async function nodes(world: ServedWorld, kubeconfig: string): Promise<NodeJson[]> {
  return (JSON.parse(await ok(world, kubeconfig, ['get', 'nodes', '-o', 'json'])) as { items: NodeJson[] }).items;
}

/** What each cloud's CCM sets as spec.providerID (sdk/src/engine/steps/node-identity.ts cites them). */
const PROVIDER_ID: Record<string, RegExp> = {
  hetzner: /^hcloud:\/\/\d+$/,
  aws: /^aws:\/\/\/[a-z]{2}-[a-z]+-\d[a-z]\/i-[0-9a-f]+$/,
  crusoe: /^crusoe:\/\/[0-9a-f-]+$/,
};

describe('node identity, with kubectl', () => {
  let world: ServedWorld;
  const kubeconfigs: Record<string, string> = {};

  beforeAll(async () => {
    kubectlBin = await requireTool('kubectl', 'kubernetes-client');
    world = await ServedWorld.start({ manifests: ['examples/hybrid-aws-hetzner.yaml', 'examples/hybrid-hetzner-crusoe-gpu.yaml'] });
    for (const cluster of ['hybrid', 'burst']) kubeconfigs[cluster] = await world.kubeconfigFile(cluster);
  }, 300_000);

  afterAll(async () => {
    await world?.dispose();
  }, 60_000);

  it('every node has a providerID of its cloud and its region, zone and instance-type labels (kubectl get nodes -o json)', async () => {
    const seen: Record<string, number> = {};
    for (const cluster of ['hybrid', 'burst']) {
      const all = await nodes(world, kubeconfigs[cluster] ?? '');
      expect(all.length).toBeGreaterThan(0);
      for (const node of all) {
        const labels = node.metadata.labels ?? {};
        const provider = labels['kubeplane.dev/provider'] ?? '';
        seen[provider] = (seen[provider] ?? 0) + 1;
        expect(node.spec?.providerID ?? '', `${node.metadata.name} (${provider})`).toMatch(PROVIDER_ID[provider] ?? /^$never/);
        for (const key of ['topology.kubernetes.io/region', 'topology.kubernetes.io/zone', 'node.kubernetes.io/instance-type', 'kubeplane.dev/pool']) {
          expect(labels[key], `${node.metadata.name}: ${key}`).toMatch(/^[a-z0-9][a-z0-9.-]*$/);
        }
        if (provider === 'aws') expect(node.spec?.providerID).toContain(`/${labels['topology.kubernetes.io/zone'] ?? ''}/`);
      }
    }
    // hybrid: 3 AWS control planes, 2 AWS and 3 Hetzner workers; burst: 1 Hetzner control plane, 2 Crusoe GPU VMs.
    expect(seen).toEqual({ aws: 5, hetzner: 4, crusoe: 2 });
  });

  it('shows the topology as columns: kubectl get nodes -L', async () => {
    const table = await ok(world, kubeconfigs['burst'] ?? '', [
      'get',
      'nodes',
      '-L',
      'topology.kubernetes.io/region,topology.kubernetes.io/zone,node.kubernetes.io/instance-type',
    ]);
    const gpuRows = table.split('\n').filter((l) => l.includes('-gpu-'));
    expect(gpuRows).toHaveLength(2);
    for (const row of gpuRows) expect(row).toMatch(/us-east1-a\s+us-east1-a\s+h100-80gb-sxm-ib\.8x\s*$/);
    expect(table.split('\n').find((l) => l.includes('-control-'))).toMatch(/fsn1\s+fsn1-dc14\s+cpx32\s*$/);
  });

  it('refuses to change a set providerID, as the real API server does', async () => {
    const kubeconfig = kubeconfigs['hybrid'] ?? '';
    const node = (await nodes(world, kubeconfig)).find((n) => n.metadata.labels?.['kubeplane.dev/provider'] === 'hetzner');
    const run = await kubectl(world, kubeconfig, ['patch', 'node', node?.metadata.name ?? '', '-p', '{"spec":{"providerID":"hcloud://1"}}']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('spec.providerID: Forbidden: node updates may not change providerID except from "" to valid');
    const after = (await nodes(world, kubeconfig)).find((n) => n.metadata.name === node?.metadata.name);
    expect(after?.spec?.providerID).toBe(node?.spec?.providerID);
  });
});

/** The GPU-burst example declares its add-ons (hcloud CSI, Crusoe CSI, the NVIDIA operators): what kubectl sees of them. */
describe('storage and GPUs from add-ons, with kubectl', () => {
  let world: ServedWorld;
  let kubeconfig = '';

  beforeAll(async () => {
    kubectlBin = await requireTool('kubectl', 'kubernetes-client');
    world = await ServedWorld.start({ manifests: ['examples/hybrid-hetzner-crusoe-gpu.yaml'] });
    kubeconfig = await world.kubeconfigFile('burst');
    const crd = await ok(world, kubeconfig, [
      'get',
      'crd',
      'helmcharts.helm.cattle.io',
      '-o',
      'jsonpath={.status.conditions[?(@.type=="Established")].status}',
    ]);
    expect(crd.trim()).toBe('True');
  }, 600_000);

  afterAll(async () => {
    await world?.dispose();
  }, 60_000);

  const check = (name: string, body: (w: ServedWorld) => Promise<void>) => it(name, () => body(world), 240_000);

  check('kubectl get storageclass shows exactly one default, the Hetzner CSI class of the Hetzner control plane', async (w) => {
    const classes = (
      JSON.parse(await ok(w, kubeconfig, ['get', 'storageclass', '-o', 'json'])) as {
        items: Array<{ metadata: { name: string; annotations?: Record<string, string> }; provisioner: string }>;
      }
    ).items;
    const defaults = classes.filter((c) => c.metadata.annotations?.['storageclass.kubernetes.io/is-default-class'] === 'true');
    expect(defaults.map((c) => [c.metadata.name, c.provisioner])).toEqual([['hcloud-volumes', 'csi.hetzner.cloud']]);
    expect(await ok(w, kubeconfig, ['get', 'storageclass'])).toMatch(/hcloud-volumes \(default\)\s+csi\.hetzner\.cloud/);
  });

  check('a PVC of the Hetzner class binds when its pod is scheduled, and the pod lands on a Hetzner node', async (w) => {
    const manifest = join(w.dir, 'pvc-pod.json');
    await writeFile(
      manifest,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'List',
        items: [
          {
            apiVersion: 'v1',
            kind: 'PersistentVolumeClaim',
            metadata: { name: 'data', namespace: 'default' },
            spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'hcloud-volumes', resources: { requests: { storage: '10Gi' } } },
          },
          {
            apiVersion: 'v1',
            kind: 'Pod',
            metadata: { name: 'writer', namespace: 'default' },
            spec: {
              // The only Hetzner node of this cluster is its control plane.
              tolerations: [{ key: 'node-role.kubernetes.io/control-plane', operator: 'Exists', effect: 'NoSchedule' }],
              containers: [{ name: 'writer', image: 'busybox', volumeMounts: [{ name: 'data', mountPath: '/data' }] }],
              volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data' } }],
            },
          },
        ],
      }),
    );
    await ok(w, kubeconfig, ['apply', '--validate=false', '-f', manifest]);
    await ok(w, kubeconfig, ['wait', '--for=jsonpath={.status.phase}=Bound', 'pvc/data', '--timeout=120s']);
    await ok(w, kubeconfig, ['wait', '--for=condition=Ready', 'pod/writer', '--timeout=120s']);
    const nodeName = await ok(w, kubeconfig, ['get', 'pod', 'writer', '-o', 'jsonpath={.spec.nodeName}']);
    expect(await ok(w, kubeconfig, ['get', 'node', nodeName, '-o', 'jsonpath={.metadata.labels.kubeplane\\.dev/provider}'])).toBe('hetzner');
    const volume = await ok(w, kubeconfig, ['get', 'pvc', 'data', '-o', 'jsonpath={.spec.volumeName}']);
    const affinity = await ok(w, kubeconfig, ['get', 'pv', volume, '-o', 'jsonpath={.spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0]}']);
    expect(JSON.parse(affinity)).toMatchObject({ key: 'csi.hetzner.cloud/location', operator: 'In', values: ['fsn1'] });
  });

  check('the GPU nodes report nvidia.com/gpu capacity from their machines (8 H100s each), the others none', async (w) => {
    await ok(w, kubeconfig, ['wait', '--for=jsonpath={.status.allocatable.nvidia\\.com/gpu}=8', 'node', '-l', 'kubeplane.dev/pool=gpu', '--timeout=120s']);
    for (const node of await nodes(w, kubeconfig)) {
      const gpu = node.metadata.labels?.['kubeplane.dev/pool'] === 'gpu';
      expect(node.status?.capacity?.['nvidia.com/gpu'], node.metadata.name).toBe(gpu ? '8' : undefined);
      expect(node.status?.allocatable?.['nvidia.com/gpu'], node.metadata.name).toBe(gpu ? '8' : undefined);
      expect(node.metadata.labels?.['nvidia.com/gpu.present'], node.metadata.name).toBe(gpu ? 'true' : undefined);
    }
  });
});
