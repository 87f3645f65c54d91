// What `GET /version` answers: apimachinery's version.Info for the cluster's Kubernetes version, every field set as a
// release build of kube-apiserver sets it (the Python client refuses an answer without buildDate, goVersion, …).
// Field set: k8s.io/apimachinery/pkg/version/types.go; emulationMajor/Minor and minCompatibilityMajor/Minor are
// there from 1.33 on (the compatibility versions of KEP-4330), empty and left out before.
import { createHash } from 'node:crypto';

export interface VersionInfo {
  major: string;
  minor: string;
  emulationMajor?: string;
  emulationMinor?: string;
  minCompatibilityMajor?: string;
  minCompatibilityMinor?: string;
  gitVersion: string;
  gitCommit: string;
  gitTreeState: string;
  buildDate: string;
  goVersion: string;
  compiler: string;
  platform: string;
}

/**
 * Per minor: the day its .0 was released (the release announcements on kubernetes.io/blog) and the Go release the
 * .0 was built with (build/build-image/cross/VERSION and .go-version at the tag; "Kubernetes is now built with Go …"
 * in CHANGELOG-1.NN.md). Checked against a source while writing this: 1.34 (.go-version 1.24.6 at v1.34.0, 1.24.9 at
 * v1.34.2, in the release-1.34 bump) and 1.36's day (22 April 2026). The others are as the release notes gave them
 * and were not looked up again; 1.36's Go release was not found and is the Go current at its .0 (1.26).
 * Patches move to newer Go releases; PATCH_GO holds those that were looked up.
 */
const MINORS: Record<number, { released: string; go: string }> = {
  24: { released: '2022-05-03', go: 'go1.18.1' },
  25: { released: '2022-08-23', go: 'go1.19' },
  26: { released: '2022-12-08', go: 'go1.19.4' },
  27: { released: '2023-04-11', go: 'go1.20.3' },
  28: { released: '2023-08-15', go: 'go1.20.7' },
  29: { released: '2023-12-13', go: 'go1.21.5' },
  30: { released: '2024-04-17', go: 'go1.22.2' },
  31: { released: '2024-08-13', go: 'go1.22.5' },
  32: { released: '2024-12-11', go: 'go1.23.3' },
  33: { released: '2025-04-23', go: 'go1.24.2' },
  34: { released: '2025-08-27', go: 'go1.24.6' },
  35: { released: '2025-12-17', go: 'go1.25.5' },
  36: { released: '2026-04-22', go: 'go1.26.2' },
};

/** Patches whose Go release was looked up (v1.34.2: .go-version 1.24.9 in the release's bump of the build image). */
const PATCH_GO: Record<string, string> = {
  'v1.34.2': 'go1.24.9',
};

/** A minor's patches come out about monthly (https://kubernetes.io/releases/patch-releases/). */
const PATCH_CADENCE_DAYS = 30;

/**
 * `/version` of a cluster running `kubernetesVersion` (`v1.34.2`; a distribution's `1.33.4-cmk.15` answers its
 * upstream version, as CMK's API servers do), on linux/amd64 as the sandbox's machines are.
 */
export function versionInfo(kubernetesVersion: string): VersionInfo {
  const m = /^v?(\d+)\.(\d+)\.(\d+)/.exec(kubernetesVersion);
  const major = Number(m?.[1] ?? 1);
  const minor = Number(m?.[2] ?? 0);
  const patch = Number(m?.[3] ?? 0);
  const gitVersion = `v${major}.${minor}.${patch}`;
  const known = MINORS[minor] ?? MINORS[minor < 24 ? 24 : 36];
  // A patch's build day is not in the table: its .0's day plus the monthly cadence, at the hour builds finish.
  // Likewise its commit cannot be known here: a stable stand-in, the sha1 of the version, in the commit's form.
  const built = new Date(Date.parse(`${known?.released ?? '2025-08-27'}T17:00:00Z`) + patch * PATCH_CADENCE_DAYS * 86_400_000);
  return {
    major: String(major),
    minor: String(minor),
    ...(minor >= 33
      ? {
          emulationMajor: String(major),
          emulationMinor: String(minor),
          minCompatibilityMajor: String(major),
          minCompatibilityMinor: String(minor - 1),
        }
      : {}),
    gitVersion,
    gitCommit: createHash('sha1').update(gitVersion).digest('hex'),
    gitTreeState: 'clean',
    buildDate: built.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    goVersion: PATCH_GO[gitVersion] ?? known?.go ?? 'go1.24.6',
    compiler: 'gc',
    platform: 'linux/amd64',
  };
}
