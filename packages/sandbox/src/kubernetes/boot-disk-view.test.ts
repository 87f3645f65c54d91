import { describe, expect, it } from 'vitest';
import { joinPreflight } from './kubeadm-rules.js';
import { bootDiskView, placedFiles, scriptedContainerdConfig } from './boot-disk-view.js';
import { parseContainerdConfig, runcSystemdCgroup } from './runtime-rules.js';
import { renderGolden, userDataFor } from './fixture.js';
import { readBootConfig } from './user-data.js';

const SCRIPT = '/usr/local/sbin/kubeplane-bootstrap';

describe('the disk a boot script leaves for kubeadm', () => {
  it('reads the certificates place_certificates installs, single lines and loops', () => {
    const script =
      'place_certificates() {\n  install -d -m 0755 /etc/kubernetes/pki\n  install -m 0644 ${STAGING_DIR}/pki/ca.crt /etc/kubernetes/pki/ca.crt\n  local f\n  for f in ca.key etcd/ca.crt; do\n    install -m 0600 "${STAGING_DIR}/pki/$f" "/etc/kubernetes/pki/$f"\n  done\n}\n';
    expect(placedFiles(script)).toEqual([
      ['/etc/kubeplane/pki/ca.crt', '/etc/kubernetes/pki/ca.crt'],
      ['/etc/kubeplane/pki/ca.key', '/etc/kubernetes/pki/ca.key'],
      ['/etc/kubeplane/pki/etcd/ca.crt', '/etc/kubernetes/pki/etcd/ca.crt'],
    ]);
  });

  it("gives the rule table a rendered worker's disk: whether its join passes preflight follows its script", async () => {
    const { rendered } = await renderGolden();
    const worker = rendered.nodes.find((n) => n.role === 'compute');
    if (!worker) throw new Error('no worker');
    const config = readBootConfig(userDataFor(worker));
    const script = config.files.get(SCRIPT) ?? '';
    const view = bootDiskView(config, script);
    const placesCa = placedFiles(script).some(([, dst]) => dst === '/etc/kubernetes/pki/ca.crt');
    const result = joinPreflight(view, {
      controlPlane: false,
      apiServerEndpoint: config.kubeadm?.join?.apiServerEndpoint ?? '',
      kubeadmVersion: 'v1.31.4',
      kubeletVersion: 'v1.31.4',
    });
    expect(result.errors.map((e) => e.check)).toEqual(placesCa ? ['FileAvailable--etc-kubernetes-pki-ca.crt'] : []);
    expect(view.ipForward).toBe('1\n');
  });

  it('gives a control plane the shared CA on disk, which its join needs', async () => {
    const { rendered } = await renderGolden();
    const cp = rendered.nodes.find((n) => n.mode === 'join-control-plane');
    if (!cp) throw new Error('no joining control plane');
    const config = readBootConfig(userDataFor(cp));
    const view = bootDiskView(config, config.files.get(SCRIPT) ?? '');
    expect(view.exists('/etc/kubernetes/pki/ca.key')).toBe(true);
    expect(view.exists('/etc/kubernetes/pki/etcd/ca.key')).toBe(true);
    expect(
      joinPreflight(view, { controlPlane: true, apiServerEndpoint: 'api.hybrid.example.com:6443', kubeadmVersion: 'v1.31.4', kubeletVersion: 'v1.31.4' })
        .errors,
    ).toEqual([]);
  });

  it("leaves containerd's configuration as the rendered script's sed lines make it (runc on systemd, kubeadm's pause image)", async () => {
    const { rendered } = await renderGolden();
    const node = rendered.nodes[0];
    if (!node) throw new Error('no node');
    const config = readBootConfig(userDataFor(node));
    const script = config.files.get(SCRIPT) ?? '';
    const toml = bootDiskView(config, script).read('/etc/containerd/config.toml') ?? '';
    const parsed = parseContainerdConfig(toml);
    if ('error' in parsed) throw new Error(parsed.error);
    expect(runcSystemdCgroup(parsed.config)).toBe(true);
    const pause = /^readonly PAUSE_IMAGE='([^']+)'$/m.exec(script)?.[1];
    expect(pause).toMatch(/^registry\.k8s\.io\/pause:/);
    expect(toml).toContain(`    sandbox_image = "${pause}"`);
    // A script that drops the switch leaves containerd's default, cgroupfs.
    const without = scriptedContainerdConfig(script.replace(/^\s*sed -i 's\/SystemdCgroup.*$/m, ''));
    const defaults = parseContainerdConfig(without ?? '');
    expect('config' in defaults && runcSystemdCgroup(defaults.config)).toBe(false);
    expect(scriptedContainerdConfig('#!/bin/bash\n')).toBeUndefined();
  });
});
