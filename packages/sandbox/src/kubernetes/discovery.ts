// The Kubernetes discovery documents (/api, /apis, /api/v1, /apis/<group>, /apis/<group>/<version>) for the resources
// a cluster serves: the built-in ones (store.ts) and those of its established CRDs, so that kubectl and the engine's
// client, which ask for them before anything else, find `nodes`, `helmcharts` and the rest.
// Shapes: https://kubernetes.io/docs/concepts/overview/kubernetes-api/#discovery-api (the unaggregated documents).
import { RESOURCES, type ResourceSpec } from './store.js';

/** The verbs every served resource takes (watch since watch.ts); clients such as informers check for list and watch. */
const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
/** kubectl's short names (`kubectl get deploy`), as the real API server's discovery lists them. */
const SHORT_NAMES: Record<string, string[]> = {
  nodes: ['no'],
  pods: ['po'],
  namespaces: ['ns'],
  configmaps: ['cm'],
  services: ['svc'],
  deployments: ['deploy'],
  daemonsets: ['ds'],
  replicasets: ['rs'],
  statefulsets: ['sts'],
  poddisruptionbudgets: ['pdb'],
  serviceaccounts: ['sa'],
  persistentvolumeclaims: ['pvc'],
  persistentvolumes: ['pv'],
  storageclasses: ['sc'],
  customresourcedefinitions: ['crd', 'crds'],
};

/** The resources in the `all` category (`kubectl get all`), as the real API server's discovery lists them. */
const ALL_CATEGORY = new Set([
  'pods',
  'replicationcontrollers',
  'services',
  'daemonsets',
  'deployments',
  'replicasets',
  'statefulsets',
  'horizontalpodautoscalers',
  'cronjobs',
  'jobs',
]);

/** A served resource: its plural and how it is served. */
export interface ServedResource {
  plural: string;
  spec: ResourceSpec;
}

function builtins(): ServedResource[] {
  return Object.entries(RESOURCES).map(([plural, spec]) => ({ plural, spec }));
}

/** Every group-version served, built-in ones first; a CRD serves each of its served versions. */
function groupVersions(all: ServedResource[]): Map<string, { group: string; version: string; resources: ServedResource[] }> {
  const out = new Map<string, { group: string; version: string; resources: ServedResource[] }>();
  for (const r of all) {
    for (const version of r.spec.custom?.versions ?? [r.spec.version ?? 'v1']) {
      const key = r.spec.group ? `${r.spec.group}/${version}` : version;
      const gv = out.get(key) ?? { group: r.spec.group, version, resources: [] };
      gv.resources.push(r);
      out.set(key, gv);
    }
  }
  return out;
}

/** A group's versions, the first (a CRD's first served version; the preferred one here) first. */
function versionsOf(all: ServedResource[], group: string): string[] {
  return [...new Set([...groupVersions(all).values()].filter((gv) => gv.group === group).map((gv) => gv.version))];
}

function resourceList(groupVersion: string, group: string, resources: ServedResource[]): unknown {
  const list = resources.map(({ plural, spec }) => ({
    name: plural,
    singularName: spec.custom?.singular ?? spec.kind.toLowerCase(),
    namespaced: spec.namespaced,
    kind: spec.kind,
    // A review (access review, self review) is created and answered, never stored: create is its only verb.
    verbs: /Review$/.test(spec.kind) && !spec.custom ? ['create'] : VERBS,
    ...((spec.custom?.shortNames.length ?? 0) > 0 ? { shortNames: spec.custom?.shortNames } : SHORT_NAMES[plural] ? { shortNames: SHORT_NAMES[plural] } : {}),
    ...((spec.custom?.categories.length ?? 0) > 0 ? { categories: spec.custom?.categories } : ALL_CATEGORY.has(plural) ? { categories: ['all'] } : {}),
  }));
  // The eviction subresource is a policy/v1 Eviction, as the real server lists it: kubectl drain evicts only when the
  // entry names that group and version (drain.CheckEvictionSupport), and deletes the pods otherwise.
  if (group === '')
    list.push({
      name: 'pods/eviction',
      singularName: '',
      namespaced: true,
      kind: 'Eviction',
      verbs: ['create'],
      group: 'policy',
      version: 'v1',
    } as (typeof list)[number]);
  // kubectl scale finds the scale subresource here (its group is autoscaling, as the real server lists it).
  if (group === 'apps')
    for (const owner of ['deployments', 'replicasets'])
      list.push({
        name: `${owner}/scale`,
        singularName: '',
        namespaced: true,
        kind: 'Scale',
        verbs: ['get', 'patch', 'update'],
        group: 'autoscaling',
        version: 'v1',
      } as (typeof list)[number]);
  // The workload kinds' status subresources.
  for (const r of resources) {
    if (['deployments', 'replicasets', 'daemonsets', 'poddisruptionbudgets'].includes(r.plural))
      list.push({ name: `${r.plural}/status`, singularName: '', namespaced: true, kind: r.spec.kind, verbs: ['get', 'patch', 'update'] });
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion, resources: list };
}

/**
 * The discovery document at `path` for a cluster serving the built-in resources and `custom` (its established
 * CRDs' resources), or undefined when the path is not a discovery path.
 */
export function discovery(path: string, serverAddress: string, custom: ServedResource[] = []): unknown {
  const clean = path.split('?')[0]?.replace(/\/+$/, '') ?? '';
  const all = [...builtins(), ...custom];
  if (clean === '/api') return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }] };
  const groups = [...new Set(all.map((r) => r.spec.group).filter((g) => g !== ''))];
  const groupDoc = (
    name: string,
  ): { name: string; versions: Array<{ groupVersion: string; version: string }>; preferredVersion: { groupVersion: string; version: string } } => {
    const versions = versionsOf(all, name).map((version) => ({ groupVersion: `${name}/${version}`, version }));
    return { name, versions, preferredVersion: versions[0] ?? { groupVersion: `${name}/v1`, version: 'v1' } };
  };
  if (clean === '/apis') return { kind: 'APIGroupList', apiVersion: 'v1', groups: groups.sort().map(groupDoc) };
  if (clean === '/api/v1')
    return resourceList(
      'v1',
      '',
      all.filter((r) => r.spec.group === ''),
    );
  const m = /^\/apis\/([^/]+)\/([^/]+)$/.exec(clean);
  if (m) {
    const gv = groupVersions(all).get(`${m[1] ?? ''}/${m[2] ?? ''}`);
    return gv ? resourceList(`${gv.group}/${gv.version}`, gv.group, gv.resources) : undefined;
  }
  const g = /^\/apis\/([^/]+)$/.exec(clean);
  if (g && groups.includes(g[1] ?? '')) return { kind: 'APIGroup', apiVersion: 'v1', ...groupDoc(g[1] ?? '') };
  return undefined;
}
