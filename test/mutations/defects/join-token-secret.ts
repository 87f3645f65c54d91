import { editFile, FILES, isWorker, type Defect } from '../defect.js';

export const defect: Defect = {
  id: 'join-token-secret',
  does: 'workers join with the right token id but another secret',
  breaks: { program: 'kubeadm', source: 'cmd/kubeadm/app/discovery/token/token.go (the JWS signature is made with the token secret)' },
  caughtBy: ['fast', 'netns'],
  message: /failed to verify JWS signature of received cluster info object/,
  transform: editFile(FILES.kubeadmConfig, (c) => c.replace(/(token: [a-z0-9]{6}\.)[a-z0-9]{16}/, '$1zzzzzzzzzzzzzzzz'), isWorker),
};

export default defect.transform;
