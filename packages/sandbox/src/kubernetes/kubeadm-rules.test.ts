import { createHmac, generateKeyPairSync } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  additionalControlPlaneError,
  formatPreflight,
  initPreflight,
  joinPreflight,
  kubeletSkewError,
  upgradeApplyErrors,
  upgradeNodeErrors,
  type NodeView,
} from './kubeadm-rules.js';
import { authenticateBootstrapToken, computeDetachedJws, publicKeyPin, signingTokens, verifyClusterInfo } from './token-discovery.js';

function view(files: Record<string, string>, extra: Partial<NodeView> = {}): NodeView {
  return {
    exists: (p) => Object.keys(files).some((f) => f === p || f.startsWith(`${p}/`)),
    read: (p) => files[p],
    entries: (p) => {
      const names = Object.keys(files)
        .filter((f) => f.startsWith(`${p}/`))
        .map((f) => f.slice(p.length + 1).split('/')[0] ?? '');
      return names.length > 0 || Object.keys(files).includes(p) ? [...new Set(names)] : undefined;
    },
    ...extra,
  };
}

const worker = { controlPlane: false, apiServerEndpoint: 'api.example.com:6443', kubeadmVersion: 'v1.34.2', kubeletVersion: 'v1.34.2' };

describe('kubeadm join preflight (JoinNodeChecks)', () => {
  it('fails a worker that has /etc/kubernetes/pki/ca.crt before join, in kubeadm words', () => {
    const result = joinPreflight(view({ '/etc/kubernetes/pki/ca.crt': 'x' }), worker);
    expect(result.errors).toEqual([{ check: 'FileAvailable--etc-kubernetes-pki-ca.crt', message: '/etc/kubernetes/pki/ca.crt already exists' }]);
    expect(formatPreflight(result)).toContain('[ERROR FileAvailable--etc-kubernetes-pki-ca.crt]: /etc/kubernetes/pki/ca.crt already exists');
    expect(formatPreflight(result)).toContain('error execution phase preflight: preflight checks failed');
  });

  it('lets a control plane join with the shared CA already in place', () => {
    const files = Object.fromEntries(
      ['ca.crt', 'ca.key', 'sa.key', 'sa.pub', 'front-proxy-ca.crt', 'front-proxy-ca.key', 'etcd/ca.crt', 'etcd/ca.key'].map((f) => [
        `/etc/kubernetes/pki/${f}`,
        'x',
      ]),
    );
    expect(joinPreflight(view(files), { ...worker, controlPlane: true }).errors).toEqual([]);
    expect(additionalControlPlaneError(view(files), 'api.example.com:6443')).toBeUndefined();
  });

  it('refuses a node with a kubelet kubeconfig or a bootstrap kubeconfig', () => {
    const result = joinPreflight(view({ '/etc/kubernetes/kubelet.conf': 'x', '/etc/kubernetes/bootstrap-kubelet.conf': 'x' }), worker);
    expect(result.errors.map((e) => e.check)).toEqual(['FileAvailable--etc-kubernetes-kubelet.conf', 'FileAvailable--etc-kubernetes-bootstrap-kubelet.conf']);
  });

  it('checks ip_forward only when the endpoint is an IP address', () => {
    const off = view({}, { ipForward: '0\n' });
    expect(joinPreflight(off, worker).errors).toEqual([]);
    expect(joinPreflight(off, { ...worker, apiServerEndpoint: '10.0.0.1:6443' }).errors).toEqual([
      { check: 'FileContent--proc-sys-net-ipv4-ip_forward', message: '/proc/sys/net/ipv4/ip_forward contents are not set to 1' },
    ]);
  });

  it('refuses to join without an installed kubelet, and with a busy kubelet port', () => {
    expect(joinPreflight(view({}), { ...worker, kubeletVersion: undefined }).errors[0]?.check).toBe('KubeletVersion');
    expect(joinPreflight(view({}, { portsInUse: new Set([10250]) }), worker).errors).toEqual([{ check: 'Port-10250', message: 'Port 10250 is in use' }]);
  });

  it('a control-plane join also needs free control-plane ports, manifests and an empty etcd data dir', () => {
    const result = joinPreflight(
      view({ '/var/lib/etcd/member/snap': 'x', '/etc/kubernetes/manifests/etcd.yaml': 'x' }, { portsInUse: new Set([2379, 6443]) }),
      { ...worker, controlPlane: true },
    );
    expect(result.errors.map((e) => e.check)).toEqual([
      'Port-6443',
      'FileAvailable--etc-kubernetes-manifests-etcd.yaml',
      'Port-2379',
      'DirAvailable--var-lib-etcd',
    ]);
    expect(result.errors.at(-1)?.message).toBe('/var/lib/etcd is not empty');
  });

  it('says which shared certificates a control-plane join lacks', () => {
    const message = additionalControlPlaneError(view({ '/etc/kubernetes/pki/ca.crt': 'x' }), 'api.example.com:6443') ?? '';
    expect(message).toContain('One or more conditions for hosting a new control plane instance is not satisfied.');
    expect(message).toContain('/etc/kubernetes/pki/ca.key');
    expect(message).not.toContain('open /etc/kubernetes/pki/ca.crt');
  });
});

describe('kubeadm init preflight (InitNodeChecks)', () => {
  const input = { kubernetesVersion: 'v1.34.2', kubeadmVersion: 'v1.34.2', kubeletVersion: 'v1.34.2' };

  it('passes on a clean node that has the CA placed (init uses an existing CA)', () => {
    expect(
      initPreflight(view({ '/etc/kubernetes/pki/ca.crt': 'x', '/etc/kubernetes/pki/ca.key': 'x' }, { ipForward: '1', portsInUse: new Set() }), input),
    ).toEqual({ errors: [], warnings: [] });
  });

  it('refuses existing static-pod manifests, a used etcd dir, ip_forward off', () => {
    const result = initPreflight(view({ '/etc/kubernetes/manifests/kube-apiserver.yaml': 'x', '/var/lib/etcd/member': 'x' }, { ipForward: '0' }), input);
    expect(result.errors.map((e) => e.check)).toEqual([
      'FileAvailable--etc-kubernetes-manifests-kube-apiserver.yaml',
      'FileContent--proc-sys-net-ipv4-ip_forward',
      'DirAvailable--var-lib-etcd',
    ]);
  });

  it('refuses a kubelet newer than the control plane it would run, and one too old for kubeadm', () => {
    expect(initPreflight(view({}), { ...input, kubeletVersion: 'v1.35.0' }).errors[0]?.message).toContain(
      'the kubelet version is higher than the control plane version',
    );
    expect(initPreflight(view({}), { ...input, kubeletVersion: 'v1.30.9' }).errors[0]?.message).toBe(
      'Kubelet version "v1.30.9" is lower than kubeadm can support. Please upgrade kubelet',
    );
  });

  it('warns (not fails) when asked for a Kubernetes minor newer than kubeadm', () => {
    const result = initPreflight(view({}), { ...input, kubernetesVersion: 'v1.35.0', kubeletVersion: 'v1.34.2' });
    expect(result.errors).toEqual([]);
    expect(result.warnings[0]?.message).toContain('Kubernetes version is greater than kubeadm version');
    expect(formatPreflight(result)).toMatch(/^\t\[WARNING KubernetesVersion\]/);
  });
});

describe('version skew', () => {
  it('a kubelet may be up to three minors older than the API server, never newer', () => {
    expect(kubeletSkewError('v1.31.0', 'v1.34.2')).toBeUndefined();
    expect(kubeletSkewError('v1.34.9', 'v1.34.2')).toBeUndefined();
    expect(kubeletSkewError('v1.30.0', 'v1.34.2')).toContain('lower than kubeadm can support');
    expect(kubeletSkewError('v1.35.0', 'v1.34.2')).toContain('higher than the control plane version');
  });

  it('upgrade apply goes one minor at a time, never down, never past kubeadm', () => {
    expect(upgradeApplyErrors({ clusterVersion: 'v1.33.4', kubeadmVersion: 'v1.34.2', target: 'v1.34.2' })).toEqual([]);
    expect(upgradeApplyErrors({ clusterVersion: 'v1.32.4', kubeadmVersion: 'v1.34.2', target: 'v1.34.2' })).toEqual([
      'Specified version to upgrade to "v1.34.2" is too high; kubeadm can upgrade only 1 minor version at a time',
    ]);
    expect(upgradeApplyErrors({ clusterVersion: 'v1.34.2', kubeadmVersion: 'v1.33.1', target: 'v1.33.1' })[0]).toContain('downgrades are not supported');
    expect(upgradeApplyErrors({ clusterVersion: 'v1.33.4', kubeadmVersion: 'v1.33.4', target: 'v1.34.0' })[0]).toContain(
      'at least one minor release higher than the kubeadm minor release (1.33)',
    );
    expect(upgradeApplyErrors({ clusterVersion: 'v1.34.0', kubeadmVersion: 'v1.34.1', target: 'v1.34.2' })[0]).toContain('Upgrade kubeadm first');
    expect(upgradeApplyErrors({ clusterVersion: 'v1.33.4', kubeadmVersion: 'v1.34.2', target: 'v1.34.2', kubeletVersions: ['v1.30.1', 'v1.33.4'] })).toEqual([
      'There are kubelets in this cluster that are too old that have these versions [v1.30.1]',
    ]);
  });

  it('upgrade node follows the control plane and never overtakes it', () => {
    expect(upgradeNodeErrors({ clusterVersion: 'v1.34.2', kubeadmVersion: 'v1.34.2' })).toEqual([]);
    expect(upgradeNodeErrors({ clusterVersion: 'v1.33.4', kubeadmVersion: 'v1.34.2' })[0]).toContain(
      'the kubelet version is higher than the control plane version',
    );
  });
});

describe('token discovery (cluster-bootstrap jws, kubeadm discovery/token)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kubeadm-rules-'));
  const key = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  execFileSync('sh', ['-c', `cat > ${dir}/ca.key; openssl req -x509 -new -key ${dir}/ca.key -subj /CN=kubernetes -days 1 -out ${dir}/ca.crt`], { input: key });
  const caPem = readFileSync(join(dir, 'ca.crt'), 'utf8');
  rmSync(dir, { recursive: true, force: true });
  const kubeconfig = `apiVersion: v1\nkind: Config\nclusters:\n- cluster:\n    certificate-authority-data: ${Buffer.from(caPem).toString('base64')}\n    server: https://api.example.com:6443\n  name: ""\n`;
  const token = 'abcdef.0123456789abcdef';

  it('the detached JWS is a compact HS256 JWS with its payload elided, keyed by the token secret', () => {
    const jws = computeDetachedJws(kubeconfig, 'abcdef', '0123456789abcdef');
    const [header, empty, signature] = jws.split('.');
    expect(empty).toBe('');
    expect(JSON.parse(Buffer.from(header ?? '', 'base64url').toString())).toEqual({ alg: 'HS256', kid: 'abcdef' });
    const expected = createHmac('sha256', '0123456789abcdef')
      .update(`${header}.${Buffer.from(kubeconfig).toString('base64url')}`)
      .digest('base64url');
    expect(signature).toBe(expected);
  });

  it('trusts cluster-info signed for the token whose CA matches the pin', () => {
    const data = { kubeconfig, 'jws-kubeconfig-abcdef': computeDetachedJws(kubeconfig, 'abcdef', '0123456789abcdef') };
    const result = verifyClusterInfo(data, token, [publicKeyPin(caPem)]);
    expect(result).toEqual({ ok: true, value: { kubeconfig, caPem, server: 'https://api.example.com:6443' } });
  });

  it('rejects a wrong pin, a bad signature and a missing signature with kubeadm messages', () => {
    const data = { kubeconfig, 'jws-kubeconfig-abcdef': computeDetachedJws(kubeconfig, 'abcdef', '0123456789abcdef') };
    expect(verifyClusterInfo(data, token, [`sha256:${'0'.repeat(64)}`])).toEqual({
      ok: false,
      reason: `cluster CA found in cluster-info ConfigMap is invalid: none of the public keys "${publicKeyPin(caPem)}" are pinned`,
    });
    expect(verifyClusterInfo(data, 'abcdef.ffffffffffffffff', [publicKeyPin(caPem)])).toEqual({
      ok: false,
      reason: "failed to verify JWS signature of received cluster info object, can't trust this API Server",
    });
    expect(verifyClusterInfo({ kubeconfig }, token, [publicKeyPin(caPem)])).toMatchObject({
      ok: false,
      reason: expect.stringContaining('token id "abcdef" is invalid for this cluster or it has expired'),
    });
  });

  it('signs and authenticates only live tokens meant for it', () => {
    const b = (s: string): string => Buffer.from(s).toString('base64');
    const secret = (id: string, sec: string, extra: Record<string, string> = {}): { type: string; data: Record<string, string> } => ({
      type: 'bootstrap.kubernetes.io/token',
      data: { 'token-id': b(id), 'token-secret': b(sec), 'usage-bootstrap-signing': b('true'), 'usage-bootstrap-authentication': b('true'), ...extra },
    });
    const secrets = [secret('abcdef', '0123456789abcdef'), secret('zzzzzz', '0123456789abcdef', { expiration: b('2000-01-01T00:00:00Z') })];
    expect(signingTokens(secrets, Date.parse('2026-01-01'))).toEqual([{ id: 'abcdef', secret: '0123456789abcdef' }]);
    expect(authenticateBootstrapToken(token, secrets, 0)?.user).toBe('system:bootstrap:abcdef');
    expect(authenticateBootstrapToken('abcdef.ffffffffffffffff', secrets, 0)).toBeUndefined();
    expect(authenticateBootstrapToken('zzzzzz.0123456789abcdef', secrets, Date.parse('2026-01-01'))).toBeUndefined();
  });
});
