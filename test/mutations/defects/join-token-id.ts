import { editFile, FILES, isWorker, type Defect } from '../defect.js';

export const defect: Defect = {
  id: 'join-token-id',
  does: 'workers join with a bootstrap token whose id the cluster never issued',
  breaks: { program: 'kubeadm', source: 'cmd/kubeadm/app/discovery/token/token.go (a JWS signature per token id in cluster-info)' },
  caughtBy: ['fast', 'netns'],
  message: /could not find a JWS signature in the cluster-info ConfigMap for token ID|token id "\w+" is invalid for this cluster or it has expired/,
  transform: editFile(FILES.kubeadmConfig, (c) => c.replace(/token: [a-z0-9]{6}\./, 'token: zzzzzz.'), isWorker),
};

export default defect.transform;
