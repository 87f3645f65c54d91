// The scale subresource of Deployments (`/apis/apps/v1/namespaces/{ns}/deployments/{name}/scale`), an autoscaling/v1
// Scale: what `kubectl scale` and autoscalers read and write (https://kubernetes.io/docs/reference/kubernetes-api/
// workload-resources/deployment-v1/ "replace scale of the specified Deployment"; registry/apps/deployment/storage
// ScaleREST). Its spec.replicas is the Deployment's; a patch applies to the Scale object, then only the replica count
// goes back to the Deployment.
import { ApiError, obj, type Json, type KubeObject } from './store.js';
import { jsonPatch } from './patch-json.js';
import { mergePatch, strategicMergePatch } from './patch-strategic.js';

/** The Deployment as a Scale: its replicas, and the label selector as the string status.selector carries. */
export function scaleOf(deployment: KubeObject): Json {
  const spec = obj(deployment['spec']) ?? {};
  const status = obj(deployment['status']) ?? {};
  const matchLabels = obj(obj(spec['selector'])?.['matchLabels']) ?? {};
  const { name, namespace, uid, resourceVersion, creationTimestamp } = deployment.metadata;
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: { name, namespace, uid, resourceVersion, creationTimestamp },
    spec: { replicas: Number(spec['replicas'] ?? 1) },
    status: {
      replicas: Number(status['replicas'] ?? 0),
      selector: Object.entries(matchLabels)
        .map(([k, v]) => `${k}=${String(v)}`)
        .join(','),
    },
  };
}

/** The replica count a PUT (a whole Scale) or a PATCH of `contentType` asks for; 422 when it is not a count ≥ 0. */
export function requestedReplicas(current: Json, body: unknown, contentType: string | undefined): number {
  const type = contentType?.split(';')[0]?.trim();
  let next: unknown = body;
  if (type === 'application/merge-patch+json') next = mergePatch(current, body);
  else if (type === 'application/strategic-merge-patch+json') next = strategicMergePatch(current, body);
  else if (type === 'application/json-patch+json') next = jsonPatch(current, body);
  else if (type !== undefined) {
    throw new ApiError(
      415,
      'UnsupportedMediaType',
      'the body of the request was in an unknown format - accepted media types include: ' +
        'application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json',
    );
  }
  const replicas = obj(obj(next)?.['spec'])?.['replicas'];
  if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
    throw new ApiError(
      422,
      'Invalid',
      `Scale.autoscaling "${String(obj(current['metadata'])?.['name'] ?? '')}" is invalid: spec.replicas: ` +
        `Invalid value: ${JSON.stringify(replicas ?? null)}: must be greater than or equal to 0`,
      { kind: 'Scale', group: 'autoscaling' },
    );
  }
  return replicas;
}
