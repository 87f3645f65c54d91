// The NVIDIA GPUs of a machine, from the sandbox clouds' instance catalogs (each cloud's descriptor, `gpus`): the one
// place a simulated GPU operator (or anything else) learns how many `nvidia.com/gpu` a Node's machine has.
import { machineCloudOf, SANDBOX_CLOUDS, type NodeGpus } from '../clouds/index.js';
import { obj, type KubeObject } from './store.js';

export type { NodeGpus };

const NONE: NodeGpus = { count: 0, model: '' };

/**
 * GPUs of an instance type of a cloud. `cloud` is a SandboxVm's cloud (a sandbox cloud's name) or a manifest provider
 * type (`aws`: its machines' cloud).
 */
export function gpusOf(cloud: string, instanceType: string): NodeGpus {
  return machineCloudOf(cloud)?.gpus?.(instanceType) ?? NONE;
}

/**
 * GPUs of a Node's machine, by its `node.kubernetes.io/instance-type` label and its cloud: `kubeplane.dev/provider`
 * (kubeplane's self-managed nodes), or the labels a cloud's managed node pools give their Nodes (CMK's `crusoe.ai/*`).
 * A Node without them has none known.
 */
export function gpusOfNode(node: KubeObject): NodeGpus {
  const labels = (obj(node.metadata)?.['labels'] ?? {}) as Record<string, string>;
  const type = labels['node.kubernetes.io/instance-type'];
  if (!type) return NONE;
  const managedBy = (prefix: string | undefined) => prefix !== undefined && Object.keys(labels).some((k) => k.startsWith(prefix));
  const cloud = labels['kubeplane.dev/provider'] ?? SANDBOX_CLOUDS.find((c) => managedBy(c.managedNodeLabelPrefix))?.name ?? '';
  return gpusOf(cloud, type);
}
