// The engine end to end on the sandbox, in virtual time: time from apply to every node Ready for 3 control
// planes + 3 workers and for 3 + 500, against the latency model's floor, with the steps (queue messages)
// and cloud API calls it took. The baseline in the same run is the floor itself, computed from the model.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { clusterReadyFloorMs, CRUSOE_LATENCY, holdManifestDnsZones, KUBE_TIMINGS } from '@kubeplane/sandbox';
import { manifestOf, sandboxWorld } from '../helpers/sandbox-world.js';
import type { BenchResult } from './types.js';

function manifest(workers: number): string {
  const pools: string[] = [];
  const names: string[] = [];
  for (let left = workers, i = 1; left > 0; i++) {
    const count = Math.min(250, left);
    names.push(`workers-${i}`);
    pools.push(`    - { name: workers-${i}, providerSpec: { name: hetzner-1, region: fsn1 }, count: ${count}, serverType: cpx32, image: ubuntu-24.04 }`);
    left -= count;
  }
  return `apiVersion: kubeplane.dev/v1
kind: Manifest
metadata: { name: bench }
providers:
  - { name: hetzner-1, providerType: hetzner, secretRef: { env: { credentials: HCLOUD_TOKEN } } }
nodePools:
  dynamic:
    - { name: control, providerSpec: { name: hetzner-1, region: fsn1 }, count: 3, serverType: cpx22, image: ubuntu-24.04 }
    - { name: api-lb, providerSpec: { name: hetzner-1, region: fsn1 }, count: 1, serverType: cpx22, image: ubuntu-24.04 }
${pools.join('\n')}
kubernetes:
  clusters:
    - { name: bench, version: "1.34.2", network: 10.20.0.0/22, pools: { control: [control], compute: [${names.join(', ')}] } }
# Three control planes need an API load balancer (validation refuses a reserved IP on one of them).
loadBalancers:
  roles:
    - { name: api, protocol: tcp, port: 6443, targetPort: 6443, targetPools: [control] }
  clusters:
    - { name: bench-lb, roles: [api], dns: { dnsZone: example.com, provider: hetzner-1, hostname: bench }, targetedK8s: bench, pools: [api-lb] }
`;
}

async function timeToReady(workers: number) {
  const w = sandboxWorld(11);
  try {
    const started = w.sandbox.clock.now();
    const real = performance.now();
    const m = manifestOf(manifest(workers));
    holdManifestDnsZones(w.sandbox, m);
    await w.kp.apply(m);
    const run = await w.kp.run();
    const status = await w.kp.status('bench');
    if (status.state !== 'DONE') throw new Error(`bench cluster ended ${status.state}: ${JSON.stringify(status.clusters)}`);
    // Ready is when await-nodes finished; the later steps (labels, mesh, outputs) take no virtual time.
    const readyAt = Math.max(...w.events.filter((e) => e.type === 'step-done' && e.step === 'await-nodes').map((e) => e.at));
    const floor = clusterReadyFloorMs({ controlPlanes: { cloud: 'hetzner', count: 3 }, workers: [{ cloud: 'hetzner', count: workers }] });
    return {
      ready: readyAt - started,
      floor,
      messages: run.messages,
      calls: w.sandbox.totalCalls((k) => !k.startsWith('kubernetes')),
      kubeCalls: w.sandbox.totalCalls((k) => k.startsWith('kubernetes')),
      realMs: performance.now() - real,
    };
  } finally {
    w.sandbox.close();
  }
}

export async function run(): Promise<BenchResult[]> {
  const out: BenchResult[] = [];
  for (const workers of [3, 500]) {
    const r = await timeToReady(workers);
    out.push(
      {
        name: `engine: 3 control planes + ${workers} workers (Hetzner), apply -> all Ready, virtual`,
        value: r.ready / 1000,
        unit: 's',
        note: `floor ${(r.floor / 1000).toFixed(0)} s from the latency model (the API load balancer's machine not counted: a lower bound)`,
      },
      { name: `engine: 3 + ${workers}, ratio to the floor`, value: r.ready / r.floor, unit: 'x floor', target: '<= 1.2x' },
      { name: `engine: 3 + ${workers}, steps (queue messages) per cluster`, value: r.messages, unit: 'steps' },
      {
        name: `engine: 3 + ${workers}, cloud API calls (Kubernetes API calls)`,
        value: r.calls,
        unit: 'calls',
        note: `${r.kubeCalls} Kubernetes API calls; real time ${(r.realMs / 1000).toFixed(1)} s`,
      },
    );
  }
  const up = await upgradeTime();
  out.push(
    {
      name: 'engine: in-place upgrade 1.34.2 -> 1.35.0 of examples/minimal.yaml (1 control plane + 2 workers), virtual',
      value: up.elapsed / 1000,
      unit: 's',
      note: `floor ${(up.floor / 1000).toFixed(0)} s: per node, one sync-timer period and the upgrade, one node at a time`,
    },
    { name: 'engine: in-place upgrade, ratio to the floor', value: up.elapsed / up.floor, unit: 'x floor', target: '<= 1.2x' },
    { name: 'engine: in-place upgrade, steps (queue messages)', value: up.messages, unit: 'steps' },
  );
  const cmk = await cmkTimeToReady();
  out.push(
    {
      name: 'engine: CMK cluster (examples/crusoe-cmk.yaml, 3 nodes), apply -> all Ready, virtual',
      value: cmk.ready / 1000,
      unit: 's',
      note: `floor ${(cmk.floor / 1000).toFixed(0)} s: VPC rules, CMK create, pool VM create, join, CNI`,
    },
    { name: 'engine: CMK cluster, ratio to the floor', value: cmk.ready / cmk.floor, unit: 'x floor', target: '<= 1.2x' },
    { name: 'engine: CMK cluster, steps (queue messages) to DONE', value: cmk.messages, unit: 'steps' },
    {
      name: 'engine: CMK cluster, Crusoe + Cloudflare API calls (Kubernetes API calls)',
      value: cmk.calls,
      unit: 'calls',
      note: `${cmk.kubeCalls} Kubernetes API calls`,
    },
  );
  return out;
}

/**
 * A Crusoe Managed Kubernetes cluster from the example. Its floor: the intra-VPC rules going active, the CMK control
 * plane (node pools can only be created once it runs), a pool VM, its join and CNI.
 */
async function cmkTimeToReady() {
  const w = sandboxWorld(11);
  try {
    const started = w.sandbox.clock.now();
    await w.kp.apply(manifestOf(readFileSync(join(import.meta.dirname, '..', '..', 'examples', 'crusoe-cmk.yaml'), 'utf8')));
    const run = await w.kp.run();
    const status = await w.kp.status('gpu-lab');
    if (status.state !== 'DONE') throw new Error(`CMK bench cluster ended ${status.state}: ${JSON.stringify(status.clusters)}`);
    const readyAt = Math.max(...w.events.filter((e) => e.type === 'step-done' && e.step === 'await-nodes').map((e) => e.at));
    const floor =
      CRUSOE_LATENCY.firewallRule + CRUSOE_LATENCY.cmkClusterCreate + CRUSOE_LATENCY.vmCreate + KUBE_TIMINGS.kubeadmJoinMs + KUBE_TIMINGS.ciliumReadyMs;
    return {
      ready: readyAt - started,
      floor,
      messages: run.messages,
      calls: w.sandbox.totalCalls((k) => !k.startsWith('kubernetes')),
      kubeCalls: w.sandbox.totalCalls((k) => k.startsWith('kubernetes')),
    };
  } finally {
    w.sandbox.close();
  }
}

/**
 * A version upgrade of the minimal example, in place. Its floor: nodes go one at a time (the example's maxSurge is 1),
 * each waiting up to one sync-timer period for its agent to see the instruction and then upgrading.
 */
async function upgradeTime() {
  const w = sandboxWorld(11);
  try {
    const text = readFileSync(join(import.meta.dirname, '..', '..', 'examples', 'minimal.yaml'), 'utf8');
    await w.kp.apply(manifestOf(text));
    await w.kp.run();
    const started = w.sandbox.clock.now();
    await w.kp.apply(manifestOf(text.replace('"1.34.2"', '"1.35.0"')));
    const run = await w.kp.run();
    const status = await w.kp.status('minimal');
    if (status.state !== 'DONE') throw new Error(`upgrade bench ended ${status.state}: ${JSON.stringify(status.clusters)}`);
    const done = Math.max(...w.events.filter((e) => e.type === 'step-done' && e.step === 'upgrade').map((e) => e.at));
    const floor = 3 * (KUBE_TIMINGS.meshSyncIntervalMs + KUBE_TIMINGS.kubeadmUpgradeMs);
    return { elapsed: done - started, floor, messages: run.messages };
  } finally {
    w.sandbox.close();
  }
}
