// Pinned versions of what nodes download at boot. Defaults are kept current by hand and can be overridden per
// render; the Kubernetes packages themselves follow the cluster's version.
import type { BootstrapVersions, BootstrapKubernetesVersion } from './input.js';

/**
 * The primary key that signs pkgs.k8s.io's `core:/stable:` repositories (OBS project isv:kubernetes), as
 * `gpg --show-keys --with-colons Release.key` prints it in its `fpr` record. Published with kubeadm's install guide
 * and pinned the same way by puppetlabs-kubernetes and cloud-init users (`keyid: DE15B144…`).
 */
export const KUBERNETES_RELEASE_KEY_FINGERPRINT = 'DE15B14486CD377B9E876E1A234654DA9A296436';
/** Where the verified key goes; the apt source names it with `signed-by=`. Shared with the mesh agent's upgrade path. */
export const KUBERNETES_APT_KEYRING = '/etc/apt/keyrings/kubernetes-apt-keyring.gpg';

/** The pinned versions of what nodes install beside Kubernetes (Cilium, its CLI, the package revision and its signing key). */
export const DEFAULT_VERSIONS: BootstrapVersions = {
  cilium: '1.18.5',
  ciliumCli: 'v0.18.9',
  kubernetesPackageRevision: '1.1',
  kubernetesReleaseKeyFingerprint: KUBERNETES_RELEASE_KEY_FINGERPRINT,
};

/** The default versions with the given ones overriding them. */
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

/**
 * kubeadm's `PauseVersion` (cmd/kubeadm/app/constants/constants.go on each release-1.x branch): the sandbox image
 * kubeadm pre-pulls and expects the runtime to use (`kubeadm config images list`). containerd must be told the same
 * image, or it pulls its own default and kubeadm warns that the sandbox image is inconsistent. Sources: release-1.32
 * constants.go (3.10); kubeadm 1.31 `config images list` (3.10, wolfi-dev/os#30755); kubeadm 1.35.8 constants.go
 * (3.10.1); 1.36 moved to 3.10.2 (kubeclipper/kubeclipper#947); 1.24-1.28 from minikube's per-release table.
 * A minor newer than the table takes the newest entry.
 */
export const KUBEADM_PAUSE_VERSIONS: Readonly<Record<number, string>> = {
  24: '3.7',
  25: '3.8',
  26: '3.9',
  27: '3.9',
  28: '3.9',
  29: '3.9',
  30: '3.9',
  31: '3.10',
  32: '3.10',
  33: '3.10',
  34: '3.10.1',
  35: '3.10.1',
  36: '3.10.2',
};

/** The pause image kubeadm of this Kubernetes version uses (`registry.k8s.io/pause:3.10`). */
export function pauseImage(version: BootstrapKubernetesVersion): string {
  const minors = Object.keys(KUBEADM_PAUSE_VERSIONS)
    .map(Number)
    .sort((a, b) => a - b);
  const newest = minors[minors.length - 1] ?? 36;
  const minor = Math.min(version.minor, newest);
  const tag = KUBEADM_PAUSE_VERSIONS[minor];
  if (!tag) throw new Error(`no kubeadm pause version known for Kubernetes ${version.major}.${version.minor}`);
  return `registry.k8s.io/pause:${tag}`;
}
