// The HTTP API on AWS (API Gateway HTTP API or a Lambda function URL, payload format 2.0), over the runtime's API core
// (runtime/api.ts): the gateway verifies who calls (IAM/SigV4) and names the caller's ARN in the event; the core decides,
// by the access grants (access.ts), what that caller may do to which project.
import middy from '@middy/core';
import type {
  APIGatewayEventRequestContextIAMAuthorizer,
  APIGatewayEventRequestContextV2,
  APIGatewayProxyEventV2WithRequestContext,
  APIGatewayProxyStructuredResultV2,
  Context,
} from 'aws-lambda';
import type { Kubeplane } from '@kubeplane/sdk';
import { accessPolicy, type AccessGrant } from './access.js';
import { jsonLogger, type Logger } from './logger.js';
import { invocationLogging } from './middleware.js';
import { PROVIDER_SECRET_PREFIX, refusedSecretRefs } from './secret-refs.js';
import { createApiCore, json } from '../runtime/api.js';

/** What the API Lambda handler runs with: the Kubeplane, the access grants, body limit and provider secret prefix. */
export interface ApiHandlerOptions {
  kubeplane: Kubeplane;
  /** Who may do what (access.ts); none refuses every request. */
  access: AccessGrant[];
  logger?: Logger;
  /** Largest manifest accepted (bytes); default 1 MiB. */
  maxBodyBytes?: number;
  /**
   * Provider credentials and SSH keys must be Secrets Manager secrets named `<prefix><project>/…` (default
   * `kubeplane-providers/`, which the step function's role may read); anything else is refused (secret-refs.ts).
   */
  providerSecretPrefix?: string;
}

/**
 * The event as IAM auth (a function URL or HTTP API route with AWS_IAM) delivers it, the verified caller in
 * `requestContext.authorizer.iam`; under any other auth that part is missing, which the handler refuses.
 */
export type ApiEvent = APIGatewayProxyEventV2WithRequestContext<
  APIGatewayEventRequestContextV2 & { authorizer?: { iam?: Partial<APIGatewayEventRequestContextIAMAuthorizer['iam']> } }
>;

/** The API Lambda handler (API Gateway HTTP API events). */
export type ApiHandler = middy.MiddyfiedHandler<ApiEvent, APIGatewayProxyStructuredResultV2, Error, Context>;

/** Builds the Lambda handler of the serverless HTTP API: apply, destroy, status, reconcile and scale. */
export function createApiHandler(options: ApiHandlerOptions): ApiHandler {
  const logger = options.logger ?? jsonLogger();
  const access = accessPolicy(options.access, 'ApiHandlerOptions.access');
  if (access.size === 0) logger.log('warn', 'no access grants: every request is refused; grant callers projects in KUBEPLANE_ACCESS (docs/serverless.md)');
  else logger.log('info', 'access grants loaded', { grants: access.size });
  const prefix = options.providerSecretPrefix ?? PROVIDER_SECRET_PREFIX;
  const core = createApiCore({
    kubeplane: options.kubeplane,
    access,
    logger,
    ...(options.maxBodyBytes !== undefined ? { maxBodyBytes: options.maxBodyBytes } : {}),
    refusedSecretRefs: (m) => refusedSecretRefs(m, prefix),
  });

  return middy<ApiEvent, APIGatewayProxyStructuredResultV2, Error, Context>()
    .use(invocationLogging(logger))
    .handler(async (event) => {
      const method = event.requestContext.http.method.toUpperCase();
      const path = event.rawPath;
      const sourceIp = event.requestContext.http.sourceIp;
      const arn = event.requestContext.authorizer?.iam?.userArn;
      // No verified caller: the function is reachable without IAM auth (a NONE function URL, another trigger), a setup
      // error no grant can make safe.
      if (!arn) {
        logger.log('warn', 'request refused', { status: 401, method, path, sourceIp });
        return result(
          json(401, {
            error:
              'no verified caller in the request: serve this API only through IAM auth (a function URL ' +
              'or HTTP API route with AWS_IAM), which names the caller in requestContext.authorizer.iam',
          }),
        );
      }
      const body = event.body === undefined ? undefined : event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
      return result(await core({ method, path, body, caller: { id: arn, sourceIp } }));
    });
}

function result(r: { status: number; headers: Record<string, string>; body: string }): APIGatewayProxyStructuredResultV2 {
  return { statusCode: r.status, headers: r.headers, body: r.body };
}
