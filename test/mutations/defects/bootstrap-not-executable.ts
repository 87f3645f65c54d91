import { FILES, type Defect } from '../defect.js';

export const defect: Defect = {
  id: 'bootstrap-not-executable',
  does: 'the bootstrap script cloud-init runs is written without the execute bit (0600)',
  breaks: {
    program: 'cloud-init',
    source: 'https://cloudinit.readthedocs.io/en/latest/reference/modules.html#runcmd (a list entry is exec-ed: the file must be executable)',
  },
  caughtBy: ['fast', 'netns'],
  message: /kubeplane-bootstrap: Permission denied/,
  transform: (_machine, files) => files.map((f) => (f.path === FILES.bootstrapScript ? { ...f, permissions: '0600' } : f)),
};

export default defect.transform;
