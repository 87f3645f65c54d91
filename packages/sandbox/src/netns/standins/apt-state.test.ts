import { describe, expect, it } from 'vitest';
import { kubernetesPackageVersionError, kubernetesPatchPublished } from './apt-state.js';

describe('the pkgs.k8s.io mirror: which Kubernetes package versions exist', () => {
  it('takes a released patch from its minor repository', () => {
    expect(kubernetesPackageVersionError('1.34', 'kubelet', '1.34.2-1.1')).toBeUndefined();
    expect(kubernetesPackageVersionError('1.30', 'kubeadm', '1.30.14-1.1')).toBeUndefined();
    expect(kubernetesPackageVersionError('1.24', 'kubeadm', '1.24.0-1.1')).toBeUndefined();
  });

  it('refuses a patch that was never released, as apt does (the old rule took any patch of the minor)', () => {
    expect(kubernetesPackageVersionError('1.34', 'kubelet', '1.34.99-1.1')).toBe("E: Version '1.34.99-1.1' for 'kubelet' was not found");
    // 1.30 reached its end of life at 1.30.14: its list is final.
    expect(kubernetesPackageVersionError('1.30', 'kubelet', '1.30.15-1.1')).toMatch(/was not found/);
    expect(kubernetesPatchPublished(29, 15)).toBe(true);
    expect(kubernetesPatchPublished(29, 16)).toBe(false);
  });

  it('refuses another minor in the repository and minors before pkgs.k8s.io began', () => {
    expect(kubernetesPackageVersionError('1.33', 'kubelet', '1.34.2-1.1')).toMatch(/was not found/);
    expect(kubernetesPatchPublished(23, 0)).toBe(false);
  });

  it('takes patches past the source for minors still supported when it was read, up to the estimate', () => {
    expect(kubernetesPatchPublished(34, 3)).toBe(true);
    expect(kubernetesPatchPublished(36, 1)).toBe(true);
    expect(kubernetesPatchPublished(36, 16)).toBe(false);
  });
});
