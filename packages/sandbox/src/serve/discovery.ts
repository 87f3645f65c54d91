// The Kubernetes discovery documents (/api, /apis, /api/v1, /apis/<group>/v1) for the resources the sandbox's
// API emulator serves, so that kubectl, which asks for them before anything else, can find `nodes` and the rest.
import { RESOURCES as KUBERNETES_SANDBOX_RESOURCES } from '../kubernetes/store.js';

/** The verbs every served resource takes (watch since watch.ts); clients such as informers check for list and watch. */
const VERBS = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];
/** kubectl's short names (`kubectl get deploy`), as the real API server's discovery lists them. */
const SHORT_NAMES: Record<string, string[]> = {
  nodes: ['no'], pods: ['po'], namespaces: ['ns'], configmaps: ['cm'], services: ['svc'], deployments: ['deploy'],
  daemonsets: ['ds'], replicasets: ['rs'], statefulsets: ['sts'], poddisruptionbudgets: ['pdb'], serviceaccounts: ['sa'],
};

/** The resources in the `all` category (`kubectl get all`), as the real API server's discovery lists them. */
const ALL_CATEGORY = new Set(['pods', 'replicationcontrollers', 'services', 'daemonsets', 'deployments', 'replicasets', 'statefulsets', 'horizontalpodautoscalers', 'cronjobs', 'jobs']);

type Spec = { kind: string; group: string; namespaced: boolean; version?: string };
const RESOURCES = KUBERNETES_SANDBOX_RESOURCES as Record<string, Spec>;

function groups(): string[] {
  return [...new Set(Object.values(RESOURCES).map((r) => r.group).filter((g) => g !== ''))].sort();
}

/** The version a group is served at (cilium.io serves v2, every other group v1). */
function versionOf(group: string): string {
  return Object.values(RESOURCES).find((r) => r.group === group)?.version ?? 'v1';
}

function resourceList(group: string): unknown {
  const groupVersion = group ? `${group}/${versionOf(group)}` : 'v1';
  const resources = Object.entries(RESOURCES)
    .filter(([, spec]) => spec.group === group)
    .map(([name, spec]) => ({ name, singularName: spec.kind.toLowerCase(), namespaced: spec.namespaced, kind: spec.kind, verbs: VERBS, ...(SHORT_NAMES[name] ? { shortNames: SHORT_NAMES[name] } : {}), ...(ALL_CATEGORY.has(name) ? { categories: ['all'] } : {}) }));
  if (group === '' && RESOURCES['pods']) resources.push({ name: 'pods/eviction', singularName: '', namespaced: true, kind: 'Eviction', verbs: ['create'] });
  // kubectl scale finds the scale subresource here (its group is autoscaling, as the real server lists it).
  if (group === 'apps' && RESOURCES['deployments']) resources.push({ name: 'deployments/scale', singularName: '', namespaced: true, kind: 'Scale', verbs: ['get', 'patch', 'update'], group: 'autoscaling', version: 'v1' } as (typeof resources)[number]);
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion, resources };
}

/** The discovery document at `path`, or undefined when the path is not a discovery path. */
export function discovery(path: string, serverAddress: string): unknown {
  const clean = path.split('?')[0]?.replace(/\/+$/, '') ?? '';
  if (clean === '/api') return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }] };
  if (clean === '/apis') {
    return {
      kind: 'APIGroupList',
      apiVersion: 'v1',
      groups: groups().map((name) => ({ name, versions: [{ groupVersion: `${name}/${versionOf(name)}`, version: versionOf(name) }], preferredVersion: { groupVersion: `${name}/${versionOf(name)}`, version: versionOf(name) } })),
    };
  }
  if (clean === '/api/v1') return resourceList('');
  const m = /^\/apis\/([^/]+)\/(v\d+)$/.exec(clean);
  if (m && groups().includes(m[1] ?? '') && versionOf(m[1] ?? '') === m[2]) return resourceList(m[1] ?? '');
  const g = /^\/apis\/([^/]+)$/.exec(clean);
  if (g && groups().includes(g[1] ?? '')) {
    const name = g[1] ?? '';
    const version = versionOf(name);
    return { kind: 'APIGroup', apiVersion: 'v1', name, versions: [{ groupVersion: `${name}/${version}`, version }], preferredVersion: { groupVersion: `${name}/${version}`, version } };
  }
  return undefined;
}
