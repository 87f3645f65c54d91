// Reads an admin kubeconfig into what an HTTPS client needs: the server URL, the CA to verify it with, and
// the client certificate (or a bearer token). The key and token stay Redacted; errors never quote the file.
import { parse } from 'yaml';
import * as z from 'zod';
import { KubeplaneError, Redacted } from '@kubeplane/sdk';

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
  'tls-server-name': z.string().optional(),
  'insecure-skip-tls-verify': z.boolean().optional(),
});
const userSchema = z.object({
  'client-certificate-data': z.string().optional(),
  'client-key-data': z.string().optional(),
  token: z.string().optional(),
});

const kubeconfigSchema = z.object({
  clusters: z.array(z.object({ name: z.string(), cluster: clusterSchema })),
  users: z.array(z.object({ name: z.string(), user: userSchema })),
  contexts: z.array(z.object({ name: z.string(), context: z.object({ cluster: z.string(), user: z.string() }) })),
  'current-context': z.string().optional(),
});

function invalid(message: string): KubeplaneError {
  return new KubeplaneError('invalid', `kubeconfig: ${message}`, { provider: 'kubernetes', code: 'InvalidKubeconfig' });
}

function fromBase64(value: string, field: string): string {
  if (!/^[A-Za-z0-9+/=\s]*$/.test(value)) throw invalid(`${field} is not base64`);
  return Buffer.from(value, 'base64').toString('utf8');
}

/** Parses a kubeconfig (YAML or JSON). Only embedded data is accepted: a handler has no file system to read paths from. */
export function parseKubeconfig(kubeconfig: Redacted<string>): KubeConnection {
  let doc: unknown;
  try {
    doc = parse(kubeconfig.reveal());
  } catch {
    // The parser's message may quote the line it stopped at, which may hold a key.
    throw invalid('not valid YAML');
  }
  const parsed = kubeconfigSchema.safeParse(doc);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw invalid(`unexpected shape at ${issue ? issue.path.join('.') : '?'}`);
  }
  const config = parsed.data;
  const contextName = config['current-context'] ?? config.contexts[0]?.name;
  const context = config.contexts.find((c) => c.name === contextName);
  if (!context) throw invalid(`current context ${contextName ?? '(none)'} is not defined`);
  const ctx = context.context;
  const clusterEntry = config.clusters.find((c) => c.name === ctx.cluster);
  const userEntry = config.users.find((u) => u.name === ctx.user);
  if (!clusterEntry) throw invalid(`cluster ${ctx.cluster} of context ${context.name} is not defined`);
  if (!userEntry) throw invalid(`user ${ctx.user} of context ${context.name} is not defined`);
  const cluster = clusterEntry.cluster;
  const user = userEntry.user;
  if (cluster['insecure-skip-tls-verify']) throw invalid(`cluster ${ctx.cluster} disables TLS verification; kubeplane always verifies the API server`);
  let url: URL;
  try {
    url = new URL(cluster.server);
  } catch {
    throw invalid(`server ${cluster.server} is not a URL`);
  }
  if (url.protocol !== 'https:') throw invalid(`server ${cluster.server} is not https`);
  const out: KubeConnection = { server: `${url.protocol}//${url.host}`, clusterName: ctx.cluster };
  const ca = cluster['certificate-authority-data'];
  if (ca) out.caPem = fromBase64(ca, 'certificate-authority-data');
  if (cluster['tls-server-name']) out.tlsServerName = cluster['tls-server-name'];
  const cert = user['client-certificate-data'];
  const key = user['client-key-data'];
  if ((cert === undefined) !== (key === undefined)) throw invalid(`user ${ctx.user} needs both client-certificate-data and client-key-data`);
  if (cert !== undefined && key !== undefined) {
    out.clientCertificatePem = fromBase64(cert, 'client-certificate-data');
    out.clientKeyPem = Redacted.of(fromBase64(key, 'client-key-data'));
  }
  if (user.token) out.token = Redacted.of(user.token);
  if (!out.clientKeyPem && !out.token) throw invalid(`user ${ctx.user} has neither a client certificate nor a token`);
  return out;
}
