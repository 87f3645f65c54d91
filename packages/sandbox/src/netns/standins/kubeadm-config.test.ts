import { describe, expect, it } from 'vitest';
import { kubeadmDocumentError, kubeletConfiguration } from './kubeadm-config.js';

const init = (apiVersion: string, kubeletExtraArgs: unknown) => ({
  apiVersion,
  kind: 'InitConfiguration',
  nodeRegistration: { name: 'cp-1', kubeletExtraArgs },
});

describe("kubeadm's config decoding", () => {
  it('takes each API version with its own shape of arguments', () => {
    expect(kubeadmDocumentError(init('kubeadm.k8s.io/v1beta3', { 'node-ip': '10.0.0.1' }), 'v1.30.14')).toBeUndefined();
    expect(kubeadmDocumentError(init('kubeadm.k8s.io/v1beta4', [{ name: 'node-ip', value: '10.0.0.1' }]), 'v1.34.2')).toBeUndefined();
  });

  it("refuses either shape under the other version, in Go's decoder's words (the old reader took both)", () => {
    expect(kubeadmDocumentError(init('kubeadm.k8s.io/v1beta4', { 'node-ip': '10.0.0.1' }), 'v1.34.2')).toMatch(
      /json: cannot unmarshal object into Go struct field NodeRegistrationOptions\.nodeRegistration\.kubeletExtraArgs of type \[\]v1beta4\.Arg$/,
    );
    const cluster = { apiVersion: 'kubeadm.k8s.io/v1beta3', kind: 'ClusterConfiguration', apiServer: { extraArgs: [{ name: 'v', value: '2' }] } };
    expect(kubeadmDocumentError(cluster, 'v1.30.14')).toMatch(
      /cannot unmarshal array into Go struct field ControlPlaneComponent\.apiServer\.extraArgs of type map\[string\]string$/,
    );
  });

  it('refuses an API version the kubeadm does not read', () => {
    expect(kubeadmDocumentError(init('kubeadm.k8s.io/v1beta4', []), 'v1.30.14')).toMatch(
      /no kind "InitConfiguration" is registered for version "kubeadm\.k8s\.io\/v1beta4"/,
    );
  });

  it("writes the KubeletConfiguration given, with kubeadm's systemd default for the cgroup driver", () => {
    expect(kubeletConfiguration(undefined)).toEqual({ apiVersion: 'kubelet.config.k8s.io/v1beta1', kind: 'KubeletConfiguration', cgroupDriver: 'systemd' });
    expect(kubeletConfiguration({ kind: 'KubeletConfiguration', cgroupDriver: 'cgroupfs', maxPods: 50 })).toMatchObject({
      cgroupDriver: 'cgroupfs',
      maxPods: 50,
    });
  });
});
