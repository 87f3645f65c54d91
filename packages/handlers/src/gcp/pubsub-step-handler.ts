// A CloudEvent handler for Pub/Sub "message published" events that runs the same step as the Lambda handler. Cloud
// Tasks is the Google runtime's queue (cloud-tasks-queue.ts: per-task delays, named tasks that deduplicate); this
// adapter remains for those who publish step messages to a topic themselves. Messages are published with ordering key = cluster id, so Pub/Sub hands
// one cluster's messages over in order; the cluster lease still serialises steps, as on AWS.
// Throwing makes Pub/Sub redeliver (with the subscription's retry policy); the last permitted delivery of a failing
// step sets the cluster's status to ERROR with the reason before the message goes to the dead-letter topic, while
// a busy cluster's last one is sent again as a fresh message, so contention never dead-letters a good message.
import * as z from 'zod';
import { deliverStep } from '@kubeplane/sdk/internal';
import { parseStepEvent, type Kubeplane, type ProcessOutcome, type StepEvent } from '@kubeplane/sdk';
import { errorFields, jsonLogger, type Logger } from '../runtime/logger.js';

/** The CloudEvent type of a Pub/Sub message being published. */
export const PUBSUB_MESSAGE_PUBLISHED = 'google.cloud.pubsub.topic.v1.messagePublished';

/** The parts of a Pub/Sub CloudEvent (structured, as Cloud Functions gen 2 delivers it) the handler reads. */
export const pubSubCloudEventSchema = z.object({
  id: z.string(),
  type: z.literal(PUBSUB_MESSAGE_PUBLISHED),
  source: z.string(),
  data: z.object({
    message: z.object({
      data: z.string(),
      messageId: z.string().optional(),
      orderingKey: z.string().optional(),
      attributes: z.record(z.string(), z.string()).optional(),
    }),
    subscription: z.string().optional(),
    /** Present when the subscription has a dead-letter policy. */
    deliveryAttempt: z.number().int().optional(),
  }),
});
/** A Pub/Sub "message published" CloudEvent. */
export type PubSubCloudEvent = z.infer<typeof pubSubCloudEventSchema>;

/** What to publish for a step event: JSON data, ordering key = the cluster id. */
export function pubSubMessageFor(event: StepEvent): { data: Buffer; orderingKey: string; attributes: Record<string, string> } {
  return { data: Buffer.from(JSON.stringify(event)), orderingKey: event.clusterId, attributes: { 'kubeplane-key': event.key } };
}

/** Thrown so that Pub/Sub delivers the message again later. */
export class RetryStepLater extends Error {
  override name = 'RetryStepLater';
}

/** What the Pub/Sub step handler runs with: the Kubeplane, the subscription's max delivery attempts and a logger. */
export interface PubSubStepHandlerOptions {
  kubeplane: Kubeplane;
  /** The subscription's dead-letter maxDeliveryAttempts. */
  maxDeliveryAttempts: number;
  logger?: Logger;
}

/** Builds the CloudEvent handler that runs step messages published on Pub/Sub. */
export function createPubSubStepHandler(options: PubSubStepHandlerOptions): (cloudEvent: unknown) => Promise<ProcessOutcome> {
  const logger = options.logger ?? jsonLogger();
  return async (cloudEvent) => {
    const envelope = pubSubCloudEventSchema.safeParse(cloudEvent);
    if (!envelope.success) {
      // Not a Pub/Sub event at all: retrying cannot help, so acknowledge it (return) and say so.
      logger.log('error', 'not a Pub/Sub message-published CloudEvent', { issues: envelope.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`) });
      return 'invalid';
    }
    const { message, deliveryAttempt = 1 } = envelope.data.data;
    const parsed = parseStepEvent(Buffer.from(message.data, 'base64').toString('utf8'));
    if (!parsed.ok) {
      logger.log('error', 'invalid step message', { eventId: envelope.data.id, messageId: message.messageId, issues: parsed.issues });
      return 'invalid';
    }
    const event = parsed.event;
    const log = logger.child({ eventId: envelope.data.id, clusterId: event.clusterId, step: event.step, key: event.key, deliveryAttempt });
    const decision = await deliverStep(options.kubeplane, {
      event,
      attempt: deliveryAttempt,
      maxAttempts: options.maxDeliveryAttempts,
      contention: 'redeliver',
    });
    switch (decision.action) {
      case 'retry':
      case 'dead-letter':
        log.log('error', 'step failed', errorFields(decision.error));
        if (decision.action === 'dead-letter' && decision.markError)
          log.log('error', 'last delivery failed and the cluster could not be marked', errorFields(decision.markError));
        // Pub/Sub delivers it again, or after the last permitted delivery moves it to the dead-letter topic.
        throw decision.error;
      case 'redeliver':
        // Contention before the last attempt: nack, and Pub/Sub's retry policy backs off (exponentially, between the
        // subscription's minimum and maximum backoff).
        log.log('info', 'step handled', { outcome: decision.outcome, retry: 'redelivery' });
        throw new RetryStepLater(`cluster ${event.clusterId} is busy; retry`);
      case 'resend':
        // On the last one: a fresh copy goes out through the engine's queue, which starts again at attempt 1, and
        // this delivery is acknowledged (marking the cluster failed would turn a healthy long step held by another
        // instance into an ERROR).
        await options.kubeplane.engine.options.queue.send(event, { groupId: event.clusterId, delaySeconds: decision.delaySeconds });
        log.log('info', 'step handled', { outcome: decision.outcome, retry: 'sent again', delaySeconds: decision.delaySeconds });
        return decision.outcome;
      case 'ack':
        log.log('info', 'step handled', { outcome: decision.outcome });
        return decision.outcome;
    }
  };
}
