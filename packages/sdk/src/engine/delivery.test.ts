// One decision for every transport of step messages: what becomes of a delivery when the step runs, meets
// contention, or fails with attempts left or on the last one (each transport's own tests check how it maps these).
import { describe, expect, it } from 'vitest';
import { KubeplaneError } from '../errors.js';
import { deliverStep, type StepDeliveryTarget } from './delivery.js';
import type { ProcessOutcome } from './engine.js';
import type { StepEvent } from './events.js';

const event: StepEvent = {
  v: 1,
  project: 'p',
  clusterId: 'c1',
  generation: 3,
  seq: 7,
  phase: 'infrastructure',
  step: 'create-nodes',
  attempt: 0,
  key: 'c1/7/create-nodes',
};

function target(
  result: ProcessOutcome | Error,
  mark: boolean | Error = true,
): StepDeliveryTarget & { marked: Array<{ clusterId: string; message: string; expect?: unknown }> } {
  const marked: Array<{ clusterId: string; message: string; expect?: unknown }> = [];
  return {
    marked,
    engine: {
      leaseSeconds: 120,
      handle: async () => {
        if (result instanceof Error) throw result;
        return result;
      },
    },
    markFailed: async (clusterId, message, expect) => {
      if (mark instanceof Error) throw mark;
      marked.push({ clusterId, message, expect });
      return mark;
    },
  };
}

describe('deliverStep', () => {
  it('acknowledges a step that ran, on any attempt', async () => {
    for (const outcome of ['advanced', 'stale'] as ProcessOutcome[]) {
      expect(await deliverStep(target(outcome), { event, attempt: 5, maxAttempts: 5 })).toEqual({ action: 'ack', outcome });
    }
  });

  it('answers contention with a fresh copy whose delay grows with the re-sends it carries, capped by the lease', async () => {
    expect(await deliverStep(target('busy'), { event, attempt: 1, maxAttempts: 5 })).toEqual({
      action: 'resend',
      outcome: 'busy',
      resends: 1,
      delaySeconds: 2,
    });
    expect(await deliverStep(target('conflict'), { event, attempt: 1, maxAttempts: 5, resends: 3 })).toEqual({
      action: 'resend',
      outcome: 'conflict',
      resends: 4,
      delaySeconds: 16,
    });
    expect(await deliverStep(target('busy'), { event, attempt: 1, maxAttempts: 5, resends: 30 })).toMatchObject({ action: 'resend', delaySeconds: 120 });
  });

  it('lets a transport that backs off itself deliver contention again, but sends a fresh copy on the last attempt', async () => {
    expect(await deliverStep(target('busy'), { event, attempt: 2, maxAttempts: 5, contention: 'redeliver' })).toEqual({ action: 'redeliver', outcome: 'busy' });
    expect(await deliverStep(target('busy'), { event, attempt: 5, maxAttempts: 5, contention: 'redeliver' })).toEqual({
      action: 'resend',
      outcome: 'busy',
      resends: 5,
      delaySeconds: 32,
    });
  });

  it('never counts contention as a failure: the cluster is not marked, even on the last attempt', async () => {
    const t = target('busy');
    await deliverStep(t, { event, attempt: 9, maxAttempts: 5 });
    expect(t.marked).toEqual([]);
  });

  it('leaves a failure with attempts left to be delivered again, without marking the cluster', async () => {
    const error = new Error('boom');
    const t = target(error);
    expect(await deliverStep(t, { event, attempt: 4, maxAttempts: 5 })).toEqual({ action: 'retry', error });
    expect(t.marked).toEqual([]);
  });

  it('gives up on the last attempt with the cluster marked ERROR at that step, saying why', async () => {
    const error = new KubeplaneError('retryable', 'hetzner POST /servers: 500');
    const t = target(error);
    const decision = await deliverStep(t, { event, attempt: 5, maxAttempts: 5, deliveries: 'attempts of task' });
    const reason = 'gave up after 5 attempts of task c1/7/create-nodes: hetzner POST /servers: 500';
    expect(decision).toEqual({ action: 'dead-letter', error, reason, marked: true });
    expect(t.marked).toEqual([{ clusterId: 'c1', message: reason, expect: { generation: 3, seq: 7 } }]);
    const other = await deliverStep(target(new TypeError('x is undefined')), { event, attempt: 5, maxAttempts: 5 });
    expect(other).toMatchObject({ reason: 'gave up after 5 deliveries of message c1/7/create-nodes: TypeError: x is undefined' });
  });

  it('says so when the cluster could not be marked either, and never throws', async () => {
    const markError = new Error('store down');
    const decision = await deliverStep(target(new Error('boom'), markError), { event, attempt: 5, maxAttempts: 5 });
    expect(decision).toMatchObject({ action: 'dead-letter', marked: false, markError });
  });
});
