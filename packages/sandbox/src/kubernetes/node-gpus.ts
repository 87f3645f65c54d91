// The NVIDIA GPUs of a machine, from the sandbox clouds' instance catalogs: the one place a simulated GPU operator
// (or anything else) learns how many `nvidia.com/gpu` a Node's machine has. Hetzner Cloud offers no GPU server types.
import { CRUSOE_TYPES } from '../crusoe/catalog.js';
import { EC2_INSTANCE_TYPES } from '../ec2/emulator.js';
import { obj, type KubeObject } from './store.js';

export interface NodeGpus {
  /** 0 for a machine without GPUs (or a type no catalog knows). */
  count: number;
  /** As the catalog names it (`H100-80GB-SXM`, `NVIDIA A10G`); empty without GPUs. */
  model: string;
}

const NONE: NodeGpus = { count: 0, model: '' };

/**
 * GPUs of an instance type of a cloud. `cloud` is a SandboxVm's cloud (`crusoe`, `ec2`, `hetzner`) or a manifest
 * provider type (`aws`).
 */
export function gpusOf(cloud: string, instanceType: string): NodeGpus {
  if (cloud === 'crusoe') {
    const type = CRUSOE_TYPES.find((t) => t.product_name === instanceType);
    return type && type.num_gpu > 0 ? { count: type.num_gpu, model: type.gpu_type } : NONE;
  }
  if (cloud === 'ec2' || cloud === 'aws') {
    const type = EC2_INSTANCE_TYPES.find((t) => t.name === instanceType);
    return type && 'gpu' in type ? { count: type.gpu.count, model: `${type.gpu.manufacturer} ${type.gpu.name}` } : NONE;
  }
  return NONE;
}

/**
 * GPUs of a Node's machine, by its `node.kubernetes.io/instance-type` label and its cloud: `kubeplane.dev/provider`
 * (kubeplane's self-managed nodes), or a CMK node's `crusoe.ai/*` labels. A Node without them has none known.
 */
export function gpusOfNode(node: KubeObject): NodeGpus {
  const labels = (obj(node.metadata)?.['labels'] ?? {}) as Record<string, string>;
  const type = labels['node.kubernetes.io/instance-type'];
  if (!type) return NONE;
  const cloud = labels['kubeplane.dev/provider'] ?? (Object.keys(labels).some((k) => k.startsWith('crusoe.ai/')) ? 'crusoe' : '');
  return gpusOf(cloud, type);
}
