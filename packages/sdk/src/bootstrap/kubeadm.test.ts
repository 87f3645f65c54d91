import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { Redacted } from '../redacted.js';
import type { BootstrapCluster, BootstrapNode } from './input.js';
import { kubeadmApiVersion, renderKubeadmConfig, splitNodeLabels } from './kubeadm.js';

const control: BootstrapNode = {
  name: 'cp-1',
  role: 'control',
  pool: 'control',
  overlayIp: '192.168.2.1',
  labels: {},
  taints: [],
  os: 'ubuntu-24.04',
  arch: 'amd64',
  provider: 'aws',
};
const worker: BootstrapNode = {
  ...control,
  name: 'w-1',
  role: 'compute',
  pool: 'workers',
  overlayIp: '192.168.2.21',
  labels: { 'node-role.kubernetes.io/worker': '', 'topology.kubernetes.io/zone': 'fsn1-dc14', team: 'data' },
  taints: [{ key: 'gpu', value: 'true', effect: 'NoSchedule' }],
};

function cluster(minor: number): BootstrapCluster {
  return {
    name: 'demo',
    clusterId: 'demo-1',
    kubernetesVersion: { major: 1, minor, patch: 3 },
    apiEndpoint: { host: 'api.demo.example.com', port: 6443, kind: 'load-balancer-dns' },
    network: '192.168.2.0/24',
    podCidr: '10.244.0.0/16',
    serviceCidr: '10.96.0.0/12',
    nodes: [control, worker],
    loadBalancers: [],
    secretsAtRest: true,
  };
}

const token = Redacted.of('abcdef.0123456789abcdef');
const hash = `sha256:${'a'.repeat(64)}`;

function docs(minor: number, node: BootstrapNode, mode: 'init' | 'join' | 'join-control-plane'): Array<Record<string, any>> {
  const text = renderKubeadmConfig({ cluster: cluster(minor), node, mode, bootstrapToken: token, discoveryHash: hash }).reveal();
  return parseAllDocuments(text).map((d) => d.toJS() as Record<string, any>);
}

describe('kubeadm configuration', () => {
  it('uses v1beta3 up to Kubernetes 1.30 and v1beta4 from 1.31', () => {
    expect(kubeadmApiVersion({ major: 1, minor: 30, patch: 9 })).toBe('kubeadm.k8s.io/v1beta3');
    expect(kubeadmApiVersion({ major: 1, minor: 31, patch: 0 })).toBe('kubeadm.k8s.io/v1beta4');
    expect(docs(30, control, 'init').map((d) => `${d['apiVersion']}/${d['kind']}`)).toEqual([
      'kubeadm.k8s.io/v1beta3/InitConfiguration',
      'kubeadm.k8s.io/v1beta3/ClusterConfiguration',
      'kubelet.config.k8s.io/v1beta1/KubeletConfiguration',
    ]);
  });

  it('writes extraArgs as a map in v1beta3 and as a list of {name, value} in v1beta4', () => {
    const [v3] = docs(30, control, 'init');
    const [v4] = docs(31, control, 'init');
    expect(v3?.['nodeRegistration'].kubeletExtraArgs).toEqual({
      'node-ip': '192.168.2.1',
      'node-labels': 'kubeplane.dev/pool=control,kubeplane.dev/provider=aws',
    });
    expect(v4?.['nodeRegistration'].kubeletExtraArgs).toEqual([
      { name: 'node-ip', value: '192.168.2.1' },
      { name: 'node-labels', value: 'kubeplane.dev/pool=control,kubeplane.dev/provider=aws' },
    ]);
    expect(docs(31, control, 'init')[1]?.['apiServer'].extraArgs).toEqual([
      { name: 'encryption-provider-config', value: '/etc/kubernetes/encryption/config.yaml' },
    ]);
  });

  it('taints the control plane NoSchedule, skips kube-proxy and advertises the overlay IP', () => {
    const [init, clusterConfig, kubelet] = docs(31, control, 'init');
    expect(init?.['nodeRegistration'].taints).toEqual([{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }]);
    expect(init?.['skipPhases']).toEqual(['addon/kube-proxy']);
    expect(init?.['localAPIEndpoint']).toEqual({ advertiseAddress: '192.168.2.1', bindPort: 6443 });
    expect(init?.['bootstrapTokens'][0].token).toBe('abcdef.0123456789abcdef');
    expect(clusterConfig?.['controlPlaneEndpoint']).toBe('api.demo.example.com:6443');
    expect(clusterConfig?.['kubernetesVersion']).toBe('v1.31.3');
    expect(clusterConfig?.['apiServer'].certSANs).toEqual(['api.demo.example.com', '192.168.2.1']);
    expect(clusterConfig?.['etcd'].local.dataDir).toBe('/var/lib/etcd');
    expect(kubelet?.['cgroupDriver']).toBe('systemd');
  });

  it('joins a worker with the pinned CA hash, its own taints and only the labels a kubelet may set', () => {
    const [join] = docs(31, worker, 'join');
    expect(join?.['kind']).toBe('JoinConfiguration');
    expect(join?.['discovery'].bootstrapToken).toEqual({
      apiServerEndpoint: 'api.demo.example.com:6443',
      token: 'abcdef.0123456789abcdef',
      caCertHashes: [hash],
    });
    expect(join?.['timeouts']).toEqual({ discovery: '15m0s' });
    expect(join?.['controlPlane']).toBeUndefined();
    expect(join?.['nodeRegistration'].taints).toEqual([{ key: 'gpu', value: 'true', effect: 'NoSchedule' }]);
    expect(join?.['nodeRegistration'].kubeletExtraArgs).toContainEqual({
      name: 'node-labels',
      value: 'kubeplane.dev/pool=workers,kubeplane.dev/provider=aws,team=data,topology.kubernetes.io/zone=fsn1-dc14',
    });
    expect(splitNodeLabels(worker).deferred).toEqual({ 'node-role.kubernetes.io/worker': '' });
    const [v3join] = docs(30, worker, 'join');
    expect(v3join?.['discovery'].timeout).toBe('15m0s');
  });

  it('joins further control planes with their own advertise address', () => {
    const second = { ...control, name: 'cp-2', overlayIp: '192.168.2.2' };
    const [join] = docs(31, second, 'join-control-plane');
    expect(join?.['controlPlane']).toEqual({ localAPIEndpoint: { advertiseAddress: '192.168.2.2', bindPort: 6443 } });
    expect(join?.['nodeRegistration'].taints).toContainEqual({ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' });
  });

  it('refuses to initialise a cluster on a worker', () => {
    expect(() => renderKubeadmConfig({ cluster: cluster(31), node: worker, mode: 'init', bootstrapToken: token, discoveryHash: hash })).toThrow(
      /not a control-plane node/,
    );
  });
});
