import { describe, expect, it } from 'vitest';
import { CONTAINERD_DEFAULT_CONFIG, cgroupDriverError, kubeletCgroupDriver, parseContainerdConfig, runcSystemdCgroup } from './runtime-rules.js';

describe('the runtime contract between the kubelet and containerd', () => {
  it("reads containerd's default configuration as runc on cgroupfs, and the switched one as systemd", () => {
    const defaults = parseContainerdConfig(CONTAINERD_DEFAULT_CONFIG);
    if ('error' in defaults) throw new Error(defaults.error);
    expect(runcSystemdCgroup(defaults.config)).toBe(false);
    const switched = parseContainerdConfig(CONTAINERD_DEFAULT_CONFIG.replace('SystemdCgroup = false', 'SystemdCgroup = true'));
    expect('config' in switched && runcSystemdCgroup(switched.config)).toBe(true);
  });

  it('refuses what containerd cannot load: broken TOML, another config version', () => {
    expect(parseContainerdConfig('version = 2\n[plugins\n')).toEqual({
      error: expect.stringMatching(/^failed to load TOML from \/etc\/containerd\/config\.toml: /),
    });
    expect(parseContainerdConfig('version = 3\n')).toEqual({ error: expect.stringContaining('unsupported config version `3`') });
    expect(parseContainerdConfig('root = "/var/lib/containerd"\n')).toEqual({ error: expect.stringContaining('unsupported config version `1`') });
  });

  it("takes the kubelet's driver from its configuration, cgroupfs when unset (the kubelet's own default)", () => {
    expect(kubeletCgroupDriver('apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncgroupDriver: systemd\n')).toBe('systemd');
    expect(kubeletCgroupDriver('apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n')).toBe('cgroupfs');
  });

  it("fails every pod where runc is on systemd and the kubelet on cgroupfs, in runc's words", () => {
    expect(cgroupDriverError('cgroupfs', true, 'etcd-cp-1')).toMatch(
      /^Failed to create sandbox for pod "etcd-cp-1": .*expected cgroupsPath to be of format "slice:prefix:name" for systemd cgroups/,
    );
    expect(cgroupDriverError('systemd', true, 'etcd-cp-1')).toBeUndefined();
    expect(cgroupDriverError('cgroupfs', false, 'etcd-cp-1')).toBeUndefined();
  });
});
