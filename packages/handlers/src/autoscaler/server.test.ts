// The externalgrpc adapter, driven by a real gRPC client over loopback as cluster-autoscaler's externalgrpc provider
// calls it: every method the autoscaler uses, on a sandbox cluster with an autoscaled pool, including the errors
// (unknown group, past max, below min, a fixed pool, a node of no group) and a growth the provider refuses.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Context } from 'aws-lambda';
import * as grpc from '@grpc/grpc-js';
import { autoscaledManifest } from '../../../../test/helpers/autoscaled-manifest.js';
import { createSandboxKubeplane } from '../runtime/embed.js';
import { createApiHandler, type ApiEvent } from '../aws/api-handler.js';
import { jsonLogger } from '../aws/logger.js';
import { httpBackend, localBackend, type ScalingBackend } from './backend.js';
import { cloudProviderClient, CloudProviderCallError, type CloudProviderClient } from './client.js';
import { serveAutoscalerAdapter, type RunningAdapter } from './server.js';
import { INSTANCE_ERROR_CLASS } from './protocol.js';

type Runtime = Awaited<ReturnType<typeof createSandboxKubeplane>>;
let runtime: Runtime;
let adapter: RunningAdapter | undefined;
let client: CloudProviderClient | undefined;

const manifest = () =>
  autoscaledManifest({
    project: 'elastic',
    pool: 'general',
    min: 1,
    max: 3,
    zone: 'fsn1-dc14',
    labels: { 'workload.example.com/class': 'general' },
    taint: { key: 'workload.example.com/class', value: 'general', effect: 'NoSchedule' },
  });

async function serve(backend?: ScalingBackend): Promise<CloudProviderClient> {
  adapter = await serveAutoscalerAdapter({
    backend: backend ?? localBackend(runtime.kubeplane, 'elastic', 'elastic'),
    listen: '127.0.0.1:0',
    now: () => runtime.clock.now(),
  });
  client = cloudProviderClient(adapter.address);
  return client;
}

async function failure(p: Promise<unknown>): Promise<CloudProviderCallError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof CloudProviderCallError) return e;
    throw e;
  }
  throw new Error('expected the call to fail');
}

const run = async () => {
  await runtime.kubeplane.run();
  expect((await runtime.kubeplane.status('elastic')).state).toBe('DONE');
};

beforeEach(async () => {
  runtime = await createSandboxKubeplane({ seed: 14 });
  await runtime.kubeplane.apply(manifest());
  await run();
});

afterEach(async () => {
  client?.close();
  await adapter?.close();
  await runtime.close();
  client = undefined;
  adapter = undefined;
});

describe('the autoscaler adapter (externalgrpc CloudProvider)', () => {
  it("lists the autoscaled pools as node groups and finds a node's group by its providerID", async () => {
    const c = await serve();
    expect(await c.nodeGroups()).toEqual([expect.objectContaining({ id: 'general', minSize: 1, maxSize: 3 })]);
    const [instance] = await c.nodeGroupNodes('general');
    expect(instance?.status.instanceState).toBe('instanceRunning');
    expect(instance?.id).toMatch(/^hcloud:\/\/\d+$/);
    expect((await c.nodeGroupForNode({ providerID: instance?.id ?? '', name: 'whatever' })).id).toBe('general');
    // A control plane (a fixed pool) belongs to no group: id "" makes the autoscaler leave it alone.
    const control = (await runtime.kubeplane.currentState('elastic')).clusters[0]?.pools.find((p) => p.name === 'control')?.nodes[0]?.name ?? '';
    expect((await c.nodeGroupForNode({ providerID: 'hcloud://1', name: control })).id).toBe('');
    expect((await c.nodeGroupForNode({ providerID: 'hcloud://1' })).id).toBe('');
  });

  it('grows a group with IncreaseSize within its max, and the new machines appear as creating, then running', async () => {
    const c = await serve();
    expect(await c.targetSize('general')).toBe(1);
    await c.increaseSize('general', 2);
    expect(await c.targetSize('general')).toBe(3);
    await run();
    const instances = await c.nodeGroupNodes('general');
    expect(instances.map((i) => i.status.instanceState)).toEqual(['instanceRunning', 'instanceRunning', 'instanceRunning']);
    // Each instance id is the providerID its Node carries, so the autoscaler can match them.
    for (const i of instances) expect((await c.nodeGroupForNode({ providerID: i.id })).id).toBe('general');
  });

  it('refuses IncreaseSize past max, with a non-positive delta, for an unknown group and for a fixed pool', async () => {
    const c = await serve();
    const past = await failure(c.increaseSize('general', 3));
    expect(past.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(past.details).toContain('current 1, desired 4, max 3');
    expect((await failure(c.increaseSize('general', 0))).code).toBe(grpc.status.INVALID_ARGUMENT);
    const unknown = await failure(c.increaseSize('gpus', 1));
    expect(unknown.code).toBe(grpc.status.NOT_FOUND);
    expect(unknown.details).toContain('node group gpus not found');
    expect((await failure(c.targetSize('control'))).code).toBe(grpc.status.NOT_FOUND);
    expect(await c.targetSize('general')).toBe(1);
  });

  it('deletes exactly the nodes the autoscaler names, never below min, and refuses a node of another group', async () => {
    const c = await serve();
    await c.increaseSize('general', 2);
    await run();
    const instances = await c.nodeGroupNodes('general');
    const middle = instances[1]?.id ?? '';
    await c.deleteNodes('general', [{ providerID: middle }]);
    expect(await c.targetSize('general')).toBe(2);
    await run();
    const left = (await c.nodeGroupNodes('general')).map((i) => i.id);
    expect(left).toEqual([instances[0]?.id, instances[2]?.id]);
    expect((await failure(c.deleteNodes('general', [{ providerID: 'hcloud://999999' }]))).code).toBe(grpc.status.INVALID_ARGUMENT);
    const belowMin = await failure(
      c.deleteNodes(
        'general',
        left.map((providerID) => ({ providerID })),
      ),
    );
    expect(belowMin.code).toBe(grpc.status.FAILED_PRECONDITION);
    expect(belowMin.details).toContain('minimum size 1');
  });

  it('decreases the target only by requests not yet fulfilled', async () => {
    const c = await serve();
    await c.increaseSize('general', 2);
    // Before the runner made the machines: two instances are creating.
    expect((await c.nodeGroupNodes('general')).filter((i) => i.status.instanceState === 'instanceCreating')).toHaveLength(2);
    await c.decreaseTargetSize('general', -1);
    expect(await c.targetSize('general')).toBe(2);
    expect((await failure(c.decreaseTargetSize('general', -2))).code).toBe(grpc.status.FAILED_PRECONDITION);
    expect((await failure(c.decreaseTargetSize('general', 1))).code).toBe(grpc.status.INVALID_ARGUMENT);
    await run();
    expect(await c.nodeGroupNodes('general')).toHaveLength(2);
  });

  it('answers a template node for scale-from-zero: capacity from the instance catalog, labels and taints of the pool', async () => {
    const c = await serve();
    const node = await c.templateNodeInfo('general');
    // Hetzner's cpx32: 4 vCPU, 8 GB.
    expect(node.status.allocatable).toMatchObject({ cpu: { string: '4' }, memory: { string: '8Gi' }, pods: { string: '110' } });
    expect(node.metadata.labels).toMatchObject({
      'kubeplane.dev/pool': 'general',
      'kubeplane.dev/provider': 'hetzner',
      'node.kubernetes.io/instance-type': 'cpx32',
      'topology.kubernetes.io/zone': 'fsn1-dc14',
      'workload.example.com/class': 'general',
    });
    expect(node.spec.taints).toEqual([{ key: 'workload.example.com/class', value: 'general', effect: 'NoSchedule' }]);
    expect(node.status.conditions).toContainEqual(expect.objectContaining({ type: 'Ready', status: 'True' }));
  });

  it('answers the provider-wide calls: GPU label and types, options, Refresh, Cleanup, and Unimplemented prices', async () => {
    const c = await serve();
    expect(await c.gpuLabel()).toBe('nvidia.com/gpu.present');
    expect(await c.availableGpuTypes()).toEqual([]);
    const options = await c.getOptions('general', { scaleDownUtilizationThreshold: 0.5, scaleDownUnneededDuration: { seconds: 600, nanos: 0 } });
    expect(options).toMatchObject({ scaleDownUtilizationThreshold: 0.5, scaleDownUnneededDuration: { seconds: 600 } });
    await c.refresh();
    await c.cleanup();
    expect((await failure(c.pricingNodePrice({ providerID: 'hcloud://1' }))).code).toBe(grpc.status.UNIMPLEMENTED);
    expect((await failure(c.pricingPodPrice(new Uint8Array()))).code).toBe(grpc.status.UNIMPLEMENTED);
  });

  it('reports a growth the provider refused as creating instances with an OutOfResources error, and backs the group off', async () => {
    const c = await serve();
    runtime.sandbox.faults.add({ cloud: 'hetzner', operation: 'POST /servers', kind: 'capacity' });
    await c.increaseSize('general', 2);
    await run();
    expect(await c.targetSize('general')).toBe(1);
    const instances = await c.nodeGroupNodes('general');
    const failed = instances.filter((i) => i.status.errorInfo?.errorCode);
    expect(failed).toHaveLength(2);
    expect(failed[0]?.status).toMatchObject({
      instanceState: 'instanceCreating',
      errorInfo: { errorCode: 'OUT_OF_CAPACITY', instanceErrorClass: INSTANCE_ERROR_CLASS.outOfResources },
    });
    // Within the backoff: refused at once, nothing reaches the provider.
    const fired = runtime.sandbox.faults.fired.length;
    expect((await failure(c.increaseSize('general', 1))).code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    await run();
    expect(runtime.sandbox.faults.fired.length).toBe(fired);
    // The autoscaler deletes failed instances: nothing to delete, no error.
    await c.deleteNodes(
      'general',
      failed.map((i) => ({ providerID: i.id })),
    );
    expect(await c.targetSize('general')).toBe(1);
  });

  it('works the same through the serverless HTTP API backend', async () => {
    const handler = createApiHandler({
      kubeplane: runtime.kubeplane,
      access: [{ principal: 'arn:aws:iam::123456789012:user/autoscaler', projects: ['elastic'], role: 'operator' }],
      logger: jsonLogger(() => undefined),
    });
    const viaApi: typeof fetch = async (input, init) => {
      const url = new URL(String(input));
      const event = {
        version: '2.0',
        rawPath: url.pathname,
        rawQueryString: '',
        headers: {},
        isBase64Encoded: false,
        requestContext: {
          http: { method: init?.method ?? 'GET', path: url.pathname, sourceIp: '127.0.0.1' },
          authorizer: { iam: { userArn: 'arn:aws:iam::123456789012:user/autoscaler' } },
        },
        ...(init?.body ? { body: String(init.body) } : {}),
      } as unknown as ApiEvent;
      const res = await handler(event, { awsRequestId: 'r' } as Context);
      return new Response(res.body ?? null, { status: res.statusCode ?? 500, headers: res.headers as Record<string, string> });
    };
    const c = await serve(httpBackend({ apiUrl: 'https://api.example.com/', project: 'elastic', cluster: 'elastic', fetch: viaApi }));
    expect((await c.nodeGroups()).map((g) => g.id)).toEqual(['general']);
    await c.increaseSize('general', 1);
    expect(await c.targetSize('general')).toBe(2);
    const past = await failure(c.increaseSize('general', 2));
    expect(past.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect((await failure(c.targetSize('nope'))).code).toBe(grpc.status.NOT_FOUND);
  });
});
