// middy middleware shared by the handlers: one structured log line when an invocation starts and when it ends
// (with its duration and, on failure, the error's kind and message, never its payload).
import type middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { errorFields, type Logger } from './logger.js';

/** A middy middleware that logs each invocation: its start, its end and its error. */
export function invocationLogging<E, R>(logger: Logger): middy.MiddlewareObj<E, R, Error, Context> {
  const started = new WeakMap<object, number>();
  return {
    before: (request) => {
      started.set(request, performance.now());
      const records = (request.event as { Records?: unknown[] } | null)?.Records;
      logger.log('debug', 'invocation started', { requestId: request.context?.awsRequestId, ...(Array.isArray(records) ? { records: records.length } : {}) });
    },
    after: (request) => {
      logger.log('debug', 'invocation finished', {
        requestId: request.context?.awsRequestId,
        ms: Math.round(performance.now() - (started.get(request) ?? performance.now())),
      });
    },
    onError: (request) => {
      logger.log('error', 'invocation failed', { requestId: request.context?.awsRequestId, ...errorFields(request.error) });
    },
  };
}
