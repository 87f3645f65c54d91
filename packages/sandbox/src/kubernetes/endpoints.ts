// The endpoints and EndpointSlice controllers (pkg/controller/endpoint/endpoints_controller.go,
// pkg/controller/endpointslice): every Service with a selector gets an
// Endpoints object of its name, listing the pods the selector matches that have an address, Ready ones under
// `addresses` and the rest under `notReadyAddresses` (all as ready when the Service publishes not-ready addresses),
// with the Service's ports resolved to the pods' target ports (a named targetPort by the container port of that name).
// Pods whose ports resolve differently go in subsets of their own. The Endpoints of a Service that is gone, or has
// no selector any more, is deleted. default/kubernetes is the API server's own (cluster.ts).
// The EndpointSlice controller keeps one IPv4 slice per such Service (up to its default 100 endpoints a slice),
// labelled with the Service's name and the controller's, owned by the Service, each endpoint with its conditions
// (ready, serving, terminating), node and target; `kubectl describe service` reads these.
import { createHash } from 'node:crypto';
import { matchesSelector } from './owners.js';
import { obj, type Json, type KubeObject, type ObjectStore } from './store.js';

function podReady(pod: KubeObject): boolean {
  return ((obj(pod['status'])?.['conditions'] as Json[] | undefined) ?? []).some((c) => c['type'] === 'Ready' && c['status'] === 'True');
}

/** The pod's port a Service port targets: its number, or the container port named so; undefined when none is. */
function targetPort(pod: KubeObject, port: Json): number | undefined {
  const target = port['targetPort'] ?? port['port'];
  if (typeof target === 'number') return target;
  for (const c of (obj(pod['spec'])?.['containers'] as Json[] | undefined) ?? [])
    for (const p of (c['ports'] as Json[] | undefined) ?? []) if (p['name'] === target && typeof p['containerPort'] === 'number') return p['containerPort'];
  return undefined;
}

function subsetsOf(service: KubeObject, pods: KubeObject[]): Json[] {
  const spec = obj(service['spec']) ?? {};
  const ports = (spec['ports'] as Json[] | undefined) ?? [];
  const publishNotReady = spec['publishNotReadyAddresses'] === true;
  const bySignature = new Map<string, { ports: Json[]; addresses: Json[]; notReadyAddresses: Json[] }>();
  for (const pod of pods) {
    const ip = obj(pod['status'])?.['podIP'];
    if (typeof ip !== 'string' || ip === '') continue;
    const resolved: Json[] = [];
    for (const p of ports) {
      const port = targetPort(pod, p);
      if (port === undefined) continue;
      resolved.push({ ...(typeof p['name'] === 'string' && p['name'] !== '' ? { name: p['name'] } : {}), port, protocol: p['protocol'] ?? 'TCP' });
    }
    if (resolved.length === 0) continue;
    const key = JSON.stringify(resolved);
    const subset = bySignature.get(key) ?? { ports: resolved, addresses: [], notReadyAddresses: [] };
    const nodeName = obj(pod['spec'])?.['nodeName'];
    const address = {
      ip,
      ...(typeof nodeName === 'string' ? { nodeName } : {}),
      targetRef: { kind: 'Pod', namespace: pod.metadata.namespace, name: pod.metadata.name, uid: pod.metadata['uid'] },
    };
    (publishNotReady || podReady(pod) ? subset.addresses : subset.notReadyAddresses).push(address);
    bySignature.set(key, subset);
  }
  return [...bySignature.values()].map((s) => {
    const byIp = (a: Json, b: Json) => String(a['ip']).localeCompare(String(b['ip']));
    return {
      ...(s.addresses.length > 0 ? { addresses: s.addresses.sort(byIp) } : {}),
      ...(s.notReadyAddresses.length > 0 ? { notReadyAddresses: s.notReadyAddresses.sort(byIp) } : {}),
      ports: s.ports,
    };
  });
}

const SERVICE_NAME = 'kubernetes.io/service-name';
const MANAGED_BY = 'endpointslice.kubernetes.io/managed-by';
const SLICE_CONTROLLER = 'endpointslice-controller.k8s.io';

/** The Service's EndpointSlice as its controller writes it (name `<service>-<5 characters>`, generated once). */
function sliceOf(service: KubeObject, pods: KubeObject[], existing: KubeObject | undefined): KubeObject {
  const ns = service.metadata.namespace ?? 'default';
  const spec = obj(service['spec']) ?? {};
  const ports = ((spec['ports'] as Json[] | undefined) ?? []).map((p) => ({ p, named: typeof p['name'] === 'string' && p['name'] !== '' }));
  const endpoints: Json[] = [];
  let resolvedPorts: Json[] | undefined;
  for (const pod of pods) {
    const ip = obj(pod['status'])?.['podIP'];
    if (typeof ip !== 'string' || ip === '') continue;
    const resolved = ports.flatMap(({ p, named }) => {
      const port = targetPort(pod, p);
      return port === undefined ? [] : [{ name: named ? p['name'] : '', port, protocol: p['protocol'] ?? 'TCP' }];
    });
    if (resolved.length === 0) continue;
    resolvedPorts ??= resolved;
    const ready = podReady(pod);
    const nodeName = obj(pod['spec'])?.['nodeName'];
    endpoints.push({
      addresses: [ip],
      conditions: { ready: spec['publishNotReadyAddresses'] === true || ready, serving: ready, terminating: false },
      ...(typeof nodeName === 'string' ? { nodeName } : {}),
      targetRef: { kind: 'Pod', namespace: ns, name: pod.metadata.name, uid: pod.metadata['uid'] },
    });
  }
  endpoints.sort((a, b) => String((a['addresses'] as string[])[0]).localeCompare(String((b['addresses'] as string[])[0])));
  const suffix = createHash('sha256').update(String(service.metadata['uid'])).digest('hex').replace(/[0-9]/g, '').padEnd(5, 'x').slice(0, 5);
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      ...(existing?.metadata ?? {}),
      name: existing?.metadata.name ?? `${service.metadata.name}-${suffix}`,
      generateName: `${service.metadata.name}-`,
      namespace: ns,
      labels: { ...(service.metadata.labels ?? {}), [SERVICE_NAME]: service.metadata.name, [MANAGED_BY]: SLICE_CONTROLLER },
      ownerReferences: [
        { apiVersion: 'v1', kind: 'Service', name: service.metadata.name, uid: service.metadata['uid'], controller: true, blockOwnerDeletion: true },
      ],
    },
    addressType: 'IPv4',
    endpoints,
    // A slice without endpoints has no ports (the controller writes ports: null then).
    ports: resolvedPorts ?? null,
  };
}

function reconcileSlice(store: ObjectStore, service: KubeObject, pods: KubeObject[], nowMs: number): void {
  const ns = service.metadata.namespace ?? 'default';
  const existing = store
    .list('endpointslices', ns)
    .find((s) => s.metadata.labels?.[SERVICE_NAME] === service.metadata.name && s.metadata.labels?.[MANAGED_BY] === SLICE_CONTROLLER);
  const slice = sliceOf(service, pods, existing);
  if (!existing) store.create('endpointslices', slice, nowMs);
  else {
    const view = (o: KubeObject) => JSON.stringify([o['addressType'], o['endpoints'], o['ports'], o.metadata.labels]);
    if (view(existing) !== view(slice))
      store.replace('endpointslices', { ...existing, ...slice, metadata: { ...existing.metadata, labels: slice.metadata.labels } });
  }
}

/** The controllers' pass over every Service, its Endpoints and its EndpointSlice. */
export function reconcileEndpoints(store: ObjectStore, nowMs: number): void {
  const wanted = new Set<string>();
  for (const service of store.list('services')) {
    const ns = service.metadata.namespace ?? 'default';
    if (ns === 'default' && service.metadata.name === 'kubernetes') continue;
    const spec = obj(service['spec']) ?? {};
    const selector = obj(spec['selector']);
    if (!selector || Object.keys(selector).length === 0 || spec['type'] === 'ExternalName') continue;
    wanted.add(`${ns}/${service.metadata.name}`);
    const pods = store
      .list('pods', ns)
      .filter((p) => {
        const phase = obj(p['status'])?.['phase'];
        return phase !== 'Succeeded' && phase !== 'Failed' && p.metadata['deletionTimestamp'] === undefined;
      })
      .filter((p) => matchesSelector({ matchLabels: selector }, (p.metadata.labels ?? {}) as Record<string, string>));
    reconcileSlice(store, service, pods, nowMs);
    const subsets = subsetsOf(service, pods);
    const labels = { ...(service.metadata.labels ?? {}), ...(spec['clusterIP'] === 'None' ? { 'service.kubernetes.io/headless': '' } : {}) };
    const existing = store.get('endpoints', ns, service.metadata.name);
    const body: KubeObject = {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: service.metadata.name, namespace: ns, ...(Object.keys(labels).length > 0 ? { labels } : {}) },
      ...(subsets.length > 0 ? { subsets } : {}),
    };
    if (!existing) store.create('endpoints', body, nowMs);
    else if (
      JSON.stringify(existing['subsets']) !== JSON.stringify(body['subsets']) ||
      JSON.stringify(existing.metadata.labels) !== JSON.stringify(body.metadata.labels)
    ) {
      const { subsets: _old, ...rest } = existing;
      store.replace('endpoints', {
        ...rest,
        metadata: { ...existing.metadata, labels: body.metadata.labels },
        ...(subsets.length > 0 ? { subsets } : {}),
      } as KubeObject);
    }
  }
  // A slice of the controller's whose Service is gone or has no selector goes (the garbage collector would take it
  // with its owner too).
  for (const slice of store.list('endpointslices')) {
    if (slice.metadata.labels?.[MANAGED_BY] !== SLICE_CONTROLLER) continue;
    const key = `${slice.metadata.namespace ?? 'default'}/${slice.metadata.labels?.[SERVICE_NAME] ?? ''}`;
    if (!wanted.has(key)) store.delete('endpointslices', slice.metadata.namespace, slice.metadata.name);
  }
  // An Endpoints whose Service is gone (or lost its selector) goes, unless something else manages it.
  for (const e of store.list('endpoints')) {
    const ns = e.metadata.namespace ?? 'default';
    if (wanted.has(`${ns}/${e.metadata.name}`) || (ns === 'default' && e.metadata.name === 'kubernetes')) continue;
    const service = store.get('services', ns, e.metadata.name);
    const selector = obj(obj(service?.['spec'])?.['selector']);
    if (service && (!selector || Object.keys(selector).length === 0)) continue;
    if (!service && !wasControllerMade(e)) continue;
    store.delete('endpoints', ns, e.metadata.name);
  }
}

/** Whether this controller made the Endpoints (it has no managedFields: no client wrote it). */
function wasControllerMade(e: KubeObject): boolean {
  const fields = e.metadata['managedFields'];
  return !Array.isArray(fields) || fields.length === 0;
}
