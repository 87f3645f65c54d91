import { editFile, FILES, type Defect } from '../defect.js';

export const defect: Defect = {
  id: 'cri-socket',
  does: 'every node tells kubeadm that the container runtime listens on /run/containerd/cri.sock, where nothing does',
  breaks: {
    program: 'kubeadm',
    source: 'cmd/kubeadm/app/preflight/checks.go ContainerRuntimeCheck; containerd serves CRI on its grpc.address, /run/containerd/containerd.sock',
  },
  caughtBy: ['fast', 'netns'],
  message: /\[ERROR CRI\]: container runtime is not running/,
  transform: editFile(FILES.kubeadmConfig, (c) =>
    c.replace(/criSocket: unix:\/\/\/run\/containerd\/containerd\.sock/, 'criSocket: unix:///run/containerd/cri.sock'),
  ),
};

export default defect.transform;
