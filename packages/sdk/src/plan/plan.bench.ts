// Validate and plan a large manifest: 100 clusters, 1,000 pools, 10,000 nodes. The baseline, measured in
// the same run, is a structuredClone of the same document: it shows how fast this machine is right now.
import { toYaml } from '../yaml-text.js';
import { validateManifestObject, validateManifestText } from '../manifest/validate.js';
import { buildDesiredState } from '../model/desired-state.js';
import { emptyState } from '../model/types.js';
import { plan } from './plan.js';
import type { BenchResult } from '../../../../test/bench/types.js';

export function largeManifest(clusters = 100, poolsPerCluster = 10, nodesPerPool = 10): Record<string, unknown> {
  const dynamic: unknown[] = [];
  const k8s: unknown[] = [];
  // Each cluster's several control-plane nodes sit behind an API load balancer (one machine), as validation requires.
  const roles: unknown[] = [];
  const lbClusters: unknown[] = [];
  for (let c = 0; c < clusters; c++) {
    const names: string[] = [];
    for (let p = 0; p < poolsPerCluster; p++) {
      const name = `c${c}-p${p}`;
      names.push(name);
      dynamic.push({
        name,
        providerSpec: { name: p % 2 ? 'htz-1' : 'aws-1', region: p % 2 ? 'fsn1' : 'eu-central-1' },
        count: nodesPerPool,
        serverType: p % 2 ? 'cpx31' : 't3.large',
        image: p % 2 ? 'ubuntu-24.04' : 'ami-0965bd5ba4d59211c',
        labels: { 'kubeplane.dev/pool': name },
        taints: p === 1 ? [{ key: 'dedicated', value: 'batch', effect: 'NoSchedule' }] : [],
      });
    }
    k8s.push({ name: `cluster-${c}`, version: '1.34.2', network: `10.${c}.0.0/24`, pools: { control: [names[0]], compute: names.slice(1) } });
    dynamic.push({ name: `c${c}-lb`, providerSpec: { name: 'htz-1', region: 'fsn1' }, count: 1, serverType: 'cpx11', image: 'ubuntu-24.04' });
    roles.push({ name: `api-${c}`, protocol: 'tcp', port: 6443, targetPort: 6443, targetPools: [names[0]] });
    lbClusters.push({
      name: `lb-${c}`,
      roles: [`api-${c}`],
      dns: { dnsZone: 'example.com', provider: 'aws-1', hostname: `api-${c}` },
      targetedK8s: `cluster-${c}`,
      pools: [`c${c}-lb`],
    });
  }
  return {
    apiVersion: 'kubeplane.dev/v1',
    kind: 'Manifest',
    metadata: { name: 'large' },
    providers: [
      { name: 'aws-1', providerType: 'aws', secretRef: { env: { accesskey: 'AWS_ACCESS_KEY_ID', secretkey: 'AWS_SECRET_ACCESS_KEY' } } },
      { name: 'htz-1', providerType: 'hetzner', secretRef: { env: { credentials: 'HCLOUD_TOKEN' } } },
    ],
    nodePools: { dynamic },
    kubernetes: { clusters: k8s },
    loadBalancers: { roles, clusters: lbClusters },
  };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
}

function time(fn: () => void, runs: number): number {
  fn(); // warm-up
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    fn();
    samples.push(performance.now() - t);
  }
  return median(samples);
}

export async function run(): Promise<BenchResult[]> {
  const doc = largeManifest();
  const yaml = toYaml(doc);
  let nodes = 0;
  const validateAndPlan = () => {
    const r = validateManifestObject(doc);
    if (!r.ok) throw new Error(`bench manifest invalid: ${r.errors[0]?.message}`);
    const m = r.manifests[0]!;
    const planned = plan(buildDesiredState(m), emptyState(m.name));
    if (!planned.ok) throw new Error('plan failed');
    nodes = planned.plan.summary['create-node'] ?? 0;
  };
  const total = time(validateAndPlan, 15);
  const fromYaml = time(() => {
    const r = validateManifestText(yaml, { file: 'large.yaml' });
    if (!r.ok) throw new Error('invalid');
    plan(buildDesiredState(r.manifests[0]!), emptyState('large'));
  }, 7);
  const baseline = time(() => structuredClone(doc), 15);
  return [
    {
      name: `validate+plan 100 clusters / 1,000 pools / ${nodes.toLocaleString('en')} nodes (object, median of 15)`,
      value: total,
      unit: 'ms',
      target: '< 250 ms',
      note: `baseline structuredClone of the document: ${baseline.toFixed(1)} ms (${(total / baseline).toFixed(1)}x)`,
    },
    {
      name: 'same, parsed from YAML text with line mapping (median of 7)',
      value: fromYaml,
      unit: 'ms',
      note: `${(yaml.length / 1024).toFixed(0)} KiB of YAML`,
    },
  ];
}
