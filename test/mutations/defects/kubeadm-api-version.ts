import { editFile, FILES, type Defect } from '../defect.js';

export const defect: Defect = {
  id: 'kubeadm-api-version',
  does: 'the kubeadm configuration names kubeadm.k8s.io/v1beta2, which kubeadm no longer reads',
  breaks: { program: 'kubeadm', source: 'cmd/kubeadm/app/apis/kubeadm/v1beta4/doc.go (v1beta2 removed in 1.26; v1beta3 and v1beta4 read)' },
  caughtBy: ['fast', 'netns'],
  message: /no kind "\w+" is registered for version "kubeadm.k8s.io\/v1beta2"/,
  transform: editFile(FILES.kubeadmConfig, (c) => c.replace(/kubeadm\.k8s\.io\/v1beta[34]/g, 'kubeadm.k8s.io/v1beta2')),
};

export default defect.transform;
