import { editFile, FILES, type Defect } from '../defect.js';

export const defect: Defect = {
  id: 'package-version-unreleased',
  does: 'the script pins a patch of its minor that Kubernetes never released (1.N.99-1.1)',
  breaks: {
    program: 'cloud-init',
    source: 'https://kubernetes.io/releases/patch-releases/ (the patches released per minor; apt refuses a version its repository lacks)',
  },
  caughtBy: ['fast', 'netns'],
  message: /E: Version '\d+\.\d+\.99-[\d.]+' for 'kube\w+' was not found/,
  transform: editFile(FILES.bootstrapScript, (c) => c.replace(/^(readonly K8S_PACKAGE_VERSION=')(\d+\.\d+)\.\d+-/m, '$1$2.99-')),
};

export default defect.transform;
