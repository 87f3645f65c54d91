import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../provider/clock.js';
import { busyRetryDelaySeconds } from './busy-retry.js';
import { Engine } from './engine.js';
import type { StepEvent } from './events.js';
import { MemoryLease, MemoryQueue, MemorySecretStore, MemoryStateStore } from './adapters/memory.js';
import { clusterKey } from './records.js';

describe('busyRetryDelaySeconds', () => {
  it('starts at 2 s and doubles with each delivery, up to the lease time', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 50].map((n) => busyRetryDelaySeconds(n, 120))).toEqual([2, 4, 8, 16, 32, 64, 120, 120]);
    expect(busyRetryDelaySeconds(3, 1)).toBe(2);
  });

  it('is how long the engine puts a message back whose cluster another invocation holds', async () => {
    const clock = new VirtualClock();
    const queue = new MemoryQueue<StepEvent>({ clock, visibilityTimeoutSeconds: 300 });
    const lease = new MemoryLease(clock);
    const engine = new Engine({
      state: new MemoryStateStore(),
      secrets: new MemorySecretStore(),
      queue,
      lease,
      clock,
      leaseSeconds: 120,
      providers: () => Promise.reject(new Error('no providers here')),
      kubernetes: () => {
        throw new Error('no clusters here');
      },
    });
    await lease.acquire(clusterKey('c1'), 'a crashed holder', 3600);
    const event: StepEvent = {
      v: 1,
      project: 'p',
      clusterId: 'c1',
      incarnation: 'i1',
      generation: 1,
      seq: 1,
      phase: 'infrastructure',
      step: 'prepare',
      attempt: 0,
      key: 'c1/i1/1/1/0',
    };
    await queue.send(event, { groupId: 'c1' });
    const waits: number[] = [];
    for (let i = 0; i < 4; i++) {
      const [m] = await queue.receive(1);
      expect(await engine.process(m!)).toBe('busy');
      const next = (await queue.nextVisibleAt()) ?? 0;
      waits.push((next - clock.now()) / 1000);
      clock.advanceTo(next);
    }
    expect(waits).toEqual([2, 4, 8, 16]);
  });
});
