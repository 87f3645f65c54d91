import { describe, expect, it } from 'vitest';
import { validateManifestText } from '../manifest/index.js';
import {
  CMK_NFS_GB200_WORKER_IMAGES,
  CMK_NFS_WORKER_IMAGES,
  compareCmkVersions,
  crusoeClusterWarnings,
  crusoeInstanceFamily,
  isInfinibandType,
  parseCmkVersion,
} from './crusoe.js';
import { crusoeManifestWarnings } from '../manifest/crusoe-warnings.js';

const codes = (w: Array<{ code: string }>) => w.map((x) => x.code);

describe('CMK versions', () => {
  it('parses a GB200 worker version with its variant', () => {
    expect(parseCmkVersion('1.33.4-cmk.5-gb200')).toEqual({ major: 1, minor: 33, patch: 4, build: 5, variant: 'gb200', minorVersion: '1.33' });
  });
  it('orders by the cmk build counter after the Kubernetes version', () => {
    const a = parseCmkVersion('1.33.4-cmk.4');
    const b = parseCmkVersion('1.33.4-cmk.15');
    if (!a || !b) throw new Error('parse failed');
    expect(compareCmkVersions(a, b)).toBeLessThan(0);
  });
  it('rejects a plain Kubernetes version as not a CMK version', () => {
    expect(parseCmkVersion('1.33.4')).toBeUndefined();
  });
  it("carries the seeds' NFS worker and GB200 images", () => {
    expect(CMK_NFS_WORKER_IMAGES['1.30']).toBe('1.30.8-cmk.16');
    expect(CMK_NFS_GB200_WORKER_IMAGES['1.33']).toBe('1.33.4-cmk.5-gb200');
  });
});

describe('instance families', () => {
  it('knows c1a, s1a and GPU families and InfiniBand types', () => {
    expect(crusoeInstanceFamily('c1a.16x')?.kind).toBe('cpu');
    expect(crusoeInstanceFamily('s1a.40x')?.family).toBe('s1a');
    expect(crusoeInstanceFamily('h100-80gb-sxm-ib.8x')?.kind).toBe('gpu');
    expect(crusoeInstanceFamily('gb200-186gb-nvl-ib.4x')?.architecture).toBe('arm64');
    expect(isInfinibandType('h100-80gb-sxm-ib.8x')).toBe(true);
    expect(isInfinibandType('l40s-48gb.8x')).toBe(false);
  });
});

describe('crusoeClusterWarnings', () => {
  const addons = ['crusoe_csi', 'nvidia_gpu_operator', 'nvidia_network_operator'];
  it('is silent for a current cluster with NFS-baked workers', () => {
    expect(
      crusoeClusterWarnings({
        version: '1.33.4-cmk.15',
        addons,
        nfs: true,
        pools: [
          { name: 'gpu', productName: 'h100-80gb-sxm-ib.8x', nodePoolVersion: '1.33.4-cmk.4' },
          { name: 'cpu', productName: 'c1a.16x', nodePoolVersion: '1.33.4-cmk.4' },
        ],
      }),
    ).toEqual([]);
  });
  it('warns about a worker image older than the NFS-capable one, naming the pool', () => {
    const w = crusoeClusterWarnings({
      version: '1.32.7-cmk.18',
      addons,
      nfs: true,
      pools: [{ name: 'cpu', productName: 'c1a.8x', nodePoolVersion: '1.32.7-cmk.3' }],
    });
    expect(codes(w)).toEqual(['worker-image-before-nfs']);
    expect(w[0]?.path).toBe('pools[0].nodePoolVersion');
    expect(w[0]?.message).toContain('1.32.7-cmk.16');
  });
  it('warns about a control plane before the NFS-capable CSI', () => {
    expect(codes(crusoeClusterWarnings({ version: '1.33.4-cmk.3', addons, nfs: true, pools: [] }))).toEqual(['control-plane-before-nfs-csi']);
  });
  it('warns when a GB200 pool does not use the GB200 worker image', () => {
    const w = crusoeClusterWarnings({
      version: '1.33.4-cmk.15',
      addons,
      pools: [{ name: 'gb', productName: 'gb200-186gb-nvl-ib.4x', nodePoolVersion: '1.33.4-cmk.4' }],
    });
    expect(codes(w)).toContain('gb200-image-mismatch');
  });
  it('warns about GPU and InfiniBand pools without their operators', () => {
    expect(codes(crusoeClusterWarnings({ version: '1.33.4-cmk.15', addons: [], pools: [{ name: 'gpu', productName: 'h200-141gb-sxm-ib.8x' }] }))).toEqual([
      'missing-gpu-operator',
      'missing-network-operator',
    ]);
  });
  it('warns about unsupported minors, skew and autoscaler defaults', () => {
    const w = crusoeClusterWarnings({
      version: '1.29.1-cmk.1',
      addons: ['cluster_autoscaler'],
      pools: [{ name: 'cpu', productName: 'c1a.8x', nodePoolVersion: '1.31.7-cmk.9' }],
    });
    expect(codes(w)).toEqual(['unsupported-version', 'autoscaler-defaults', 'version-skew']);
  });
  it('warns when AutoClusters has no GPU pool to remediate, once for the cluster', () => {
    const pools = [{ name: 'cpu', productName: 'c1a.16x', nodePoolVersion: '1.33.4-cmk.4', autoscaler: { min: 1, max: 2 } }];
    expect(crusoeClusterWarnings({ version: '1.33.4-cmk.20', autoClusters: true, addons, pools }).map((w) => [w.code, w.path])).toEqual([
      ['autoclusters-non-gpu', 'addons'],
    ]);
    expect(
      codes(
        crusoeClusterWarnings({
          version: '1.33.4-cmk.20',
          autoClusters: true,
          addons,
          pools: [...pools, { name: 'h100', productName: 'h100-80gb-sxm-ib.8x', nodePoolVersion: '1.33.4-cmk.4', autoscaler: { min: 1, max: 2 } }],
        }),
      ),
    ).toEqual([]);
  });
  it('warns when AutoClusters is asked of a version below its minimum', () => {
    expect(codes(crusoeClusterWarnings({ version: '1.33.4-cmk.15', autoClusters: true, addons, pools: [] }))).toEqual(['autoclusters-version']);
  });
});

describe('crusoeManifestWarnings', () => {
  const manifest = `
apiVersion: kubeplane.dev/v1
kind: Manifest
metadata: { name: gpu-lab }
providers:
  - name: crusoe-1
    providerType: crusoe
    secretRef: { env: { accesskey: CRUSOE_ACCESS_KEY_ID, secretkey: CRUSOE_SECRET_KEY } }
  - name: cf
    providerType: cloudflare
    secretRef: { env: { apitoken: CF_API_TOKEN, accountid: CF_ACCOUNT_ID } }
nodePools:
  dynamic:
    - name: h100
      providerSpec: { name: crusoe-1, region: us-east1-a }
      count: 2
      serverType: h100-80gb-sxm-ib.8x
      image: 1.33.4-cmk.3
      taints: [{ key: nvidia.com/gpu, value: present, effect: NoSchedule }]
    - name: cpu
      providerSpec: { name: crusoe-1, region: us-east1-a }
      autoscaler: { min: 1, max: 6 }
      serverType: c1a.16x
      image: 1.33.4-cmk.4
kubernetes:
  clusters:
    - name: gpu-lab
      version: "1.33.4-cmk.15"
      network: 10.200.0.0/24
      controlPlane: managed
      pools: { compute: [h100, cpu] }
      addons: [{ name: crusoe_csi }, { name: nvidia_gpu_operator }, { name: nvidia_network_operator }, { name: cluster_autoscaler }]
`;
  it("validates a CMK manifest and warns about the GPU pool's pre-NFS worker image by manifest path (a fixed pool is pinned, so no autoscaler-defaults)", () => {
    const result = validateManifestText(manifest);
    expect(result.errors).toEqual([]);
    const [parsed] = result.manifests;
    if (!parsed) throw new Error('no manifest');
    const warnings = crusoeManifestWarnings(parsed);
    expect(warnings.map((w) => [w.code, w.path])).toEqual([['worker-image-before-nfs', 'nodePools.dynamic[0].image']]);
    expect(warnings.every((w) => w.cluster === 'gpu-lab')).toBe(true);
  });
});
