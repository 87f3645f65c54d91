// Lambda entry: the SQS step handler (the function the step queue triggers).
import { awsRuntimeFromEnv } from '../runtime.js';
import { createStepHandler } from '../step-handler.js';

const runtime = awsRuntimeFromEnv();
export const handler = createStepHandler({ kubeplane: runtime.kubeplane, queue: runtime.queue, maxReceiveCount: runtime.maxReceiveCount });
