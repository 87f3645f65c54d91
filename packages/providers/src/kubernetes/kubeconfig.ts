// Reads a kubeconfig into what an HTTPS client needs: the server URL, the CA to verify it with, and the client
// certificate (or a bearer token). The key and token stay Redacted; errors never quote the file.
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, join } from 'node:path';
import { parse } from 'yaml';
import * as z from 'zod';
import { KubeplaneError, Redacted } from '@kubeplane/sdk';

/** How to reach a cluster's API server, read from a kubeconfig context: server, CA and client credentials. */
export interface KubeConnection {
  /** `https://host:port`, without a trailing slash. */
  server: string;
  /** The cluster name of the current context (for messages). */
  clusterName: string;
  /** PEM of the CA that signed the API server's certificate; TLS verification is always on. */
  caPem?: string;
  /** SNI / certificate name to verify instead of the URL's host (`tls-server-name`). */
  tlsServerName?: string;
  clientCertificatePem?: string;
  clientKeyPem?: Redacted<string>;
  token?: Redacted<string>;
}

const clusterSchema = z.object({
  server: z.string(),
  'certificate-authority-data': z.string().optional(),
  'certificate-authority': z.string().optional(),
  'tls-server-name': z.string().optional(),
  'insecure-skip-tls-verify': z.boolean().optional(),
});
const userSchema = z.object({
  'client-certificate-data': z.string().optional(),
  'client-certificate': z.string().optional(),
  'client-key-data': z.string().optional(),
  'client-key': z.string().optional(),
  token: z.string().optional(),
  exec: z.unknown().optional(),
  'auth-provider': z.unknown().optional(),
});
type ClusterEntry = z.infer<typeof clusterSchema>;
type UserEntry = z.infer<typeof userSchema>;

// kubectl tolerates a file without some of the lists (clientcmd's Config has them all optional).
const kubeconfigSchema = z.object({
  clusters: z.array(z.object({ name: z.string(), cluster: clusterSchema })).nullish(),
  users: z.array(z.object({ name: z.string(), user: userSchema })).nullish(),
  contexts: z.array(z.object({ name: z.string(), context: z.object({ cluster: z.string(), user: z.string() }) })).nullish(),
  'current-context': z.string().optional(),
});
type KubeconfigDocument = z.infer<typeof kubeconfigSchema>;

function invalid(message: string): KubeplaneError {
  return new KubeplaneError('invalid', `kubeconfig: ${message}`, { provider: 'kubernetes', code: 'InvalidKubeconfig' });
}

function fromBase64(value: string, field: string): string {
  if (!/^[A-Za-z0-9+/=\s]*$/.test(value)) throw invalid(`${field} is not base64`);
  return Buffer.from(value, 'base64').toString('utf8');
}

function parseDocument(text: string, where: string): KubeconfigDocument {
  let doc: unknown;
  try {
    doc = parse(text);
  } catch {
    // The parser's message may quote the line it stopped at, which may hold a key.
    throw invalid(`${where}not valid YAML`);
  }
  const parsed = kubeconfigSchema.safeParse(doc ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw invalid(`${where}unexpected shape at ${issue ? issue.path.join('.') : '?'}`);
  }
  return parsed.data;
}

/** A cluster's and a user's entries with their credentials inline (`-data` fields): what `connect` turns into a connection. */
interface Resolved {
  contextName: string;
  clusterName: string;
  userName: string;
  cluster: ClusterEntry;
  user: UserEntry;
}

function connect(r: Resolved): KubeConnection {
  const { cluster, user } = r;
  if (cluster['insecure-skip-tls-verify']) throw invalid(`cluster ${r.clusterName} disables TLS verification; kubeplane always verifies the API server`);
  if (user.exec !== undefined || user['auth-provider'] !== undefined)
    throw invalid(
      `user ${r.userName} of context ${r.contextName} gets its credentials from ${user.exec !== undefined ? 'an exec plugin' : 'an auth provider'}, ` +
        'which kubeplane does not run; give it a user with a client certificate or a token (a ServiceAccount token, for example)',
    );
  let url: URL;
  try {
    url = new URL(cluster.server);
  } catch {
    throw invalid(`server ${cluster.server} is not a URL`);
  }
  if (url.protocol !== 'https:') throw invalid(`server ${cluster.server} is not https`);
  const out: KubeConnection = { server: `${url.protocol}//${url.host}`, clusterName: r.clusterName };
  const ca = cluster['certificate-authority-data'];
  if (ca) out.caPem = fromBase64(ca, 'certificate-authority-data');
  if (cluster['tls-server-name']) out.tlsServerName = cluster['tls-server-name'];
  const cert = user['client-certificate-data'];
  const key = user['client-key-data'];
  if ((cert === undefined) !== (key === undefined)) throw invalid(`user ${r.userName} needs both client-certificate-data and client-key-data`);
  if (cert !== undefined && key !== undefined) {
    out.clientCertificatePem = fromBase64(cert, 'client-certificate-data');
    out.clientKeyPem = Redacted.of(fromBase64(key, 'client-key-data'));
  }
  if (user.token) out.token = Redacted.of(user.token);
  if (!out.clientKeyPem && !out.token) throw invalid(`user ${r.userName} has neither a client certificate nor a token`);
  return out;
}

/**
 * Parses a kubeconfig (YAML or JSON): its current context, or the one named. Only embedded data is accepted: a handler
 * has no file system to read paths from (readKubeconfigFiles reads a person's files, paths included).
 */
export function parseKubeconfig(kubeconfig: Redacted<string>, options: { context?: string } = {}): KubeConnection {
  const config = parseDocument(kubeconfig.reveal(), '');
  const contextName = options.context ?? config['current-context'] ?? config.contexts?.[0]?.name;
  const context = config.contexts?.find((c) => c.name === contextName);
  if (!context) throw invalid(`${options.context ? 'context' : 'current context'} ${contextName ?? '(none)'} is not defined`);
  const ctx = context.context;
  const clusterEntry = config.clusters?.find((c) => c.name === ctx.cluster);
  const userEntry = config.users?.find((u) => u.name === ctx.user);
  if (!clusterEntry) throw invalid(`cluster ${ctx.cluster} of context ${context.name} is not defined`);
  if (!userEntry) throw invalid(`user ${ctx.user} of context ${context.name} is not defined`);
  // A path without the embedded data would otherwise be dropped silently, and the server checked against no CA.
  const { cluster, user } = { cluster: clusterEntry.cluster, user: userEntry.user };
  const named = [
    cluster['certificate-authority'] !== undefined && cluster['certificate-authority-data'] === undefined ? 'certificate-authority' : undefined,
    user['client-certificate'] !== undefined && user['client-certificate-data'] === undefined ? 'client-certificate' : undefined,
    user['client-key'] !== undefined && user['client-key-data'] === undefined ? 'client-key' : undefined,
  ].find((f) => f !== undefined);
  if (named) throw invalid(`${named} names a file; only embedded ${named}-data is read here`);
  return connect({ contextName: context.name, clusterName: ctx.cluster, userName: ctx.user, cluster, user });
}

/** Where a kubeconfig context was found, for messages: the context, the file that defines it, the server. */
export interface KubeconfigContext {
  connection: KubeConnection;
  context: string;
  file: string;
}

/**
 * A named context of a person's kubeconfig files, merged as kubectl merges $KUBECONFIG (the first file to define a
 * context, cluster or user wins; a missing file is skipped), with file references (`certificate-authority`,
 * `client-certificate`, `client-key`) read relative to the file that names them, as kubectl reads them. The context is
 * always named: there is no falling back to `current-context`.
 */
export async function readKubeconfigContext(files: readonly string[], context: string): Promise<KubeconfigContext> {
  const docs: Array<{ file: string; doc: KubeconfigDocument }> = [];
  for (const file of files) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' && files.length > 1) continue;
      throw invalid(`cannot read ${file} (${code ?? 'read error'})`);
    }
    docs.push({ file, doc: parseDocument(text, `${file}: `) });
  }
  const shown = files.join(':');
  const first = <T extends { name: string }>(list: (d: KubeconfigDocument) => T[] | null | undefined, name: string) => {
    for (const { file, doc } of docs) {
      const found = list(doc)?.find((x) => x.name === name);
      if (found) return { file, found };
    }
    return undefined;
  };
  const ctx = first((d) => d.contexts, context);
  if (!ctx) {
    const names = [...new Set(docs.flatMap(({ doc }) => (doc.contexts ?? []).map((c) => c.name)))];
    throw invalid(`${shown} has no context ${context}${names.length ? ` (it has: ${names.join(', ')})` : ''}`);
  }
  const { cluster: clusterName, user: userName } = ctx.found.context;
  const cluster = first((d) => d.clusters, clusterName);
  const user = first((d) => d.users, userName);
  if (!cluster) throw invalid(`cluster ${clusterName} of context ${context} is not defined in ${shown}`);
  if (!user) throw invalid(`user ${userName} of context ${context} is not defined in ${shown}`);
  const inline = async (file: string, path: string | undefined, field: string): Promise<string | undefined> => {
    if (path === undefined) return undefined;
    const full = isAbsolute(path) ? path : join(dirname(file), path);
    try {
      return (await readFile(full)).toString('base64');
    } catch (e) {
      throw invalid(`${field} ${full} of ${file} cannot be read (${(e as NodeJS.ErrnoException).code ?? 'read error'})`);
    }
  };
  const c = { ...cluster.found.cluster };
  const u = { ...user.found.user };
  c['certificate-authority-data'] ??= await inline(cluster.file, c['certificate-authority'], 'certificate-authority');
  u['client-certificate-data'] ??= await inline(user.file, u['client-certificate'], 'client-certificate');
  u['client-key-data'] ??= await inline(user.file, u['client-key'], 'client-key');
  for (const k of Object.keys(c) as Array<keyof ClusterEntry>) if (c[k] === undefined) delete c[k];
  for (const k of Object.keys(u) as Array<keyof UserEntry>) if (u[k] === undefined) delete u[k];
  return { connection: connect({ contextName: context, clusterName, userName, cluster: c, user: u }), context, file: ctx.file };
}
