// The three functions registered with the Functions Framework under the names the deploy points at: kubeplaneStep
// (Cloud Tasks' target), kubeplaneApi (the HTTP API), kubeplaneWatchdog (Cloud Scheduler's target). The runtime may be
// given lazily: it is built on the first request, so a missing variable fails that request with its name, in the log,
// instead of failing the import (which Cloud Functions reports only as a failed deploy).
import { http } from '@google-cloud/functions-framework';
import { errorFields, jsonLogger, type Logger } from '../runtime/logger.js';
import { gcpAccessPolicy } from './access.js';
import { createGcpApiHandler } from './api-handler.js';
import { createCloudTasksStepHandler, type HttpHandler } from './cloud-tasks-step-handler.js';
import type { GcpRuntime } from './runtime.js';
import { createGcpWatchdogHandler } from './watchdog-handler.js';

/** The names the step, API and watchdog functions are registered under. */
export const GCP_FUNCTION_NAMES = { step: 'kubeplaneStep', api: 'kubeplaneApi', watchdog: 'kubeplaneWatchdog' } as const;

/** The three handlers of a runtime. */
export function gcpHandlers(runtime: GcpRuntime, logger: Logger = jsonLogger()): { step: HttpHandler; api: HttpHandler; watchdog: HttpHandler } {
  return {
    step: createCloudTasksStepHandler({
      kubeplane: runtime.kubeplane,
      queue: runtime.queue,
      maxAttempts: runtime.maxAttempts,
      deadLetters: runtime.deadLetters,
      taskDeadlineSeconds: runtime.taskDeadlineSeconds,
      clock: runtime.clock,
      logger,
    }),
    api: createGcpApiHandler({
      kubeplane: runtime.kubeplane,
      access: gcpAccessPolicy(runtime.accessJson, 'environment variable KUBEPLANE_ACCESS'),
      auth: runtime.apiAuth,
      projectId: runtime.projectId,
      providerSecretPrefix: runtime.providerSecretPrefix,
      logger,
    }),
    watchdog: createGcpWatchdogHandler({ kubeplane: runtime.kubeplane, deadLetters: runtime.deadLetters, clock: runtime.clock, logger }),
  };
}

/** Registers the step, API and watchdog functions with the Functions Framework. */
export function registerGcpFunctions(runtime: GcpRuntime | (() => GcpRuntime), logger: Logger = jsonLogger()): void {
  let handlers: ReturnType<typeof gcpHandlers> | undefined;
  const get = () => (handlers ??= gcpHandlers(typeof runtime === 'function' ? runtime() : runtime, logger));
  const lazily =
    (pick: (h: ReturnType<typeof gcpHandlers>) => HttpHandler): HttpHandler =>
    async (req, res) => {
      let handler: HttpHandler;
      try {
        handler = pick(get());
      } catch (e) {
        // The configuration is wrong (a variable missing or malformed): say which, every request, until redeployed.
        logger.log('error', 'the runtime could not be built from its environment', errorFields(e));
        res.status(500).json({ error: 'the function is misconfigured; see its logs' });
        return;
      }
      await handler(req, res);
    };
  http(
    GCP_FUNCTION_NAMES.step,
    lazily((h) => h.step),
  );
  http(
    GCP_FUNCTION_NAMES.api,
    lazily((h) => h.api),
  );
  http(
    GCP_FUNCTION_NAMES.watchdog,
    lazily((h) => h.watchdog),
  );
}
