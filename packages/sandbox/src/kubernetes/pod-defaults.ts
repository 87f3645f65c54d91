// The API server's defaults for a pod's spec, as pkg/apis/core/v1/defaults.go sets them on every write
// (SetDefaults_PodSpec, SetDefaults_Container, SetDefaults_ContainerPort): on pods, and on the pod templates of
// Deployments, ReplicaSets and DaemonSets, so that a client reads `restartPolicy: Always` where a real cluster has it.
// Admission plugins' additions (the default service account, DefaultTolerationSeconds) are not made here.
import { obj, type Json } from './store.js';

/** Always for an image without a tag or with `:latest`, else IfNotPresent (a digest counts as pinned). */
function pullPolicyOf(image: unknown): string {
  if (typeof image !== 'string') return 'IfNotPresent';
  if (image.includes('@')) return 'IfNotPresent';
  const last = image.slice(image.lastIndexOf('/') + 1);
  const colon = last.lastIndexOf(':');
  return colon < 0 || last.slice(colon + 1) === 'latest' ? 'Always' : 'IfNotPresent';
}

function defaultContainer(c: unknown): unknown {
  const container = obj(c);
  if (!container) return c;
  const ports = container['ports'];
  return {
    ...container,
    terminationMessagePath: container['terminationMessagePath'] ?? '/dev/termination-log',
    terminationMessagePolicy: container['terminationMessagePolicy'] ?? 'File',
    imagePullPolicy: container['imagePullPolicy'] ?? pullPolicyOf(container['image']),
    resources: container['resources'] ?? {},
    ...(Array.isArray(ports) ? { ports: ports.map((p) => (obj(p) ? { ...obj(p), protocol: obj(p)?.['protocol'] ?? 'TCP' } : p)) } : {}),
  };
}

/** `spec` with the API server's defaults filled in where it leaves them unset. */
export function defaultPodSpec(spec: Json): Json {
  const containers = (list: unknown) => (Array.isArray(list) ? { containers: list.map(defaultContainer) } : {});
  const init = spec['initContainers'];
  return {
    ...spec,
    ...containers(spec['containers']),
    ...(Array.isArray(init) ? { initContainers: init.map(defaultContainer) } : {}),
    restartPolicy: spec['restartPolicy'] ?? 'Always',
    terminationGracePeriodSeconds: spec['terminationGracePeriodSeconds'] ?? 30,
    dnsPolicy: spec['dnsPolicy'] ?? 'ClusterFirst',
    securityContext: spec['securityContext'] ?? {},
    schedulerName: spec['schedulerName'] ?? 'default-scheduler',
    enableServiceLinks: spec['enableServiceLinks'] ?? true,
  };
}

/** A workload's `spec` with its pod template's spec defaulted. */
export function withDefaultedTemplate(spec: Json): Json {
  const template = obj(spec['template']);
  if (!template) return spec;
  return { ...spec, template: { ...template, spec: defaultPodSpec(obj(template['spec']) ?? {}) } };
}
