import { editFile, FILES, type Defect } from '../defect.js';

export const defect: Defect = {
  id: 'control-plane-endpoint-foreign',
  does: "the first control plane's controlPlaneEndpoint is an address no machine of the cluster holds",
  breaks: {
    program: 'kubeadm',
    source: 'cmd/kubeadm/app/phases/uploadconfig and kubeconfig (kubeadm init talks to the API through controlPlaneEndpoint from its upload-config phase on)',
  },
  caughtBy: ['fast', 'netns'],
  message: /198\.18\.99\.99/,
  transform: editFile(
    FILES.kubeadmConfig,
    (c) => c.replace(/^(controlPlaneEndpoint: )[^\n:]+:/m, '$1198.18.99.99:'),
    (m) => m.mode === 'init',
  ),
};

export default defect.transform;
