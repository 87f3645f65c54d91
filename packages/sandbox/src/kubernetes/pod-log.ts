// `GET pods/<name>/log`: what the API server and the node's kubelet answer when no container of the pod ever wrote a
// line, which is every sandbox pod (no process runs). The API server checks the container parameter
// (pkg/registry/core/pod strategy.go: ValidateContainer) and streams nothing for a pod with no node yet; the kubelet
// refuses a container that has not started (kubelet_pods.go validateContainerLogStatus), and the API server passes
// its 400 on as a BadRequest Status with the kubelet's text (genericrest's HTTP response checker), e.g.
// `container "app" in pod "app-0" is waiting to start: ContainerCreating` (kubernetes/kubernetes#28746).
import { ApiError, notFound, obj, type Json, type KubeObject } from './store.js';

function names(list: unknown): string[] {
  return ((list as Json[] | undefined) ?? []).map((c) => String(c['name'] ?? ''));
}

/** The log text for the pod's container the query names (always empty here), or the refusal a real cluster gives. */
export function podLog(pod: KubeObject, query: URLSearchParams, nodeExists: (name: string) => boolean): string {
  const spec = obj(pod['spec']) ?? {};
  const podName = pod.metadata.name;
  const containers = names(spec['containers']);
  const init = names(spec['initContainers']);
  let container = query.get('container') ?? '';
  if (container === '') {
    if (containers.length !== 1) {
      const initPart = init.length > 0 ? ` or one of the init containers: [${init.join(' ')}]` : '';
      throw new ApiError(400, 'BadRequest', `a container name must be specified for pod ${podName}, choose one of: [${containers.join(' ')}]${initPart}`);
    }
    container = containers[0] ?? '';
  } else if (!containers.includes(container) && !init.includes(container)) {
    throw new ApiError(400, 'BadRequest', `container ${container} is not valid for pod ${podName}`);
  }
  // Not yet on a node: nothing to stream, and no error (the API server's log location is empty).
  if (typeof spec['nodeName'] !== 'string' || spec['nodeName'] === '') return '';
  // The API server finds the kubelet through the Node object: a pod bound to a node that is gone has no log location.
  if (!nodeExists(spec['nodeName'])) throw notFound('nodes', spec['nodeName']);
  const status = obj(pod['status']) ?? {};
  const statuses = [...((status['containerStatuses'] as Json[] | undefined) ?? []), ...((status['initContainerStatuses'] as Json[] | undefined) ?? [])];
  const found = statuses.find((c) => c['name'] === container);
  const state = obj(found?.['state']) ?? {};
  // A bound pod whose containers the kubelet has not started yet: the kubelet reports them waiting, ContainerCreating.
  const waiting = obj(state['waiting']) ?? (found === undefined ? { reason: 'ContainerCreating' } : undefined);
  if (waiting)
    throw new ApiError(
      400,
      'BadRequest',
      `container "${container}" in pod "${podName}" is waiting to start: ${String(waiting['reason'] ?? 'ContainerCreating')}`,
    );
  if (query.get('previous') === 'true' || query.get('previous') === '1') {
    // No container of the sandbox ever restarted, so there is no terminated instance to read.
    throw new ApiError(400, 'BadRequest', `previous terminated container "${container}" in pod "${podName}" not found`);
  }
  // Started (running or finished): its output, which is empty, since the sandbox runs no process.
  return '';
}
