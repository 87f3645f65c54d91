// Lambda entry: the dead-letter queue's handler (a given-up step message sets its cluster to ERROR).
import { awsRuntimeFromEnv } from '../runtime.js';
import { createDeadLetterHandler } from '../step-handler.js';

export const handler = createDeadLetterHandler({ kubeplane: awsRuntimeFromEnv().kubeplane });
