// The Kubernetes API emulator: one API server per cluster at https://<endpoint host>:6443 (the API load balancer's
// DNS name or the reserved IP kubeadm was told), with Kubernetes' JSON shapes and meta/v1 Status errors, fed by
// simulated kubelets that boot from the sandbox VMs' real user-data on the virtual clock, and by the control planes
// the sandbox clouds run themselves (Crusoe CMK), whose node-pool machines join on their own.
//
// Authentication is not checked here: msw intercepts requests in-process, before TLS, so neither the client
// certificate nor the CA verification can be exercised; a request to a live endpoint is served whoever sends it.
// Serving the same emulator over real TLS (and checking the admin certificate) is another issue's work.
// Watches, server-side Tables, Kubernetes' own OpenAPI documents and field validation are served (watch.ts, table.ts,
// openapi.ts, openapi-validation.ts), with /version (version-info.ts), /status (status-subresource.ts) and pods/log
// (pod-log.ts);
// JSON, merge, strategic merge patches and server-side apply too (patch-json.ts, patch-strategic.ts, apply.ts).
// Also not modelled: RBAC (Roles and RoleBindings are stored, not enforced: a request impersonating another user is
// refused with 403), admission beyond the checks in cluster.ts, graceful pod termination (an evicted pod is gone at
// once), rollout pacing (a changed pod template replaces the pods at once),
// and DNS: a load-balancer hostname is taken to reach the cluster whose kubeadm init named it.
import { http, HttpResponse, type HttpHandler } from 'msw';
import { parse as parseYaml } from 'yaml';
import { managerFromUserAgent } from './apply.js';
import { selfSubjectAccessReview, selfSubjectReview } from './access-review.js';
import { requestedReplicas, scaleOf } from './scale.js';
import { heartbeatView, type LeaseRenewals } from './heartbeats.js';
import { countCall, type SandboxContext } from '../context.js';
import type { ClusterApi } from './cluster.js';
import { KubeletSimulation, type KubeletSimulationState, type KubeletStatus, type SimCluster } from './kubelets.js';
import { ApiError, isBuiltin, obj, resourceVersion, specOf, type Json, type KubeObject, type ObjectStore, type Resource } from './store.js';
import { customResourceAt, printerColumns, servedCustomResources } from './customresources.js';
import { discovery } from './discovery.js';
import { helmReleases, type HelmReleaseRecord } from './helm-controller.js';
import type { SandboxVmSource } from './vm-source.js';
import { mediaType, PROTOBUF, requireDecodableBody } from './content-negotiation.js';
import { decodeProtobufBody } from './protobuf.js';
import { openApi } from './openapi.js';
import { fieldValidationOf, validateApply, validateEnums, validateFields, warningHeaders } from './openapi-validation.js';
import { podLog } from './pod-log.js';
import { hasStatusSubresource, writeStatus } from './status-subresource.js';
import { versionInfo } from './version-info.js';
import { includeObjectOf, tableVersion, toTable } from './table.js';
import { changeLog, isWatch, watchStream } from './watch.js';
import { propagationOf } from './garbage-collector.js';

/** A DELETE's DeleteOptions body (kubectl and the client libraries send one), or undefined without one. */
/**
 * The resources whose registries answer a DELETE with the object instead of a Status (`ReturnDeletedObject: true` in
 * kubernetes/pkg/registry/…/storage/storage.go of pods, pod templates, service accounts and storage classes).
 */
const RETURNS_DELETED_OBJECT = new Set<string>(['pods', 'podtemplates', 'serviceaccounts', 'storageclasses']);

/**
 * A pod as the API server answers its DELETE: one bound to a node is deleted gracefully, so the answer carries its
 * deletionTimestamp (now plus the grace period: the request's, or the pod's terminationGracePeriodSeconds) and
 * deletionGracePeriodSeconds, while the kubelet stops its containers (registry/core/pod/strategy.go
 * CheckGracefulDelete). The sandbox's kubelets confirm at once, so the pod is already gone when the answer is read;
 * a grace period of 0 deletes at once, and the answer is the pod as it was.
 */
function gracefullyDeleted(pod: KubeObject, options: Json | undefined, query: URLSearchParams, nowMs: number): KubeObject {
  const spec = obj(pod['spec']) ?? {};
  if (pod.metadata['deletionTimestamp'] !== undefined || typeof spec['nodeName'] !== 'string') return pod;
  const asked = Number(query.get('gracePeriodSeconds') ?? obj(options)?.['gracePeriodSeconds'] ?? Number.NaN);
  const grace = Number.isFinite(asked) ? Math.max(0, asked) : Number(spec['terminationGracePeriodSeconds'] ?? 30);
  if (grace === 0) return pod;
  const at = new Date(nowMs + grace * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  // Graceful deletion bumps a generation above 0 (apiserver rest/delete.go BeforeDelete).
  const generation = pod.metadata['generation'];
  const bumped = typeof generation === 'number' && generation > 0 ? { generation: generation + 1 } : {};
  return { ...pod, metadata: { ...pod.metadata, ...bumped, deletionTimestamp: at, deletionGracePeriodSeconds: grace } };
}

async function deleteOptionsOf(request: Request): Promise<Json | undefined> {
  const text = await request.text();
  if (text.trim() === '') return undefined;
  try {
    return obj(JSON.parse(text)) ?? undefined;
  } catch {
    throw new ApiError(400, 'BadRequest', 'the request body is not valid JSON');
  }
}

/** The port the emulated API servers answer HTTPS on, as kubeadm's default (6443). */
export const KUBERNETES_API_PORT = 6443;

/** What a KubernetesEmulator is built from. */
export interface KubernetesEmulatorOptions {
  /** The machines whose user-data the simulated kubelets boot from (the cloud emulators). */
  vms: SandboxVmSource;
}

/** A Node of an emulated cluster as the inventory shows it: readiness, cordon, labels, taints and address. */
export interface KubernetesInventoryNode {
  name: string;
  ready: boolean;
  unschedulable: boolean;
  labels: Record<string, string>;
  taints: Array<{ key: string; value?: string; effect: string }>;
  internalIp?: string;
}

/** A Pod of an emulated cluster as the inventory shows it: where it runs, its phase and readiness, and its owner. */
export interface KubernetesInventoryPod {
  namespace: string;
  name: string;
  node?: string;
  phase: string;
  ready: boolean;
  /** `DaemonSet/cilium`, `ReplicaSet/coredns-…`, `Node/<name>` (static pods). */
  owner?: string;
}

/** One emulated cluster, by the endpoint its API answers at, with its Nodes and Pods. */
export interface KubernetesInventoryCluster {
  name: string;
  /** `host:port` */
  endpoint: string;
  /** The API answers (a control plane that finished kubeadm is running, or the cloud runs it). */
  up: boolean;
  /** The sandbox cloud that runs the control plane, for a managed cluster (Crusoe CMK). */
  managedBy?: string;
  nodes: KubernetesInventoryNode[];
  pods: KubernetesInventoryPod[];
}

/** The emulator's state as plain data (sandbox snapshots); see KubeletSimulationState about the user-data in it. */
export interface KubernetesEmulatorState {
  requests: number;
  simulation: KubeletSimulationState;
}

/** What `KubernetesEmulator.inventory()` returns: every emulated cluster, sorted by endpoint. */
export interface KubernetesInventory {
  clusters: KubernetesInventoryCluster[];
}

type Route = { resource: Resource; namespace?: string; name?: string; subresource?: string };

function notFoundPath(): ApiError {
  return new ApiError(404, 'NotFound', 'the server could not find the requested resource', {});
}

/**
 * The resource a path names: a built-in one, or a custom resource of a CRD the cluster has (`/apis/<group>/<version>/
 * [namespaces/<ns>/]<plural>`); anything else is the API server's plain 404.
 */
function parseRoute(segments: string[], store: ObjectStore): Route {
  let group: string;
  let version = 'v1';
  let rest: string[];
  if (segments[0] === 'api' && segments[1] === 'v1') {
    group = '';
    rest = segments.slice(2);
  } else if (segments[0] === 'apis' && segments.length >= 3) {
    group = segments[1] ?? '';
    version = segments[2] ?? '';
    rest = segments.slice(3);
  } else throw notFoundPath();
  let route: Route;
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    route = { resource: rest[2] ?? '', namespace: rest[1] ?? '', ...(rest[3] ? { name: rest[3] } : {}), ...(rest[4] ? { subresource: rest[4] } : {}) };
    if (rest.length > 5) throw notFoundPath();
  } else {
    route = { resource: rest[0] ?? '', ...(rest[1] ? { name: rest[1] } : {}), ...(rest[2] ? { subresource: rest[2] } : {}) };
    if (rest.length > 3) throw notFoundPath();
  }
  if (isBuiltin(route.resource)) {
    const spec = specOf(route.resource);
    if (spec.group !== group || resourceVersion(route.resource) !== version) throw notFoundPath();
  } else {
    const custom = group === '' ? undefined : customResourceAt(store, group, version, route.resource);
    if (custom === undefined) throw notFoundPath();
    route = { ...route, resource: custom };
  }
  if (route.namespace !== undefined && !specOf(route.resource).namespaced) throw notFoundPath();
  return route;
}

function listKind(resource: Resource): string {
  const spec = specOf(resource);
  return spec.custom?.listKind ?? `${spec.kind}List`;
}

function apiVersion(resource: Resource): string {
  const group = specOf(resource).group;
  return group ? `${group}/${resourceVersion(resource)}` : 'v1';
}

/** Field validation's warnings as Warning headers (one header, a comma-separated list, is the same to HTTP). */
function withWarnings(warnings: string[]): Headers {
  const headers = new Headers();
  for (const w of warningHeaders(warnings)) headers.append('warning', w);
  return headers;
}

function withoutTypeMeta(o: KubeObject): Json {
  const { apiVersion: _a, kind: _k, ...rest } = o;
  return rest;
}

/**
 * The Kubernetes API of every cluster whose machines boot in the sandbox clouds (`sandbox.kubernetes`): one emulated API
 * server per endpoint on port 6443, fed by simulated kubelets that boot from the machines' real user-data on the virtual
 * clock. Authentication is not checked: msw serves the request in-process, before TLS.
 */
export class KubernetesEmulator {
  readonly #ctx: SandboxContext;
  readonly simulation: KubeletSimulation;
  requests = 0;

  constructor(ctx: SandboxContext, options: KubernetesEmulatorOptions) {
    this.#ctx = ctx;
    this.simulation = new KubeletSimulation(options.vms);
  }

  /** The msw handlers serving HTTPS to port 6443 and to every known cluster endpoint; the Sandbox installs them. */
  handlers(): HttpHandler[] {
    // Claims only its own requests: a handler that matched and answered nothing would let msw send the request out.
    return [
      http.all(
        ({ request }) => this.#claims(new URL(request.url)),
        async ({ request }) => this.#handle(request),
      ),
    ];
  }

  /** HTTPS to the API port, or to an endpoint a cluster is known at. */
  #claims(url: URL): boolean {
    const port = url.port || '443';
    return url.protocol === 'https:' && (port === String(KUBERNETES_API_PORT) || this.simulation.knownEndpoints().has(`${url.hostname}:${port}`));
  }

  /** A deep copy of the state, as it is (not brought up to the clock's now: restoring then continuing is identical). */
  state(): KubernetesEmulatorState {
    return { requests: this.requests, simulation: this.simulation.state() };
  }

  /** Replaces the simulation with `state()` of a snapshot; the clusters continue from there as they would have. */
  restore(state: KubernetesEmulatorState): void {
    this.requests = state.requests;
    this.simulation.restore(state.simulation);
  }

  /** Brings the simulated clusters up to the virtual clock's now (also done before every request). */
  tick(): void {
    this.simulation.tick(this.#ctx.clock.now());
  }

  /** When the simulation next has something to do (a boot milestone, a pod start), for runners that jump time. */
  nextEventAt(): number | undefined {
    return this.simulation.events.nextAt();
  }

  /** A fault: `node`'s kubelet stops posting status while its machine runs (it goes NotReady after the grace period). */
  hangKubelet(node: string): boolean {
    this.tick();
    return this.simulation.hangKubelet(node, this.#ctx.clock.now());
  }

  /** Each machine's boot as its kubelet and kubeadm would log it: state, failure reason, timings. */
  kubelets(): KubeletStatus[] {
    this.tick();
    return this.simulation.statuses();
  }

  /** The emulated cluster serving `host:port` (for tests that look inside). */
  cluster(endpoint: string): ClusterApi | undefined {
    this.tick();
    return this.simulation.clusters.get(endpoint)?.api;
  }

  /** The Helm releases in the cluster at `endpoint`, each at its newest revision (what the helm-controller installed). */
  helmReleases(endpoint: string): HelmReleaseRecord[] {
    this.tick();
    const c = this.simulation.clusters.get(endpoint);
    return c ? helmReleases(c.api.store) : [];
  }

  /** The clusters, brought up to the clock's now: whether each API is up, its Nodes and its Pods. */
  inventory(): KubernetesInventory {
    this.tick();
    const clusters: KubernetesInventoryCluster[] = [];
    for (const [endpoint, c] of [...this.simulation.clusters.entries()].sort(([a], [b]) => a.localeCompare(b))) {
      const nodes = c.api.store.sortedList('nodes').map((n): KubernetesInventoryNode => {
        const spec = obj(n['spec']) ?? {};
        const status = obj(n['status']) ?? {};
        const conditions = (status['conditions'] as Json[] | undefined) ?? [];
        const ip = ((status['addresses'] as Json[] | undefined) ?? []).find((a) => a['type'] === 'InternalIP')?.['address'];
        return {
          name: n.metadata.name,
          ready: conditions.some((x) => x['type'] === 'Ready' && x['status'] === 'True'),
          unschedulable: spec['unschedulable'] === true,
          labels: { ...(n.metadata.labels ?? {}) },
          taints: ((spec['taints'] as KubernetesInventoryNode['taints'] | undefined) ?? []).map((t) => ({ ...t })),
          ...(typeof ip === 'string' ? { internalIp: ip } : {}),
        };
      });
      const pods = c.api.store.sortedList('pods').map((p): KubernetesInventoryPod => {
        const status = obj(p['status']) ?? {};
        const node = obj(p['spec'])?.['nodeName'];
        const owner = ((p.metadata['ownerReferences'] as Json[] | undefined) ?? [])[0];
        return {
          namespace: p.metadata.namespace ?? '',
          name: p.metadata.name,
          ...(typeof node === 'string' ? { node } : {}),
          phase: String(status['phase'] ?? 'Pending'),
          ready: ((status['conditions'] as Json[] | undefined) ?? []).some((x) => x['type'] === 'Ready' && x['status'] === 'True'),
          ...(owner ? { owner: `${String(owner['kind'])}/${String(owner['name'])}` } : {}),
        };
      });
      clusters.push({
        name: c.api.identity.name,
        endpoint,
        up: this.simulation.reachable(endpoint) === c,
        ...(c.managed ? { managedBy: c.managed.cloud } : {}),
        nodes,
        pods,
      });
    }
    return { clusters };
  }

  async #handle(request: Request): Promise<Response | undefined> {
    const url = new URL(request.url);
    if (!this.#claims(url)) return undefined;
    const endpoint = `${url.hostname}:${url.port || '443'}`;
    this.tick();
    this.requests += 1;
    const cluster = this.simulation.reachable(endpoint);
    const segments = url.pathname.split('/').filter((s) => s.length > 0);
    const template = segments.map((s, i) => (i > 0 && (segments[i - 1] === 'namespaces' || isBuiltin(segments[i - 1] ?? '')) ? '{name}' : s)).join('/');
    countCall(this.#ctx, 'kubernetes', `${request.method} /${template}`);
    // Nothing listens there (yet): a booting control plane, a load balancer without healthy targets, a wrong address.
    if (!cluster) return HttpResponse.error();
    // The change log starts with the first request a cluster serves: watches resume from any revision after it.
    changeLog(cluster.api.store);
    try {
      const dryRun = url.searchParams.getAll('dryRun');
      const response =
        dryRun.length > 0 && request.method !== 'GET'
          ? await this.#dryRun(cluster, dryRun, () => this.#serve(cluster, request, url, segments))
          : await this.#serve(cluster, request, url, segments);
      // What a write changed is seen by the nodes from now on (an upgrade instruction, say), not from the next request.
      if (request.method !== 'GET') this.tick();
      return response;
    } catch (error) {
      if (error instanceof ApiError) return HttpResponse.json(error.status(), { status: error.code });
      const message = error instanceof Error ? error.message : 'internal error';
      return HttpResponse.json(new ApiError(500, 'InternalError', `an error on the server ("${message}") has prevented the request from succeeding`).status(), {
        status: 500,
      });
    }
  }

  async #body(request: Request): Promise<Json> {
    requireDecodableBody(request.method, request.headers.get('content-type'));
    if (mediaType(request.headers.get('content-type')) === PROTOBUF) return decodeProtobufBody(new Uint8Array(await request.arrayBuffer()));
    let body: unknown;
    try {
      body = await request.json();
    } catch {
      throw new ApiError(400, 'BadRequest', 'the request body is not valid JSON');
    }
    const o = obj(body);
    if (!o && !Array.isArray(body)) throw new ApiError(400, 'BadRequest', 'the request body must be a JSON object');
    return (o ?? { $list: body }) as Json;
  }

  /**
   * A write with `dryRun=All` (kubectl --dry-run=server) goes through validation, defaulting and admission and answers
   * what would be stored, and persists nothing (https://kubernetes.io/docs/reference/using-api/api-concepts/#dry-run):
   * here the write runs and the cluster's objects are put back. What its controllers scheduled meanwhile finds its
   * objects gone and does nothing.
   */
  async #dryRun(cluster: SimCluster, values: string[], write: () => Promise<Response>): Promise<Response> {
    const unsupported = values.find((v) => v !== 'All');
    if (unsupported !== undefined) throw new ApiError(400, 'BadRequest', `dryRun: Unsupported value: "${unsupported}": supported values: "All"`);
    const saved = cluster.api.state();
    try {
      return await write();
    } finally {
      cluster.api.restore(saved);
    }
  }

  /** The body as JSON, or YAML for an apply (kubectl sends JSON, which is YAML too). */
  async #patchBody(request: Request, contentType: string): Promise<unknown> {
    const text = await request.text();
    try {
      return contentType.startsWith('application/apply-patch+yaml') ? (parseYaml(text) as unknown) : (JSON.parse(text) as unknown);
    } catch {
      throw new ApiError(400, 'BadRequest', 'the request body could not be decoded');
    }
  }

  async #serve(cluster: SimCluster, request: Request, url: URL, segments: string[]): Promise<Response> {
    const api = cluster.api;
    const now = this.#ctx.clock.now();
    // Who writes, for managedFields: the fieldManager parameter, else the client's User-Agent (fieldmanager.go).
    const fieldManager = url.searchParams.get('fieldManager') ?? undefined;
    const writer = { manager: fieldManager ?? managerFromUserAgent(request.headers.get('user-agent')) };
    // Nodes and Leases as their kubelets keep them fresh (heartbeats.ts), the renewals looked up once per request.
    let renewals: LeaseRenewals | undefined;
    const live = (o: KubeObject): KubeObject =>
      o['kind'] === 'Node' || o['kind'] === 'Lease' ? heartbeatView(o, (renewals ??= this.simulation.leaseRenewals(cluster.endpoint, now))) : o;
    const method = request.method;
    // Impersonation (kubectl --as, --as-group): the request would be authorized as that user, by RBAC, which the
    // sandbox stores but does not enforce; answering it as the admin would be a wrong answer, so it is refused.
    const impersonated = request.headers.get('impersonate-user') ?? request.headers.get('impersonate-group');
    if (impersonated !== null)
      throw new ApiError(
        403,
        'Forbidden',
        `impersonation ("${impersonated}") is not modelled by the sandbox: it does not enforce RBAC, so it cannot answer ` +
          "as the API server would answer that user; send the request as the kubeconfig's own user",
      );
    if (segments.length === 1 && ['readyz', 'livez', 'healthz'].includes(segments[0] ?? '') && method === 'GET') {
      return new HttpResponse('ok', { status: 200, headers: { 'content-type': 'text/plain; charset=utf-8' } });
    }
    if (segments.length === 1 && segments[0] === 'version' && method === 'GET') {
      return HttpResponse.json(versionInfo(api.identity.kubernetesVersion));
    }
    const spec = method === 'GET' ? openApi(url.pathname, request.headers.get('accept'), api.identity.kubernetesVersion) : undefined;
    if (spec) return new HttpResponse(spec.body, { status: spec.status, headers: { 'content-type': spec.contentType, ...spec.headers } });
    const discovered = method === 'GET' ? discovery(url.pathname, cluster.endpoint, servedCustomResources(api.store)) : undefined;
    if (discovered !== undefined) return HttpResponse.json(discovered);
    const route = parseRoute(segments, api.store);
    const { resource, namespace, name, subresource } = route;
    if (subresource !== undefined) {
      if (resource === 'pods' && subresource === 'eviction' && method === 'POST' && name && namespace) {
        const body = await this.#body(request);
        const metaName = obj(body['metadata'])?.['name'];
        if (metaName !== undefined && metaName !== name) throw new ApiError(400, 'BadRequest', `name in URL does not match name in Eviction object`);
        api.evict(namespace, name, now);
        return HttpResponse.json({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 }, { status: 201 });
      }
      if ((resource === 'deployments' || resource === 'replicasets') && subresource === 'scale' && name && namespace) {
        const current = scaleOf(api.get(resource, namespace, name));
        if (method === 'GET') return HttpResponse.json(current);
        if (method !== 'PUT' && method !== 'PATCH')
          throw new ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
        const contentType = request.headers.get('content-type') ?? '';
        const body = method === 'PUT' ? await this.#body(request) : await this.#patchBody(request, contentType);
        const replicas = requestedReplicas(current, body, method === 'PATCH' ? contentType : undefined);
        return HttpResponse.json(scaleOf(api.patch(resource, namespace, name, { spec: { replicas } }, 'application/merge-patch+json', now, writer)));
      }
      if (resource === 'pods' && subresource === 'log' && name && namespace) {
        if (method !== 'GET') throw new ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
        const log = podLog(api.get(resource, namespace, name), url.searchParams, (node) => api.store.get('nodes', undefined, node) !== undefined);
        return new HttpResponse(log, { status: 200, headers: { 'content-type': 'text/plain' } });
      }
      if (subresource === 'status' && name && hasStatusSubresource(resource, api.identity.kubernetesVersion, api.store)) {
        if (method === 'GET') return HttpResponse.json(live(api.get(resource, namespace, name)));
        if (method !== 'PUT' && method !== 'PATCH')
          throw new ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
        const contentType = method === 'PATCH' ? (request.headers.get('content-type') ?? '') : 'application/json';
        const body = method === 'PUT' ? await this.#body(request) : await this.#patchBody(request, contentType);
        const patchObject = obj(body);
        const warnings = patchObject
          ? validateFields(
              resource,
              patchObject,
              fieldValidationOf(url.searchParams.get('fieldValidation')),
              method === 'PATCH',
              api.identity.kubernetesVersion,
            )
          : [];
        const force = url.searchParams.get('force') === 'true';
        const stored = writeStatus(api, resource, namespace, name, body, method === 'PUT' ? undefined : contentType, now, {
          ...(fieldManager !== undefined ? { manager: fieldManager } : {}),
          force,
        });
        return HttpResponse.json(live(stored), { headers: withWarnings(warnings) });
      }
      throw notFoundPath();
    }
    if (resource === 'selfsubjectreviews') {
      if (method !== 'POST' || name !== undefined)
        throw new ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
      return HttpResponse.json(selfSubjectReview(api.identity), { status: 201 });
    }
    if (resource === 'selfsubjectaccessreviews') {
      if (method !== 'POST' || name !== undefined)
        throw new ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
      return HttpResponse.json(selfSubjectAccessReview(await this.#body(request)), { status: 201 });
    }
    if (name === undefined) {
      if (method === 'GET')
        return isWatch(url.searchParams) ? this.#watch(api, resource, namespace, request, url) : this.#list(api, resource, namespace, request, url, live);
      if (method === 'POST') {
        if (specOf(resource).namespaced && namespace === undefined)
          throw new ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
        const body = await this.#body(request);
        const warnings = validateFields(resource, body, fieldValidationOf(url.searchParams.get('fieldValidation')), false, api.identity.kubernetesVersion);
        validateEnums(resource, body, String(obj(body['metadata'])?.['name'] ?? ''), api.identity.kubernetesVersion);
        const created = api.create(resource, namespace, body, now, writer);
        return HttpResponse.json(created, { status: 201, headers: withWarnings(warnings) });
      }
      throw new ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
    }
    switch (method) {
      case 'GET': {
        const found = live(api.get(resource, namespace, name));
        const table = tableVersion(request.headers.get('accept'));
        if (!table) return HttpResponse.json(found);
        return HttpResponse.json(
          toTable({
            resource,
            ...printerColumns(api.store, resource),
            objects: [found],
            nowMs: now,
            version: table,
            include: includeObjectOf(url.searchParams.get('includeObject')),
            listMeta: { resourceVersion: found.metadata.resourceVersion },
          }),
        );
      }
      case 'PUT': {
        const body = await this.#body(request);
        const warnings = validateFields(resource, body, fieldValidationOf(url.searchParams.get('fieldValidation')), false, api.identity.kubernetesVersion);
        validateEnums(resource, body, name, api.identity.kubernetesVersion);
        return HttpResponse.json(api.replace(resource, namespace, name, body, now, writer), { headers: withWarnings(warnings) });
      }
      case 'PATCH': {
        const contentType = request.headers.get('content-type') ?? '';
        const apply = contentType.startsWith('application/apply-patch+yaml');
        const force = url.searchParams.get('force');
        // validation.ValidatePatchOptions: force is for apply only.
        if (force !== null && !apply) {
          throw new ApiError(422, 'Invalid', `PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch`, {
            kind: 'PatchOptions',
            group: 'meta.k8s.io',
          });
        }
        const body = await this.#patchBody(request, contentType);
        const patchObject = obj(body);
        if (apply && patchObject) {
          const metadata = { ...(obj(patchObject['metadata']) ?? {}), ...(namespace !== undefined ? { namespace } : {}) };
          validateApply(resource, { ...patchObject, metadata }, api.identity.kubernetesVersion);
        }
        const warnings = patchObject
          ? validateFields(resource, patchObject, fieldValidationOf(url.searchParams.get('fieldValidation')), true, api.identity.kubernetesVersion)
          : [];
        if (patchObject) validateEnums(resource, patchObject, name, api.identity.kubernetesVersion, true);
        const existed = apply && api.store.get(resource, specOf(resource).namespaced ? namespace : undefined, name) !== undefined;
        const patched = api.patch(
          resource,
          namespace,
          name,
          body,
          contentType,
          now,
          apply ? { ...(fieldManager !== undefined ? { manager: fieldManager } : {}), force: force === 'true' } : writer,
        );
        // An apply that created the object answers 201 Created, as a create does.
        return HttpResponse.json(patched, { status: apply && !existed ? 201 : 200, headers: withWarnings(warnings) });
      }
      case 'DELETE': {
        const options = await deleteOptionsOf(request);
        const deleted = api.delete(resource, namespace, name, now, propagationOf(options, url.searchParams, resource === 'jobs' ? 'Orphan' : 'Background'));
        // An object its finalizers keep is answered as it now is, marked for deletion (as the API server does), also when
        // the garbage collector, which runs later on a real cluster, has already let it go (Foreground without
        // dependents); so is an object of a resource whose registry returns what it deleted.
        if (
          api.store.get(resource, specOf(resource).namespaced ? namespace : undefined, name) ||
          deleted.metadata['deletionTimestamp'] !== undefined ||
          RETURNS_DELETED_OBJECT.has(resource)
        )
          return HttpResponse.json(resource === 'pods' ? gracefullyDeleted(deleted, options, url.searchParams, now) : deleted);
        const spec = specOf(resource);
        return HttpResponse.json({
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Success',
          details: {
            name,
            ...(spec.group ? { group: spec.group } : {}),
            kind: isBuiltin(resource) ? resource : resource.slice(0, resource.indexOf('.')),
            uid: deleted.metadata['uid'],
          },
        });
      }
      default:
        throw new ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
    }
  }

  #list(api: ClusterApi, resource: Resource, namespace: string | undefined, request: Request, url: URL, live: (o: KubeObject) => KubeObject): Response {
    const table = tableVersion(request.headers.get('accept'));
    const asTable = (items: KubeObject[], listMeta: Json) =>
      table
        ? HttpResponse.json(
            toTable({
              resource,
              ...printerColumns(api.store, resource),
              objects: items,
              nowMs: this.#ctx.clock.now(),
              version: table,
              include: includeObjectOf(url.searchParams.get('includeObject')),
              listMeta,
            }),
          )
        : undefined;
    if (namespace !== undefined && !api.store.get('namespaces', undefined, namespace)) {
      // Listing in a missing namespace is an empty list, as on a real API server.
      const listMeta = { resourceVersion: api.store.revision };
      return asTable([], listMeta) ?? HttpResponse.json({ kind: listKind(resource), apiVersion: apiVersion(resource), metadata: listMeta, items: [] });
    }
    const all = api.list(resource, namespace, url.searchParams.get('labelSelector') ?? undefined, url.searchParams.get('fieldSelector') ?? undefined);
    const limit = Number(url.searchParams.get('limit') ?? '0');
    const token = url.searchParams.get('continue');
    let offset = 0;
    if (token) {
      offset = Number(Buffer.from(token, 'base64').toString('utf8'));
      if (!Number.isInteger(offset) || offset < 0) throw new ApiError(400, 'BadRequest', 'continue key is not valid');
    }
    const page = limit > 0 ? all.slice(offset, offset + limit) : all.slice(offset);
    const next = limit > 0 && offset + limit < all.length ? offset + limit : undefined;
    const listMeta = {
      resourceVersion: api.store.revision,
      ...(next !== undefined ? { continue: Buffer.from(String(next)).toString('base64'), remainingItemCount: all.length - next } : {}),
    };
    const items = page.map(live);
    return (
      asTable(items, listMeta) ??
      HttpResponse.json({ kind: listKind(resource), apiVersion: apiVersion(resource), metadata: listMeta, items: items.map(withoutTypeMeta) })
    );
  }

  /** `?watch=true` on a collection: a chunked stream of WatchEvents (see watch.ts). */
  #watch(api: ClusterApi, resource: Resource, namespace: string | undefined, request: Request, url: URL): Response {
    const params = url.searchParams;
    const labelSelector = params.get('labelSelector') ?? undefined;
    const fieldSelector = params.get('fieldSelector') ?? undefined;
    // Also checks the selectors, so that a bad one is a 400 before the stream starts.
    const current = api.list(resource, namespace, labelSelector, fieldSelector);
    const rv = params.get('resourceVersion') ?? '';
    if (rv !== '' && !/^\d+$/.test(rv)) throw new ApiError(400, 'BadRequest', `Invalid value: "${rv}": resourceVersion must be a number`);
    // A revision the store has not reached: the watch cache waits up to 3 s for it, then answers 504 with the cause
    // client-go relists on (apiserver storage.NewTooLargeResourceVersionError); nothing here moves it meanwhile.
    if (rv !== '' && Number(rv) > Number(api.store.revision)) {
      throw new ApiError(504, 'Timeout', `Timeout: Too large resource version: ${rv}, current: ${api.store.revision}`, {
        causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
        retryAfterSeconds: 1,
      });
    }
    const bookmarks = ['1', 't', 'T', 'true', 'TRUE', 'True'].includes(params.get('allowWatchBookmarks') ?? '');
    const sendInitialEvents = params.get('sendInitialEvents') === 'true';
    // No resourceVersion (or "0", any): the current state first, as synthetic ADDED events (api-concepts#semantics-for-watch).
    const initial = rv === '' || rv === '0' || sendInitialEvents;
    const timeout = Number(params.get('timeoutSeconds') ?? '');
    const table = tableVersion(request.headers.get('accept'));
    const include = includeObjectOf(params.get('includeObject'));
    const body = watchStream({
      filter: {
        resource,
        ...(namespace !== undefined ? { namespace } : {}),
        ...(labelSelector ? { labelSelector } : {}),
        ...(fieldSelector ? { fieldSelector } : {}),
      },
      log: changeLog(api.store),
      initial: initial ? current : undefined,
      from: Number(rv || '0'),
      revision: () => api.store.revision,
      bookmarks,
      initialEventsEnd: sendInitialEvents && bookmarks,
      // The API server's default is its --min-request-timeout (1800 s); the client's timeoutSeconds wins.
      timeoutMs: Number.isFinite(timeout) && timeout > 0 ? timeout * 1000 : 1_800_000,
      // The watch cache sends a bookmark about once a minute (cacher.go, bookmarkFrequency).
      bookmarkEveryMs: 60_000,
      render: (o, first) =>
        table
          ? toTable({
              resource,
              ...printerColumns(api.store, resource),
              objects: [o],
              nowMs: this.#ctx.clock.now(),
              version: table,
              include,
              listMeta: { resourceVersion: o.metadata.resourceVersion },
              withoutColumns: !first,
            })
          : o,
      tick: () => this.tick(),
      tickEveryMs: 200,
    });
    return new HttpResponse(body, { status: 200, headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } });
  }
}
