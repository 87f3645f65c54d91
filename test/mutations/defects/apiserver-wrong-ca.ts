import { reissue } from '../certificates.js';
import { isControlPlane, PKI, type Defect } from '../defect.js';

export const defect: Defect = {
  id: 'apiserver-wrong-ca',
  does: "the API server's serving certificate is signed by the front-proxy CA, not the cluster CA",
  breaks: { program: 'kubeadm', source: 'cmd/kubeadm/app/phases/certs/certs.go validateSignedCertWithCA' },
  caughtBy: ['fast', 'netns'],
  message: /certificate apiserver not signed by CA certificate ca/,
  transform: (machine, files) => (isControlPlane(machine) ? reissue(files, { ...PKI.apiServer, ...PKI.frontProxyCa }, (names) => names) : files),
};

export default defect.transform;
