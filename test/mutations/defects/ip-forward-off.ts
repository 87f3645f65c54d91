import { editFile, type Defect } from '../defect.js';

export const defect: Defect = {
  id: 'ip-forward-off',
  does: 'every machine sets net.ipv4.ip_forward = 0',
  breaks: { program: 'kubeadm', source: 'cmd/kubeadm/app/preflight/checks_linux.go addIPv4Checks (FileContent--proc-sys-net-ipv4-ip_forward)' },
  caughtBy: ['fast', 'netns'],
  message: /FileContent--proc-sys-net-ipv4-ip_forward/,
  transform: editFile('/etc/sysctl.d/90-kubeplane.conf', (c) => c.replace(/net\.ipv4\.ip_forward = 1/, 'net.ipv4.ip_forward = 0')),
};

export default defect.transform;
