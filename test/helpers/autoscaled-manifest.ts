// A small manifest for autoscaling tests and benchmarks: one Hetzner control plane and one autoscaled pool.
import { validateManifestText, type Manifest } from '@kubeplane/sdk';

export interface AutoscaledManifestOptions {
  project: string;
  pool: string;
  min: number;
  max: number;
  zone?: string;
  labels?: Record<string, string>;
  taint?: { key: string; value: string; effect: 'NoSchedule' | 'NoExecute' | 'PreferNoSchedule' };
}

export function autoscaledManifestText(o: AutoscaledManifestOptions): string {
  const where = `{ name: hetzner-1, region: fsn1${o.zone ? `, zone: ${o.zone}` : ''} }`;
  const labels = o.labels ? `\n      labels: ${JSON.stringify(o.labels)}` : '';
  const taints = o.taint ? `\n      taints: [{ key: ${o.taint.key}, value: "${o.taint.value}", effect: ${o.taint.effect} }]` : '';
  return `apiVersion: kubeplane.dev/v1
kind: Manifest
metadata: { name: ${o.project} }
providers:
  - { name: hetzner-1, providerType: hetzner, secretRef: { env: { credentials: HCLOUD_TOKEN } } }
nodePools:
  dynamic:
    - { name: control, providerSpec: ${where}, count: 1, serverType: cpx22, image: ubuntu-24.04 }
    - name: ${o.pool}
      providerSpec: ${where}
      autoscaler: { min: ${o.min}, max: ${o.max} }
      serverType: cpx32
      image: ubuntu-24.04${labels}${taints}
kubernetes:
  clusters:
    - { name: ${o.project}, version: "1.34.2", network: 10.0.0.0/24, pools: { control: [control], compute: [${o.pool}] } }
`;
}

export function autoscaledManifest(o: AutoscaledManifestOptions): Manifest {
  const r = validateManifestText(autoscaledManifestText(o));
  const [m] = r.manifests;
  if (!r.ok || !m) throw new Error(`the autoscaled test manifest is invalid: ${r.errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`);
  return m;
}

/** The batch pool of the simulated-autoscaler tests and the benchmark: from zero, tainted, labelled. */
export const BATCH_POOL = {
  pool: 'batch',
  min: 0,
  labels: { 'workload.example.com/class': 'batch' },
  taint: { key: 'workload.example.com/batch', value: 'true', effect: 'NoSchedule' },
} as const;
/** Tolerations and selector of pods meant for the batch pool. */
export const BATCH_PODS = {
  nodeSelector: { 'workload.example.com/class': 'batch' },
  tolerations: [{ key: 'workload.example.com/batch', operator: 'Equal', value: 'true', effect: 'NoSchedule' }],
};
