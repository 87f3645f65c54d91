// Lambda entry: the dead-letter queue's handler (a given-up step message sets its cluster to ERROR, then is kept).
import { KubeplaneError } from '@kubeplane/sdk';
import { awsRuntimeFromEnv } from '../runtime.js';
import { createDeadLetterHandler, sqsKeeper } from '../step-handler.js';

const queueUrl = process.env.KUBEPLANE_KEPT_QUEUE_URL;
if (!queueUrl) throw new KubeplaneError('invalid', 'environment variable KUBEPLANE_KEPT_QUEUE_URL is not set; the deploy (examples/aws) sets it');
export const handler = createDeadLetterHandler({
  kubeplane: awsRuntimeFromEnv().kubeplane,
  keeper: sqsKeeper({ region: process.env.AWS_REGION ?? 'us-east-1', queueUrl }),
});
