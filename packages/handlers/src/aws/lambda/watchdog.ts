// Lambda entry: the scheduled watchdog (re-queues clusters whose step message was lost).
import { awsRuntimeFromEnv } from '../runtime.js';
import { createWatchdogHandler } from '../watchdog-handler.js';

export const handler = createWatchdogHandler({ kubeplane: awsRuntimeFromEnv().kubeplane });
