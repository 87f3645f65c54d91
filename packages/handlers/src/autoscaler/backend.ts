// Where the autoscaler adapter reads node groups and sends scaling: a Kubeplane instance in this process (the local
// runtime), or kubeplane's serverless HTTP API (GET …/node-groups, POST …/pools/<pool>/scale). Both speak the engine's
// NodeGroup view (Kubeplane.nodeGroups) and its errors, so the gRPC service maps them the same way.
import { KubeplaneError, type Kubeplane, type NodeGroup } from '@kubeplane/sdk';

export interface ScalingBackend {
  /** Where this backend scales, for messages: `<project>/<cluster>` and how it is reached. */
  readonly describe: string;
  nodeGroups(): Promise<NodeGroup[]>;
  /** Sets a pool's target, or removes exactly `removeNodes` (the target then is the pool's count less them). */
  scalePool(pool: string, target: number, removeNodes?: string[]): Promise<void>;
}

/** The local runtime: scaling is recorded and carried out by whoever runs this Kubeplane's queue. */
export function localBackend(kp: Kubeplane, project: string, cluster: string): ScalingBackend {
  return {
    describe: `${project}/${cluster} (local runtime)`,
    nodeGroups: () => kp.nodeGroups(project, cluster),
    async scalePool(pool, target, removeNodes) {
      await kp.scalePool(project, cluster, pool, target, removeNodes ? { removeNodes } : {});
    },
  };
}

/**
 * The serverless API. `fetch` is the caller's, so it can sign requests (the API is IAM-authorized: SigV4 with the
 * credentials the adapter runs with); credentials never pass through here.
 */
export function httpBackend(options: { apiUrl: string; project: string; cluster: string; fetch: typeof fetch }): ScalingBackend {
  const base = `${options.apiUrl.replace(/\/$/, '')}/projects/${encodeURIComponent(options.project)}/clusters/${encodeURIComponent(options.cluster)}`;
  const call = async (method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> => {
    const response = await options.fetch(`${base}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    let parsed: unknown = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = null;
    }
    if (response.ok) return parsed;
    const error = errorText(parsed) ?? `${response.status} ${response.statusText}`;
    const retry = Number(response.headers.get('retry-after') ?? '');
    const kind =
      response.status === 404
        ? 'not-found'
        : response.status === 400
          ? 'invalid'
          : response.status === 429
            ? (parsed as { kind?: string } | null)?.kind === 'quota'
              ? 'quota'
              : 'capacity'
            : response.status === 409
              ? 'conflict'
              : response.status === 401 || response.status === 403
                ? 'auth'
                : 'retryable';
    const code = (parsed as { code?: unknown } | null)?.code;
    throw new KubeplaneError(kind, `${method} ${base}${path}: ${error}`, {
      ...(typeof code === 'string' ? { code } : {}),
      ...(Number.isFinite(retry) && retry > 0 ? { retryAfterSeconds: retry } : {}),
    });
  };
  return {
    describe: `${options.project}/${options.cluster} (${options.apiUrl})`,
    async nodeGroups() {
      const body = (await call('GET', '/node-groups')) as { nodeGroups?: NodeGroup[] } | null;
      if (!body || !Array.isArray(body.nodeGroups)) throw new KubeplaneError('retryable', `GET ${base}/node-groups answered without nodeGroups`);
      return body.nodeGroups;
    },
    async scalePool(pool, target, removeNodes) {
      await call('POST', `/pools/${encodeURIComponent(pool)}/scale`, { target, ...(removeNodes ? { removeNodes } : {}) });
    },
  };
}

/** The API's error words: `{error}` or `{errors: [{path, message}]}`. */
function errorText(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const b = body as { error?: unknown; errors?: Array<{ path?: string; message?: string }> };
  if (typeof b.error === 'string') return b.error;
  if (Array.isArray(b.errors)) return b.errors.map((e) => (e.path ? `${e.path}: ${e.message ?? ''}` : (e.message ?? ''))).join('; ');
  return undefined;
}
