// The Cloud Functions handler runs a step from a synthetic Pub/Sub CloudEvent, as Cloud Functions gen 2
// delivers it, with the step's message published under the cluster id as ordering key.
import { describe, expect, it } from 'vitest';
import { done, VirtualClock, type Provider } from '@kubeplane/sdk/provider';
import { Kubeplane, MemoryLease, MemoryQueue, MemorySecretStore, MemoryStateStore, validateManifestText, type Manifest, type StepEvent } from '@kubeplane/sdk';
import { createPubSubStepHandler, pubSubMessageFor, PUBSUB_MESSAGE_PUBLISHED, RetryStepLater } from './pubsub-step-handler.js';

const manifest = validateManifestText(`apiVersion: kubeplane.dev/v1
kind: Manifest
metadata: { name: gcp }
providers:
  - name: hetzner-1
    providerType: hetzner
    secretRef: { env: { credentials: HCLOUD_TOKEN } }
nodePools:
  dynamic:
    - { name: control, providerSpec: { name: hetzner-1, region: fsn1 }, count: 1, serverType: cpx22, image: ubuntu-24.04 }
kubernetes:
  clusters:
    - { name: gcp, version: "1.34.2", network: 10.0.0.0/24, pools: { control: [control], compute: [] } }
`).manifests[0] as Manifest;

/** The catalog of a cloud, all the first step (preflight) asks of one; nothing here creates anything. */
const catalogOnly = {
  name: 'hetzner',
  compute: {
    zones: async () => done([{ name: 'fsn1-dc14', region: 'fsn1' }]),
    serverTypes: async () => done([{ name: 'cpx22', vcpus: 2, memoryGiB: 4, architecture: 'x86_64' as const }]),
    images: async () => done([{ id: '1', name: 'ubuntu-24.04', architecture: 'x86_64' as const }]),
  },
} as unknown as Provider;

function world() {
  const clock = new VirtualClock();
  const queue = new MemoryQueue<StepEvent>({ clock });
  const lease = new MemoryLease(clock);
  const kp = new Kubeplane({
    state: new MemoryStateStore(),
    secrets: new MemorySecretStore(),
    queue,
    lease,
    clock,
    providers: () => Promise.resolve(catalogOnly),
    kubernetes: () => {
      throw new Error('no clusters here');
    },
  });
  const handler = createPubSubStepHandler({
    kubeplane: kp,
    maxDeliveryAttempts: 5,
    logger: {
      log: () => undefined,
      child() {
        return this;
      },
    },
  });
  return { kp, queue, lease, handler, clock };
}

function cloudEvent(step: StepEvent, deliveryAttempt = 1) {
  const m = pubSubMessageFor(step);
  return {
    specversion: '1.0',
    id: `evt-${step.key}`,
    type: PUBSUB_MESSAGE_PUBLISHED,
    source: '//pubsub.googleapis.com/projects/p/topics/kubeplane-steps',
    datacontenttype: 'application/json',
    data: {
      message: { data: m.data.toString('base64'), messageId: '1', orderingKey: m.orderingKey, attributes: m.attributes },
      subscription: 'projects/p/subscriptions/kubeplane-steps',
      deliveryAttempt,
    },
  };
}

describe('the Pub/Sub CloudEvent step handler', () => {
  it('runs the step a published step message names and queues the next one, under the cluster id as ordering key', async () => {
    const { kp, queue, handler } = world();
    await kp.apply(manifest);
    const [first] = await queue.receive(1);
    await queue.ack(first?.receipt ?? '');
    expect(pubSubMessageFor(first!.body).orderingKey).toBe(first!.body.clusterId);
    expect(await handler(cloudEvent(first!.body))).toBe('advanced');
    const [next] = await queue.receive(1);
    expect(next?.body).toMatchObject({ step: 'prepare', seq: first!.body.seq + 1 });
    // The same message again (Pub/Sub is at-least-once) is dropped as stale.
    expect(await handler(cloudEvent(first!.body, 2))).toBe('stale');
  });

  it('asks Pub/Sub to redeliver while another instance holds the cluster', async () => {
    const { kp, queue, lease, handler } = world();
    await kp.apply(manifest);
    const [first] = await queue.receive(1);
    await lease.acquire(`clusters/${first!.body.clusterId}`, 'another-instance', 60);
    await expect(handler(cloudEvent(first!.body))).rejects.toBeInstanceOf(RetryStepLater);
  });

  it('acknowledges an event that is not a step message instead of retrying it forever', async () => {
    const { handler } = world();
    expect(
      await handler({ id: '1', type: PUBSUB_MESSAGE_PUBLISHED, source: 's', data: { message: { data: Buffer.from('{"hello":1}').toString('base64') } } }),
    ).toBe('invalid');
    expect(await handler({ id: '2', type: 'google.cloud.storage.object.v1.finalized', source: 's', data: {} })).toBe('invalid');
  });

  it('sends a busy message again as a fresh one on its last permitted delivery instead of letting it go to the dead-letter topic', async () => {
    const { kp, queue, lease, handler, clock } = world();
    await kp.apply(manifest);
    const [first] = await queue.receive(1);
    await queue.ack(first?.receipt ?? '');
    await lease.acquire(`clusters/${first!.body.clusterId}`, 'another-instance', 60);
    // Acknowledged (returns), not failed: the dead-letter policy never sees it.
    expect(await handler(cloudEvent(first!.body, 5))).toBe('busy');
    expect(await queue.size()).toBe(1);
    // The copy is the same step message, delayed; once the other instance's lease is over it runs the step, and
    // the cluster was never failed.
    expect((await kp.status('gcp')).clusters.gcp?.state).toBe('IN_PROGRESS');
    clock.advance(120_000);
    const [copy] = await queue.receive(1);
    expect(copy?.body).toEqual(first!.body);
    expect(await handler(cloudEvent(copy!.body, 1))).toBe('advanced');
  });
});
