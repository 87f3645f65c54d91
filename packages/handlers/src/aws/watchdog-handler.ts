// The scheduled watchdog (an EventBridge rule every 5 minutes): re-queues every IN_PROGRESS cluster whose current
// step has had no message due for longer than a message can be in flight — a crash between a record write and
// its send (an API call that died after apply's write, a claim whose send never happened) leaves one so, and
// nothing else would look at it again.
import middy from '@middy/core';
import type { Context, ScheduledEvent } from 'aws-lambda';
import type { Kubeplane, WatchdogReport } from '@kubeplane/sdk';
import { jsonLogger, type Logger } from './logger.js';
import { invocationLogging } from './middleware.js';

/** The watchdog Lambda handler (scheduled events). */
export type WatchdogHandler = middy.MiddyfiedHandler<ScheduledEvent, WatchdogReport, Error, Context>;

/** Builds the scheduled Lambda handler that sends the lost messages of stuck clusters again. */
export function createWatchdogHandler(options: { kubeplane: Kubeplane; logger?: Logger }): WatchdogHandler {
  const logger = options.logger ?? jsonLogger();
  return middy<ScheduledEvent, WatchdogReport, Error, Context>()
    .use(invocationLogging(logger))
    .handler(async () => {
      const report = await options.kubeplane.watchdog();
      for (const r of report.requeued) logger.log('warn', 'cluster had no step message; re-queued its step', r);
      return report;
    });
}
