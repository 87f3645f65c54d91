import { FILES, type Defect } from '../defect.js';

export const defect: Defect = {
  id: 'ca-key-missing',
  does: "the first control plane is given the cluster CA's certificate without its key",
  breaks: {
    program: 'kubeadm',
    source: 'cmd/kubeadm/app/phases/certs/certs.go (without ca.key kubeadm can sign nothing: external CA mode needs every certificate present)',
  },
  caughtBy: ['fast', 'netns'],
  message: /failure loading ca certificate authority/,
  transform: (machine, files) => (machine.mode === 'init' ? files.filter((f) => f.path !== FILES.caKey) : files),
};

export default defect.transform;
