import { editFile, FILES, type Defect } from '../defect.js';

export const defect: Defect = {
  id: 'init-token-ttl',
  does: "the first control plane's bootstrap token lives 1 second, so it has expired when the workers join",
  breaks: {
    program: 'kubeadm',
    source: 'cmd/kubeadm/app/apis/kubeadm/v1beta4 BootstrapToken.TTL; the token cleaner deletes expired tokens (pkg/controller/bootstrap/tokencleaner.go)',
  },
  caughtBy: ['fast', 'netns'],
  message: /could not find a JWS signature in the cluster-info ConfigMap for token ID|token id "\w+" is invalid for this cluster or it has expired/,
  transform: editFile(
    FILES.kubeadmConfig,
    (c) => c.replace(/ttl: [0-9hms]+/, 'ttl: 1s'),
    (m) => m.mode === 'init',
  ),
};

export default defect.transform;
