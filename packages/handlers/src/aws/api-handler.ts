// The HTTP API (API Gateway HTTP API or a Lambda function URL, payload format 2.0): apply a manifest, read a
// project's status, destroy a project, reconcile it (repair drift). A manifest is validated before anything is stored; its errors come
// back as JSON with their paths. Authorization is the gateway's job (IAM/SigV4), never this function's.
import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { isKubeplaneError, validateManifestText, type Kubeplane } from '@kubeplane/sdk';
import { errorFields, jsonLogger, type Logger } from './logger.js';
import { invocationLogging } from './middleware.js';
import { PROVIDER_SECRET_PREFIX, refusedSecretRefs } from './secret-refs.js';

export interface ApiHandlerOptions {
  kubeplane: Kubeplane;
  logger?: Logger;
  /** Largest manifest accepted (bytes); default 1 MiB. */
  maxBodyBytes?: number;
  /**
   * Provider credentials and SSH keys must be Secrets Manager secrets named `<prefix><project>/…` (default
   * `kubeplane-providers/`, which the step function's role may read); anything else is refused (secret-refs.ts).
   */
  providerSecretPrefix?: string;
}

export type ApiHandler = middy.MiddyfiedHandler<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, Context>;

const PROJECT = /^\/projects\/([a-z0-9][a-z0-9-]{0,62})(\/destroy|\/reconcile)?\/?$/;

export function createApiHandler(options: ApiHandlerOptions): ApiHandler {
  const logger = options.logger ?? jsonLogger();
  const kp = options.kubeplane;

  async function route(event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> {
    const method = event.requestContext.http.method.toUpperCase();
    const path = event.rawPath;
    if (path === '/projects' || path === '/projects/') {
      if (method !== 'POST') return json(405, { error: `${method} ${path} is not allowed; POST a manifest here` });
      const text = event.body === undefined ? '' : event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
      if (Buffer.byteLength(text) > (options.maxBodyBytes ?? 1024 * 1024)) return json(413, { error: 'the manifest is larger than this API accepts' });
      const result = validateManifestText(text, { file: 'request body' });
      if (!result.ok || result.manifests.length === 0) {
        const errors = result.errors.length > 0 ? result.errors : [{ severity: 'error' as const, path: '', message: 'the request body holds no manifest' }];
        return json(400, { errors: errors.map((i) => ({ path: i.path, message: i.message, ...(i.line ? { line: i.line, column: i.column } : {}) })), warnings: result.warnings.map((i) => ({ path: i.path, message: i.message })) });
      }
      // Before anything is stored: a reference to the function's own environment, files or another tenant's secret.
      const prefix = options.providerSecretPrefix ?? PROVIDER_SECRET_PREFIX;
      const refused = result.manifests.flatMap((m) => {
        const found = refusedSecretRefs(m, prefix);
        return result.locate(m, found.map(({ status: _status, ...issue }) => issue)).map((issue, i) => ({ ...issue, status: found[i]?.status ?? 400 }));
      });
      if (refused.length > 0) {
        return json(refused.some((r) => r.status === 400) ? 400 : 403, { errors: refused.map((i) => ({ path: i.path, message: i.message, ...(i.line ? { line: i.line, column: i.column } : {}) })) });
      }
      const applied = [];
      for (const manifest of result.manifests) {
        const r = await kp.apply(manifest);
        applied.push({ project: manifest.name, generation: r.generation, queued: r.queued, operations: r.plan.operations.length });
      }
      return json(202, { applied, warnings: result.warnings.map((i) => ({ path: i.path, message: i.message })) });
    }
    const m = PROJECT.exec(path);
    if (!m) return json(404, { error: `no route for ${method} ${path}; try POST /projects, GET /projects/<name>, POST /projects/<name>/destroy, POST /projects/<name>/reconcile` });
    const project = m[1] ?? '';
    if (m[2] === '/destroy') {
      if (method !== 'POST') return json(405, { error: `use POST ${path}` });
      const r = await kp.destroy(project);
      return json(202, { project, queued: r.queued });
    }
    if (m[2] === '/reconcile') {
      // For a schedule (EventBridge Scheduler): the last applied manifest again, every cluster's flow run to repair drift.
      if (method !== 'POST') return json(405, { error: `use POST ${path}` });
      const r = await kp.reconcile(project);
      return json(202, { project, generation: r.generation, queued: r.queued });
    }
    if (method !== 'GET') return json(405, { error: `use GET ${path}` });
    const status = await kp.findStatus(project);
    if (!status) return json(404, { error: `no project ${project}` });
    return json(200, status);
  }

  return middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, Context>()
    .use(invocationLogging(logger))
    .handler(async (event) => {
      try {
        return await route(event);
      } catch (e) {
        logger.log('error', 'request failed', { path: event.rawPath, ...errorFields(e) });
        if (isKubeplaneError(e) && e.kind === 'not-found') return json(404, { error: e.message });
        if (isKubeplaneError(e) && (e.kind === 'invalid' || e.kind === 'conflict')) {
          return json(e.kind === 'invalid' ? 400 : 409, { errors: e.message.split('\n').map((line) => ({ path: line.includes(': ') ? line.slice(0, line.indexOf(': ')) : '', message: line.includes(': ') ? line.slice(line.indexOf(': ') + 2) : line })) });
        }
        return json(500, { error: 'internal error; see the function logs' });
      }
    });
}

function json(statusCode: number, body: unknown): APIGatewayProxyStructuredResultV2 {
  return { statusCode, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
}
