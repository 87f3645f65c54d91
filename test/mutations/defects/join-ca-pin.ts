import { editFile, FILES, isWorker, type Defect } from '../defect.js';

export const defect: Defect = {
  id: 'join-ca-pin',
  does: 'workers pin a CA public key hash that is not the cluster CA',
  breaks: { program: 'kubeadm', source: 'cmd/kubeadm/app/discovery/token/token.go (caCertHashes: the cluster-info CA must match a pin)' },
  caughtBy: ['fast', 'netns'],
  message: /none of the public keys .* are pinned/,
  transform: editFile(FILES.kubeadmConfig, (c) => c.replace(/sha256:[0-9a-f]{64}/, `sha256:${'0'.repeat(64)}`), isWorker),
};

export default defect.transform;
