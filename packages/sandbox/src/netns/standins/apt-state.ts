// The package database the apt stand-ins share, on the machine's disk (/var/lib, kept across reboots as dpkg's is):
// repositories apt-get update accepted, packages installed and their versions, holds (apt-mark).
import { readJson, RECORD_DIR, writeJson } from './records.js';

export interface AptState {
  /** Repositories whose Release signature checked out at the last `apt-get update`. */
  repos: Array<{ url: string; minor: string }>;
  installed: Record<string, string>;
  held: string[];
}

const PATH = `${RECORD_DIR}/apt.json`;

export function readAptState(): AptState {
  return readJson<AptState>(PATH, { repos: [], installed: {}, held: [] });
}

export function writeAptState(state: AptState): void {
  writeJson(PATH, state);
}

/** Packages only pkgs.k8s.io carries (https://kubernetes.io/docs/setup/production-environment/tools/kubeadm/install-kubeadm/). */
export const KUBERNETES_PACKAGES = new Set(['kubelet', 'kubeadm', 'kubectl', 'kubernetes-cni', 'cri-tools']);

/** Debian packages the sandbox provides as stand-ins although the host may not have them installed. */
export const STANDIN_DEBIAN_PACKAGES = new Set(['containerd']);

/** `https://pkgs.k8s.io/core:/stable:/v1.34/deb/` → `1.34` (the community repos: one repository per minor). */
export function kubernetesRepoMinor(url: string): string | undefined {
  return /^https:\/\/pkgs\.k8s\.io\/core:\/stable:\/v(\d+\.\d+)\/deb\/?$/.exec(url)?.[1];
}

/**
 * apt's refusal of a pinned Kubernetes package version the repository of `repoMinor` does not have: pkgs.k8s.io
 * serves one minor per repository, so X.Y.Z-N.M exists only in vX.Y's (https://kubernetes.io/blog/2023/08/15/
 * pkgs-k8s-io-introduction/). Shared by the apt-get stand-in and the fast simulation. Which patches a minor has is not
 * modelled: any patch of the minor is taken.
 */
export function kubernetesPackageVersionError(repoMinor: string, pkg: string, wanted: string): string | undefined {
  return new RegExp(`^${repoMinor.replace('.', '\\.')}\\.\\d+-\\d+\\.\\d+$`).test(wanted) ? undefined : `E: Version '${wanted}' for '${pkg}' was not found`;
}
