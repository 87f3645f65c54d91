import { editFile, FILES, isWorker, type Defect } from '../defect.js';

export const defect: Defect = {
  id: 'kubelet-newer-than-control-plane',
  does: 'workers install kubelet and kubeadm of the next minor, newer than the control plane',
  breaks: {
    program: 'kubeadm',
    source:
      'https://kubernetes.io/releases/version-skew-policy/ (the kubelet must not be newer than kube-apiserver); cmd/kubeadm/app/preflight/checks.go KubeletVersionCheck',
  },
  caughtBy: ['fast', 'netns'],
  message: /kubelet version|newer than|version skew|higher than the control plane/i,
  transform: editFile(
    FILES.bootstrapScript,
    (c) =>
      c
        .replace(/stable:\/v1\.(\d+)\/deb/, (_m, minor: string) => `stable:/v1.${Number(minor) + 1}/deb`)
        .replace(/^readonly K8S_PACKAGE_VERSION='1\.(\d+)\.\d+-/m, (_m, minor: string) => `readonly K8S_PACKAGE_VERSION='1.${Number(minor) + 1}.0-`),
    isWorker,
  ),
};

export default defect.transform;
