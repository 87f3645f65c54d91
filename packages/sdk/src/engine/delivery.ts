// What to do with one delivery of a step message, whatever carried it (an SQS record, a Cloud Tasks request, a Pub/Sub
// event): the engine handles the step, and the answer says whether the transport acknowledges it, sends a fresh copy
// later, lets it be delivered again, or gives it up with its cluster marked ERROR. The transports only map the answer
// onto their own terms (a batch item failure, an HTTP status, a thrown error), in the way Powertools' idempotency
// layer holds the algorithm and its stores only read and write.
//
// Contention (the cluster held under another invocation's lease, a lost compare-and-swap) is never a failure: it never
// uses up a good message's attempts, so it is answered with a fresh copy that starts counting again, its delay growing
// with each re-send (2, 4, 8 … s, capped by the lease) so a crashed holder costs a few deliveries. Only real failures
// count, and the last one sets the cluster's status to ERROR with the reason before the message is given up.
import { isKubeplaneError } from '../errors.js';
import { busyRetryDelaySeconds } from './busy-retry.js';
import type { ProcessOutcome } from './engine.js';
import type { StepEvent } from './events.js';

/** The parts of Kubeplane a delivery needs. */
export interface StepDeliveryTarget {
  engine: {
    /** Processes one step message. */
    handle(event: StepEvent): Promise<ProcessOutcome>;
    readonly leaseSeconds: number;
  };
  /** Sets a cluster's status to ERROR with the reason, if it is still at the expected generation and step; whether it did. */
  markFailed(clusterId: string, message: string, expect?: { generation: number; seq: number }): Promise<boolean>;
}

/** One delivery of a step message by a queue, with what the engine needs to decide about retries. */
export interface StepDelivery {
  event: StepEvent;
  /** This delivery of the message, 1 for the first. */
  attempt: number;
  /** The delivery that reaches this number is the last (the queue's maxReceiveCount, the task queue's max attempts). */
  maxAttempts: number;
  /** How many times this step was already re-sent for contention (the count the copy carries); 0 for the original. */
  resends?: number;
  /**
   * Contention before the last attempt: a fresh copy (`resend`, the default), or a delivery again by the transport,
   * whose own retry policy backs off (`redeliver`: Pub/Sub push). On the last attempt it is always a fresh copy.
   */
  contention?: 'resend' | 'redeliver';
  /** What the deliveries are called in the reason (default `deliveries of message`). */
  deliveries?: string;
}

/** What to do with a delivered step message after the engine has processed it. */
export type DeliveryDecision =
  /** Done with this message: the step ran (advanced, waited, finished) or the message was stale. */
  | { action: 'ack'; outcome: ProcessOutcome }
  /** Acknowledge, and send a fresh copy of the step after `delaySeconds`, carrying `resends`. */
  | { action: 'resend'; outcome: ProcessOutcome; resends: number; delaySeconds: number }
  /** Let the transport deliver it again (its own backoff): contention before the last attempt, when asked for. */
  | { action: 'redeliver'; outcome: ProcessOutcome }
  /** The step failed with attempts left: the transport delivers it again. */
  | { action: 'retry'; error: unknown }
  /**
   * The step failed on the last attempt: the cluster is marked ERROR with `reason` (`marked`: it was still at that
   * step). `markError`: the marking failed too (the store is down), so the transport leaves the message to its
   * dead-letter path, whose handler (or the watchdog) marks the cluster.
   */
  | { action: 'dead-letter'; error: unknown; reason: string; marked: boolean; markError?: unknown };

/** An error as one line: a kubeplane error's message, or the name and message of anything else. */
export function errorText(e: unknown): string {
  if (isKubeplaneError(e)) return e.message;
  return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
}

/** Runs one delivery of a step message and decides what becomes of it; never throws. */
export async function deliverStep(target: StepDeliveryTarget, delivery: StepDelivery): Promise<DeliveryDecision> {
  const { event, attempt } = delivery;
  const last = attempt >= delivery.maxAttempts;
  let outcome: ProcessOutcome;
  try {
    outcome = await target.engine.handle(event);
  } catch (error) {
    if (!last) return { action: 'retry', error };
    const reason = `gave up after ${attempt} ${delivery.deliveries ?? 'deliveries of message'} ${event.key}: ${errorText(error)}`;
    try {
      const marked = await target.markFailed(event.clusterId, reason, { generation: event.generation, seq: event.seq });
      return { action: 'dead-letter', error, reason, marked };
    } catch (markError) {
      return { action: 'dead-letter', error, reason, marked: false, markError };
    }
  }
  if (outcome !== 'busy' && outcome !== 'conflict') return { action: 'ack', outcome };
  if (!last && delivery.contention === 'redeliver') return { action: 'redeliver', outcome };
  // A copy re-sent by a transport that redelivers counts its delay from the deliveries already made.
  const resends = delivery.contention === 'redeliver' ? attempt : (delivery.resends ?? 0) + 1;
  return { action: 'resend', outcome, resends, delaySeconds: busyRetryDelaySeconds(resends, target.engine.leaseSeconds) };
}
