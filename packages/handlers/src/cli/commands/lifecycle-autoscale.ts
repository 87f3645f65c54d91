// The lifecycle's `autoscale` stage, for a manifest with an autoscaled compute pool and the cluster_autoscaler add-on:
// the real externalgrpc adapter (local backend) and the sandbox's simulated cluster-autoscaler run against the
// created cluster. A Deployment whose pods need more nodes of a pool must make that pool grow (never past max) until
// every pod is scheduled; once it is deleted the pool must shrink back to min. An autoscaled spot pool, whose cloud
// has no spot capacity (the sandbox's capacity fault on spot requests only: EC2 answers RunInstances with
// InstanceMarketOptions spot InsufficientInstanceCapacity, while on-demand launches succeed), must be backed off: few
// IncreaseSize calls over many scans, the cluster still DONE.
import type { Kubeplane, Manifest } from '@kubeplane/sdk';
import {
  driveUntil,
  providerCloudOf,
  sandboxClusterApi,
  sandboxClusterView,
  SimulatedClusterAutoscaler,
  type CloudName,
  type Sandbox,
} from '@kubeplane/sandbox';
import { AUTOSCALER_ADAPTER, parseAdapterAddress, readAutoscalerCloudConfig } from '@kubeplane/sdk/internal';
import type { Clock } from '@kubeplane/sdk';
import { basename } from 'node:path';
import { localBackend } from '../../autoscaler/backend.js';
import { cloudProviderClient, type ClientTls } from '../../autoscaler/client.js';
import { serveAutoscalerAdapter } from '../../autoscaler/server.js';

export interface AutoscalePoolCounts {
  pool: string;
  min: number;
  max: number;
  /** Target before, at its highest, and at the end. */
  start: number;
  peak: number;
  end: number;
  increaseCalls: number;
}

export interface AutoscaleOutcome {
  ok: boolean;
  /** Why it did not pass, or what it showed. */
  message: string;
  pools: AutoscalePoolCounts[];
  /** Virtual ms from the first pending pod to all pods scheduled. */
  scaleUpMs?: number;
}

/** Whether the manifest's first cluster asks for the autoscale stage: an autoscaled compute pool and the add-on. */
export function autoscaleWanted(m: Manifest): boolean {
  const cluster = m.kubernetes.clusters[0];
  if (!cluster || cluster.controlPlane === 'managed') return false;
  const autoscaled = m.nodePools.dynamic.filter((p) => p.autoscaler && (cluster.pools.compute ?? []).includes(p.name));
  return autoscaled.length > 0 && (cluster.addons ?? []).some((a) => a.name === 'cluster_autoscaler');
}

/** Where a capacity fault makes a provider type's sandbox cloud refuse new spot machines (its descriptor's `capacityOperation`). */
function spotCapacityFaultOf(type: string): { cloud: CloudName; operation: string } | undefined {
  const cloud = providerCloudOf(type);
  const operation = cloud?.provider.capacityOperation;
  return cloud && operation !== undefined ? { cloud: cloud.name as CloudName, operation } : undefined;
}

const NAMESPACE = 'default';

/** The mutual TLS of the cluster autoscaler's cloud-config Secret: the files its cloud-config names, from the Secret. */
function clusterCloudConfigTls(secret: object): ClientTls {
  const data = ((secret as { data?: unknown }).data ?? {}) as Record<string, string>;
  const file = (key: string) => Buffer.from(data[key] ?? '', 'base64').toString('utf8');
  const config = readAutoscalerCloudConfig(file('cloud-config'));
  const named = (path: string | undefined, what: string) => {
    const content = path ? file(basename(path)) : '';
    if (!content) throw new Error(`the cluster's autoscaler cloud-config names no ${what} in its Secret (${path ?? 'none'})`);
    return content;
  };
  const address = parseAdapterAddress(config.address ?? '');
  if (!address) throw new Error(`the cluster's autoscaler cloud-config has no address host:port (${config.address ?? 'none'})`);
  return { caCertificate: named(config.cacert, 'cacert'), certificate: named(config.cert, 'cert'), key: named(config.key, 'key'), serverName: address.host };
}

export async function autoscaleStage(options: { kp: Kubeplane; sandbox: Sandbox; clock: Clock; manifest: Manifest }): Promise<AutoscaleOutcome> {
  const { kp, sandbox, clock, manifest } = options;
  const cluster = manifest.kubernetes.clusters[0];
  if (!cluster) return { ok: false, message: 'no cluster', pools: [] };
  const project = manifest.name;
  const view = sandboxClusterView(sandbox.kubernetes, cluster.name);
  const api = () => sandboxClusterApi(sandbox.kubernetes, cluster.name);

  const groupsBefore = await kp.nodeGroups(project, cluster.name);
  const compute = new Set(cluster.pools.compute ?? []);
  const autoscaled = groupsBefore.filter((g) => compute.has(g.id));
  const spotPools = new Set(manifest.nodePools.dynamic.filter((p) => p.spot).map((p) => p.name));
  // The pool that grows: an on-demand one where there is one (a spot pool is the refused one below).
  const grow = autoscaled.find((g) => !spotPools.has(g.id)) ?? autoscaled[0];
  if (!grow) return { ok: false, message: 'no autoscaled compute pool', pools: [] };
  // The refused pool: an autoscaled spot pool, whose spot requests the sandbox refuses for lack of spot capacity. The
  // fault keys on the request itself (FaultRule.market), so on-demand pools of the same cloud still grow.
  const refused = autoscaled.find((g) => g.id !== grow.id && spotPools.has(g.id) && spotCapacityFaultOf(g.provider.type));
  const fault = refused ? spotCapacityFaultOf(refused.provider.type) : undefined;
  if (fault) sandbox.faults.add({ cloud: fault.cloud, operation: fault.operation, kind: 'capacity', market: 'spot' });

  // With config.adapterAddress the adapter is the CLI's, over mutual TLS: served with the certificate
  // `kubeplane autoscaler-adapter serve` gets, dialled with what apply wrote into the cluster's cloud-config Secret, as
  // externalgrpc reads it (only the address's network is the sandbox's: loopback).
  const serving = await kp.autoscalerAdapterTls(project, cluster.name);
  const adapter = await serveAutoscalerAdapter({
    backend: localBackend(kp, project, cluster.name),
    listen: '127.0.0.1:0',
    now: () => clock.now(),
    ...(serving ? { tls: { caCertificate: serving.caCertificate, certificate: serving.certificate, key: serving.key.reveal() } } : {}),
  });
  const client = cloudProviderClient(
    adapter.address,
    serving ? clusterCloudConfigTls(api().get('secrets', AUTOSCALER_ADAPTER.namespace, AUTOSCALER_ADAPTER.cloudConfigSecret)) : undefined,
  );
  const ca = new SimulatedClusterAutoscaler({ clock, provider: client, cluster: view });
  const run = (participant: SimulatedClusterAutoscaler) => kp.run({ participant });
  const peaks = new Map(autoscaled.map((g) => [g.id, g.target]));
  const track = async () => {
    for (const g of await kp.nodeGroups(project, cluster.name)) peaks.set(g.id, Math.max(peaks.get(g.id) ?? 0, g.target));
  };
  try {
    // Pods that each take more than half a node of the pool: one a node, two more nodes than the pool has (within max).
    const wanted = Math.min(grow.max, grow.target + 2);
    const podsFor = (g: typeof grow, name: string, replicas: number) => {
      const cpu = Math.max(0.1, g.template.cpu * 0.6);
      api().create(
        'deployments',
        NAMESPACE,
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name, namespace: NAMESPACE },
          spec: {
            replicas,
            selector: { matchLabels: { app: name } },
            template: {
              metadata: { labels: { app: name } },
              spec: {
                containers: [
                  { name: 'work', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: `${Math.round(cpu * 1000)}m`, memory: '256Mi' } } },
                ],
                nodeSelector: { 'kubeplane.dev/pool': g.id },
                tolerations: g.template.taints.map((t) => ({
                  key: t.key,
                  operator: 'Equal',
                  ...(t.value !== undefined ? { value: t.value } : {}),
                  effect: t.effect,
                })),
              },
            },
          },
        },
        clock.now(),
      );
    };
    podsFor(grow, 'autoscale-demo', wanted);
    if (refused) podsFor(refused, 'autoscale-refused', 1);
    const owned = (app: string) =>
      api()
        .store.list('pods', NAMESPACE)
        .filter((p) => p.metadata.labels?.['app'] === app);
    // The Deployment and its pods, as the garbage collector removes a deleted owner's dependents.
    const removeDeployment = (name: string) => {
      api().delete('deployments', NAMESPACE, name, clock.now());
      for (const p of owned(name)) api().store.delete('pods', NAMESPACE, p.metadata.name);
    };
    const allScheduled = () => {
      const pods = owned('autoscale-demo');
      return pods.length === wanted && pods.every((p) => typeof (p['spec'] as { nodeName?: unknown }).nodeName === 'string');
    };
    const up = await driveUntil({
      clock,
      autoscaler: ca,
      run: async (p) => {
        await run(p);
        await track();
      },
      until: allScheduled,
      limitMs: 30 * 60_000,
    });
    await track();
    removeDeployment('autoscale-demo');
    const atMin = async () => (await kp.nodeGroups(project, cluster.name)).find((g) => g.id === grow.id)?.nodes.length === grow.min;
    const down = up.ok
      ? await driveUntil({
          clock,
          autoscaler: ca,
          run: async (p) => {
            await run(p);
            await track();
          },
          until: atMin,
          limitMs: 60 * 60_000,
        })
      : { ok: false, elapsedMs: 0 };
    if (refused) removeDeployment('autoscale-refused');
    const after = await kp.nodeGroups(project, cluster.name);
    const pools = autoscaled.map((g) => ({
      pool: g.id,
      min: g.min,
      max: g.max,
      start: g.target,
      peak: peaks.get(g.id) ?? g.target,
      end: after.find((x) => x.id === g.id)?.target ?? 0,
      increaseCalls: ca.events.filter((e) => (e.type === 'scale-up' || e.type === 'scale-up-failed') && e.group === g.id).length,
    }));
    const grown = pools.find((p) => p.pool === grow.id);
    const refusedCounts = refused ? pools.find((p) => p.pool === refused.id) : undefined;
    // A virtual hour and more of scans: the refused pool asked once, then once a backoff (5, 10, 20, 30 min) at most.
    const refusedOk = !refusedCounts || (refusedCounts.increaseCalls >= 1 && refusedCounts.increaseCalls <= 6 && refusedCounts.end === refusedCounts.min);
    const grewOk = Boolean(grown && grown.peak > grown.start && grown.peak <= grown.max && up.ok && down.ok && grown.end === grown.min);
    const problems = [
      ...(grewOk
        ? []
        : [
            `pool ${grow.id}: ${up.ok ? '' : 'pods not all scheduled; '}${down.ok ? '' : 'did not shrink back to min; '}targets ` +
              `${grown?.start}->${grown?.peak}->${grown?.end}`,
          ]),
      ...(refusedOk ? [] : [`pool ${refused?.id}: ${refusedCounts?.increaseCalls} IncreaseSize calls, target ${refusedCounts?.end}`]),
    ];
    return {
      ok: grewOk && refusedOk && (await kp.status(project)).state === 'DONE',
      message:
        problems.join('; ') ||
        `${grow.id} grew ${grown?.start} -> ${grown?.peak} and shrank to ` +
          `${grown?.end}${refusedCounts ? `; ${refusedCounts.pool} refused by its provider, asked ${refusedCounts.increaseCalls} times` : ''}`,
      pools,
      ...(up.ok ? { scaleUpMs: up.elapsedMs } : {}),
    };
  } finally {
    ca.stop();
    client.close();
    await adapter.close();
    sandbox.faults.clear();
  }
}
