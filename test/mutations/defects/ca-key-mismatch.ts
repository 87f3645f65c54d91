import { FILES, type Defect } from '../defect.js';

export const defect: Defect = {
  id: 'ca-key-mismatch',
  does: "the cluster CA's private key is the front-proxy CA's, not the one its certificate was made with",
  breaks: {
    program: 'kubeadm',
    source: 'cmd/kubeadm/app/util/pkiutil/pki_helpers.go TryLoadCertAndKeyFromDisk; certs.go validateCACertAndKey (the key must match the certificate)',
  },
  caughtBy: ['fast', 'netns'],
  message: /failure loading ca certificate authority/,
  transform: (machine, files) => {
    if (machine.mode !== 'init') return files;
    const other = files.find((f) => f.path === '/etc/kubeplane/pki/front-proxy-ca.key')?.content;
    return other === undefined ? files : files.map((f) => (f.path === FILES.caKey ? { ...f, content: other } : f));
  },
};

export default defect.transform;
