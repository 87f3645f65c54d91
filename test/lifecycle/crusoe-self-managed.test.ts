// Crusoe's self-managed side through the engine: a kubeadm cluster with its control plane on Hetzner bursts onto
// Crusoe H100 VMs (examples/hybrid-hetzner-crusoe-gpu.yaml). The VMs boot kubeplane's cloud-config from their
// startup script, sit in the pool's InfiniBand partition and join over the WireGuard overlay.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manifestOf, sandboxWorld, type World } from '../helpers/sandbox-world.js';

const example = readFileSync(join(import.meta.dirname, '..', '..', 'examples', 'hybrid-hetzner-crusoe-gpu.yaml'), 'utf8');

let w: World;
beforeAll(() => {
  w = sandboxWorld(12);
});
afterAll(() => w.sandbox.close());

const gpuVms = () => [...w.sandbox.crusoe.vms.values()].filter((v) => v.state !== 'STATE_DELETING');

describe('GPU workers on Crusoe VMs in a self-managed cluster', () => {
  let clusterId = '';

  it('creates the cluster: the H100 VMs join over the overlay and are Ready', async () => {
    await w.kp.apply(manifestOf(example));
    await w.kp.run();
    const status = await w.kp.status('gpu-burst');
    expect(status.state, JSON.stringify(status.clusters)).toBe('DONE');
    clusterId = status.clusters['burst']?.id ?? '';
    expect(
      gpuVms()
        .map((v) => v.name)
        .sort(),
    ).toEqual([`${clusterId}-gpu-01`, `${clusterId}-gpu-02`]);
    const nodes = w.sandbox.kubernetes.inventory().clusters.flatMap((c) => c.nodes);
    expect(
      nodes
        .filter((n) => n.ready)
        .map((n) => n.name)
        .sort(),
    ).toEqual([`${clusterId}-control-01`, ...gpuVms().map((v) => v.name)].sort());
    expect(nodes.find((n) => n.name === `${clusterId}-gpu-01`)?.labels['kubeplane.dev/nodepool']).toBe('gpu');
  });

  it("puts the GPU pool in its own InfiniBand partition and opens only the cluster's rules", () => {
    const partition = [...w.sandbox.crusoe.partitions.values()].find((p) => p.name === `${clusterId}-gpu-ib`);
    expect(partition).toBeDefined();
    for (const vm of gpuVms()) expect(vm.partitionId).toBe(partition?.id);
    const rules = [...w.sandbox.crusoe.firewallRules.values()]
      .filter((r) => r.name.startsWith(`${clusterId}-`))
      .map((r) => r.name.slice(clusterId.length + 1))
      .sort();
    expect(rules).toEqual(expect.arrayContaining(['us-east1-a-fw-udp-51820', 'us-east1-a-fw-icmp-all', 'us-east1-a-fw-tcp-6443', 'us-east1-a-intra-vpc']));
  });

  it('scales the GPU pool down and is destroyed without leaving anything', async () => {
    await w.kp.apply(manifestOf(example.replace('count: 2', 'count: 1')));
    await w.kp.run();
    expect(gpuVms()).toHaveLength(1);
    await w.kp.destroy('gpu-burst');
    await w.kp.run();
    expect(w.sandbox.inventory()).toEqual([]);
  });
});
