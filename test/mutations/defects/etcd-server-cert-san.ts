import { issueNew } from '../certificates.js';
import { editFile, FILES, isControlPlane, type Defect } from '../defect.js';

const STAGED = '/etc/kubeplane/pki/etcd';

export const defect: Defect = {
  id: 'etcd-server-cert-san',
  does: "control planes ship their own etcd serving certificate (placed beside the CAs), without the node's advertise address",
  breaks: {
    program: 'kubeadm',
    source: 'cmd/kubeadm/app/phases/certs/certs.go validateCertificateWithConfig; cmd/kubeadm/app/util/pkiutil/pki_helpers.go GetEtcdAltNames',
  },
  caughtBy: ['fast', 'netns'],
  message: /certificate etcd\/server is invalid: x509: certificate is valid for .*, not /,
  transform: (machine, files) => {
    if (!isControlPlane(machine)) return files;
    const config = files.find((f) => f.path === FILES.kubeadmConfig)?.content ?? '';
    const name = /^\s+name: (\S+)$/m.exec(config)?.[1] ?? machine.name;
    const placed = editFile(FILES.bootstrapScript, (c) => c.replace(/(for f in [^;\n]*etcd\/ca\.key)/, '$1 etcd/server.crt etcd/server.key'))(machine, files);
    return issueNew(
      placed,
      { caCert: `${STAGED}/ca.crt`, caKey: `${STAGED}/ca.key` },
      { cert: `${STAGED}/server.crt`, key: `${STAGED}/server.key` },
      { subject: `CN=${name}`, usage: 'server', dnsNames: [name, 'localhost'], ips: ['127.0.0.1', '::1'] },
    );
  },
};

export default defect.transform;
