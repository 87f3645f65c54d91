// Pinned versions of what nodes download at boot. Defaults are kept current by hand and can be overridden per
// render; the Kubernetes packages themselves follow the cluster's version.
import type { BootstrapVersions, BootstrapKubernetesVersion } from './input.js';

export const DEFAULT_VERSIONS: BootstrapVersions = {
  cilium: '1.18.5',
  ciliumCli: 'v0.18.9',
  kubernetesPackageRevision: '1.1',
};

export function resolveVersions(overrides: Partial<BootstrapVersions> = {}): BootstrapVersions {
  return { ...DEFAULT_VERSIONS, ...overrides };
}

/** The pkgs.k8s.io repository of a minor: each minor has its own (`core:/stable:/v1.31/deb/`). */
export function kubernetesPackageRepository(version: BootstrapKubernetesVersion): string {
  return `https://pkgs.k8s.io/core:/stable:/v${version.major}.${version.minor}/deb/`;
}

/** The Debian package version of kubeadm/kubelet/kubectl for a Kubernetes version (`1.31.4-1.1`). */
export function kubernetesPackageVersion(version: BootstrapKubernetesVersion, versions: BootstrapVersions): string {
  return `${version.major}.${version.minor}.${version.patch}-${versions.kubernetesPackageRevision}`;
}
