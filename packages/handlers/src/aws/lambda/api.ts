// Lambda entry: the HTTP API (function URL or API Gateway HTTP API, IAM-authorised), with the access grants of
// KUBEPLANE_ACCESS; those are read first, so a malformed value fails the cold start before any client is built.
import { accessGrantsFromEnv, awsRuntimeFromEnv } from '../runtime.js';
import { createApiHandler } from '../api-handler.js';

const access = accessGrantsFromEnv();
export const handler = createApiHandler({ kubeplane: awsRuntimeFromEnv().kubeplane, access });
