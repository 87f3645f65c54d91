import type { Defect } from '../defect.js';

export const defect: Defect = {
  id: 'etcd-data-dir-not-empty',
  does: 'the first control plane finds a stale etcd member in /var/lib/etcd (user-data writes one there)',
  breaks: { program: 'kubeadm', source: 'cmd/kubeadm/app/preflight/checks.go DirAvailableCheck (DirAvailable--var-lib-etcd)' },
  caughtBy: [],
  healedBy: "the first attempt's preflight fails; the boot script's `kubeadm reset --force` (kubeadm_once) empties it, and the next attempt passes",
  message: /DirAvailable--var-lib-etcd/,
  transform: (machine, files) =>
    machine.mode === 'init' ? [...files, { path: '/var/lib/etcd/member/snap/db', content: 'stale', owner: 'root:root', permissions: '0600' }] : files,
};

export default defect.transform;
