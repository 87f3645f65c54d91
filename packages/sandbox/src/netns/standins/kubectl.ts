// kubectl stand-in: the subset the node scripts use (`apply -f FILE`, `get <configmap|node> NAME -o jsonpath=...`,
// `get --raw PATH`, global --kubeconfig / -n / --request-timeout), over real TLS with the kubeconfig's CA and client
// certificate or token, with kubectl's own error texts (staging/src/k8s.io/kubectl/pkg/cmd/{apply,get},
// k8s.io/kubectl/pkg/cmd/util/helpers.go checkErr). Apply is client-side: GET, then create or merge-patch.
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { parseAllDocuments } from 'yaml';
import { requireInstalled } from './installed.js';
import { kubeRequest, type KubeResponse } from './kube-client.js';
import { readKubeconfig, type KubeCredentials } from './kubeconfig.js';

requireInstalled('kubectl', 'kubectl');

type Json = Record<string, unknown>;

class KubectlError extends Error {}

// The REST mapping kubectl gets from discovery, for the kinds kubeplane's manifests use.
const KINDS: Record<string, { group: string; version: string; plural: string; namespaced: boolean }> = {
  ConfigMap: { group: '', version: 'v1', plural: 'configmaps', namespaced: true },
  Secret: { group: '', version: 'v1', plural: 'secrets', namespaced: true },
  Namespace: { group: '', version: 'v1', plural: 'namespaces', namespaced: false },
  Node: { group: '', version: 'v1', plural: 'nodes', namespaced: false },
  ServiceAccount: { group: '', version: 'v1', plural: 'serviceaccounts', namespaced: true },
  Service: { group: '', version: 'v1', plural: 'services', namespaced: true },
  Role: { group: 'rbac.authorization.k8s.io', version: 'v1', plural: 'roles', namespaced: true },
  RoleBinding: { group: 'rbac.authorization.k8s.io', version: 'v1', plural: 'rolebindings', namespaced: true },
  ClusterRole: { group: 'rbac.authorization.k8s.io', version: 'v1', plural: 'clusterroles', namespaced: false },
  ClusterRoleBinding: { group: 'rbac.authorization.k8s.io', version: 'v1', plural: 'clusterrolebindings', namespaced: false },
  Deployment: { group: 'apps', version: 'v1', plural: 'deployments', namespaced: true },
  DaemonSet: { group: 'apps', version: 'v1', plural: 'daemonsets', namespaced: true },
  // Served once Cilium's CRDs exist (cilium install creates them); the sandbox's API answers for it or not.
  CiliumClusterwideNetworkPolicy: { group: 'cilium.io', version: 'v2', plural: 'ciliumclusterwidenetworkpolicies', namespaced: false },
};
const ALIASES: Record<string, string> = {
  configmap: 'ConfigMap',
  configmaps: 'ConfigMap',
  cm: 'ConfigMap',
  node: 'Node',
  nodes: 'Node',
  no: 'Node',
  secret: 'Secret',
  secrets: 'Secret',
  namespace: 'Namespace',
  ns: 'Namespace',
};

interface Globals {
  kubeconfig: string;
  namespace: string;
  timeoutMs: number;
  rest: string[];
}

function parseDuration(text: string): number {
  const m = /^(\d+)(ms|s|m|h)?$/.exec(text);
  if (!m) throw new KubectlError(`invalid argument "${text}" for "--request-timeout" flag: time: invalid duration`);
  const n = Number(m[1]);
  return m[2] === 'ms' ? n : m[2] === 'm' ? n * 60_000 : m[2] === 'h' ? n * 3_600_000 : n * 1000;
}

function globals(argv: string[]): Globals {
  const out: Globals = { kubeconfig: process.env['KUBECONFIG'] ?? `${homedir()}/.kube/config`, namespace: 'default', timeoutMs: 30_000, rest: [] };
  for (let i = 0; i < argv.length; i += 1) {
    const a = argv[i] ?? '';
    const take = (name: string): string | undefined => {
      if (a === name) return argv[(i += 1)];
      if (a.startsWith(`${name}=`)) return a.slice(name.length + 1);
      return undefined;
    };
    const kc = take('--kubeconfig');
    if (kc !== undefined) out.kubeconfig = kc;
    else {
      const ns = take('-n') ?? take('--namespace');
      if (ns !== undefined) out.namespace = ns;
      else {
        const t = take('--request-timeout');
        if (t !== undefined) out.timeoutMs = parseDuration(t);
        else out.rest.push(a);
      }
    }
  }
  return out;
}

async function call(creds: KubeCredentials, g: Globals, method: string, path: string, body?: unknown, contentType?: string): Promise<KubeResponse> {
  try {
    return await kubeRequest({
      ...creds,
      method,
      path,
      ...(body === undefined ? {} : { body }),
      ...(contentType ? { contentType } : {}),
      timeoutMs: g.timeoutMs,
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const host = new URL(creds.server).host;
    if (/ECONNREFUSED/.test(message)) throw new KubectlError(`The connection to the server ${host} was refused - did you specify the right host or port?`);
    throw new KubectlError(`Unable to connect to the server: ${message}`);
  }
}

function serverError(res: KubeResponse, fallback: string): KubectlError {
  let reason = 'Unknown';
  let message = fallback;
  try {
    const status = res.json() as { reason?: string; message?: string };
    reason = status.reason ?? reason;
    message = status.message ?? message;
  } catch {
    message = res.text.trim() || fallback;
  }
  if (res.status === 401) return new KubectlError('error: You must be logged in to the server (Unauthorized)');
  return new KubectlError(`Error from server (${reason}): ${message}`);
}

function resourcePath(kind: string, namespace: string | undefined, name?: string): string {
  const m = KINDS[kind];
  if (!m) throw new KubectlError(`error: the server doesn't have a resource type "${kind}"`);
  const base = m.group ? `/apis/${m.group}/${m.version}` : `/api/${m.version}`;
  const ns = m.namespaced ? `/namespaces/${namespace ?? 'default'}` : '';
  return `${base}${ns}/${m.plural}${name ? `/${name}` : ''}`;
}

async function apply(creds: KubeCredentials, g: Globals, file: string): Promise<void> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new KubectlError(`error: the path "${file}" does not exist`);
  }
  for (const d of parseAllDocuments(text)) {
    const doc = d.toJS() as Json | null;
    if (!doc) continue;
    const kind = String(doc['kind'] ?? '');
    const apiVersion = String(doc['apiVersion'] ?? '');
    const meta = (doc['metadata'] ?? {}) as Json;
    const name = String(meta['name'] ?? '');
    const mapping = KINDS[kind];
    if (!mapping || (mapping.group ? `${mapping.group}/${mapping.version}` : mapping.version) !== apiVersion) {
      throw new KubectlError(
        `error: resource mapping not found for name: "${name}" namespace: "${String(meta['namespace'] ?? '')}" ` +
          `from "${file}": no matches for kind "${kind}" in version "${apiVersion}"\nensure CRDs are installed first`,
      );
    }
    const namespace = mapping.namespaced ? String(meta['namespace'] ?? g.namespace) : undefined;
    const body = { ...doc, metadata: { ...meta, ...(namespace ? { namespace } : {}) } };
    const current = await call(creds, g, 'GET', resourcePath(kind, namespace, name));
    const label = `${mapping.plural.replace(/s$/, '')}${mapping.group ? `.${mapping.group}` : ''}/${name}`;
    if (current.status === 404) {
      const created = await call(creds, g, 'POST', resourcePath(kind, namespace), body);
      if (created.status >= 300)
        throw new KubectlError(
          serverError(created, 'the server could not find the requested resource').message.replace(
            /^(Error from server \([^)]*\)): /,
            `$1: error when creating "${file}": `,
          ),
        );
      process.stdout.write(`${label} created\n`);
    } else if (current.status === 200) {
      const patched = await call(creds, g, 'PATCH', resourcePath(kind, namespace, name), body, 'application/merge-patch+json');
      if (patched.status >= 300)
        throw new KubectlError(
          serverError(patched, 'error when applying patch').message.replace(/^(Error from server \([^)]*\)): /, `$1: error when applying patch to "${file}": `),
        );
      process.stdout.write(`${label} configured\n`);
    } else {
      throw serverError(current, 'the server could not find the requested resource');
    }
  }
}

/**
 * kubectl's JSONPath (k8s.io/client-go/util/jsonpath) for the forms the scripts use: `{.a.b.c}` fields, a dot inside
 * a key escaped as `\.` (`{.data.bundle\.sig}`), and text literals `{"\n"}`; a missing field prints nothing.
 */
function jsonpath(value: unknown, template: string): string {
  return template.replace(/\{((?:"(?:[^"\\]|\\.)*")|[^}]*)\}/g, (_all, expr: string) => {
    if (expr.startsWith('"')) return JSON.parse(expr) as string;
    let cur: unknown = value;
    const keys = expr
      .replace(/^\./, '')
      .split(/(?<!\\)\./)
      .map((k) => k.replace(/\\\./g, '.'));
    for (const key of keys.filter((k) => k.length > 0)) cur = cur !== null && typeof cur === 'object' ? (cur as Json)[key] : undefined;
    if (cur === undefined || cur === null) return '';
    return typeof cur === 'string' ? cur : JSON.stringify(cur);
  });
}

async function get(creds: KubeCredentials, g: Globals, args: string[]): Promise<void> {
  const rawAt = args.indexOf('--raw');
  if (rawAt >= 0) {
    const res = await call(creds, g, 'GET', args[rawAt + 1] ?? '/');
    if (res.status >= 300) throw serverError(res, 'the server could not find the requested resource');
    process.stdout.write(res.text);
    return;
  }
  const positional: string[] = [];
  let output = '';
  for (let i = 0; i < args.length; i += 1) {
    const a = args[i] ?? '';
    if (a === '-o' || a === '--output') output = args[(i += 1)] ?? '';
    else if (a.startsWith('-o') && a.length > 2) output = a.slice(2);
    else if (a.startsWith('--output=')) output = a.slice(9);
    else positional.push(a);
  }
  const kind = ALIASES[positional[0] ?? ''] ?? positional[0] ?? '';
  const name = positional[1];
  const mapping = KINDS[kind];
  if (!mapping) throw new KubectlError(`error: the server doesn't have a resource type "${positional[0] ?? ''}"`);
  const res = await call(creds, g, 'GET', resourcePath(kind, mapping.namespaced ? g.namespace : undefined, name));
  if (res.status >= 300) throw serverError(res, `${mapping.plural} "${name ?? ''}" not found`);
  const obj = res.json();
  if (output.startsWith('jsonpath=')) process.stdout.write(jsonpath(obj, output.slice('jsonpath='.length).replace(/^'|'$/g, '')));
  else if (output === 'json') process.stdout.write(`${JSON.stringify(obj, null, 4)}\n`);
  else process.stdout.write(`NAME\n${name ?? ''}\n`);
}

async function main(argv: string[]): Promise<number> {
  const g = globals(argv);
  const [verb, ...args] = g.rest;
  try {
    if (verb === 'version' && args.includes('--client')) {
      process.stdout.write(`Client Version: ${requireInstalled('kubectl', 'kubectl')}\n`);
      return 0;
    }
    let creds: KubeCredentials;
    try {
      creds = readKubeconfig(g.kubeconfig);
    } catch {
      throw new KubectlError('The connection to the server localhost:8080 was refused - did you specify the right host or port?');
    }
    if (verb === 'apply') {
      const f = args.indexOf('-f') >= 0 ? args[args.indexOf('-f') + 1] : args.find((a) => a.startsWith('--filename='))?.slice(11);
      if (!f) throw new KubectlError('error: must specify one of -f and -k');
      await apply(creds, g, f);
      return 0;
    }
    if (verb === 'get') {
      await get(creds, g, args);
      return 0;
    }
    throw new KubectlError(`error: unknown command "${verb ?? ''}" for "kubectl" (the sandbox's kubectl does apply and get)`);
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
