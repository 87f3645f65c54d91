import { parseAllDocuments } from 'yaml';
import { editFile, FILES, type Defect } from '../defect.js';

/** A JoinConfiguration's controlPlane given a certificateKey (as `kubeadm init --upload-certs` prints one). */
function withCertificateKey(config: string): string {
  return parseAllDocuments(config)
    .map((doc) => {
      if (doc.get('kind') === 'JoinConfiguration' && doc.has('controlPlane'))
        doc.setIn(['controlPlane', 'certificateKey'], 'e6a2eb8581237ab72a4f494f30285ec12a9694d750b9785706a83bfcbbbd2204');
      return doc.toString();
    })
    .join('');
}

export const defect: Defect = {
  id: 'control-plane-join-certificate-key',
  does: 'the control planes that join are given a certificateKey, though no control plane ever uploaded the certificates',
  breaks: {
    program: 'kubeadm',
    source:
      'cmd/kubeadm/app/phases/copycerts/copycerts.go DownloadCerts (the kubeadm-certs Secret and the Role that lets bootstrap tokens ' +
      'read it come only from upload-certs)',
  },
  example: 'hybrid-aws-hetzner.yaml',
  caughtBy: ['fast', 'netns'],
  message: /error downloading the secret: secrets "kubeadm-certs" is forbidden/,
  transform: editFile(FILES.kubeadmConfig, withCertificateKey, (m) => m.mode === 'join-control-plane'),
};

export default defect.transform;
