// The Kubernetes version catalog: which minors kubeplane can install, and how a version string is read.
// Versions carry a patch number; CMK-style build suffixes (`1.33.4-cmk.15`) are understood, not stripped.

/** A Kubernetes minor in the catalog: whether it is supported and where its packages are. */
export interface KubernetesMinor {
  minor: number;
  /** Minors before 1.30 are still installable from pkgs.k8s.io but neither CMK nor Claudie supports them. */
  supported: boolean;
  /** First community package repository path for the minor (pkgs.k8s.io/core:/stable:/v1.NN/deb/). */
  packageRepo: string;
}

/** The oldest Kubernetes minor kubeplane can install. */
export const OLDEST_MINOR = 24; // the first minor published on the community package repositories
/** The oldest Kubernetes minor kubeplane supports without a warning. */
export const OLDEST_SUPPORTED_MINOR = 30;
/** The newest Kubernetes minor kubeplane can install. */
export const NEWEST_MINOR = 36;

/** Minors 1.24 .. 1.36; add a line when a new minor ships. */
export const KUBERNETES_MINORS: readonly KubernetesMinor[] = Array.from({ length: NEWEST_MINOR - OLDEST_MINOR + 1 }, (_, i) => {
  const minor = OLDEST_MINOR + i;
  return {
    minor,
    supported: minor >= OLDEST_SUPPORTED_MINOR,
    packageRepo: `https://pkgs.k8s.io/core:/stable:/v1.${minor}/deb/`,
  };
});

/** A Kubernetes version read from a manifest, with its pre-release and build suffix. */
export interface KubernetesVersion {
  major: 1;
  minor: number;
  patch: number;
  /** Pre-release tag, e.g. `rc.1` in `1.36.0-rc.1`. */
  prerelease?: string;
  /** Distribution build suffix, e.g. `cmk.15` in `1.33.4-cmk.15`; `cmk.5-gb200` for GB200 worker images. */
  build?: string;
  /** The version as written by the user, without a leading `v`. */
  raw: string;
}

/** The result of checking a version: the version (maybe with a warning), or why it is refused. */
export type VersionCheck = { ok: true; version: KubernetesVersion; warning?: string } | { ok: false; message: string };

const VERSION_RE = /^v?(\d+)\.(\d+)(?:\.(\d+))?(?:-([0-9A-Za-z.-]+))?(?:\+([0-9A-Za-z.-]+))?$/;
const CMK_BUILD_RE = /^cmk\.\d+(?:-[a-z0-9]+)?$/;

const supportedRange = `1.${OLDEST_SUPPORTED_MINOR}–1.${NEWEST_MINOR}`;

/**
 * The minors the two systems kubeplane stands in for support today, named in the warning for older ones.
 * Claudie: the version regex of internal/api/manifest/validate_kubernetes.go accepts 1.34–1.36 on main (KubeOne
 * 1.14), 1.33–1.35 in v0.13–v0.15. CMK: the control-plane and worker image tables of its add-on notes list
 * 1.30–1.33 (seeds/cmk-addons.txt).
 */
export const CLAUDIE_MINORS = { from: 34, to: 36 } as const;
/** The Kubernetes minors Crusoe Managed Kubernetes supports. */
export const CMK_MINORS = { from: 30, to: 33 } as const;
const whoSupports = `Claudie supports 1.${CLAUDIE_MINORS.from}–1.${CLAUDIE_MINORS.to}, Crusoe Managed Kubernetes 1.${CMK_MINORS.from}–1.${CMK_MINORS.to}`;

/** Reads and checks a version against the catalog; the message says what to write instead. */
export function checkKubernetesVersion(input: string): VersionCheck {
  const m = VERSION_RE.exec(input.trim());
  if (!m) {
    return { ok: false, message: `"${input}" is not a Kubernetes version; write it as 1.MINOR.PATCH, e.g. 1.${NEWEST_MINOR - 1}.2` };
  }
  const [, majorS, minorS, patchS, suffix, plusBuild] = m;
  const major = Number(majorS);
  const minor = Number(minorS);
  if (patchS === undefined) {
    return { ok: false, message: `version "${input}" needs a patch number, e.g. ${majorS}.${minorS}.0` };
  }
  if (major !== 1) {
    return { ok: false, message: `version "${input}" is not a Kubernetes 1.x version; supported: ${supportedRange}` };
  }
  if (minor < OLDEST_MINOR || minor > NEWEST_MINOR) {
    return {
      ok: false,
      message: `Kubernetes 1.${minor} is not in the catalog; supported: ${supportedRange} (1.${OLDEST_MINOR}–1.${OLDEST_SUPPORTED_MINOR - 1} with a warning)`,
    };
  }
  let prerelease: string | undefined;
  let build = plusBuild;
  if (suffix !== undefined) {
    if (CMK_BUILD_RE.test(suffix)) build = suffix;
    else prerelease = suffix;
  }
  const version: KubernetesVersion = {
    major: 1,
    minor,
    patch: Number(patchS),
    raw: input.trim().replace(/^v/, ''),
    ...(prerelease !== undefined ? { prerelease } : {}),
    ...(build !== undefined ? { build } : {}),
  };
  if (minor < OLDEST_SUPPORTED_MINOR) {
    return {
      ok: true,
      version,
      warning:
        `Kubernetes 1.${minor} is past its support window (${whoSupports}); kubeplane still ` +
        `installs it from pkgs.k8s.io, but upgrade to 1.${OLDEST_SUPPORTED_MINOR} or newer`,
    };
  }
  return { ok: true, version };
}

/** `1.33.4` for `1.33.4-cmk.15`: what the community packages are pinned to. */
export function upstreamVersion(v: KubernetesVersion): string {
  return `${v.major}.${v.minor}.${v.patch}${v.prerelease ? `-${v.prerelease}` : ''}`;
}

/** Orders versions by minor, patch, then CMK build number. */
export function compareKubernetesVersions(a: KubernetesVersion, b: KubernetesVersion): number {
  if (a.minor !== b.minor) return a.minor - b.minor;
  if (a.patch !== b.patch) return a.patch - b.patch;
  return buildNumber(a) - buildNumber(b);
}

function buildNumber(v: KubernetesVersion): number {
  const m = v.build ? /^cmk\.(\d+)/.exec(v.build) : null;
  return m ? Number(m[1]) : 0;
}
