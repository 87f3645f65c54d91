import { editFile, FILES, isWorker, type Defect } from '../defect.js';

export const defect: Defect = {
  id: 'node-ip-foreign',
  does: "workers' kubelet is told a node-ip that is none of the machine's addresses",
  breaks: {
    program: 'kubelet',
    source: 'pkg/kubelet/nodestatus/setters.go NodeAddress: "failed to validate nodeIP: node IP ... not found in the host\'s network interfaces"',
  },
  caughtBy: ['fast', 'netns'],
  message: /node IP: "172\.31\.254\.9" not found in the host's network interfaces/,
  transform: editFile(FILES.kubeadmConfig, (c) => c.replace(/(name: node-ip\n\s+value: )\S+/, '$1172.31.254.9'), isWorker),
};

export default defect.transform;
