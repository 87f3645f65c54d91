import { isWorker, type Defect } from '../defect.js';

export const defect: Defect = {
  id: 'kubelet-kubeconfig-present',
  does: 'workers find /etc/kubernetes/kubelet.conf already there before they join',
  breaks: { program: 'kubeadm', source: 'cmd/kubeadm/app/preflight/checks.go JoinNodeChecks (FileAvailable--etc-kubernetes-kubelet.conf)' },
  caughtBy: [],
  healedBy: "the first attempt's preflight fails; the boot script's `kubeadm reset --force` (kubeadm_once) empties it, and the next attempt passes",
  message: /FileAvailable--etc-kubernetes-kubelet.conf/,
  transform: (machine, files) =>
    isWorker(machine)
      ? [...files, { path: '/etc/kubernetes/kubelet.conf', content: 'apiVersion: v1\nkind: Config\n', owner: 'root:root', permissions: '0600' }]
      : files,
};

export default defect.transform;
