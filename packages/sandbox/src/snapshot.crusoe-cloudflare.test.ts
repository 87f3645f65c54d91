// Crusoe and Cloudflare in sandbox snapshots: a world with Crusoe VMs, firewall rules, a CMK cluster with a node
// pool and another still provisioning, and Cloudflare records and a load balancer restores from JSON and goes on
// exactly as it would have without the snapshot.
import { afterEach, describe, expect, it } from 'vitest';
import { settle, type DnsRecord, type Outcome } from '@kubeplane/sdk/provider';
import type { ProviderDef } from '@kubeplane/sdk';
import type { CloudflareProvider } from '@kubeplane/providers';
import type { CrusoeProvider } from '@kubeplane/providers';
import { sandboxProviders } from './providers.js';
import { Sandbox } from './sandbox.js';
import { asSandboxSnapshot, type SandboxSnapshot } from './snapshot.js';

const S = 1000;
const region = 'us-east1-a';
/** Kubeplane cluster ids: a name and a 7-character hash. */
const LAB = 'lab-a1b2c3d';
const GPU = 'gpu-e4f5a6b';
const ZONE = 'kubeplane-sandbox.dev';
const SECRET_IN_USER_DATA = 'abcdef.0123456789abcdef';
const userData = `#cloud-config\nruncmd:\n  - kubeadm join --token ${SECRET_IN_USER_DATA}\n`;

const open: Sandbox[] = [];
afterEach(() => {
  for (const s of open.splice(0)) s.close();
});

const def = (providerType: 'crusoe' | 'cloudflare'): ProviderDef => ({ name: `${providerType}-1`, providerType, secretRef: {} });

async function providers(s: Sandbox): Promise<{ crusoe: CrusoeProvider; cloudflare: CloudflareProvider }> {
  const factory = sandboxProviders(s);
  return { crusoe: (await factory(def('crusoe'), region)) as CrusoeProvider, cloudflare: (await factory(def('cloudflare'), undefined)) as CloudflareProvider };
}

const run = <T>(s: Sandbox, call: (attempt: number) => Promise<Outcome<T>>): Promise<T> => settle(call, { clock: s.clock, maxAttempts: 400 });

const failover = (cluster: string): DnsRecord[] =>
  (['primary', 'secondary'] as const).map((role, i) => ({
    name: `api.${cluster}.${ZONE}`,
    type: 'A',
    ttl: 30,
    values: [`203.0.113.${10 + i}`],
    setIdentifier: `lb-${i + 1}`,
    failover: { role, healthCheck: { ip: `203.0.113.${10 + i}`, port: 65534 } },
  }));

/**
 * A network with firewall rules and two VMs (one being deleted), a running CMK cluster with a node pool whose VMs
 * boot, a second CMK cluster still provisioning (its create operation in flight), and Cloudflare failover records
 * (monitors, pools, a load balancer) and a plain record in example.com.
 */
async function buildWorld(seed: number): Promise<Sandbox> {
  const s = new Sandbox({ seed }).listen();
  open.push(s);
  const { crusoe, cloudflare } = await providers(s);
  await run(s, () => crusoe.network.ensureNetwork({ name: `${LAB}-net`, clusterId: LAB, region, cidr: '10.30.0.0/16', subnets: [{ cidr: '10.30.1.0/24' }] }));
  await run(s, () =>
    crusoe.network.ensureFirewall({
      name: `${LAB}-fw`,
      clusterId: LAB,
      region,
      networkName: `${LAB}-net`,
      rules: [
        { protocol: 'tcp', port: 6443, sourceCidrs: ['0.0.0.0/0'] },
        { protocol: 'udp', port: 51820, sourceCidrs: [], fromClusterNodes: true },
      ],
    }),
  );
  for (const name of [`${LAB}-w-01`, `${LAB}-w-02`])
    await run(s, () =>
      crusoe.compute.createNode({
        name,
        clusterId: LAB,
        nodepool: 'w',
        region,
        serverType: 'c1a.4x',
        image: 'ubuntu22.04:latest',
        userData,
        networkName: `${LAB}-net`,
      }),
    );
  await run(s, () => crusoe.managedKubernetes.ensureCluster({ name: LAB, clusterId: LAB, region, kubernetesVersion: '1.33.4-cmk.15', addons: ['crusoe_csi'] }));
  await run(s, () =>
    crusoe.managedKubernetes.ensureNodePool({ clusterId: LAB, clusterName: LAB, name: 'cpu', serverType: 'c1a.8x', count: 2, labels: { tier: 'cpu' } }),
  );
  await run(s, () => cloudflare.dns.upsertRecords(ZONE, LAB, failover(LAB)));
  await run(s, () => cloudflare.dns.upsertRecords('example.com', LAB, [{ name: `apps.${LAB}.example.com`, type: 'A', ttl: 60, values: ['203.0.113.20'] }]));
  const provisioning = await crusoe.managedKubernetes.ensureCluster({ name: GPU, clusterId: GPU, region, kubernetesVersion: '1.33.4-cmk.15' });
  expect(provisioning.status).toBe('pending');
  await crusoe.compute.deleteNode({ clusterId: LAB, name: `${LAB}-w-02`, region });
  s.clock.advance(5 * S);
  return s;
}

const roundTrip = (snapshot: SandboxSnapshot): SandboxSnapshot => asSandboxSnapshot(JSON.parse(JSON.stringify(snapshot)));

describe('a sandbox snapshot with Crusoe and Cloudflare', () => {
  it('survives JSON and restores the same inventory, machines, operations and call counts', async () => {
    const original = await buildWorld(7);
    original.close();
    const snapshot = original.snapshot();
    const restored = Sandbox.fromSnapshot(roundTrip(snapshot));
    open.push(restored);

    const kinds = new Set(original.inventory().map((i) => `${i.cloud}/${i.kind}`));
    for (const kind of [
      'crusoe/node',
      'crusoe/network',
      'crusoe/subnet',
      'crusoe/firewall',
      'crusoe/managed-cluster',
      'crusoe/node-pool',
      'crusoe/api-token',
      'cloudflare/dns-record',
      'cloudflare/load-balancer',
      'cloudflare/pool',
      'cloudflare/health-check',
    ]) {
      expect(kinds).toContain(kind);
    }
    const inFlight = (snapshot.clouds.crusoe?.operations ?? []).filter(([, op]) => op.state === 'IN_PROGRESS').map(([, op]) => op.completion.kind);
    expect(inFlight).toEqual(expect.arrayContaining(['cluster-created', 'vm-deleted']));
    expect(JSON.stringify(original.inventory())).not.toContain(SECRET_IN_USER_DATA);

    expect(JSON.parse(JSON.stringify(restored.snapshot()))).toEqual(JSON.parse(JSON.stringify(snapshot)));
    expect(restored.inventory()).toEqual(original.inventory());
    expect(restored.listVms()).toEqual(original.listVms());
    // The startup script travels with its VM, so the kubelet still reads the user-data (and its secrets) from it.
    expect(restored.listVms().find((v) => v.name === `${LAB}-w-01`)?.userData).toBe(userData);
    expect(restored.calls()).toEqual(original.calls());
  });

  it('continues after a restore exactly as without one: operations finish, VMs boot and calls answer at the same instants', async () => {
    const original = await buildWorld(8);
    original.close();
    const restored = Sandbox.fromSnapshot(roundTrip(original.snapshot()));
    open.push(restored);

    async function continueIn(s: Sandbox) {
      s.listen();
      const { crusoe, cloudflare } = await providers(s);
      const timeline: unknown[] = [];
      for (let i = 0; i < 12; i++) {
        s.clock.advance(30 * S);
        timeline.push(s.inventory().map((x) => [x.cloud, x.kind, x.id, x.state]));
        timeline.push(s.listVms().map((v) => [v.name, v.state, v.runningSinceMs]));
        timeline.push(s.crusoe.state().operations.map(([id, op]) => [id, op.state]));
      }
      // The cluster that was provisioning runs now: it takes a pool, and the first cluster's pool grows.
      const pool = await run(s, () =>
        crusoe.managedKubernetes.ensureNodePool({ clusterId: GPU, clusterName: GPU, name: 'cpu', serverType: 'c1a.8x', count: 1 }),
      );
      const grown = await run(s, () =>
        crusoe.managedKubernetes.ensureNodePool({ clusterId: LAB, clusterName: LAB, name: 'cpu', serverType: 'c1a.8x', count: 3, labels: { tier: 'cpu' } }),
      );
      await run(s, () => cloudflare.dns.deleteRecords('example.com', LAB, [{ name: `apps.${LAB}.example.com`, type: 'A' }]));
      const records = await run(s, () => cloudflare.dns.listRecords(ZONE));
      s.clock.advance(120 * S);
      s.close();
      return {
        timeline,
        pool,
        grown,
        records,
        at: s.clock.now(),
        inventory: s.inventory(),
        vms: s.listVms(),
        calls: s.calls(),
        snapshot: JSON.parse(JSON.stringify(s.snapshot())) as unknown,
      };
    }

    const without = await continueIn(original);
    const after = await continueIn(restored);
    expect(after.timeline).toEqual(without.timeline);
    expect(after.pool).toEqual(without.pool);
    expect(after.grown).toEqual(without.grown);
    expect(after.records).toEqual(without.records);
    expect(after.at).toBe(without.at);
    expect(after.inventory).toEqual(without.inventory);
    expect(after.vms).toEqual(without.vms);
    expect(after.calls).toEqual(without.calls);
    expect(after.snapshot).toEqual(without.snapshot);

    // What was in flight finished: the second cluster runs with CMK's firewall rules, the deleted VM is gone.
    const managed = after.inventory.filter((i) => i.kind === 'managed-cluster').map((i) => [i.name, i.state]);
    expect(managed).toEqual([
      [LAB, 'STATE_RUNNING'],
      [GPU, 'STATE_RUNNING'],
    ]);
    expect(after.inventory.filter((i) => i.kind === 'firewall' && i.name?.startsWith('cmk-cp-'))).toHaveLength(8);
    expect(after.inventory.some((i) => i.name === `${LAB}-w-02`)).toBe(false);
    expect(after.vms.filter((v) => v.cloud === 'crusoe' && v.state === 'running')).toHaveLength(1 + 3 + 1);
  });
});
