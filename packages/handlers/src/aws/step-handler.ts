// The SQS handler that runs step messages: each record is one StepEvent for the engine; the reply lists the
// records to retry (partial batch failures). Records of one cluster run one after the other, clusters in
// parallel. What becomes of each delivery is the SDK's decision (deliverStep: contention sends a fresh copy with a
// growing delay, only real failures count towards maxReceiveCount, the last one marks the cluster ERROR); this
// file maps it onto SQS: a batch item failure, or a copy sent with the re-send count as a message attribute.
import middy from '@middy/core';
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { deliverStep } from '@kubeplane/sdk/internal';
import { parseStepEvent, type Kubeplane, type ProcessOutcome, type StepEvent } from '@kubeplane/sdk';
import { errorFields, jsonLogger, type Logger } from './logger.js';
import { invocationLogging } from './middleware.js';
import { recordsInOrder } from './records-in-order.js';
import { GROUP_ATTRIBUTE } from './sqs-queue.js';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';

/** Where a step message goes back to (the queue the handler is subscribed to). */
export interface StepSender {
  /** Sends a step message again. */
  send(body: StepEvent, options: { groupId: string; delaySeconds?: number; attributes?: Record<string, string> }): Promise<void>;
}

/** The message attribute a re-sent busy/conflict copy carries: how many times its step was re-sent so. */
export const RESENDS_ATTRIBUTE = 'kubeplane-resends';

/** What the step Lambda handler runs with: the Kubeplane, the queue to re-send on, its max receive count and a logger. */
export interface StepHandlerOptions {
  kubeplane: Kubeplane;
  queue: StepSender;
  /** The queue's redrive maxReceiveCount: the delivery that reaches it is the last. */
  maxReceiveCount: number;
  logger?: Logger;
}

/** The step Lambda handler (SQS events, partial batch failures). */
export type StepHandler = middy.MiddyfiedHandler<SQSEvent, SQSBatchResponse, Error, Context>;

/** Thrown for an SQS record that is not a step message. */
export class InvalidStepMessage extends Error {
  override name = 'InvalidStepMessage';
}

/** Builds the Lambda handler that runs step messages from SQS and reports the records to retry. */
export function createStepHandler(options: StepHandlerOptions): StepHandler {
  const logger = options.logger ?? jsonLogger();

  async function record(r: SQSRecord): Promise<ProcessOutcome> {
    const deliveries = Number(r.attributes.ApproximateReceiveCount || 1);
    const parsed = parseStepEvent(r.body);
    if (!parsed.ok) {
      // Can never succeed: fail it so that it ends in the DLQ for someone to look at.
      logger.log('error', 'invalid step message', { messageId: r.messageId, issues: parsed.issues });
      throw new InvalidStepMessage(`message ${r.messageId} is not a step event`);
    }
    const event = parsed.event;
    const log = logger.child({ messageId: r.messageId, clusterId: event.clusterId, step: event.step, key: event.key, deliveries });
    const resends = Number(r.messageAttributes[RESENDS_ATTRIBUTE]?.stringValue ?? 0);
    const decision = await deliverStep(options.kubeplane, { event, attempt: deliveries, maxAttempts: options.maxReceiveCount, resends });
    switch (decision.action) {
      case 'retry':
      case 'dead-letter':
        log.log('error', 'step failed', errorFields(decision.error));
        if (decision.action === 'dead-letter') {
          if (decision.markError)
            log.log('error', 'last delivery failed and the cluster could not be marked; the dead-letter handler will', errorFields(decision.markError));
          else log.log('error', 'poison message: cluster set to ERROR, message goes to the DLQ', { marked: decision.marked });
        }
        // A batch item failure: SQS delivers it again, or after the last delivery moves it to the DLQ.
        throw decision.error;
      case 'resend':
        // The copy carries no deduplication id, since its own id was sent moments ago; a crash between the send and
        // the delete leaves a duplicate, which the engine drops as stale.
        await options.queue.send(event, {
          groupId: event.clusterId,
          delaySeconds: decision.delaySeconds,
          attributes: { [RESENDS_ATTRIBUTE]: String(decision.resends) },
        });
        log.log('info', 'step handled', { outcome: decision.outcome, resends: decision.resends, delaySeconds: decision.delaySeconds });
        return decision.outcome;
      case 'ack':
      case 'redeliver':
        log.log('info', 'step handled', { outcome: decision.outcome });
        return decision.outcome;
    }
  }

  return middy<SQSEvent, SQSBatchResponse, Error, Context>()
    .use(invocationLogging(logger))
    .handler(async (event, context) => {
      const processor = new BatchProcessor(EventType.SQS);
      // One cluster's records one after the other, clusters in parallel (see records-in-order.ts).
      const inOrder = recordsInOrder(event.Records, clusterOf, record);
      return processPartialResponse(event, inOrder, processor, { context, throwOnFullBatchFailure: false });
    });
}

/** The cluster a record's message is for: its group attribute, or the body's clusterId (undefined when invalid). */
function clusterOf(r: SQSRecord): string | undefined {
  const group = r.messageAttributes[GROUP_ATTRIBUTE]?.stringValue;
  if (group) return group;
  const parsed = parseStepEvent(r.body);
  return parsed.ok ? parsed.event.clusterId : undefined;
}

/**
 * Where the dead-letter function puts each message once it has marked its cluster: a queue nothing consumes, kept
 * 14 days for inspection and redrive (docs/serverless.md, "Dead letters").
 */
export interface DeadLetterKeeper {
  /** Keeps a message that was given up, with a note of why. */
  keep(record: SQSRecord, note: Record<string, string>): Promise<void>;
}

/**
 * Keeps dead letters in an SQS queue, with the original message id and what the function did as attributes. `client`
 * replaces the one built from the other options (tests record its calls).
 */
export function sqsKeeper(options: {
  region: string;
  queueUrl: string;
  maxAttempts?: number;
  endpoint?: string;
  credentials?: { accessKeyId: string; secretAccessKey: string };
  client?: SQSClient;
}): DeadLetterKeeper {
  const client =
    options.client ??
    new SQSClient({
      region: options.region,
      maxAttempts: options.maxAttempts ?? 3,
      ...(options.endpoint ? { endpoint: options.endpoint } : {}),
      ...(options.credentials ? { credentials: options.credentials } : {}),
    });
  return {
    async keep(record, note) {
      const attributes = { ...note, 'kubeplane-dead-letter-id': record.messageId, 'kubeplane-receive-count': record.attributes.ApproximateReceiveCount };
      await client.send(
        new SendMessageCommand({
          QueueUrl: options.queueUrl,
          MessageBody: record.body,
          MessageAttributes: Object.fromEntries(Object.entries(attributes).map(([k, v]) => [k, { DataType: 'String', StringValue: v }])),
        }),
      );
    },
  };
}

/**
 * The dead-letter queue's handler: a step message that failed every delivery sets its cluster to ERROR with the
 * reason, and is then kept (keeper) for inspection and redrive rather than deleted. A message that cannot be kept
 * is left in the DLQ (a batch item failure), whose own redrive policy moves it to the kept queue after 3 tries.
 */
export function createDeadLetterHandler(options: { kubeplane: Kubeplane; keeper: DeadLetterKeeper; logger?: Logger }): StepHandler {
  const logger = options.logger ?? jsonLogger();
  return middy<SQSEvent, SQSBatchResponse, Error, Context>()
    .use(invocationLogging(logger))
    .handler(async (event) => {
      const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
      for (const r of event.Records) {
        const parsed = parseStepEvent(r.body);
        let note: Record<string, string>;
        if (!parsed.ok) {
          logger.log('error', 'invalid message in the DLQ', { messageId: r.messageId, issues: parsed.issues });
          note = { 'kubeplane-dead-letter': 'not a step message' };
        } else {
          const e = parsed.event;
          const marked = await options.kubeplane.markFailed(
            e.clusterId,
            `step message ${e.key} could not be processed (it timed out or crashed on every delivery) and ` +
              `was moved to the dead-letter queue; see the step function's logs, then apply again to retry`,
            { generation: e.generation, seq: e.seq },
          );
          logger.log('error', 'dead-lettered step message', { messageId: r.messageId, clusterId: e.clusterId, step: e.step, key: e.key, marked });
          note = { 'kubeplane-dead-letter': marked ? 'cluster marked ERROR' : 'cluster already moved on' };
        }
        try {
          await options.keeper.keep(r, note);
        } catch (error) {
          logger.log('error', 'could not keep a dead-lettered message; it stays in the DLQ', { messageId: r.messageId, ...errorFields(error) });
          batchItemFailures.push({ itemIdentifier: r.messageId });
        }
      }
      return { batchItemFailures };
    });
}
