// Reads Claudie's form of secretRef, a Kubernetes Secret by namespace and name, from a cluster the user names by a
// kubeconfig context (as Claudie reads it from its management cluster); never from the current context. Errors name
// the Secret, the context and the server, never a value: the values stay Redacted from the wire to the caller.
import { homedir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { isKubeplaneError, KubeplaneError, type Redacted } from '@kubeplane/sdk';
import { KubernetesClient } from '../kubernetes/client.js';
import { readKubeconfigContext, type KubeconfigContext } from '../kubernetes/kubeconfig.js';
import type { SecretResolver, SecretRef } from './secret-resolver.js';

/** The cluster Kubernetes Secrets are read from: a context of a kubeconfig (the createKubeplane / CLI option). */
export interface SecretsCluster {
  /** The kubeconfig context naming the cluster (`--secrets-context`). */
  context: string;
  /** The kubeconfig file (`--secrets-kubeconfig`); default $KUBECONFIG's files, then ~/.kube/config, as kubectl. */
  kubeconfig?: string | undefined;
}

/** How long a Secret read stays in memory: the providers of one run share one read, a rotated Secret is read again. */
const CACHE_MS = 60_000;

/** The kubeconfig files to look for the context in, as kubectl finds them (an explicit file alone, else $KUBECONFIG, else ~/.kube/config). */
export function kubeconfigFiles(cluster: SecretsCluster, env: NodeJS.ProcessEnv, cwd: string): string[] {
  if (cluster.kubeconfig) return [resolve(cwd, cluster.kubeconfig)];
  const listed = (env['KUBECONFIG'] ?? '').split(delimiter).filter((f) => f !== '');
  if (listed.length) return listed.map((f) => resolve(cwd, f));
  return [join(env['HOME'] ?? homedir(), '.kube', 'config')];
}

/** Resolves secretRefs to keys of Kubernetes Secrets in the cluster of a kubeconfig context, as Claudie reads them. */
export class KubernetesSecretResolver implements SecretResolver {
  readonly #context: string;
  readonly #files: string[];
  readonly #timeoutMs: number;
  #client: Promise<{ client: KubernetesClient; found: KubeconfigContext }> | undefined;
  readonly #cache = new Map<string, { at: number; data: Promise<Record<string, Redacted<string>>> }>();

  constructor(options: { context: string; files: readonly string[]; timeoutMs?: number }) {
    this.#context = options.context;
    this.#files = [...options.files];
    this.#timeoutMs = options.timeoutMs ?? 15_000;
  }

  /** The context, for messages (never the kubeconfig's keys). */
  get context(): string {
    return this.#context;
  }

  /** What the resolver shows of itself in logs: the context, never a value. */
  toJSON(): Record<string, string> {
    return { resolver: 'kubernetes', context: this.#context };
  }

  /** The value of a `kubernetes` secretRef, read from the Secret in the context's cluster. */
  async resolve(ref: SecretRef): Promise<Redacted<string>> {
    if (ref.source !== 'kubernetes') throw new KubeplaneError('invalid', `the Kubernetes Secret resolver reads Kubernetes Secrets only, not ${ref.source}`);
    const data = await this.read(ref.namespace, ref.name);
    const value = data[ref.key];
    if (value === undefined || value.reveal().trim() === '') throw this.missingKey(ref.namespace, ref.name, ref.key, data);
    return value;
  }

  /** The error for a key the Secret lacks: the keys it has are named (names are not secret), the values never. */
  missingKey(namespace: string, name: string, key: string, data: Record<string, Redacted<string>>): KubeplaneError {
    const keys = Object.keys(data).sort();
    return new KubeplaneError(
      'auth',
      `Secret ${namespace}/${name} (context ${this.#context}) has no key "${key}"${keys.length ? `; it holds: ${keys.join(', ')}` : '; it holds no data'}`,
      { code: 'SecretKeyMissing', resource: `${namespace}/${name}` },
    );
  }

  /** Every key of the Secret, Redacted: one GET /api/v1/namespaces/{namespace}/secrets/{name} per Secret a minute. */
  async read(namespace: string, name: string): Promise<Record<string, Redacted<string>>> {
    const key = `${namespace}/${name}`;
    const now = Date.now();
    const cached = this.#cache.get(key);
    if (cached && now - cached.at < CACHE_MS) return cached.data;
    const data = this.#fetch(namespace, name);
    this.#cache.set(key, { at: now, data });
    // A failed read is not kept: the next one asks again (a Role granted since, a cluster back up).
    data.catch(() => this.#cache.delete(key));
    return data;
  }

  #connect(): Promise<{ client: KubernetesClient; found: KubeconfigContext }> {
    this.#client ??= readKubeconfigContext(this.#files, this.#context).then(
      (found) => ({ found, client: new KubernetesClient({ connection: found.connection, timeoutMs: this.#timeoutMs }) }),
      (e: unknown) => {
        this.#client = undefined;
        if (isKubeplaneError(e))
          throw new KubeplaneError(e.kind, `secrets context ${this.#context}: ${e.message}`, { ...e.details, code: e.details.code ?? 'InvalidKubeconfig' });
        throw e;
      },
    );
    return this.#client;
  }

  async #fetch(namespace: string, name: string): Promise<Record<string, Redacted<string>>> {
    const { client, found } = await this.#connect();
    const secret = `Secret ${namespace}/${name}`;
    const where = `the cluster of context ${this.#context} (${found.connection.server}, from ${found.file})`;
    let data: Record<string, Redacted<string>> | null;
    try {
      data = await client.getSecret(namespace, name);
    } catch (e) {
      if (!isKubeplaneError(e)) throw e;
      const resource = `${namespace}/${name}`;
      if (e.details.code === 'NetworkError')
        throw new KubeplaneError('retryable', `${secret}: ${where} cannot be reached (${reasonOf(e.message)})`, {
          code: 'SecretsClusterUnreachable',
          resource,
        });
      if (e.details.status === 403)
        throw new KubeplaneError(
          'auth',
          `${secret}: the user of context ${this.#context} may not read it (403 Forbidden: ${serverMessage(e.message)}); ` +
            `grant it get on secrets in namespace ${namespace} (a Role and a RoleBinding), or name another context`,
          { code: 'SecretForbidden', status: 403, resource },
        );
      if (e.details.status === 401)
        throw new KubeplaneError(
          'auth',
          `${secret}: ${where} does not accept the credentials of context ${this.#context} (401 Unauthorized); renew them in ${found.file}`,
          { code: 'SecretsClusterUnauthorized', status: 401, resource },
        );
      throw new KubeplaneError(e.kind, `${secret}: reading it from ${where} failed: ${e.message}`, { ...e.details, resource });
    }
    if (!data)
      throw new KubeplaneError('auth', `${secret} is not found in ${where}; create it there, or correct secretRef's name and namespace`, {
        code: 'SecretNotFound',
        status: 404,
        resource: `${namespace}/${name}`,
      });
    return data;
  }
}

/** The server's own sentence from a client error (`…: Forbidden: secrets "x" is forbidden: …`), without the request line. */
function serverMessage(message: string): string {
  const at = message.indexOf('Forbidden: ');
  return (at >= 0 ? message.slice(at + 'Forbidden: '.length) : message).split('; ')[0] ?? message;
}

/** Why a request had no answer (`connect ECONNREFUSED 127.0.0.1:1`), from the client's message. */
function reasonOf(message: string): string {
  const m = /no response from \S+ \((.*)\)$/.exec(message);
  return m?.[1] ?? message;
}
