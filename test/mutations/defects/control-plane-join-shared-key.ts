import type { Defect } from '../defect.js';

export const defect: Defect = {
  id: 'control-plane-join-shared-key',
  does: 'the control planes that join are given the shared certificates without the service-account key (sa.key)',
  breaks: {
    program: 'kubeadm',
    source: 'cmd/kubeadm/app/cmd/phases/join/preflight.go checkIfReadyForAdditionalControlPlane; phases/certs SharedCertificateExists',
  },
  example: 'hybrid-aws-hetzner.yaml',
  caughtBy: ['fast', 'netns'],
  message: /failure loading sa\.key/,
  transform: (machine, files) => (machine.mode === 'join-control-plane' ? files.filter((f) => f.path !== '/etc/kubeplane/pki/sa.key') : files),
};

export default defect.transform;
