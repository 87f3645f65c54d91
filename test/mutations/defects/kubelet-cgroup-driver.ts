import { editFile, FILES, type Defect } from '../defect.js';

export const defect: Defect = {
  id: 'kubelet-cgroup-driver',
  does: "the KubeletConfiguration asks for the cgroupfs driver while the script puts containerd's runc on systemd cgroups",
  breaks: {
    program: 'containerd',
    source:
      'https://kubernetes.io/docs/tasks/administer-cluster/kubeadm/configure-cgroup-driver/ (the drivers must match); runc refuses the ' +
      'cgroupfs path of every pod sandbox: https://github.com/containerd/containerd/issues/4857',
  },
  caughtBy: ['fast', 'netns'],
  message: /expected cgroupsPath to be of format "slice:prefix:name" for systemd cgroups/,
  transform: editFile(FILES.kubeadmConfig, (c) => c.replace(/^cgroupDriver: systemd$/m, 'cgroupDriver: cgroupfs')),
};

export default defect.transform;
