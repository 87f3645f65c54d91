// kubeadm's token discovery, pure: the detached JWS over cluster-info's kubeconfig (cluster-bootstrap token/jws) and
// the CA public-key pin. The netns apiserver stand-in signs with it (standing in for kube-controller-manager's
// bootstrapsigner) and the kubeadm stand-in verifies with it, in kubeadm's words.
//
// Upstream: kubernetes/cluster-bootstrap token/jws/jws.go (ComputeDetachedSignature: compact HS256 JWS, protected
// header {"alg":"HS256","kid":<token id>}, key = token secret, payload elided: `header..signature`);
// kubernetes/kubernetes cmd/kubeadm/app/discovery/token/token.go (validateClusterInfoToken, validateClusterCA);
// cmd/kubeadm/app/util/pubkeypin/pubkeypin.go (sha256 of the DER SubjectPublicKeyInfo); pkg/controller/bootstrap/
// bootstrapsigner.go (signs for every token Secret usable for signing, not expired).
import { createHash, createHmac, timingSafeEqual, X509Certificate } from 'node:crypto';
import { parse } from 'yaml';

export const CLUSTER_INFO_KUBECONFIG_KEY = 'kubeconfig';
export const JWS_KEY_PREFIX = 'jws-kubeconfig-';
export const BOOTSTRAP_TOKEN = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;

function b64url(data: Buffer | string): string {
  return Buffer.from(data).toString('base64url');
}

/** The detached JWS the bootstrap signer writes as `jws-kubeconfig-<tokenId>` in kube-public/cluster-info. */
export function computeDetachedJws(content: string, tokenId: string, tokenSecret: string): string {
  // go-jose marshals the protected header from a map: keys sorted, so alg before kid.
  const header = b64url(JSON.stringify({ alg: 'HS256', kid: tokenId }));
  const signature = createHmac('sha256', tokenSecret)
    .update(`${header}.${b64url(content)}`)
    .digest();
  return `${header}..${b64url(signature)}`;
}

export function detachedJwsIsValid(jws: string, content: string, tokenId: string, tokenSecret: string): boolean {
  const expected = Buffer.from(computeDetachedJws(content, tokenId, tokenSecret));
  const given = Buffer.from(jws);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** `sha256:<hex>` of the certificate's DER SubjectPublicKeyInfo (pubkeypin.Hash). */
export function publicKeyPin(certPem: string): string {
  const spki = new X509Certificate(certPem).publicKey.export({ type: 'spki', format: 'der' });
  return `sha256:${createHash('sha256').update(spki).digest('hex')}`;
}

export interface TrustedClusterInfo {
  kubeconfig: string;
  caPem: string;
  server: string;
}

export type DiscoveryResult = { ok: true; value: TrustedClusterInfo } | { ok: false; reason: string };

function clusterOf(kubeconfig: string): { caPem: string; server: string } | string {
  let doc: unknown;
  try {
    doc = parse(kubeconfig);
  } catch (error) {
    return `couldn't parse the kubeconfig file in the cluster-info configmap: ${error instanceof Error ? error.message : String(error)}`;
  }
  const clusters = (doc as { clusters?: Array<{ cluster?: Record<string, unknown> }> } | null)?.clusters ?? [];
  if (clusters.length !== 1) return `expected the kubeconfig file in the cluster-info configmap to have a single cluster, but it had ${clusters.length}`;
  const cluster = clusters[0]?.cluster ?? {};
  const data = cluster['certificate-authority-data'];
  const server = cluster['server'];
  return { caPem: typeof data === 'string' ? Buffer.from(data, 'base64').toString('utf8') : '', server: typeof server === 'string' ? server : '' };
}

/**
 * What kubeadm does with the cluster-info ConfigMap it fetched without verifying TLS: the kubeconfig must be there,
 * signed for this token, and its CA must match one of the pinned hashes. `caCertHashes` empty is refused (kubeadm
 * requires --discovery-token-unsafe-skip-ca-verification for that, which kubeplane never sets).
 */
export function verifyClusterInfo(data: Record<string, string>, token: string, caCertHashes: string[]): DiscoveryResult {
  const m = BOOTSTRAP_TOKEN.exec(token);
  if (!m) return { ok: false, reason: `the bootstrap token "${token.replace(/\..*/, '.<redacted>')}" was not of the form "[a-z0-9]{6}.[a-z0-9]{16}"` };
  const [, id = '', secret = ''] = m;
  const kubeconfig = data[CLUSTER_INFO_KUBECONFIG_KEY];
  if (!kubeconfig)
    return {
      ok: false,
      reason:
        `there is no ${CLUSTER_INFO_KUBECONFIG_KEY} key in the cluster-info ConfigMap. ` +
        `This API Server isn't set up for token bootstrapping, can't connect`,
    };
  const jws = data[`${JWS_KEY_PREFIX}${id}`];
  if (!jws) {
    return {
      ok: false,
      reason:
        `token id "${id}" is invalid for this cluster or it has expired. ` + 'Use "kubeadm token create" on the control-plane node to create a new valid token',
    };
  }
  if (!detachedJwsIsValid(jws, kubeconfig, id, secret))
    return { ok: false, reason: "failed to verify JWS signature of received cluster info object, can't trust this API Server" };
  const cluster = clusterOf(kubeconfig);
  if (typeof cluster === 'string') return { ok: false, reason: cluster };
  if (caCertHashes.length === 0) {
    return {
      ok: false,
      reason:
        'discovery.bootstrapToken: Invalid value: "": using token-based discovery without caCertHashes can be unsafe. Set ' +
        'unsafeSkipCAVerification as true in your kubeadm config file or pass --discovery-token-unsafe-skip-ca-verification flag to continue',
    };
  }
  let pin: string;
  try {
    pin = publicKeyPin(cluster.caPem);
  } catch (error) {
    return { ok: false, reason: `failed to parse cluster CA from the cluster-info ConfigMap: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (!caCertHashes.map((h) => h.toLowerCase()).includes(pin)) {
    return { ok: false, reason: `cluster CA found in cluster-info ConfigMap is invalid: none of the public keys "${pin}" are pinned` };
  }
  return { ok: true, value: { kubeconfig, caPem: cluster.caPem, server: cluster.server } };
}

export interface BootstrapTokenSecret {
  type?: string;
  data?: Record<string, string>;
}

/** The tokens the bootstrap signer signs for: Secrets of type bootstrap.kubernetes.io/token, usable for signing, live. */
export function signingTokens(secrets: BootstrapTokenSecret[], nowMs: number): Array<{ id: string; secret: string }> {
  const out: Array<{ id: string; secret: string }> = [];
  for (const s of secrets) {
    if (s.type !== 'bootstrap.kubernetes.io/token') continue;
    const field = (k: string): string | undefined => (s.data?.[k] === undefined ? undefined : Buffer.from(s.data[k], 'base64').toString('utf8'));
    const id = field('token-id');
    const secret = field('token-secret');
    if (!id || !secret || field('usage-bootstrap-signing') !== 'true') continue;
    const expiration = field('expiration');
    if (expiration !== undefined && Date.parse(expiration) <= nowMs) continue;
    out.push({ id, secret });
  }
  return out;
}

/** The bootstrap authenticator (plugin/pkg/auth/authenticator/token/bootstrap): a bearer token against its Secret. */
export function authenticateBootstrapToken(token: string, secrets: BootstrapTokenSecret[], nowMs: number): { user: string; groups: string[] } | undefined {
  const m = BOOTSTRAP_TOKEN.exec(token);
  if (!m) return undefined;
  const [, id = '', secret = ''] = m;
  for (const s of secrets) {
    if (s.type !== 'bootstrap.kubernetes.io/token') continue;
    const field = (k: string): string | undefined => (s.data?.[k] === undefined ? undefined : Buffer.from(s.data[k], 'base64').toString('utf8'));
    if (field('token-id') !== id) continue;
    const stored = field('token-secret') ?? '';
    if (stored.length !== secret.length || !timingSafeEqual(Buffer.from(stored), Buffer.from(secret))) return undefined;
    if (field('usage-bootstrap-authentication') !== 'true') return undefined;
    const expiration = field('expiration');
    if (expiration !== undefined && Date.parse(expiration) <= nowMs) return undefined;
    const extra = (field('auth-extra-groups') ?? '').split(',').filter((g) => g.length > 0);
    return { user: `system:bootstrap:${id}`, groups: ['system:bootstrappers', ...extra] };
  }
  return undefined;
}
