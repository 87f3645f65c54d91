// A Node's capacity and allocatable as its kubelet reports them for the machine it runs on. kubeadm sets no
// kube-reserved or system-reserved, so allocatable is capacity minus the kubelet's default hard eviction
// thresholds, memory.available<100Mi and nodefs.available<10%
// (https://kubernetes.io/docs/concepts/scheduling-eviction/node-pressure-eviction/#hard-eviction-thresholds),
// with maxPods 110 (the KubeletConfiguration default).

/** What the cloud's catalog says about a machine type. */
export interface MachineSize {
  vcpus: number;
  memoryMiB: number;
  /** The root disk; absent when the catalog does not say (EC2 sizes it by block device mapping). */
  diskGiB?: number;
  /** NVIDIA GPUs (Crusoe's catalog num_gpu); advertised as nvidia.com/gpu only once the GPU operator runs (helm-controller.ts). */
  gpus?: number;
}

/** When a cloud does not say: the smallest shape kubeadm accepts (2 vCPUs, 1700 MB in its preflight), rounded up. */
export const UNKNOWN_MACHINE: MachineSize = { vcpus: 2, memoryMiB: 4096, diskGiB: 40 };

export interface NodeResources {
  capacity: Record<string, string>;
  allocatable: Record<string, string>;
}

export function nodeResources(machine: MachineSize): NodeResources {
  const memoryKi = machine.memoryMiB * 1024;
  const diskKi = (machine.diskGiB ?? UNKNOWN_MACHINE.diskGiB ?? 40) * 1024 * 1024;
  return {
    capacity: {
      cpu: String(machine.vcpus),
      memory: `${memoryKi}Ki`,
      pods: '110',
      'ephemeral-storage': `${diskKi}Ki`,
      'hugepages-1Gi': '0',
      'hugepages-2Mi': '0',
    },
    allocatable: {
      cpu: String(machine.vcpus),
      memory: `${memoryKi - 100 * 1024}Ki`,
      pods: '110',
      // The kubelet reports bytes here: capacity less the 10% nodefs threshold.
      'ephemeral-storage': String(Math.floor(diskKi * 1024 * 0.9)),
      'hugepages-1Gi': '0',
      'hugepages-2Mi': '0',
    },
  };
}
