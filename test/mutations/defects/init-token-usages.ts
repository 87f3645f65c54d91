import { editFile, FILES, type Defect } from '../defect.js';

export const defect: Defect = {
  id: 'init-token-usages',
  does: "the first control plane's bootstrap token may sign cluster-info but not authenticate (usages: [signing])",
  breaks: {
    program: 'kubeadm',
    source: 'BootstrapToken.Usages; the bootstrap token authenticator requires usage-bootstrap-authentication (plugin/pkg/auth/authenticator/token/bootstrap)',
  },
  caughtBy: ['fast', 'netns'],
  message: /Unauthorized/,
  transform: editFile(
    FILES.kubeadmConfig,
    (c) => c.replace(/usages:\n(\s+)- signing\n\s+- authentication/, 'usages:\n$1- signing'),
    (m) => m.mode === 'init',
  ),
};

export default defect.transform;
