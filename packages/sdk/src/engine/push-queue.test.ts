// A push queue (Cloud Tasks) hands each message to the step function itself: the engine only sends on it, and the
// local runner, which would receive, says so instead of failing on a missing method.
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../provider/clock.js';
import { isKubeplaneError } from '../errors.js';
import { Kubeplane } from './kubeplane.js';
import type { StepEvent } from './events.js';
import { MemoryLease, MemorySecretStore, MemoryStateStore } from './adapters/memory.js';
import { isPullQueue, type QueueSender, type SendOptions } from './ports/queue.js';

describe('an engine on a push queue', () => {
  it('sends its steps on it, and refuses to run them locally with a clear error', async () => {
    const clock = new VirtualClock();
    const sent: Array<{ body: StepEvent; options: SendOptions }> = [];
    const queue: QueueSender<StepEvent> = { send: async (body, options) => void sent.push({ body, options }) };
    expect(isPullQueue(queue)).toBe(false);
    const kp = new Kubeplane({
      state: new MemoryStateStore(),
      secrets: new MemorySecretStore(),
      queue,
      lease: new MemoryLease(clock),
      clock,
      providers: () => Promise.reject(new Error('no providers here')),
      kubernetes: () => {
        throw new Error('no clusters here');
      },
    });
    const record = { clusterId: 'c1', project: 'p', incarnation: 'i1', generation: 1, step: { seq: 1, phase: 'infrastructure', name: 'prepare', attempts: 0 } };
    await kp.engine.enqueue(record as unknown as Parameters<typeof kp.engine.enqueue>[0], 30);
    expect(sent).toEqual([
      {
        body: expect.objectContaining({ clusterId: 'c1', step: 'prepare', key: 'c1/i1/1/1/0' }),
        options: { groupId: 'c1', deduplicationId: 'c1/i1/1/1/0', delaySeconds: 30 },
      },
    ]);
    await expect(kp.run()).rejects.toSatisfy((e: unknown) => isKubeplaneError(e) && e.kind === 'invalid' && /pushes each step message/.test(e.message));
  });
});
