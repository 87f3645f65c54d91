// Every command a sandbox machine finds first in its PATH, and who provides it: the bin-dir shims are generated
// from this one table (H1: harness stand-ins, H2: Kubernetes stand-ins). Each name maps to standins/<name>.js.

export interface StandinEntry {
  /** The command name inside machines (`apt-get`). */
  command: string;
  /** The compiled module under dist/netns/standins/ (without .js). */
  module: string;
  owner: 'H1' | 'H2';
}

export const STANDINS: readonly StandinEntry[] = [
  { command: 'sleep', module: 'sleep', owner: 'H1' },
  { command: 'systemctl', module: 'systemctl', owner: 'H1' },
  { command: 'apt-get', module: 'apt-get', owner: 'H1' },
  { command: 'apt-mark', module: 'apt-mark', owner: 'H1' },
  { command: 'swapoff', module: 'swapoff', owner: 'H1' },
  { command: 'sysctl', module: 'sysctl', owner: 'H1' },
  { command: 'modprobe', module: 'modprobe', owner: 'H1' },
  { command: 'curl', module: 'curl', owner: 'H1' },
  // A machine's data disks (disks.ts): never the host's.
  { command: 'lsblk', module: 'lsblk', owner: 'H1' },
  { command: 'udevadm', module: 'udevadm', owner: 'H1' },
  { command: 'blkid', module: 'blkid', owner: 'H1' },
  { command: 'mkfs.ext4', module: 'mkfs-ext4', owner: 'H1' },
  { command: 'mount', module: 'mount', owner: 'H1' },
  { command: 'kubeadm', module: 'kubeadm', owner: 'H2' },
  { command: 'kubelet', module: 'kubelet', owner: 'H2' },
  { command: 'kubectl', module: 'kubectl', owner: 'H2' },
  { command: 'cilium', module: 'cilium', owner: 'H2' },
  { command: 'containerd', module: 'containerd', owner: 'H2' },
];

/** Units whose daemon is a stand-in: `systemctl start <unit>` runs `node <standins>/<module>.js --daemon`. */
export const DAEMON_UNITS: Readonly<Record<string, string>> = { containerd: 'containerd', kubelet: 'kubelet' };

/**
 * Units of `Type=notify` (containerd.service as containerd ships it; kubelet.service is `Type=simple`): `systemctl
 * start` waits until the daemon is ready and fails the job when it exits first. Readiness here: the path it listens on.
 */
export const NOTIFY_UNITS: Readonly<Record<string, { readyPath: string }>> = { containerd: { readyPath: '/run/containerd/containerd.sock' } };
