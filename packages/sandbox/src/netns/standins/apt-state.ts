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
 * The newest patch of each minor that pkgs.k8s.io serves (the repositories begin at 1.24.0, https://kubernetes.io/
 * blog/2023/08/15/pkgs-k8s-io-introduction/). Source: the release tags of kubernetes/kubernetes as minikube's
 * generated list has them (kubernetes/minikube pkg/minikube/constants/constants_kubernetes_versions.go, at commit
 * ac6d268, September 2025, newest 1.34.1). `final` where the minor had reached its end of life by then, so no
 * patch came after. For the others the list stopped mid-support: a patch beyond the newest known is taken up to
 * UNFINISHED_MINOR_PATCHES, the most patches a minor has had (1.28 and 1.29: .0 to .15, monthly over their 14
 * months), an estimate. 1.35 and 1.36 came after the list: 1.35.8 is known from the kubeadm source read for the
 * pause image (sdk bootstrap/versions.ts), 1.36 by its .0 only.
 */
const PUBLISHED_PATCHES: Readonly<Record<number, { newest: number; final: boolean }>> = {
  24: { newest: 17, final: true },
  25: { newest: 16, final: true },
  26: { newest: 15, final: true },
  27: { newest: 16, final: true },
  28: { newest: 15, final: true },
  29: { newest: 15, final: true },
  30: { newest: 14, final: true },
  31: { newest: 13, final: false },
  32: { newest: 9, final: false },
  33: { newest: 5, final: false },
  34: { newest: 1, final: false },
  35: { newest: 8, final: false },
  36: { newest: 0, final: false },
};
const UNFINISHED_MINOR_PATCHES = 15;

/** Whether pkgs.k8s.io has Kubernetes `1.minor.patch` (a minor newer than the table: its patches up to the estimate). */
export function kubernetesPatchPublished(minor: number, patch: number): boolean {
  if (minor < 24) return false;
  const known = PUBLISHED_PATCHES[minor];
  if (known?.final) return patch <= known.newest;
  return patch <= Math.max(known?.newest ?? 0, UNFINISHED_MINOR_PATCHES);
}

/**
 * apt's refusal of a pinned Kubernetes package version the repository of `repoMinor` does not have: pkgs.k8s.io
 * serves one minor per repository, so X.Y.Z-N.M exists only in vX.Y's, and only for the patches released (above).
 * Shared by the apt-get stand-in and the fast simulation.
 */
export function kubernetesPackageVersionError(repoMinor: string, pkg: string, wanted: string): string | undefined {
  const m = new RegExp(`^${repoMinor.replace('.', '\\.')}\\.(\\d+)-\\d+\\.\\d+$`).exec(wanted);
  const minor = Number(repoMinor.split('.')[1]);
  return m && kubernetesPatchPublished(minor, Number(m[1])) ? undefined : `E: Version '${wanted}' for '${pkg}' was not found`;
}
