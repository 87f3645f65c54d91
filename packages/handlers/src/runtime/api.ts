// The serverless API's core, whatever carries it (API Gateway or a function URL on AWS, Cloud Run on Google): apply a
// manifest, read a project's status, destroy a project, reconcile it (repair drift), read and scale a cluster's
// autoscaled pools. A manifest is validated before anything is stored; its errors come back as JSON with their paths.
// The transport verifies who calls; this core decides, by the access policy, what that caller may do to which project,
// and logs every change and every refusal with the caller. Each runtime adapts its requests to ApiRequest.
import { isKubeplaneError, validateManifestText, type Kubeplane, type Manifest, type ValidationIssue } from '@kubeplane/sdk';
import { OPERATION_ROLES, type AccessPolicy, type ProjectOperation } from '../aws/access.js';
import { errorFields, type LogFields, type Logger } from '../runtime/logger.js';
import type { SecretRefRefusal } from '../aws/secret-refs.js';

/** A request as the core sees it: the verified caller, the method, the path and the body as text. */
export interface ApiRequest {
  method: string;
  path: string;
  body: string | undefined;
  caller: ApiCaller;
}

/** Who made a request, as the log and a refusal name them: an IAM ARN on AWS, an email on Google Cloud. */
export interface ApiCaller {
  id: string;
  sourceIp: string | undefined;
}

export interface ApiResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface ApiCoreOptions {
  kubeplane: Kubeplane;
  access: AccessPolicy;
  logger: Logger;
  /** Largest manifest accepted (bytes); default 1 MiB. */
  maxBodyBytes?: number;
  /** The secretRefs of a manifest this runtime refuses to read (each runtime's secret-refs.ts). */
  refusedSecretRefs: (manifest: Manifest) => SecretRefRefusal[];
}

type Result = ApiResponse;
type Caller = ApiCaller;

// A project name is a DNS subdomain (metadata.name): up to 253 of a-z, 0-9, '-' and '.'.
const PROJECT = /^\/projects\/([a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?)(\/destroy|\/reconcile)?\/?$/;
// A cluster's autoscaled pools, for a cluster autoscaler's adapter: read them, scale one. Cluster and pool names are DNS labels.
const NODE_GROUPS = /^\/projects\/([a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?)\/clusters\/([a-z0-9-]{1,63})\/(?:node-groups|pools\/([a-z0-9-]{1,63})\/scale)\/?$/;

export function createApiCore(options: ApiCoreOptions): (request: ApiRequest) => Promise<ApiResponse> {
  const { logger, access } = options;
  const kp = options.kubeplane;

  function refused(caller: Caller, operation: ProjectOperation, projects: string[]): Result {
    const names = [...new Set(projects)];
    logger.log('warn', 'request refused', { status: 403, operation, projects: names, caller: caller.id, sourceIp: caller.sourceIp });
    const verb = operation === 'status' ? 'read' : operation;
    return json(403, {
      error:
        `${caller.id} may not ${verb} project ${names.join(', ')}: no access grant gives it ` +
        `the ${OPERATION_ROLES[operation]} role on ${names.length > 1 ? 'each of them' : 'it'}`,
    });
  }

  /** Every change, with who asked for it: one line an operation and project. */
  function accepted(operation: Exclude<ProjectOperation, 'status'>, project: string, caller: Caller, fields: LogFields = {}): void {
    logger.log('info', 'change accepted', { operation, project, ...fields, caller: caller.id, sourceIp: caller.sourceIp });
  }

  async function applyManifests(request: ApiRequest, caller: Caller): Promise<Result> {
    const text = request.body ?? '';
    if (Buffer.byteLength(text) > (options.maxBodyBytes ?? 1024 * 1024)) return json(413, { error: 'the manifest is larger than this API accepts' });
    const result = validateManifestText(text, { file: 'request body' });
    if (!result.ok || result.manifests.length === 0) {
      const errors: ValidationIssue[] = result.ok ? [{ severity: 'error', path: '', message: 'the request body holds no manifest' }] : result.errors;
      return json(400, {
        errors: errors.map((i) => ({ path: i.path, message: i.message, ...(i.line !== undefined ? { line: i.line, column: i.column } : {}) })),
        warnings: result.warnings.map((i) => ({ path: i.path, message: i.message })),
      });
    }
    // Every project of the body is checked before any of them is stored: one the caller may not change refuses the body.
    const forbidden = result.manifests.filter((m) => !access.allows(caller.id, 'apply', m.name)).map((m) => m.name);
    if (forbidden.length > 0) return refused(caller, 'apply', forbidden);
    // Before anything is stored: a reference to the function's own environment, files or another tenant's secret.
    const refusedRefs = result.manifests.flatMap((m) => {
      const found = options.refusedSecretRefs(m);
      return result
        .locate(
          m,
          found.map(({ status: _status, ...issue }) => issue),
        )
        .map((issue, i) => ({ ...issue, status: found[i]?.status ?? 400 }));
    });
    if (refusedRefs.length > 0) {
      return json(refusedRefs.some((r) => r.status === 400) ? 400 : 403, {
        errors: refusedRefs.map((i) => ({ path: i.path, message: i.message, ...(i.line !== undefined ? { line: i.line, column: i.column } : {}) })),
      });
    }
    const applied = [];
    for (const manifest of result.manifests) applied.push(await applyOne(manifest, caller));
    return json(202, { applied, warnings: result.warnings.map((i) => ({ path: i.path, message: i.message })) });
  }

  async function applyOne(manifest: Manifest, caller: Caller) {
    const r = await kp.apply(manifest);
    accepted('apply', manifest.name, caller, { generation: r.generation });
    return { project: manifest.name, generation: r.generation, queued: r.queued, operations: r.plan.operations.length };
  }

  async function onProject(operation: Exclude<ProjectOperation, 'apply' | 'scale'>, project: string, caller: Caller): Promise<Result> {
    switch (operation) {
      case 'destroy': {
        const r = await kp.destroy(project);
        accepted('destroy', project, caller);
        // What a deletion leaves is read with GET /projects/<name>: ERROR, each cluster's message naming it.
        return json(202, { project, queued: r.queued, ...(r.swept.length > 0 ? { swept: r.swept } : {}) });
      }
      case 'reconcile': {
        // For a schedule (EventBridge Scheduler): the last applied manifest again, every cluster's flow run to repair drift.
        const r = await kp.reconcile(project);
        accepted('reconcile', project, caller, { generation: r.generation });
        return json(202, { project, generation: r.generation, queued: r.queued });
      }
      case 'status': {
        const status = await kp.findStatus(project);
        if (!status) return json(404, { error: `no project ${project}` });
        return json(200, status);
      }
    }
  }

  /** GET …/node-groups (reader) and POST …/pools/<pool>/scale with `{target, removeNodes?}` (operator). */
  async function onNodeGroups(
    request: ApiRequest,
    method: string,
    project: string,
    cluster: string,
    pool: string | undefined,
    caller: Caller,
  ): Promise<Result> {
    const operation = pool === undefined ? 'status' : 'scale';
    const expected = pool === undefined ? 'GET' : 'POST';
    if (method !== expected) return json(405, { error: `use ${expected} ${request.path}` });
    if (!access.allows(caller.id, operation, project)) return refused(caller, operation, [project]);
    if (pool === undefined) return json(200, { nodeGroups: await kp.nodeGroups(project, cluster) });
    const text = request.body ?? '';
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return json(400, { error: 'the request body is not JSON; send {"target": <nodes>} or {"target": <nodes>, "removeNodes": [<node names>]}' });
    }
    const { target, removeNodes } = (typeof body === 'object' && body !== null ? body : {}) as { target?: unknown; removeNodes?: unknown };
    if (typeof target !== 'number' || !Number.isInteger(target)) return json(400, { error: 'target: a whole number of nodes is required' });
    if (removeNodes !== undefined && !(Array.isArray(removeNodes) && removeNodes.every((n) => typeof n === 'string')))
      return json(400, { error: 'removeNodes: a list of node names' });
    const r = await kp.scalePool(project, cluster, pool, target, removeNodes ? { removeNodes: removeNodes as string[] } : {});
    accepted('scale', project, caller, { cluster, pool, target: r.target });
    return json(202, { project, cluster, pool, ...r });
  }

  async function route(request: ApiRequest): Promise<Result> {
    const method = request.method.toUpperCase();
    const path = request.path;
    const caller = request.caller;
    if (path === '/projects' || path === '/projects/') {
      if (method !== 'POST') return json(405, { error: `${method} ${path} is not allowed; POST a manifest here` });
      return applyManifests(request, caller);
    }
    const g = NODE_GROUPS.exec(path);
    if (g) return onNodeGroups(request, method, g[1] ?? '', g[2] ?? '', g[3], caller);
    const m = PROJECT.exec(path);
    if (!m)
      return json(404, {
        error:
          `no route for ${method} ${path}; try POST /projects, GET /projects/<name>, POST /projects/<name>/destroy, POST /projects/<name>/reconcile, ` +
          `GET /projects/<name>/clusters/<cluster>/node-groups, POST /projects/<name>/clusters/<cluster>/pools/<pool>/scale`,
      });
    const project = m[1] ?? '';
    const operation = m[2] === '/destroy' ? 'destroy' : m[2] === '/reconcile' ? 'reconcile' : 'status';
    const expected = operation === 'status' ? 'GET' : 'POST';
    if (method !== expected) return json(405, { error: `use ${expected} ${path}` });
    // Before the project is looked at: a caller without a grant learns nothing, not even whether it exists.
    if (!access.allows(caller.id, operation, project)) return refused(caller, operation, [project]);
    return onProject(operation, project, caller);
  }

  return async (request) => {
    try {
      return await route(request);
    } catch (e) {
      logger.log('error', 'request failed', { path: request.path, ...errorFields(e) });
      if (isKubeplaneError(e) && e.kind === 'not-found') return json(404, { error: e.message });
      // A pool backed off after its provider refused to grow it: the caller may ask again after Retry-After.
      if (isKubeplaneError(e) && (e.kind === 'quota' || e.kind === 'capacity')) {
        const retry = e.details.retryAfterSeconds;
        return {
          ...json(429, { error: e.message, kind: e.kind, ...(e.details.code ? { code: e.details.code } : {}) }),
          ...(retry ? { headers: { 'content-type': 'application/json', 'retry-after': String(retry) } } : {}),
        };
      }
      if (isKubeplaneError(e) && (e.kind === 'invalid' || e.kind === 'conflict')) {
        return json(e.kind === 'invalid' ? 400 : 409, {
          errors: e.message.split('\n').map((line) => ({
            path: line.includes(': ') ? line.slice(0, line.indexOf(': ')) : '',
            message: line.includes(': ') ? line.slice(line.indexOf(': ') + 2) : line,
          })),
        });
      }
      return json(500, { error: 'internal error; see the function logs' });
    }
  };
}

export function json(status: number, body: unknown): ApiResponse {
  return { status, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
}
