import { editFile, FILES, type Defect } from '../defect.js';

export const defect: Defect = {
  id: 'package-repository-minor',
  does: "the script's pkgs.k8s.io repository is v1.33's, while it pins 1.34 packages",
  breaks: { program: 'cloud-init', source: 'https://kubernetes.io/blog/2023/08/15/pkgs-k8s-io-introduction/ (one repository per minor)' },
  caughtBy: ['fast', 'netns'],
  message: /E: Version '[\d.-]+' for 'kube\w+' was not found/,
  transform: editFile(FILES.bootstrapScript, (c) => c.replace(/stable:\/v1\.(\d+)\/deb/, (_m, minor: string) => `stable:/v1.${Number(minor) - 1}/deb`)),
};

export default defect.transform;
