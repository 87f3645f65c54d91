// Queue: at-least-once delivery with delays. A received message is hidden for the visibility timeout and
// comes back unless acknowledged, so a step that dies mid-way is retried; messages of one group (a cluster)
// are delivered one at a time, the oldest due one first. A delayed message does not hold back a later one
// that is already due: correctness never rests on order (messages name the step they expect), only on
// one-at-a-time, which the cluster lease enforces anyway.
/** How a message is sent: its group, delay and deduplication id. */
export interface SendOptions {
  /** Messages of one group are delivered in order, one in flight at a time (the cluster id). */
  groupId: string;
  /** Seconds before the message becomes visible (SQS allows up to 900; longer waits are chained by callers). */
  delaySeconds?: number;
  /** A message with the same id sent again within the deduplication window is dropped. */
  deduplicationId?: string;
}

/** A message received from a queue, with how to acknowledge it. */
export interface ReceivedMessage<T> {
  body: T;
  groupId: string;
  /** 1 on first delivery. */
  receiveCount: number;
  /** Handle for ack/release of this delivery. */
  receipt: string;
}

/**
 * The sending half of a queue: all the engine needs where the queue pushes each message to a handler itself (Cloud
 * Tasks calls the step function over HTTP; nothing receives from it). The local runner needs a whole Queue.
 */
export interface QueueSender<T> {
  /** Sends a message, to be delivered after its delay. */
  send(body: T, options: SendOptions): Promise<void>;
}

export interface Queue<T> extends QueueSender<T> {
  /** Up to `max` visible messages, at most one per group, each hidden for the visibility timeout. */
  receive(max: number): Promise<Array<ReceivedMessage<T>>>;
  /** Removes a delivered message for good. Acking a stale receipt is a no-op. */
  ack(receipt: string): Promise<void>;
  /** Makes a delivered message visible again, after `delaySeconds`. */
  release(receipt: string, delaySeconds?: number): Promise<void>;
  /** Milliseconds (on the queue's clock) when the next hidden or delayed message becomes visible, or null when empty. */
  nextVisibleAt(): Promise<number | null>;
  /** Messages not yet acknowledged (visible, delayed or in flight). */
  size(): Promise<number>;
}

/** The longest delay SQS allows on a message, in seconds. */
export const SQS_MAX_DELAY_SECONDS = 900;

/** Whether a queue can be received from (the local runner's kind), rather than pushing its messages itself. */
export function isPullQueue<T>(queue: QueueSender<T>): queue is Queue<T> {
  return typeof (queue as Partial<Queue<T>>).receive === 'function';
}
