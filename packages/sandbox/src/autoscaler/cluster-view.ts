// The simulated autoscaler's view of a sandbox cluster: its pods and nodes as the API server stores them, read through
// the emulator (which first moves its kubelets and scheduler to the clock's now), by the cluster's name.
import type { ClusterApi } from '../kubernetes/cluster.js';
import type { KubernetesEmulator } from '../kubernetes/emulator.js';
import type { AutoscalerClusterView } from './simulated-autoscaler.js';

/** The emulated API server of the cluster named `clusterName`, moved to the clock's now. */
export function sandboxClusterApi(emulator: KubernetesEmulator, clusterName: string): ClusterApi {
  const found = emulator.inventory().clusters.find((c) => c.name === clusterName);
  const cluster = found ? emulator.cluster(found.endpoint) : undefined;
  // Naming only the cluster asked for, as every not-found error of kubeplane does.
  if (!cluster) throw new Error(`the sandbox has no Kubernetes cluster named ${clusterName}`);
  return cluster;
}

/**
 * The simulated autoscaler's view of the sandbox cluster named `clusterName`: its Pods and Nodes, read at the clock's
 * now. Throws when no such cluster exists (yet) at the time of a read.
 */
export function sandboxClusterView(emulator: KubernetesEmulator, clusterName: string): AutoscalerClusterView {
  const api = () => sandboxClusterApi(emulator, clusterName);
  return {
    pods: () => api().store.list('pods'),
    nodes: () => api().store.list('nodes'),
  };
}

/**
 * A Pod as kube-scheduler leaves one that fits no node: Pending, PodScheduled False with reason Unschedulable
 * (kubernetes/kubernetes pkg/scheduler/schedule_one.go). For tests and benchmarks that put demand into a cluster.
 */
export function unschedulablePod(options: {
  name: string;
  namespace?: string;
  requests: Record<string, string>;
  nodeSelector?: Record<string, string>;
  tolerations?: Array<Record<string, string>>;
  nodes: number;
}): import('../kubernetes/store.js').KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: options.name, namespace: options.namespace ?? 'default', labels: { app: options.name.replace(/-\d+$/, '') } },
    spec: {
      containers: [{ name: 'work', image: 'registry.k8s.io/pause:3.10', resources: { requests: options.requests } }],
      ...(options.nodeSelector ? { nodeSelector: options.nodeSelector } : {}),
      ...(options.tolerations ? { tolerations: options.tolerations } : {}),
    },
    status: {
      phase: 'Pending',
      conditions: [
        {
          type: 'PodScheduled',
          status: 'False',
          reason: 'Unschedulable',
          message: `0/${options.nodes} nodes are available: ${options.nodes} node(s) didn't match Pod's node affinity/selector.`,
        },
      ],
    },
  };
}
