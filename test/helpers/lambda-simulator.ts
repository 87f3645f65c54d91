// A stand-in for Lambda's SQS event source mapping, for tests: receives batches from the real SQS API,
// invokes the step handler(s) with an SQSEvent, deletes what succeeded and leaves failures to their visibility
// timeout, and — on the sandbox's virtual clock — jumps time to the next message when none is due. Hooks let a
// test lose a delete, kill an invocation mid-step, or hand one message to two handlers at once.
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { VirtualClock } from '@kubeplane/sdk/provider';
import type { StepEvent } from '@kubeplane/sdk';
import type { SqsQueue } from '@kubeplane/handlers/aws';

/** A function an SQS event source invokes (the step or the dead-letter handler, or a stand-in for one). */
export type SqsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

export interface SimulatorReport {
  invocations: number;
  deliveries: number;
  failures: number;
  stopped: 'idle' | 'max-deliveries';
}

export interface SimulatorOptions {
  queue: SqsQueue<StepEvent>;
  /** One handler, or several (Lambda instances): see duplicateUntil. */
  handlers: SqsHandler[];
  /**
   * Until this many messages were delivered, every batch goes to all handlers at once (one message handled by
   * two instances at the same time, as at-least-once delivery allows); after that, batches take turns.
   */
  duplicateUntil?: number;
  clock: VirtualClock;
  batchSize?: number;
  maxDeliveries?: number;
  /**
   * Called per delivered message; 'lose-delete' keeps it after success, 'kill' abandons the invocation unawaited,
   * 'twice' puts the message in its batch a second time (two deliveries of one message in one invocation).
   */
  onMessage?: (body: StepEvent, delivery: number) => 'lose-delete' | 'kill' | 'twice' | void;
}

let requests = 0;
function context(): Context {
  const id = `req-${++requests}`;
  return {
    awsRequestId: id,
    functionName: 'kubeplane-step',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:eu-central-1:000000000000:function:kubeplane-step',
    memoryLimitInMB: '512',
    logGroupName: '/aws/lambda/kubeplane-step',
    logStreamName: id,
    callbackWaitsForEmptyEventLoop: false,
    getRemainingTimeInMillis: () => 60_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

export async function runEventSourceMapping(options: SimulatorOptions): Promise<SimulatorReport> {
  const { queue, clock } = options;
  const report: SimulatorReport = { invocations: 0, deliveries: 0, failures: 0, stopped: 'idle' };
  for (;;) {
    if (report.deliveries >= (options.maxDeliveries ?? 20_000)) return { ...report, stopped: 'max-deliveries' };
    const batch = await queue.receive(options.batchSize ?? 10);
    if (batch.length === 0) {
      const next = await queue.nextVisibleAt();
      if (next === null) return report;
      clock.advanceTo(next);
      continue;
    }
    const actions = batch.map((m) => options.onMessage?.(m.body, report.deliveries));
    report.deliveries += batch.length;
    const records: SQSRecord[] = batch
      .flatMap((m, i) =>
        actions[i] === 'twice'
          ? [
              { ...m, copy: false },
              { ...m, copy: true },
            ]
          : [{ ...m, copy: false }],
      )
      .map((m) => ({
        // A second copy has its own id, as a second delivery would; its failures are reported under that id.
        messageId: m.copy ? `${m.receipt}#2` : m.receipt,
        receiptHandle: m.receipt,
        body: JSON.stringify(m.body),
        attributes: {
          ApproximateReceiveCount: String(m.receiveCount),
          SentTimestamp: String(clock.now()),
          SenderId: 'test',
          ApproximateFirstReceiveTimestamp: String(clock.now()),
        },
        messageAttributes: Object.fromEntries(Object.entries(m.attributes).map(([k, v]) => [k, { stringValue: v, dataType: 'String' as const }])),
        md5OfBody: '',
        eventSource: 'aws:sqs',
        eventSourceARN: 'arn:aws:sqs:eu-central-1:000000000000:kubeplane-steps',
        awsRegion: 'eu-central-1',
      }));
    const event: SQSEvent = { Records: records };
    const handlers =
      report.deliveries <= (options.duplicateUntil ?? 0) ? options.handlers : [options.handlers[report.invocations % options.handlers.length] as SqsHandler];
    report.invocations += handlers.length;
    if (actions.includes('kill')) {
      // The invocation dies mid-way: nothing is deleted, nothing awaited; SQS redelivers after the timeout.
      for (const h of handlers) void h(event, context()).catch(() => undefined);
      continue;
    }
    const responses = await Promise.all(handlers.map((h) => h(event, context())));
    const failed = new Set(responses.flatMap((r) => r.batchItemFailures.map((f) => f.itemIdentifier)));
    report.failures += failed.size;
    for (const [i, m] of batch.entries()) {
      if (failed.has(m.receipt) || actions[i] === 'lose-delete') continue;
      await queue.ack(m.receipt);
    }
  }
}
