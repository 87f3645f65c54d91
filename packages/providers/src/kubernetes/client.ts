// The KubernetesApi port over HTTPS: a small typed client on got + zod, built from an admin kubeconfig, that
// verifies the API server's certificate, maps Status errors onto KubeplaneError kinds and never lets a secret
// value (a key, a token, a Secret's data) into an error, a log or a thrown got error.
import got, { type Got, type Method } from 'got';
import type * as z from 'zod';
import { done, pending, retryAfterFromHeaders, type Outcome } from '@kubeplane/sdk/provider';
import {
  KubeplaneError,
  Redacted,
  systemClock,
  type Clock,
  type KubeNode,
  type KubeObject,
  type KubernetesApi,
  type KubernetesConnector,
  type NodePatch,
  type Taint,
} from '@kubeplane/sdk';
import { kubernetesAdvice, kubernetesErrorKind } from './errors.js';
import { parseKubeconfig, type KubeConnection } from './kubeconfig.js';
import {
  anyObjectSchema,
  apiResourceListSchema,
  kubeObjectSchema,
  configMapSchema,
  deploymentSchema,
  listSchema,
  nodeSchema,
  podSchema,
  secretSchema,
  statusSchema,
  type NodeObject,
  type PodObject,
} from './schemas.js';

const PROVIDER = 'kubernetes';
/** kubectl drain looks again every 5 seconds while a PodDisruptionBudget refuses an eviction. */
const DRAIN_POLL_SECONDS = 5;
/** How long to wait before asking an API server that does not answer yet (it is booting) again. */
const NOT_READY_POLL_SECONDS = 10;
const LIST_PAGE_SIZE = 500;
const REPLACE_ATTEMPTS = 3;
/** The only Secret type the API server's bootstrap-token authenticator reads. */
const BOOTSTRAP_TOKEN_TYPE = 'bootstrap.kubernetes.io/token';
const BOOTSTRAP_TOKEN_NAME = /^bootstrap-token-[a-z0-9]{6}$/;

/** How the Kubernetes client connects: the connection read from a kubeconfig, a clock and the request timeout. */
export interface KubernetesClientOptions {
  connection: KubeConnection;
  clock?: Clock;
  /** Real-time request timeout in ms. */
  timeoutMs?: number;
}

interface RequestOptions {
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  contentType?: string;
  /** The object concerned, for messages (`configmaps kube-system/kubeplane-mesh`). */
  resource?: string;
  /** Values that must not appear in an error message, whatever the server echoes. */
  secrets?: string[];
}

interface Response {
  status: number;
  json: unknown;
  headers: Record<string, string | string[] | undefined>;
}

function scrub(text: string, secrets: string[] | undefined): string {
  let out = text;
  for (const secret of secrets ?? []) {
    if (secret.length < 4) continue;
    out = out.split(secret).join('[redacted]');
    const b64 = Buffer.from(secret, 'utf8').toString('base64');
    out = out.split(b64).join('[redacted]');
  }
  return out;
}

function toKubeNode(node: NodeObject): KubeNode {
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
  const readySince = ready?.lastTransitionTime ? Date.parse(ready.lastTransitionTime) : Number.NaN;
  const internalIp = node.status?.addresses?.find((a) => a.type === 'InternalIP')?.address;
  const out: KubeNode = {
    name: node.metadata.name,
    labels: { ...(node.metadata.labels ?? {}) },
    annotations: { ...(node.metadata.annotations ?? {}) },
    taints: (node.spec?.taints ?? []).map(
      (t): Taint => (t.value === undefined || t.value === '' ? { key: t.key, effect: t.effect } : { key: t.key, value: t.value, effect: t.effect }),
    ),
    unschedulable: node.spec?.unschedulable === true,
    ready: ready?.status === 'True',
  };
  if (Number.isFinite(readySince)) out.readySince = readySince;
  if (node.spec?.providerID) out.providerId = node.spec.providerID;
  if (internalIp) out.internalIp = internalIp;
  const version = node.status?.nodeInfo?.kubeletVersion;
  if (version) out.kubeletVersion = version;
  return out;
}

/** DaemonSet pods stay on a drained node (kubectl drain --ignore-daemonsets); static pods cannot be evicted. */
function staysOnDrainedNode(pod: PodObject): boolean {
  if (pod.metadata.annotations?.['kubernetes.io/config.mirror'] !== undefined) return true;
  return (pod.metadata.ownerReferences ?? []).some((o) => o.kind === 'DaemonSet');
}

/** The node annotation listing the pods (UIDs) a drain under way evicts; removed when the node is uncordoned. */
export const DRAIN_PODS_ANNOTATION = 'kubeplane.dev/drain-pods';

const podKey = (p: PodObject): string => p.metadata.uid ?? `${p.metadata.namespace ?? 'default'}/${p.metadata.name}`;

function b64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64');
}

const enc = encodeURIComponent;

/** Server-side apply's owner of every field kubeplane sets (kubectl's is `kubectl`). */
const FIELD_MANAGER = 'kubeplane';

/** What discovery says about a kind: its resource (plural) name and whether its objects live in a namespace. */
interface ServedKind {
  resource: string;
  namespaced: boolean;
}

/** The URL prefix of a group/version: the legacy core group under /api, every other under /apis. */
function groupVersionPath(apiVersion: string): string {
  return apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
}

/** A client of a cluster's Kubernetes API, as far as the engine uses it. */
export class KubernetesClient implements KubernetesApi {
  readonly #connection: KubeConnection;
  readonly #clock: Clock;
  readonly #http: Got;
  /** Discovery answers per group/version; a kind missing from one is looked up again (a CRD may be new). */
  readonly #discovery = new Map<string, Map<string, ServedKind>>();
  /** Requests sent (for the bench's calls-per-cluster figure). */
  sent = 0;

  constructor(options: KubernetesClientOptions) {
    this.#connection = options.connection;
    this.#clock = options.clock ?? systemClock;
    this.#http = got.extend({
      prefixUrl: options.connection.server,
      retry: { limit: 0 },
      throwHttpErrors: false,
      followRedirect: false,
      timeout: { request: options.timeoutMs ?? 30_000 },
      responseType: 'text',
    });
  }

  /** No key or token to print. */
  toJSON(): Record<string, string> {
    return { provider: PROVIDER, server: this.#connection.server };
  }

  get server(): string {
    return this.#connection.server;
  }

  async #send(method: Method, path: string, options: RequestOptions = {}): Promise<Response> {
    const c = this.#connection;
    const searchParams: Record<string, string> = {};
    for (const [k, v] of Object.entries(options.query ?? {})) if (v !== undefined) searchParams[k] = String(v);
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': 'kubeplane' };
    if (c.token) headers['authorization'] = `Bearer ${c.token.reveal()}`;
    if (options.body !== undefined) headers['content-type'] = options.contentType ?? 'application/json';
    this.sent += 1;
    let response;
    try {
      response = await this.#http(path.replace(/^\//, ''), {
        method,
        searchParams,
        headers,
        https: {
          rejectUnauthorized: true,
          ...(c.caPem ? { certificateAuthority: c.caPem } : {}),
          ...(c.tlsServerName ? { serverName: c.tlsServerName } : {}),
          ...(c.clientCertificatePem ? { certificate: c.clientCertificatePem } : {}),
          ...(c.clientKeyPem ? { key: c.clientKeyPem.reveal() } : {}),
        },
        ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
      });
    } catch (error) {
      // got's errors carry the request options (the client key, the body): keep only the message.
      const reason = scrub(error instanceof Error ? error.message : 'request failed', options.secrets);
      throw new KubeplaneError(
        'retryable',
        `kubernetes ${method} ${path}${options.resource ? ` (${options.resource})` : ''}: no response from ${c.server} (${reason})`,
        { provider: PROVIDER, code: 'NetworkError', ...(options.resource ? { resource: options.resource } : {}) },
      );
    }
    const text = response.body;
    let json: unknown;
    if (text.length > 0) {
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
    }
    return { status: response.statusCode, json, headers: response.headers };
  }

  #error(method: Method, path: string, response: Response, options: RequestOptions): KubeplaneError {
    const status = statusSchema.safeParse(response.json);
    const reason = status.success ? status.data.reason : undefined;
    const kind = kubernetesErrorKind(response.status, reason);
    const serverMessage = status.success && status.data.message ? status.data.message : `HTTP ${response.status}`;
    const advice = kubernetesAdvice(kind);
    let retryAfterSeconds = retryAfterFromHeaders(response.headers, this.#clock.now());
    if (retryAfterSeconds === undefined && status.success) retryAfterSeconds = status.data.details?.retryAfterSeconds;
    const message = scrub(
      `kubernetes ${method} ${path}${options.resource ? ` (${options.resource})` : ''}: ` +
        `${reason ?? `HTTP ${response.status}`}: ${serverMessage}${advice ? `; ${advice}` : ''}`,
      options.secrets,
    );
    return new KubeplaneError(kind, message, {
      provider: PROVIDER,
      code: reason ?? `http_${response.status}`,
      status: response.status,
      ...(options.resource ? { resource: options.resource } : {}),
      ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
    });
  }

  #parse<S extends z.ZodType>(method: Method, path: string, response: Response, schema: S): z.infer<S> {
    const parsed = schema.safeParse(response.json ?? {});
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new KubeplaneError(
        'retryable',
        `kubernetes ${method} ${path}: unexpected response shape at ${issue ? issue.path.join('.') : '?'} (${issue?.message ?? 'invalid'})`,
        {
          provider: PROVIDER,
          code: 'InvalidResponse',
          status: response.status,
        },
      );
    }
    return parsed.data;
  }

  /** One call that must succeed (2xx); anything else becomes a KubeplaneError. */
  async #request<S extends z.ZodType>(method: Method, path: string, schema: S, options: RequestOptions = {}): Promise<z.infer<S>> {
    const response = await this.#send(method, path, options);
    if (response.status >= 300) throw this.#error(method, path, response, options);
    return this.#parse(method, path, response, schema);
  }

  /** Like #request, but a 404 is an answer (null), not an error. */
  async #get<S extends z.ZodType>(path: string, schema: S, resource: string): Promise<z.infer<S> | null> {
    const response = await this.#send('GET', path, { resource });
    if (response.status === 404) return null;
    if (response.status >= 300) throw this.#error('GET', path, response, { resource });
    return this.#parse('GET', path, response, schema);
  }

  async ready(): Promise<Outcome<void>> {
    let response: Response;
    try {
      response = await this.#send('GET', '/readyz');
    } catch (error) {
      if (error instanceof KubeplaneError && error.kind === 'retryable') {
        return pending('in-progress', NOT_READY_POLL_SECONDS, `the API server at ${this.#connection.server} does not answer yet`, error);
      }
      throw error;
    }
    if (response.status === 200) return done(undefined);
    const error = this.#error('GET', '/readyz', response, {});
    if (error.kind === 'throttled') return pending('throttled', error.details.retryAfterSeconds ?? NOT_READY_POLL_SECONDS, error.message, error);
    if (error.kind === 'retryable')
      return pending('in-progress', NOT_READY_POLL_SECONDS, `the API server at ${this.#connection.server} is not ready yet (HTTP ${response.status})`, error);
    throw error;
  }

  /** The cluster's nodes. */
  async listNodes(): Promise<KubeNode[]> {
    const out: KubeNode[] = [];
    let cont: string | undefined;
    do {
      const page = await this.#request('GET', '/api/v1/nodes', listSchema(nodeSchema), { query: { limit: LIST_PAGE_SIZE, continue: cont } });
      out.push(...page.items.map(toKubeNode));
      cont = page.metadata?.continue || undefined;
    } while (cont);
    return out;
  }

  /** Changes a node's labels, annotations, taints or schedulability. */
  async patchNode(name: string, patch: NodePatch): Promise<void> {
    const metadata: Record<string, unknown> = {};
    const spec: Record<string, unknown> = {};
    if (patch.labels) metadata['labels'] = patch.labels;
    const annotations: Record<string, string | null> = { ...patch.annotations };
    if (patch.taints)
      spec['taints'] = patch.taints.map((t) => (t.value === undefined ? { key: t.key, effect: t.effect } : { key: t.key, value: t.value, effect: t.effect }));
    if (patch.unschedulable !== undefined) spec['unschedulable'] = patch.unschedulable;
    // Uncordoned: the drain that was under way is over.
    if (patch.unschedulable === false) annotations[DRAIN_PODS_ANNOTATION] = null;
    if (Object.keys(annotations).length > 0) metadata['annotations'] = annotations;
    if (patch.providerId !== undefined) spec['providerID'] = patch.providerId;
    const body: Record<string, unknown> = {};
    if (Object.keys(metadata).length > 0) body['metadata'] = metadata;
    if (Object.keys(spec).length > 0) body['spec'] = spec;
    if (Object.keys(body).length === 0) return;
    // A JSON merge patch (RFC 7386) replaces lists whole: exactly "replace the taints with these"; null deletes a label
    // or an annotation, and keys it does not name stay as they are.
    await this.#request('PATCH', `/api/v1/nodes/${enc(name)}`, anyObjectSchema, {
      body,
      contentType: 'application/merge-patch+json',
      resource: `node ${name}`,
    });
  }

  async #podsOn(node: string): Promise<PodObject[]> {
    const out: PodObject[] = [];
    let cont: string | undefined;
    do {
      const page = await this.#request('GET', '/api/v1/pods', listSchema(podSchema), {
        query: { fieldSelector: `spec.nodeName=${node}`, limit: LIST_PAGE_SIZE, continue: cont },
        resource: `pods on node ${node}`,
      });
      out.push(...page.items);
      cont = page.metadata?.continue || undefined;
    } while (cont);
    return out;
  }

  async drainNode(name: string): Promise<Outcome<void>> {
    let node: z.infer<typeof nodeSchema> | null;
    try {
      node = await this.#get(`/api/v1/nodes/${enc(name)}`, nodeSchema, `node ${name}`);
      // Cordon first, so nothing new without a toleration for it lands while the pods are listed (kubectl drain's order).
      if (node && !node.spec?.unschedulable) await this.patchNode(name, { unschedulable: true });
    } catch (error) {
      if (error instanceof KubeplaneError && error.kind === 'not-found') return done(undefined);
      throw error;
    }
    // A node that never registered (or was deleted already) has nothing to drain.
    if (!node) return done(undefined);
    const present = (await this.#podsOn(name)).filter((p) => !staysOnDrainedNode(p));
    // The pods the drain evicts are those on the node when it began, as kubectl drain waits for the pods it evicted
    // (by UID), not for the node to be empty: a pod tolerating every taint (cilium-operator's `operator: Exists`)
    // may be scheduled back onto the cordoned node (kube-scheduler's NodeUnschedulable plugin lets a pod that
    // tolerates node.kubernetes.io/unschedulable through), and waiting for it would never end.
    const recorded = node.spec?.unschedulable ? node.metadata.annotations?.[DRAIN_PODS_ANNOTATION] : undefined;
    let tracked: Set<string>;
    if (recorded === undefined) {
      tracked = new Set(present.map(podKey));
      await this.#request('PATCH', `/api/v1/nodes/${enc(name)}`, anyObjectSchema, {
        body: { metadata: { annotations: { [DRAIN_PODS_ANNOTATION]: [...tracked].join(',') } } },
        contentType: 'application/merge-patch+json',
        resource: `node ${name}`,
      });
    } else {
      tracked = new Set(recorded.split(',').filter(Boolean));
    }
    const evictable = present.filter((p) => tracked.has(podKey(p)));
    if (evictable.length === 0) return done(undefined);
    const refused: string[] = [];
    let throttled: KubeplaneError | undefined;
    for (const pod of evictable) {
      const ns = pod.metadata.namespace ?? 'default';
      const podName = pod.metadata.name;
      const path = `/api/v1/namespaces/${enc(ns)}/pods/${enc(podName)}/eviction`;
      const response = await this.#send('POST', path, {
        body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: podName, namespace: ns } },
        resource: `pod ${ns}/${podName}`,
      });
      if (response.status < 300 || response.status === 404) continue;
      const error = this.#error('POST', path, response, { resource: `pod ${ns}/${podName}` });
      if (response.status === 429) {
        const status = statusSchema.safeParse(response.json);
        const causes = status.success ? (status.data.details?.causes ?? []) : [];
        const budget = causes.find((c) => c.reason === 'DisruptionBudget');
        if (budget || (status.success && /disruption budget/i.test(status.data.message ?? ''))) {
          refused.push(`${ns}/${podName}${budget?.message ? ` (${budget.message})` : ''}`);
        } else {
          throttled = error;
        }
        continue;
      }
      throw error;
    }
    if (refused.length > 0) {
      return pending(
        'dependency',
        DRAIN_POLL_SECONDS,
        `draining node ${name}: a PodDisruptionBudget refuses to evict ${refused.join(', ')}; waiting for replacements to become ready`,
      );
    }
    if (throttled) return pending('throttled', throttled.details.retryAfterSeconds ?? DRAIN_POLL_SECONDS, throttled.message, throttled);
    const left = (await this.#podsOn(name)).filter((p) => !staysOnDrainedNode(p) && tracked.has(podKey(p)));
    if (left.length === 0) return done(undefined);
    return pending(
      'in-progress',
      DRAIN_POLL_SECONDS,
      `draining node ${name}: ${left.length} evicted pod(s) still terminating (${left
        .slice(0, 5)
        .map((p) => `${p.metadata.namespace ?? 'default'}/${p.metadata.name}`)
        .join(', ')}${left.length > 5 ? ', …' : ''})`,
    );
  }

  async deleteNode(name: string): Promise<void> {
    const path = `/api/v1/nodes/${enc(name)}`;
    const response = await this.#send('DELETE', path, { resource: `node ${name}` });
    if (response.status < 300 || response.status === 404) return;
    throw this.#error('DELETE', path, response, { resource: `node ${name}` });
  }

  async #ensureNamespace(namespace: string): Promise<void> {
    const response = await this.#send('POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } },
      resource: `namespace ${namespace}`,
    });
    if (response.status < 300 || response.status === 409) return;
    throw this.#error('POST', '/api/v1/namespaces', response, { resource: `namespace ${namespace}` });
  }

  /**
   * Create-or-replace: POST, and on 409 GET the current resourceVersion and PUT with it (again on a conflicting
   * write in between). A missing namespace is created, as `kubectl apply` of a namespaced manifest set would need.
   */
  async #apply(
    resource: 'configmaps' | 'secrets',
    namespace: string,
    name: string,
    build: (current: { resourceVersion?: string; labels?: Record<string, string>; type?: string } | null) => Record<string, unknown>,
    secrets: string[] = [],
  ): Promise<void> {
    const collection = `/api/v1/namespaces/${enc(namespace)}/${resource}`;
    const item = `${collection}/${enc(name)}`;
    const label = `${resource} ${namespace}/${name}`;
    const options = { resource: label, secrets };
    let created = await this.#send('POST', collection, { ...options, body: build(null) });
    if (created.status === 404) {
      await this.#ensureNamespace(namespace);
      created = await this.#send('POST', collection, { ...options, body: build(null) });
    }
    if (created.status < 300) return;
    if (created.status !== 409) throw this.#error('POST', collection, created, options);
    let last: KubeplaneError | undefined;
    for (let attempt = 0; attempt < REPLACE_ATTEMPTS; attempt++) {
      const current = await this.#get(item, resource === 'secrets' ? secretSchema : configMapSchema, label);
      if (!current) {
        const again = await this.#send('POST', collection, { ...options, body: build(null) });
        if (again.status < 300) return;
        last = this.#error('POST', collection, again, options);
        if (again.status !== 409) throw last;
        continue;
      }
      const meta = current.metadata;
      const type = 'type' in current && typeof current['type'] === 'string' ? current['type'] : undefined;
      const replaced = await this.#send('PUT', item, {
        ...options,
        body: build({
          ...(meta.resourceVersion ? { resourceVersion: meta.resourceVersion } : {}),
          ...(meta.labels ? { labels: meta.labels } : {}),
          ...(type ? { type } : {}),
        }),
      });
      if (replaced.status < 300) return;
      last = this.#error('PUT', item, replaced, options);
      if (replaced.status !== 409) throw last;
    }
    throw last ?? new KubeplaneError('conflict', `kubernetes: ${label} kept changing while it was being replaced`, { provider: PROVIDER, resource: label });
  }

  /** Creates or replaces a ConfigMap. */
  async applyConfigMap(namespace: string, name: string, data: Record<string, string>, labels?: Record<string, string>): Promise<void> {
    await this.#apply('configmaps', namespace, name, (current) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name,
        namespace,
        ...(current?.resourceVersion ? { resourceVersion: current.resourceVersion } : {}),
        ...((labels ?? current?.labels) ? { labels: labels ?? current?.labels } : {}),
      },
      data,
    }));
  }

  /** A ConfigMap's data, or null when it does not exist. */
  async getConfigMap(namespace: string, name: string): Promise<Record<string, string> | null> {
    const cm = await this.#get(`/api/v1/namespaces/${enc(namespace)}/configmaps/${enc(name)}`, configMapSchema, `configmaps ${namespace}/${name}`);
    return cm ? { ...(cm.data ?? {}) } : null;
  }

  /** Creates or replaces a Secret. */
  async applySecret(namespace: string, name: string, data: Record<string, Redacted<string>>, labels?: Record<string, string>): Promise<void> {
    const values = Object.values(data).map((v) => v.reveal());
    const defaultType = namespace === 'kube-system' && BOOTSTRAP_TOKEN_NAME.test(name) ? BOOTSTRAP_TOKEN_TYPE : 'Opaque';
    await this.#apply(
      'secrets',
      namespace,
      name,
      (current) => ({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: {
          name,
          namespace,
          ...(current?.resourceVersion ? { resourceVersion: current.resourceVersion } : {}),
          ...((labels ?? current?.labels) ? { labels: labels ?? current?.labels } : {}),
        },
        // A Secret's type is immutable: keep the one it has.
        type: current?.type ?? defaultType,
        data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v.reveal())])),
      }),
      values,
    );
  }

  /** A Secret's data (redacted), or null when it does not exist. */
  async getSecret(namespace: string, name: string): Promise<Record<string, Redacted<string>> | null> {
    const secret = await this.#get(`/api/v1/namespaces/${enc(namespace)}/secrets/${enc(name)}`, secretSchema, `secrets ${namespace}/${name}`);
    if (!secret) return null;
    return Object.fromEntries(Object.entries(secret.data ?? {}).map(([k, v]) => [k, Redacted.of(Buffer.from(v, 'base64').toString('utf8'))]));
  }

  /** Deletes a Secret; one that is gone already is not an error. */
  async deleteSecret(namespace: string, name: string): Promise<void> {
    const path = `/api/v1/namespaces/${enc(namespace)}/secrets/${enc(name)}`;
    const response = await this.#send('DELETE', path, { resource: `secrets ${namespace}/${name}` });
    if (response.status < 300 || response.status === 404) return;
    throw this.#error('DELETE', path, response, { resource: `secrets ${namespace}/${name}` });
  }

  async getDeploymentArgs(namespace: string, name: string): Promise<string[] | null> {
    const deployment = await this.#get(
      `/apis/apps/v1/namespaces/${enc(namespace)}/deployments/${enc(name)}`,
      deploymentSchema,
      `deployments ${namespace}/${name}`,
    );
    if (!deployment) return null;
    return [...(deployment.spec.template.spec.containers[0]?.args ?? [])];
  }

  /** Sets the container args of a Deployment's first container. */
  async setDeploymentArgs(namespace: string, name: string, args: string[]): Promise<void> {
    const path = `/apis/apps/v1/namespaces/${enc(namespace)}/deployments/${enc(name)}`;
    const resource = `deployments ${namespace}/${name}`;
    const deployment = await this.#request('GET', path, deploymentSchema, { resource });
    const first = deployment.spec.template.spec.containers[0];
    if (!first) throw new KubeplaneError('invalid', `kubernetes: ${resource} has no container`, { provider: PROVIDER, resource });
    // Strategic merge: containers merge by name, and `args` (no patch strategy) is replaced whole.
    await this.#request('PATCH', path, anyObjectSchema, {
      body: { spec: { template: { spec: { containers: [{ name: first.name, args }] } } } },
      contentType: 'application/strategic-merge-patch+json',
      resource,
    });
  }

  /**
   * The resource name and scope of a kind, from the group/version's APIResourceList, as kubectl's RESTMapper finds
   * them (k8s.io/client-go/discovery). null when the group/version or the kind is not served (a CRD not yet
   * established). Subresources (`deployments/scale`) are not kinds of their own.
   */
  async #served(apiVersion: string, kind: string): Promise<ServedKind | null> {
    const cached = this.#discovery.get(apiVersion)?.get(kind);
    if (cached) return cached;
    const path = groupVersionPath(apiVersion);
    const list = await this.#get(path, apiResourceListSchema, `discovery of ${apiVersion}`);
    const kinds = new Map<string, ServedKind>();
    for (const r of list?.resources ?? []) if (!r.name.includes('/')) kinds.set(r.kind, { resource: r.name, namespaced: r.namespaced });
    this.#discovery.set(apiVersion, kinds);
    return kinds.get(kind) ?? null;
  }

  async #pathOf(apiVersion: string, kind: string, namespace: string | undefined, name?: string): Promise<{ path: string; label: string } | null> {
    const served = await this.#served(apiVersion, kind);
    if (!served) return null;
    if (served.namespaced && !namespace)
      throw new KubeplaneError('invalid', `kubernetes: ${kind} (${apiVersion}) ${name ?? ''} is namespaced; name its namespace`, {
        provider: PROVIDER,
        resource: `${kind} ${name ?? ''}`.trim(),
      });
    const base = `${groupVersionPath(apiVersion)}${served.namespaced && namespace ? `/namespaces/${enc(namespace)}` : ''}/${served.resource}`;
    const where = served.namespaced && namespace ? `${namespace}/` : '';
    return { path: name === undefined ? base : `${base}/${enc(name)}`, label: `${served.resource} ${where}${name ?? ''}`.trim() };
  }

  async applyObject(object: KubeObject): Promise<KubeObject> {
    const { apiVersion, kind, metadata } = object;
    const target = await this.#pathOf(apiVersion, kind, metadata.namespace, metadata.name);
    if (!target) {
      throw new KubeplaneError(
        'retryable',
        `kubernetes: the API server does not serve ${kind} (${apiVersion}) yet: it is not in its discovery of ${apiVersion}, so ${kind} ` +
          `${metadata.namespace ? `${metadata.namespace}/` : ''}${metadata.name} cannot be applied (a custom resource's CRD may not be established yet)`,
        {
          provider: PROVIDER,
          code: 'KindNotServed',
          resource: `${kind} ${metadata.name}`,
        },
      );
    }
    // Server-side apply (https://kubernetes.io/docs/reference/using-api/server-side-apply/): a PATCH of the whole
    // intended object, created when absent; JSON is valid YAML for application/apply-patch+yaml.
    const stored = await this.#request('PATCH', target.path, kubeObjectSchema, {
      query: { fieldManager: FIELD_MANAGER, force: 'true' },
      body: object,
      contentType: 'application/apply-patch+yaml',
      resource: target.label,
    });
    return stored as KubeObject;
  }

  async getObject(apiVersion: string, kind: string, namespace: string | undefined, name: string): Promise<KubeObject | null> {
    const target = await this.#pathOf(apiVersion, kind, namespace, name);
    if (!target) return null;
    return (await this.#get(target.path, kubeObjectSchema, target.label)) as KubeObject | null;
  }

  async listObjects(apiVersion: string, kind: string, namespace?: string, labelSelector?: string): Promise<KubeObject[]> {
    const served = await this.#served(apiVersion, kind);
    if (!served) return [];
    // A namespaced kind listed without a namespace: every namespace's (GET /apis/<g>/<v>/<resource>).
    const inNamespace = served.namespaced && namespace ? `/namespaces/${enc(namespace)}` : '';
    const path = `${groupVersionPath(apiVersion)}${inNamespace}/${served.resource}`;
    const target = { label: `${served.resource}${inNamespace ? ` in ${namespace}` : ''}` };
    const out: KubeObject[] = [];
    let cont: string | undefined;
    do {
      const page = await this.#request('GET', path, listSchema(kubeObjectSchema.omit({ apiVersion: true, kind: true })), {
        query: { limit: LIST_PAGE_SIZE, continue: cont, labelSelector },
        resource: target.label,
      });
      // List items carry no apiVersion/kind of their own on the wire (the list's are the item type's).
      out.push(...page.items.map((item) => ({ ...item, apiVersion, kind }) as KubeObject));
      cont = page.metadata?.continue || undefined;
    } while (cont);
    return out;
  }

  async deleteObject(apiVersion: string, kind: string, namespace: string | undefined, name: string): Promise<void> {
    const target = await this.#pathOf(apiVersion, kind, namespace, name);
    if (!target) return;
    // Background propagation, as kubectl delete: the garbage collector removes what the object owns.
    const response = await this.#send('DELETE', target.path, {
      body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' },
      resource: target.label,
    });
    if (response.status < 300 || response.status === 404) return;
    throw this.#error('DELETE', target.path, response, { resource: target.label });
  }
}

/** Builds KubernetesApi clients from admin kubeconfigs: what the engine is given as its KubernetesConnector. */
export function kubernetesConnector(options: Omit<KubernetesClientOptions, 'connection'> = {}): KubernetesConnector {
  return (kubeconfig: Redacted<string>) => new KubernetesClient({ ...options, connection: parseKubeconfig(kubeconfig) });
}
