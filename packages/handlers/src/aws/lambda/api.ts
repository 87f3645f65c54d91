// Lambda entry: the HTTP API (function URL or API Gateway HTTP API, IAM-authorised).
import { awsRuntimeFromEnv } from '../runtime.js';
import { createApiHandler } from '../api-handler.js';

export const handler = createApiHandler({ kubeplane: awsRuntimeFromEnv().kubeplane });
