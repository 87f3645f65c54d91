import { editFile, FILES, type Defect } from '../defect.js';

export const defect: Defect = {
  id: 'kubeadm-config-yaml',
  does: 'the kubeadm configuration is indented with a tab, which YAML forbids',
  breaks: {
    program: 'kubeadm',
    source: 'cmd/kubeadm/app/util/config (the config is YAML converted to JSON: sigs.k8s.io/yaml); https://yaml.org/spec/1.2.2/#61-indentation-spaces',
  },
  caughtBy: ['fast', 'netns'],
  message: /error converting YAML to JSON/,
  transform: editFile(FILES.kubeadmConfig, (c) => c.replace(/^(kind: \w+Configuration)$/m, '$1\n\tbroken: true')),
};

export default defect.transform;
