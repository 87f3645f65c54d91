import { reissue } from '../certificates.js';
import { isControlPlane, PKI, type Defect } from '../defect.js';

export const defect: Defect = {
  id: 'apiserver-san-endpoint',
  does: "the API server's serving certificate lacks the control-plane endpoint's address among its SANs",
  breaks: {
    program: 'kubeadm',
    source: 'cmd/kubeadm/app/phases/certs/certs.go validateCertificateWithConfig; cmd/kubeadm/app/util/pkiutil/pki_helpers.go GetAPIServerAltNames',
  },
  caughtBy: ['fast', 'netns'],
  message: /certificate apiserver is invalid: x509: certificate is valid for .*, not /,
  transform: (machine, files) =>
    isControlPlane(machine)
      ? reissue(files, { ...PKI.apiServer, ...PKI.ca }, (names) => ({
          dnsNames: names.dnsNames,
          ips: names.ips.filter((ip) => ip !== machine.publicIPv4 && !ip.startsWith('198.18.')),
        }))
      : files,
};

export default defect.transform;
