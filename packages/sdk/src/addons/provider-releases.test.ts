import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../engine/ports/kubernetes.js';
import { findProviderRelease, providerUpgradeProblem } from './provider-releases.js';

/** A Helm 3 release Secret as the storage driver writes it (base64 of base64 of gzipped JSON). */
const releaseSecret = (name: string, namespace: string, revision: number, chart: string, version: string, config: Record<string, unknown>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: `sh.helm.release.v1.${name}.v${revision}`, namespace, labels: { owner: 'helm', name, version: String(revision) } },
  data: {
    release: Buffer.from(
      gzipSync(
        Buffer.from(
          JSON.stringify({ name, namespace, version: revision, info: { status: 'deployed' }, chart: { metadata: { name: chart, version } }, config }),
        ),
      ).toString('base64'),
    ).toString('base64'),
  },
});

describe("a managed service's add-on releases", () => {
  it('finds the release by its chart, at its newest revision, with the values the service installed it with', () => {
    const cmk = { crusoe: { secrets: { crusoeApiKeys: { secretName: 'cmk-lab' } } } };
    const found = findProviderRelease('crusoe-csi-driver', [
      releaseSecret('crusoe-csi-driver', 'crusoe-system', 1, 'crusoe-csi-driver', '0.6.2', cmk),
      releaseSecret('crusoe-csi-driver', 'crusoe-system', 2, 'crusoe-csi-driver', '0.7.0', { ...cmk, extra: true }),
      releaseSecret('metrics-server', 'kube-system', 1, 'metrics-server', '3.13.0', {}),
    ]);
    expect(found).toEqual({ name: 'crusoe-csi-driver', namespace: 'crusoe-system', version: '0.7.0', status: 'deployed', serviceValues: cmk });
    expect(findProviderRelease('gpu-operator', [])).toBeNull();
  });

  it('refuses a CSI upgrade from before 0.7.0 past it, and says to go to 0.7.0 first', () => {
    expect(providerUpgradeProblem('crusoe_csi', '0.6.2', '0.10.3', undefined)).toMatch(/Set version: "0\.7\.0" and apply, then version: "0\.10\.3"/);
    expect(providerUpgradeProblem('crusoe_csi', '0.6.2', '0.7.0', undefined)).toBeNull();
    expect(providerUpgradeProblem('crusoe_csi', '0.7.0', '0.10.3', undefined)).toBeNull();
  });

  it("asks NFS mode for chart 0.10.3 or later, whether the version is the manifest's or the one CMK installed", () => {
    expect(providerUpgradeProblem('crusoe_csi', '0.9.0', undefined, { nfs: true })).toMatch(/NFS mode needs chart 0\.10\.3 or later.*set version: "0\.10\.3"/);
    expect(providerUpgradeProblem('crusoe_csi', '0.9.0', '0.10.3', { nfs: true })).toBeNull();
    expect(providerUpgradeProblem('crusoe_csi', '0.10.3', undefined, { nfs: true })).toBeNull();
  });

  it('refuses a downgrade of what the service installed', () => {
    expect(providerUpgradeProblem('nvidia_gpu_operator', 'v25.3.2', 'v25.3.1', undefined)).toMatch(/does not downgrade it to v25\.3\.1/);
  });
});
