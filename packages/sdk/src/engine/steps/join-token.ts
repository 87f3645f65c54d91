// The bootstrap token machines join a running cluster with (create-nodes renders it into their user-data).
import { KubeplaneError } from '../../errors.js';
import { generateBootstrapToken } from '../../bootstrap/pki.js';
import { Redacted } from '../../redacted.js';
import type { StepContext } from './types.js';

const Redact = (value: string) => Redacted.of(value);
const JOIN_TOKEN_TTL_MS = 24 * 3600_000;
/** A token older than this is replaced before machines are rendered with it (they boot minutes later). */
const JOIN_TOKEN_MARGIN_MS = 2 * 3600_000;

/**
 * The token machines join a running cluster with. The first control plane's token lives 24 hours, so once the
 * cluster has been built, new machines get a token the engine creates in the cluster as `kubeadm token create`
 * would (a bootstrap-token Secret), replaced when it nears its end. Before the first build: the PKI's own token.
 */
export async function joinToken(ctx: StepContext): Promise<Redacted<string> | undefined> {
  if (!ctx.record.current) return undefined;
  const ledger = ctx.record.ledger;
  const stored = await ctx.secrets.joinToken();
  if (stored && ledger.joinTokenExpiresAt !== undefined && ledger.joinTokenExpiresAt - ctx.now > JOIN_TOKEN_MARGIN_MS) return stored;
  const pki = await ctx.secrets.pki();
  if (!pki) throw new KubeplaneError('invalid', 'the cluster PKI is missing');
  const token = generateBootstrapToken(ctx.random);
  const [id = '', secret = ''] = token.reveal().split('.');
  const expiresAt = ctx.now + JOIN_TOKEN_TTL_MS;
  const k8s = ctx.kubernetes(pki.secret.adminKubeconfig);
  await k8s.applySecret('kube-system', `bootstrap-token-${id}`, {
    'token-id': Redact(id),
    'token-secret': Redact(secret),
    expiration: Redact(new Date(expiresAt).toISOString().replace(/\.\d{3}Z$/, 'Z')),
    'usage-bootstrap-authentication': Redact('true'),
    'usage-bootstrap-signing': Redact('true'),
    'auth-extra-groups': Redact('system:bootstrappers:kubeadm:default-node-token'),
    description: Redact('kubeplane join token for machines added to the running cluster'),
  });
  // Secret first, then the ledger (written with the step): a crash in between mints another token next time.
  await ctx.secrets.putJoinToken(token);
  ledger.joinTokenExpiresAt = expiresAt;
  return token;
}
