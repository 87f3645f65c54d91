// One defect of the catalogue: a user-data transform (the sandbox's seam, SandboxOptions.userDataTransform and
// `--user-data-transform`) that breaks one rule of an upstream program, what it breaks with the source, and which
// modes must catch it with which family of message.
import type { UserDataFile, UserDataMachine, UserDataTransform } from '@kubeplane/sandbox';

export interface Defect {
  id: string;
  /** What the defect does to the rendered files. */
  does: string;
  /** The upstream program whose behaviour it breaks, and the source of that behaviour. */
  breaks: { program: 'kubeadm' | 'kubelet' | 'etcd' | 'WireGuard' | 'nginx' | 'cloud-init' | 'containerd'; source: string };
  /**
   * The modes that must catch it (fast: the simulation's rule tables; netns: real programs and the stand-ins). Empty
   * for a change a real machine recovers from (`healedBy` says how): both modes must then end DONE, so neither raises
   * a false alarm.
   */
  caughtBy: ReadonlyArray<'fast' | 'netns'>;
  /** What makes a real machine recover, when `caughtBy` is empty. */
  healedBy?: string;
  /** Why only netns can catch it, when fast is not among `caughtBy`. */
  netnsOnlyBecause?: string;
  /** The example the defect is tried on (default minimal.yaml: one control plane, two workers, no load balancer). */
  example?: 'minimal.yaml' | 'hybrid-aws-hetzner.yaml';
  /** The family of message either mode fails with (matched against the lifecycle's output). */
  message: RegExp;
  transform: UserDataTransform;
}

/** `edit` applied to the file at `path` on the machines `which` selects (all by default). */
export function editFile(
  path: string,
  edit: (content: string, machine: Readonly<UserDataMachine>) => string,
  which: (m: Readonly<UserDataMachine>) => boolean = () => true,
): UserDataTransform {
  return (machine, files) => (which(machine) ? files.map((f): UserDataFile => (f.path === path ? { ...f, content: edit(f.content, machine) } : f)) : files);
}

/** Files the renderer writes, as kubeplane names them (the boot script places them where kubeadm reads them). */
export const FILES = {
  wireguard: '/etc/wireguard/wg0.conf',
  kubeadmConfig: '/etc/kubeplane/kubeadm.yaml',
  caCert: '/etc/kubeplane/pki/ca.crt',
  caKey: '/etc/kubeplane/pki/ca.key',
  apiServerCert: '/etc/kubeplane/pki/apiserver.crt',
  apiServerKey: '/etc/kubeplane/pki/apiserver.key',
  bootstrapScript: '/usr/local/sbin/kubeplane-bootstrap',
} as const;

export const isControlPlane = (m: Readonly<UserDataMachine>): boolean => m.mode === 'init' || m.mode === 'join-control-plane';
export const isWorker = (m: Readonly<UserDataMachine>): boolean => m.mode === 'join';

/** The PKI the renderer ships to control planes (placed under /etc/kubernetes/pki by the boot script). */
export const PKI = {
  apiServer: { cert: '/etc/kubeplane/pki/apiserver.crt', key: '/etc/kubeplane/pki/apiserver.key' },
  ca: { caCert: '/etc/kubeplane/pki/ca.crt', caKey: '/etc/kubeplane/pki/ca.key' },
  frontProxyCa: { caCert: '/etc/kubeplane/pki/front-proxy-ca.crt', caKey: '/etc/kubeplane/pki/front-proxy-ca.key' },
} as const;
