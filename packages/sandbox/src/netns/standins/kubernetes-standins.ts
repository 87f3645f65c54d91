// What the harness needs to know of the Kubernetes stand-ins: the commands to put in the machines' PATH (each a
// shim `exec node <dist>/sandbox/netns/standins/<file> "$@"`) and how the systemctl stand-in runs the units they
// serve (the daemon's command line; it reports what the world needs itself). kube-apiserver and etcd are not in
// PATH: the kubelet stand-in runs them from kubeadm's static pod manifests.
import { fileURLToPath } from 'node:url';

export const KUBERNETES_COMMANDS = ['kubeadm', 'kubelet', 'kubectl', 'containerd', 'cilium'] as const;
export type KubernetesCommand = (typeof KUBERNETES_COMMANDS)[number];

/** The compiled module a command's shim runs. */
export function standinModule(command: KubernetesCommand): string {
  return fileURLToPath(new URL(`./${command}.js`, import.meta.url));
}

/**
 * systemd units whose ExecStart is a stand-in daemon: `systemctl start|restart <unit>` runs `command` (untracked:
 * daemons do not count as busy), `stop` kills it. The kubelet exits 1 without a kubeconfig, as the real one does
 * before kubeadm ran; systemd's Restart=always would start it again, so the systemctl stand-in should do so on
 * the next `start`/`restart` (kubeadm restarts it itself).
 */
export const KUBERNETES_UNITS: Record<string, { command: KubernetesCommand; args: string[] }> = {
  'kubelet.service': { command: 'kubelet', args: [] },
  'containerd.service': { command: 'containerd', args: [] },
};

/** Where the apt-get stand-in records an installed package (the file holds the version, e.g. `1.34.2-1.1`). */
export { INSTALLED_DIR } from './installed.js';
/** Events the Kubernetes stand-ins POST to /report. */
export const KUBERNETES_REPORTS = ['kubeadm-init-ok', 'kubeadm-join-ok', 'kubeadm-failed', 'kubeadm-upgrade-ok', 'kubelet-started', 'cilium-ok'] as const;
