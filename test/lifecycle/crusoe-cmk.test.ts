// A Crusoe Managed Kubernetes cluster through the engine on the sandbox clouds: Crusoe runs the control plane,
// kubeplane its network and rules, node pools (an InfiniBand GPU pool and an autoscaled CPU pool), the API name in
// Cloudflare, and — through the cluster's own API — the add-on credentials, autoscaler limits and AutoClusters.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPending } from '@kubeplane/sdk/provider';
import type { KubernetesApi, Manifest } from '@kubeplane/sdk';
import { SANDBOX_CREDENTIALS, sandboxKubernetes, sandboxProviders } from '@kubeplane/sandbox';
import { manifestOf, sandboxWorld, type World } from '../helpers/sandbox-world.js';

const example = readFileSync(join(import.meta.dirname, '..', '..', 'examples', 'crusoe-cmk.yaml'), 'utf8');
const ZONE = 'kubeplane-sandbox.dev';

let w: World;
let clusterId = '';

beforeAll(() => {
  w = sandboxWorld(11);
});
afterAll(() => w.sandbox.close());

async function applyAndRun(m: Manifest): Promise<void> {
  await w.kp.apply(m);
  await w.kp.run();
  const status = await w.kp.status(m.name);
  expect(status.state, JSON.stringify(status.clusters, null, 1)).toBe('DONE');
  clusterId = status.clusters['gpu-lab']?.id ?? '';
}

async function cluster(): Promise<KubernetesApi> {
  return sandboxKubernetes(w.sandbox)(await w.kp.kubeconfig('gpu-lab', 'gpu-lab'));
}

/** Kubeplane's VPC rules of the cluster, as `name: proto ports from sources`. */
function kubeplaneRules(): string[] {
  return [...w.sandbox.crusoe.firewallRules.values()]
    .filter((r) => r.name.startsWith(`${clusterId}-`))
    .map(
      (r) =>
        `${r.name.slice(clusterId.length + 1)}: ${r.protocols.join('/')} ${r.destinationPorts.join(',') || 'all'} from ${r.sources.map((s) => String(s['cidr'])).join(',')}`,
    )
    .sort();
}

function vmsOfPool(pool: string): string[] {
  const p = [...w.sandbox.crusoe.pools.values()].find((x) => x.name === pool);
  return [...w.sandbox.crusoe.vms.values()]
    .filter((v) => v.nodePoolId === p?.id && v.state !== 'STATE_DELETING')
    .map((v) => v.name)
    .sort();
}

const withPools = (text: string, h100: number, cpu: { min: number; max: number }, ssh = '203.0.113.0/24') =>
  text
    .replace('count: 2\n', `count: ${h100}\n`)
    .replace('autoscaler: { min: 1, max: 6 }', `autoscaler: { min: ${cpu.min}, max: ${cpu.max} }`)
    .replace('sshAllowedCidrs: [203.0.113.0/24]', `sshAllowedCidrs: [${ssh}]`);

describe('a CMK cluster from examples/crusoe-cmk.yaml', () => {
  it('is created: Crusoe runs the control plane, kubeplane its network, rules, pools and API name', async () => {
    await applyAndRun(manifestOf(example));
    const managed = w.sandbox.crusoe.inventory().filter((i) => i.kind === 'managed-cluster');
    expect(managed).toEqual([expect.objectContaining({ name: clusterId, state: 'STATE_RUNNING' })]);
    expect(vmsOfPool('h100')).toHaveLength(2);
    expect(vmsOfPool('cpu')).toHaveLength(1);
    // The GPU pool's machines are in the pool's InfiniBand partition.
    const partition = [...w.sandbox.crusoe.partitions.values()].find((p) => p.name === `${clusterId}-h100-ib`);
    expect(partition).toBeDefined();
    expect([...w.sandbox.crusoe.pools.values()].find((p) => p.name === 'h100')?.partitionId).toBe(partition?.id);
  });

  it('has the VPC rules the manifest asks for, beside the ones CMK keeps for its control plane', () => {
    const vpc = [...w.sandbox.crusoe.networks.values()].find((n) => n.name === `${clusterId}-us-east1-a`);
    expect(vpc?.cidr).toMatch(/^\d+\.\d+\.\d+\.\d+\/\d+$/);
    expect(kubeplaneRules()).toEqual([
      `us-east1-a-egress: tcp/udp/icmp all from ${vpc?.cidr}`,
      'us-east1-a-fw-icmp-all: icmp all from 0.0.0.0/0',
      'us-east1-a-fw-tcp-22: tcp 22 from 203.0.113.0/24',
      `us-east1-a-intra-vpc: tcp/udp/icmp all from ${vpc?.cidr}`,
    ]);
    const cmk = [...w.sandbox.crusoe.firewallRules.values()]
      .filter((r) => r.owner === clusterId && r.name.startsWith('cmk-cp-'))
      .map((r) => r.name.replace(/-cp-[0-9a-f]{8}$/, ''));
    expect(cmk.sort()).toEqual(['cmk-cp-api-access', 'cmk-cp-fluent-bit-access', 'cmk-cp-metrics-access', 'cmk-cp-ssh-access']);
  });

  it('serves its API with every node Ready, labelled and tainted as the pools say', async () => {
    const nodes = await (await cluster()).listNodes();
    expect(nodes.filter((n) => n.ready)).toHaveLength(3);
    const gpu = nodes.filter((n) => n.labels['kubeplane.dev/nodepool'] === 'h100');
    expect(gpu.map((n) => n.name).sort()).toEqual(vmsOfPool('h100'));
    for (const n of gpu) {
      expect(n.labels['workload']).toBe('training');
      expect(n.taints).toEqual([{ key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' }]);
      expect(n.providerId).toMatch(/^crusoe:\/\//);
    }
  });

  it("keeps CMK's scoped token in cmk-<cluster>, sets the pools' limits on the autoscaler, and the remediation settings", async () => {
    const k8s = await cluster();
    // CMK's own token, as CMK wrote it: never replaced with the project keys kubeplane runs with.
    const secret = await k8s.getSecret('crusoe-system', `cmk-${clusterId}`);
    expect(secret?.['CRUSOE_ACCESS_KEY']?.reveal()).toBe('cmk-managed-token');
    expect(secret?.['CRUSOE_SECRET_KEY']?.reveal()).toBe('cmk-managed-token');
    const args = await k8s.getDeploymentArgs('crusoe-system', 'cluster-autoscaler');
    expect(args?.filter((a) => a.startsWith('--nodes='))).toEqual(['--nodes=1:6:cpu', '--nodes=2:2:h100']);
    expect(args).toContain('--cloud-provider=crusoecloud');
    const c = [...w.sandbox.crusoe.clusters.values()].find((x) => x.name === clusterId);
    expect(c?.remediation).toEqual({ XID_79: 'OFF', GPU_FELL_OFF_THE_BUS: 'REPLACE_NODE' });
    expect(c?.fallback).toBe(true);
  });

  it("shows CMK's add-ons as the cluster reports them: installed, at the chart versions CMK installed", async () => {
    const status = await w.kp.status('gpu-lab');
    const addons = status.clusters['gpu-lab']?.addons ?? [];
    expect(addons.map((a) => [a.name, a.state, a.installedVersion])).toEqual([
      ['crusoe_csi', 'installed', '0.10.3'],
      ['nvidia_gpu_operator', 'installed', 'v25.3.2'],
      ['nvidia_network_operator', 'installed', '25.4.0'],
      ['cluster_autoscaler', 'installed', '9.50.1'],
    ]);
  });

  it("names the API in the Cloudflare zone: a CNAME to CMK's own name", async () => {
    const cloudflare = await sandboxProviders(w.sandbox)(
      { name: 'cloudflare-1', providerType: 'cloudflare', secretRef: { env: {} } } as Manifest['providers'][number],
      undefined,
    );
    const records = await cloudflare.dns?.listRecords(ZONE);
    if (!records || isPending(records)) throw new Error('Cloudflare records were not listed');
    expect(records.value.filter((r) => r.name === `gpu-lab-api.${ZONE}`)).toEqual([
      expect.objectContaining({ type: 'CNAME', values: [`${clusterId}.crusoecloudcompute.com`] }),
    ]);
  });

  it('keeps credentials out of the state, events and outputs metadata', async () => {
    const keys = await w.options.state.list('');
    const state = await Promise.all(keys.map((k) => w.options.state.get(k)));
    const dump = JSON.stringify({ state, events: w.events });
    expect(dump).toContain(clusterId);
    expect(dump).not.toContain(SANDBOX_CREDENTIALS.crusoeSecretKey);
    expect(dump).not.toContain('BEGIN EC PRIVATE KEY');
    expect(dump).not.toContain('client-key-data');
  });

  it("has metadata listing each node pool's machines with their VPC addresses, and the cluster's key in OpenSSH format", async () => {
    const md = (await w.kp.metadata('gpu-lab', 'gpu-lab')).reveal();
    const pools = md.nodepools.dynamic_nodepools;
    expect(Object.keys(pools).sort()).toEqual(['cpu', 'h100']);
    expect(Object.keys(pools['h100']?.node_ips ?? {})).toEqual(vmsOfPool('h100'));
    expect(Object.keys(md.dynamic_nodepools.node_ips).sort()).toEqual([...vmsOfPool('cpu'), ...vmsOfPool('h100')].sort());
    expect(Object.values(md.dynamic_nodepools.node_ips).every((ip) => /^\d+\.\d+\.\d+\.\d+$/.test(ip.private_ip))).toBe(true);
    const key = (await w.kp.sshKey('gpu-lab', 'gpu-lab')).reveal();
    expect(key).toMatch(/^-----BEGIN OPENSSH PRIVATE KEY-----\n/);
    expect(md.cluster_private_key).toBe(key);
    expect(pools['cpu']?.nodepool_private_key).toBe(key);
  });

  it('scales: the GPU pool up, then down (drained first, the newest nodes go), the autoscaler limits move, the SSH range changes', async () => {
    await applyAndRun(manifestOf(withPools(example, 3, { min: 2, max: 4 }, '198.51.100.0/24')));
    expect(vmsOfPool('h100')).toHaveLength(3);
    expect(vmsOfPool('cpu')).toHaveLength(2);
    const args = await (await cluster()).getDeploymentArgs('crusoe-system', 'cluster-autoscaler');
    expect(args?.filter((a) => a.startsWith('--nodes='))).toEqual(['--nodes=2:4:cpu', '--nodes=3:3:h100']);
    expect(kubeplaneRules()).toContain('us-east1-a-fw-tcp-22: tcp 22 from 198.51.100.0/24');

    const before = vmsOfPool('h100');
    await applyAndRun(manifestOf(withPools(example, 1, { min: 2, max: 4 }, '198.51.100.0/24')));
    w.sandbox.clock.advance(120_000);
    const after = vmsOfPool('h100');
    expect(after).toHaveLength(1);
    expect(before).toContain(after[0]);
    const events = w.events.filter((e) => e.type === 'resource-deleted' && e.kind === 'machine').map((e) => (e as { name: string }).name);
    expect(events.sort()).toEqual(before.filter((n) => n !== after[0]).sort());
    const nodes = await (await cluster()).listNodes();
    expect(nodes.filter((n) => n.labels['kubeplane.dev/nodepool'] === 'h100').map((n) => n.name)).toEqual(after);
    const args2 = await (await cluster()).getDeploymentArgs('crusoe-system', 'cluster-autoscaler');
    expect(args2?.filter((a) => a.startsWith('--nodes='))).toEqual(['--nodes=2:4:cpu', '--nodes=1:1:h100']);
  });

  it('rotates a pool onto a new node image: one machine at a time, each replacement Ready before the old one is drained', async () => {
    const text = withPools(example, 1, { min: 2, max: 4 }, '198.51.100.0/24');
    const cpuBefore = vmsOfPool('cpu');
    expect(cpuBefore).toHaveLength(2);
    const upgraded = text.replace(/(serverType: c1a\.16x\n\s+image: )1\.33\.4-cmk\.4/, '$11.33.4-cmk.6');
    expect(upgraded).not.toBe(text);
    const planned = await w.kp.plan(manifestOf(upgraded));
    if (!planned.ok) throw new Error(JSON.stringify(planned.issues));
    expect(planned.plan.operations.filter((o) => o.kind === 'rotate-nodes').map((o) => o.target)).toEqual(['cpu']);
    const readyLow: number[] = [];
    const off = w.kp.on((e) => {
      if (e.type === 'step-done' && e.step === 'remove-nodes')
        readyLow.push(
          w.sandbox.kubernetes
            .inventory()
            .clusters.flatMap((c) => c.nodes)
            .filter((n) => n.ready && n.labels['kubeplane.dev/nodepool'] === 'cpu').length,
        );
    });
    await applyAndRun(manifestOf(upgraded));
    off();
    const cpuAfter = vmsOfPool('cpu');
    expect(cpuAfter).toHaveLength(2);
    expect(cpuAfter.filter((n) => cpuBefore.includes(n))).toEqual([]);
    const images = [...w.sandbox.crusoe.vms.values()].filter((v) => cpuAfter.includes(v.name)).map((v) => v.image);
    expect(images).toEqual(['cmk-worker:1.33.4-cmk.6', 'cmk-worker:1.33.4-cmk.6']);
    // Capacity never dropped below the pool's count while its machines were replaced.
    expect(Math.min(...readyLow)).toBeGreaterThanOrEqual(2);
    const nodes = await (await cluster()).listNodes();
    expect(
      nodes
        .filter((n) => n.labels['kubeplane.dev/nodepool'] === 'cpu' && n.ready)
        .map((n) => n.name)
        .sort(),
    ).toEqual(cpuAfter);
  });

  it('takes a new image and a smaller count in one apply: outdated machines are removed first, the rest rotated', async () => {
    const base = withPools(example, 1, { min: 2, max: 4 }, '198.51.100.0/24').replace(/(serverType: c1a\.16x\n\s+image: )1\.33\.4-cmk\.4/, '$11.33.4-cmk.6');
    await applyAndRun(manifestOf(base.replace('count: 1\n', 'count: 3\n')));
    expect(vmsOfPool('h100')).toHaveLength(3);
    await applyAndRun(manifestOf(base.replace(/(serverType: h100-80gb-sxm-ib\.8x\n\s+image: )1\.33\.4-cmk\.4/, '$11.33.4-cmk.6')));
    const h100 = vmsOfPool('h100');
    expect(h100).toHaveLength(1);
    expect([...w.sandbox.crusoe.vms.values()].filter((v) => h100.includes(v.name)).map((v) => v.image)).toEqual(['cmk-worker:1.33.4-cmk.6']);
    const nodes = await (await cluster()).listNodes();
    expect(nodes.filter((n) => n.labels['kubeplane.dev/nodepool'] === 'h100' && n.ready && !n.unschedulable).map((n) => n.name)).toEqual(h100);
    // Back to the example's images for the tests that follow.
    await applyAndRun(
      manifestOf(
        withPools(example, 1, { min: 2, max: 4 }, '198.51.100.0/24')
          .replace(/(serverType: c1a\.16x\n\s+image: )1\.33\.4-cmk\.4/, '$11.33.4-cmk.6')
          .replace(/(serverType: h100-80gb-sxm-ib\.8x\n\s+image: )1\.33\.4-cmk\.4/, '$11.33.4-cmk.6'),
      ),
    );
  });

  it('refuses what CMK cannot change, before touching anything', async () => {
    const calls = w.sandbox.totalCalls();
    await expect(w.kp.apply(manifestOf(example.replace('        - name: crusoe_csi\n', '')))).rejects.toThrow(/installs its add-ons at creation/);
    await expect(w.kp.apply(manifestOf(example.replace('serverType: c1a.16x', 'serverType: c1a.32x')))).rejects.toThrow(/cannot change/);
    expect(w.sandbox.totalCalls()).toBe(calls);
  });

  it('is destroyed: nothing is left in Crusoe or Cloudflare', async () => {
    await w.kp.destroy('gpu-lab');
    await w.kp.run();
    expect(await w.kp.findStatus('gpu-lab')).toBeNull();
    expect(w.sandbox.inventory()).toEqual([]);
    expect(w.sandbox.kubernetes.inventory().clusters.filter((c) => c.up)).toEqual([]);
  });
});
