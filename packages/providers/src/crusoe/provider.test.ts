import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Redacted } from '@kubeplane/sdk';
import { settle, type NodeRequest, type Outcome } from '@kubeplane/sdk/provider';
import { CRUSOE_SANDBOX_CREDENTIALS, CrusoeSandbox, SANDBOX_SSH_PUBLIC_KEY } from '@kubeplane/sandbox';
import { CrusoeProvider, poolOf } from './provider.js';

let sandbox: CrusoeSandbox;
let provider: CrusoeProvider;
const run = <T>(call: (attempt: number) => Promise<Outcome<T>>): Promise<T> => settle(call, { clock: sandbox.clock, maxAttempts: 400 });
const region = 'us-east1-a';
const node = (name: string, overrides: Partial<NodeRequest> = {}): NodeRequest => ({
  name,
  clusterId: 'lab-abc1234',
  nodepool: poolOf(name, 'lab-abc1234'),
  region,
  serverType: 'c1a.4x',
  image: 'ubuntu22.04:latest',
  userData: '#cloud-config\nruncmd: [echo hi]\n',
  ...overrides,
});

beforeEach(() => {
  sandbox = new CrusoeSandbox({ seed: 9 });
  provider = new CrusoeProvider({
    accessKeyId: Redacted.of(CRUSOE_SANDBOX_CREDENTIALS.accessKeyId),
    secretKey: Redacted.of(CRUSOE_SANDBOX_CREDENTIALS.secretKey),
    projectId: CRUSOE_SANDBOX_CREDENTIALS.projectId,
    clock: sandbox.clock,
    sshPublicKey: SANDBOX_SSH_PUBLIC_KEY,
    random: () => 0.5,
  });
});
afterEach(() => sandbox.stop());

describe('Crusoe compute', () => {
  it('reads the node pool back from names with hyphens', () => {
    expect(poolOf('lab-abc1234-gpu-h100-0a', 'lab-abc1234')).toBe('gpu-h100');
  });

  it("creates a node's storage disk first, attaches it, and deletes it after the VM", async () => {
    const created = await run(() => provider.compute.createNode(node('lab-abc1234-w-01', { storageDiskGiB: 200 })));
    const post = sandbox.emulator.log.find((l) => l.method === 'POST' && l.path.endsWith('/compute/vms/instances'));
    const disk = [...sandbox.emulator.disks.values()][0];
    expect(disk).toMatchObject({ name: 'lab-abc1234-w-01-storage', sizeGiB: 200, attachedTo: created.id });
    expect(post?.body?.['disks']).toEqual([{ disk_id: disk?.id, mode: 'read-write', attachment_type: 'data' }]);
    await run(() => provider.compute.deleteNode({ clusterId: 'lab-abc1234', name: 'lab-abc1234-w-01', region }));
    sandbox.clock.advance(60_000);
    expect(sandbox.inventory()).toEqual([]);
  });

  it("puts a GPU InfiniBand node on its pool's partition, shared by the pool", async () => {
    const gpu = { serverType: 'h100-80gb-sxm-ib.8x', image: 'ubuntu22.04-nvidia-sxm-docker:latest' };
    await run(() => provider.compute.createNode(node('lab-abc1234-gpu-01', gpu)));
    await run(() => provider.compute.createNode(node('lab-abc1234-gpu-02', gpu)));
    const partitions = [...sandbox.emulator.partitions.values()];
    expect(partitions.map((p) => p.name)).toEqual(['lab-abc1234-gpu-ib']);
    expect([...sandbox.emulator.vms.values()].map((v) => v.partitionId)).toEqual([partitions[0]?.id, partitions[0]?.id]);
  });

  it('hands a cloud-config to cloud-init through the startup script, and a script through as it is', async () => {
    await run(() => provider.compute.createNode(node('lab-abc1234-w-01')));
    await run(() => provider.compute.createNode(node('lab-abc1234-w-02', { userData: '#!/bin/sh\necho plain\n' })));
    const scripts = sandbox.emulator.log
      .filter((l) => l.method === 'POST' && l.path.endsWith('/compute/vms/instances'))
      .map((l) => String(l.body?.['startup_script']));
    expect(scripts[0]).toMatch(/^#!\/bin\/bash\n/);
    expect(scripts[0]).toContain('cloud-init init');
    expect(scripts[1]).toBe('#!/bin/sh\necho plain\n');
    expect(sandbox.emulator.listVms().map((v) => v.userData)).toEqual(['#cloud-config\nruncmd: [echo hi]\n', '#!/bin/sh\necho plain\n']);
  });

  it('gives a node a static public IP when it asks for a reserved one, and refuses a standalone reserved IP', async () => {
    await run(() => provider.compute.createNode(node('lab-abc1234-cp-01', { reservedIpName: 'lab-abc1234-api' })));
    expect([...sandbox.emulator.vms.values()][0]?.publicIp?.type).toBe('static');
    await expect(provider.network.ensureReservedIp({ name: 'lab-abc1234-api', clusterId: 'lab-abc1234', region })).rejects.toMatchObject({
      kind: 'invalid',
      details: { code: 'reserved_ip_unsupported' },
    });
  });

  it('waits for a VM being deleted to go before creating its replacement under the same name, never adopting it', async () => {
    const first = await run(() => provider.compute.createNode(node('lab-abc1234-w-01')));
    await run(() => provider.compute.deleteNode({ clusterId: 'lab-abc1234', name: 'lab-abc1234-w-01', region }));
    const meanwhile = await provider.compute.createNode(node('lab-abc1234-w-01'));
    expect(meanwhile).toMatchObject({ status: 'pending', reason: 'dependency' });
    const replacement = await run(() => provider.compute.createNode(node('lab-abc1234-w-01')));
    expect(replacement.id).not.toBe(first.id);
    expect(replacement.state).not.toBe('deleting');
  });

  it('rejects a node whose name does not start with its cluster id, before any call', async () => {
    const before = sandbox.requestCount();
    await expect(provider.compute.createNode(node('other-w-01'))).rejects.toMatchObject({ kind: 'invalid', details: { code: 'name_not_owned' } });
    expect(sandbox.requestCount()).toBe(before);
  });
});

describe('Crusoe firewall rules', () => {
  it('writes one VPC rule per protocol and port, with the network range for cluster nodes, and reads the request back', async () => {
    const id = 'lab-abc1234';
    await run(() => provider.network.ensureNetwork({ name: `${id}-net`, clusterId: id, region, cidr: '10.30.0.0/16', subnets: [{ cidr: '10.30.1.0/24' }] }));
    const rules = [
      { protocol: 'tcp' as const, port: 6443, sourceCidrs: ['203.0.113.0/24'], description: 'API' },
      { protocol: 'tcp' as const, port: 24224, sourceCidrs: ['198.51.100.0/24'] },
      { protocol: 'tcp' as const, port: 22, sourceCidrs: ['192.0.2.0/28'] },
      { protocol: 'udp' as const, port: [51820, 51821] as const, sourceCidrs: [], fromClusterNodes: true },
    ];
    const fw = await run(() => provider.network.ensureFirewall({ name: `${id}-fw`, clusterId: id, region, networkName: `${id}-net`, rules }));
    const names = sandbox
      .inventory()
      .filter((i) => i.kind === 'firewall' && i.name?.startsWith(`${id}-fw`))
      .map((i) => i.name)
      .sort();
    expect(names).toEqual([`${id}-fw-tcp-22`, `${id}-fw-tcp-24224`, `${id}-fw-tcp-6443`, `${id}-fw-udp-51820-51821-n`]);
    const wg = [...sandbox.emulator.firewallRules.values()].find((r) => r.name.endsWith('-n'));
    expect(wg?.sources).toEqual([{ cidr: '10.30.0.0/16' }]);
    const strip = ({ description: _d, ...r }: (typeof rules)[number]) => r;
    expect(fw.rules).toEqual(expect.arrayContaining(rules.map(strip)));
    expect(fw.rules).toHaveLength(4);
  });
});
