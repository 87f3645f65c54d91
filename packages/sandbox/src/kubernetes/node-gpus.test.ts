// A machine's NVIDIA GPUs as the sandbox clouds' catalogs give them (node-gpus.ts).
import { describe, expect, it } from 'vitest';
import { gpusOf, gpusOfNode } from './node-gpus.js';

const node = (labels: Record<string, string>) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n', labels } });

describe('the GPUs of a machine', () => {
  it('comes from the Crusoe and EC2 catalogs, by the SandboxVm cloud or the provider type', () => {
    expect(gpusOf('crusoe', 'h100-80gb-sxm-ib.8x')).toEqual({ count: 8, model: 'H100-SXM-80GB' });
    expect(gpusOf('crusoe', 'gb200-186gb-nvl-ib.4x')).toEqual({ count: 4, model: 'GB200-NVL-186GB' });
    expect(gpusOf('ec2', 'g5.xlarge')).toEqual({ count: 1, model: 'NVIDIA A10G' });
    expect(gpusOf('aws', 'g5.xlarge')).toEqual({ count: 1, model: 'NVIDIA A10G' });
  });

  it('is none for CPU types, Hetzner and types no catalog knows', () => {
    for (const [cloud, type] of [
      ['crusoe', 'c1a.16x'],
      ['ec2', 't3.large'],
      ['hetzner', 'cpx32'],
      ['crusoe', 'h999.8x'],
    ] as const)
      expect(gpusOf(cloud, type)).toEqual({ count: 0, model: '' });
  });

  it("reads a Node by its instance-type label and kubeplane.dev/provider, or a CMK node's crusoe.ai labels", () => {
    expect(gpusOfNode(node({ 'node.kubernetes.io/instance-type': 'a40.8x', 'kubeplane.dev/provider': 'crusoe' }))).toEqual({
      count: 8,
      model: 'A40-PCIe-48GB',
    });
    expect(gpusOfNode(node({ 'node.kubernetes.io/instance-type': 'a40.1x', 'crusoe.ai/nodepool.name': 'gpu' }))).toEqual({ count: 1, model: 'A40-PCIe-48GB' });
    expect(gpusOfNode(node({ 'kubeplane.dev/provider': 'crusoe' }))).toEqual({ count: 0, model: '' });
  });
});
