// The engine's Queue port on an SQS *standard* queue: per-message DelaySeconds (FIFO queues only have a
// queue-wide delay, and the engine's waits are per message), a visibility timeout per receive, delete on
// ack, ChangeMessageVisibility on release. Standard queues neither order nor deduplicate; the engine does not
// need them to (the cluster lease serialises steps, a message names the step it expects, stale ones drop).
import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
  type SendMessageCommandOutput,
  type Message,
} from '@aws-sdk/client-sqs';
import { SQS_MAX_DELAY_SECONDS } from '@kubeplane/sdk/internal';
import { systemClock, type Clock, type Queue, type ReceivedMessage, type SendOptions } from '@kubeplane/sdk';
import { awsClientConfig, type AwsClientOptions } from './client-config.js';
import type { DeduplicationLog } from './dynamodb-deduplication-log.js';

/** The message attribute that carries the group (the cluster id) on a standard queue. */
export const GROUP_ATTRIBUTE = 'kubeplane-group';

/** A received message with its string message attributes (the group attribute among them). */
export type SqsReceivedMessage<T> = ReceivedMessage<T> & { attributes: Record<string, string> };

/** The SQS queue the steps go through, its visibility timeout and the AWS client options. */
export interface SqsQueueOptions extends AwsClientOptions {
  queueUrl: string;
  /** Hidden this long after a receive (default 30 s); at least 6x the handler's timeout on Lambda. */
  visibilityTimeoutSeconds?: number;
  /** Used only to estimate `nextVisibleAt`; SQS keeps its own time. */
  clock?: Clock;
  client?: SQSClient;
  /** Honours deduplication ids within a window (see DynamoDbDeduplicationLog); without it they are ignored. */
  deduplication?: DeduplicationLog;
}

export class SqsQueue<T> implements Queue<T> {
  readonly client: SQSClient;
  readonly queueUrl: string;
  readonly #visibility: number;
  readonly #clock: Clock;
  readonly #dedup: DeduplicationLog | undefined;
  /**
   * When each message this instance sent, received or released is due to become visible (ms). SQS does not say
   * when a hidden or delayed message will show, so nextVisibleAt is an estimate from what this process saw —
   * exact for a single process (the local runner, tests), unused on Lambda (the event source mapping polls).
   */
  readonly #due = new Map<string, number>();
  readonly #receipts = new Map<string, string>();

  constructor(options: SqsQueueOptions) {
    this.client = options.client ?? new SQSClient(awsClientConfig(options));
    this.queueUrl = options.queueUrl;
    this.#visibility = options.visibilityTimeoutSeconds ?? 30;
    this.#clock = options.clock ?? systemClock;
    this.#dedup = options.deduplication;
  }

  /** Sends a message, to be delivered after its delay. */
  async send(body: T, options: SendOptions & { attributes?: Record<string, string> }): Promise<void> {
    // Standard queues have no deduplication ids; the optional log stands in for them. The id is claimed before
    // the send, so of concurrent senders one sends, and given back if the send fails, so nothing is lost.
    const dedupId = options.deduplicationId === undefined ? undefined : `${options.groupId}/${options.deduplicationId}`;
    const claim = dedupId === undefined || !this.#dedup ? undefined : await this.#dedup.claim(dedupId);
    if (claim === null) return;
    // Whole seconds, at most 900 (callers chain longer waits).
    const delay = Math.min(SQS_MAX_DELAY_SECONDS, Math.max(0, Math.ceil(options.delaySeconds ?? 0)));
    const attributes = Object.fromEntries(Object.entries(options.attributes ?? {}).map(([k, v]) => [k, { DataType: 'String', StringValue: v }]));
    let out: SendMessageCommandOutput;
    try {
      out = await this.client.send(
        new SendMessageCommand({
          QueueUrl: this.queueUrl,
          MessageBody: JSON.stringify(body),
          DelaySeconds: delay,
          MessageAttributes: { ...attributes, [GROUP_ATTRIBUTE]: { DataType: 'String', StringValue: options.groupId } },
        }),
      );
    } catch (e) {
      // The send's error is what the caller must see; a failed give-back only delays the id's next send to the window's end.
      if (claim) await this.#dedup?.release(claim).catch(() => undefined);
      throw e;
    }
    if (out.MessageId) this.#due.set(out.MessageId, this.#clock.now() + delay * 1000);
  }

  async receive(max: number): Promise<Array<SqsReceivedMessage<T>>> {
    const out = await this.client.send(
      new ReceiveMessageCommand({
        QueueUrl: this.queueUrl,
        MaxNumberOfMessages: Math.max(1, Math.min(10, max)),
        VisibilityTimeout: this.#visibility,
        WaitTimeSeconds: 0,
        MessageSystemAttributeNames: ['ApproximateReceiveCount'],
        MessageAttributeNames: ['All'],
      }),
    );
    const now = this.#clock.now();
    return (out.Messages ?? []).map((m) => {
      if (m.MessageId && m.ReceiptHandle) {
        this.#due.set(m.MessageId, now + this.#visibility * 1000);
        this.#receipts.set(m.ReceiptHandle, m.MessageId);
      }
      return toReceived<T>(m);
    });
  }

  async ack(receipt: string): Promise<void> {
    try {
      // SQS: deleting with an outdated receipt handle succeeds without deleting, as the port requires.
      await this.client.send(new DeleteMessageCommand({ QueueUrl: this.queueUrl, ReceiptHandle: receipt }));
    } catch (e) {
      if (!isStaleReceipt(e)) throw e;
    }
    const id = this.#receipts.get(receipt);
    this.#receipts.delete(receipt);
    if (id && !(await this.#stillTracked(id))) this.#due.delete(id);
  }

  async release(receipt: string, delaySeconds = 0): Promise<void> {
    const seconds = Math.min(SQS_MAX_DELAY_SECONDS, Math.max(0, Math.ceil(delaySeconds)));
    try {
      await this.client.send(new ChangeMessageVisibilityCommand({ QueueUrl: this.queueUrl, ReceiptHandle: receipt, VisibilityTimeout: seconds }));
    } catch (e) {
      if (!isStaleReceipt(e)) throw e;
      return;
    }
    const id = this.#receipts.get(receipt);
    if (id) this.#due.set(id, this.#clock.now() + seconds * 1000);
  }

  async nextVisibleAt(): Promise<number | null> {
    const counts = await this.#counts();
    const now = this.#clock.now();
    if (counts.visible + counts.hidden + counts.delayed === 0) {
      this.#due.clear();
      this.#receipts.clear();
      return null;
    }
    if (counts.visible > 0) return now;
    // Nothing is visible, so every estimate already due concerns a message that is gone or held elsewhere.
    for (const [id, at] of this.#due) if (at <= now) this.#due.delete(id);
    const known = Math.min(...this.#due.values());
    // Messages sent by other processes: poll again in a second.
    return Number.isFinite(known) ? known : now + 1000;
  }

  async size(): Promise<number> {
    const c = await this.#counts();
    return c.visible + c.hidden + c.delayed;
  }

  async #stillTracked(id: string): Promise<boolean> {
    // The same message may have been received again under a newer receipt (at-least-once).
    for (const v of this.#receipts.values()) if (v === id) return true;
    return false;
  }

  async #counts(): Promise<{ visible: number; hidden: number; delayed: number }> {
    const out = await this.client.send(
      new GetQueueAttributesCommand({
        QueueUrl: this.queueUrl,
        AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'],
      }),
    );
    const a = out.Attributes ?? {};
    return {
      visible: Number(a.ApproximateNumberOfMessages ?? 0),
      hidden: Number(a.ApproximateNumberOfMessagesNotVisible ?? 0),
      delayed: Number(a.ApproximateNumberOfMessagesDelayed ?? 0),
    };
  }
}

function toReceived<T>(m: Message): SqsReceivedMessage<T> {
  const attributes = Object.fromEntries(
    Object.entries(m.MessageAttributes ?? {}).flatMap(([k, v]) => (v.StringValue === undefined ? [] : [[k, v.StringValue]])),
  );
  return {
    attributes,
    body: JSON.parse(m.Body ?? 'null') as T,
    groupId: m.MessageAttributes?.[GROUP_ATTRIBUTE]?.StringValue ?? '',
    receiveCount: Number(m.Attributes?.ApproximateReceiveCount ?? 1),
    receipt: m.ReceiptHandle ?? '',
  };
}

function isStaleReceipt(e: unknown): boolean {
  const name = (e as { name?: unknown }).name;
  return name === 'ReceiptHandleIsInvalid' || name === 'MessageNotInflight' || name === 'InvalidParameterValue' || name === 'InvalidParameterValueException';
}
