// The simulated autoscaler's view of a sandbox cluster: its pods and nodes as the API server stores them, read through
// the emulator (which first moves its kubelets and scheduler to the clock's now), by the cluster's name.
import type { KubernetesEmulator } from '../kubernetes/emulator.js';
import type { AutoscalerClusterView } from './simulated-autoscaler.js';

export function sandboxClusterView(emulator: KubernetesEmulator, clusterName: string): AutoscalerClusterView {
  const api = () => {
    const found = emulator.inventory().clusters.find((c) => c.name === clusterName);
    const cluster = found ? emulator.cluster(found.endpoint) : undefined;
    if (!cluster) throw new Error(`the sandbox has no Kubernetes cluster named ${clusterName} (clusters: ${emulator.inventory().clusters.map((c) => c.name).join(', ') || 'none'})`);
    return cluster;
  };
  return {
    pods: () => api().store.list('pods'),
    nodes: () => api().store.list('nodes'),
  };
}
