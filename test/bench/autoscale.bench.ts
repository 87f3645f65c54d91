// Autoscaling end to end in virtual time: unschedulable pods that need three new nodes of an autoscaled pool (min 0),
// the sandbox's simulated cluster-autoscaler talking to kubeplane's real adapter over loopback gRPC, the engine
// creating the machines and the sandbox's kubelets joining them. Measured: virtual time from the first pending pod to
// every pod scheduled, against the floor from the latency model's code (one scan interval + machine creation + OS
// preparation, kubeadm join and the CNI), with the IncreaseSize calls it took.
import { createSandboxKubeplane } from '../../packages/handlers/src/runtime/embed.js';
import { localBackend } from '../../packages/handlers/src/autoscaler/backend.js';
import { cloudProviderClient } from '../../packages/handlers/src/autoscaler/client.js';
import { serveAutoscalerAdapter } from '../../packages/handlers/src/autoscaler/server.js';
import {
  CA_DEFAULTS,
  driveUntil,
  KUBE_TIMINGS,
  nodeCreationFloorMs,
  sandboxClusterApi,
  sandboxClusterView,
  SimulatedClusterAutoscaler,
  unschedulablePod,
} from '@kubeplane/sandbox';
import { autoscaledManifest, BATCH_PODS, BATCH_POOL } from '../helpers/autoscaled-manifest.js';
import type { BenchResult } from './types.js';

const PODS = 3;

export async function run(): Promise<BenchResult[]> {
  const runtime = await createSandboxKubeplane({ seed: 77 });
  const kp = runtime.kubeplane;
  try {
    await kp.apply(autoscaledManifest({ project: 'bench-autoscale', max: 5, ...BATCH_POOL }));
    await kp.run();
    const adapter = await serveAutoscalerAdapter({
      backend: localBackend(kp, 'bench-autoscale', 'bench-autoscale'),
      listen: '127.0.0.1:0',
      now: () => runtime.clock.now(),
    });
    const client = cloudProviderClient(adapter.address);
    try {
      const ca = new SimulatedClusterAutoscaler({
        clock: runtime.clock,
        provider: client,
        cluster: sandboxClusterView(runtime.sandbox.kubernetes, 'bench-autoscale'),
      });
      const api = () => sandboxClusterApi(runtime.sandbox.kubernetes, 'bench-autoscale');
      // 3 of a cpx32's 4 CPUs each: one pod a node.
      const names = Array.from({ length: PODS }, (_, i) => `bench-job-${i}`);
      for (const name of names) {
        api().store.create('pods', unschedulablePod({ name, requests: { cpu: '3', memory: '2Gi' }, ...BATCH_PODS, nodes: 1 }), runtime.clock.now());
      }
      const scheduled = () =>
        names.every((n) => typeof (api().store.get('pods', 'default', n)?.['spec'] as { nodeName?: unknown } | undefined)?.nodeName === 'string');
      const result = await driveUntil({
        clock: runtime.clock,
        autoscaler: ca,
        run: (participant) => kp.run({ participant }),
        until: scheduled,
        limitMs: 60 * 60_000,
      });
      const floor =
        CA_DEFAULTS.scanIntervalMs +
        nodeCreationFloorMs('hetzner', PODS) +
        KUBE_TIMINGS.osPreparationMs +
        KUBE_TIMINGS.kubeadmJoinMs +
        KUBE_TIMINGS.ciliumReadyMs;
      return [
        {
          name: `autoscale: first pending pod -> all ${PODS} pods scheduled (3 new Hetzner nodes, virtual time)`,
          value: result.ok ? result.elapsedMs / 1000 : Number.NaN,
          unit: 's',
          target: `floor ${(floor / 1000).toFixed(1)} s`,
          note: `${(result.elapsedMs / floor).toFixed(2)} x floor (scan ${CA_DEFAULTS.scanIntervalMs / 1000} s + create + OS preparation + kubeadm join + CNI); IncreaseSize calls: ${ca.calls['NodeGroupIncreaseSize'] ?? 0}`,
        },
      ];
    } finally {
      client.close();
      await adapter.close();
    }
  } finally {
    await runtime.close();
  }
}
