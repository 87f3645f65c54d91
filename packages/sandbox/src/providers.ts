// Providers bound to the sandbox clouds: the real AWS, Hetzner, Crusoe and Cloudflare providers, built by the same
// registry as on real clouds, with the sandbox's accepted credentials, its virtual clock and one set of rate budgets,
// and the real Kubernetes client. This is what
// `kubeplane ... --sandbox` and the lifecycle tests hand the engine.
import {
  KubeplaneError,
  RateBudgets,
  Redacted,
  type AddonCredentialResolver,
  type KubernetesConnector,
  type ProviderFactory,
  type ProviderType,
  type RateBudgetSource,
} from '@kubeplane/sdk';
import { buildProvider, kubernetesConnector } from '@kubeplane/providers';
import { SANDBOX_CREDENTIALS, SANDBOX_SSH_PUBLIC_KEY } from './accounts.js';
import { SANDBOX_PROVIDER_ROLE } from './sts/emulator.js';
import type { Sandbox } from './sandbox.js';

/** The provider types the sandbox has a cloud for, as the error for any other names them. */
const SANDBOX_PROVIDER_TYPES = ['aws', 'cloudflare', 'crusoe', 'hetzner'];

/**
 * What each sandbox cloud accepts, as a manifest entry's secretRef keys would hold them: AWS with the account's keys and
 * its provider role (a cluster's work as a session of it tagged with the cluster, as a deployed runtime does,
 * docs/serverless.md; project-wide reads with the keys).
 */
function sandboxCredentials(sandbox: Sandbox, type: string): Record<string, Redacted<string>> {
  const keys: Record<string, Record<string, string>> = {
    hetzner: { credentials: SANDBOX_CREDENTIALS.hetznerToken },
    aws: { accesskey: SANDBOX_CREDENTIALS.awsAccessKeyId, secretkey: SANDBOX_CREDENTIALS.awsSecretAccessKey, rolearn: SANDBOX_PROVIDER_ROLE },
    crusoe: { accesskey: SANDBOX_CREDENTIALS.crusoeAccessKeyId, secretkey: SANDBOX_CREDENTIALS.crusoeSecretKey, project: sandbox.crusoe.projectId },
    cloudflare: { apitoken: SANDBOX_CREDENTIALS.cloudflareApiToken, accountid: sandbox.cloudflare.accountId },
  };
  return Object.fromEntries(Object.entries(keys[type] ?? {}).map(([k, v]) => [k, Redacted.of(v)]));
}

/** `budgets`: one process's by default; pass a shared source to let several workers share the sandbox clouds' budgets. */
export function sandboxProviders(sandbox: Sandbox, budgets: RateBudgetSource = new RateBudgets(sandbox.clock)): ProviderFactory {
  return async (def, region, context) => {
    if (!SANDBOX_PROVIDER_TYPES.includes(def.providerType)) {
      throw new KubeplaneError('invalid', `the sandbox has no ${def.providerType} cloud; sandbox clouds: ${SANDBOX_PROVIDER_TYPES.join(', ')}`, {
        provider: def.providerType,
        resource: def.name,
      });
    }
    return buildProvider({
      def,
      region,
      context,
      credentials: sandboxCredentials(sandbox, def.providerType),
      clock: sandbox.clock,
      budgets,
      random: sandbox.random,
      // Each manifest entry its own budget, as separate accounts would have.
      account: def.name,
      // The sandbox's AWS answers at AWS's own endpoints, in this process: an AWS_ENDPOINT_URL in the environment
      // (docs/sandbox.md has people source one for `kubeplane sandbox serve`) must not send requests elsewhere.
      ownEndpoints: true,
      sshPublicKey: SANDBOX_SSH_PUBLIC_KEY,
      roleForClustersOnly: true,
    });
  };
}

export function sandboxKubernetes(sandbox: Sandbox): KubernetesConnector {
  return kubernetesConnector({ clock: sandbox.clock });
}

/** The credential keys the sandbox clouds accept, per cloud, as an add-on's Secret holds them. */
const SANDBOX_CLOUD_KEYS: Partial<Record<ProviderType, Record<string, string>>> = {
  hetzner: { credentials: SANDBOX_CREDENTIALS.hetznerToken },
  aws: { accesskey: SANDBOX_CREDENTIALS.awsAccessKeyId, secretkey: SANDBOX_CREDENTIALS.awsSecretAccessKey },
  crusoe: { accesskey: SANDBOX_CREDENTIALS.crusoeAccessKeyId, secretkey: SANDBOX_CREDENTIALS.crusoeSecretKey, project: SANDBOX_CREDENTIALS.crusoeProjectId },
};

/**
 * Add-on credentials in the sandbox: a cloud's add-on (a CSI driver) gets the sandbox cloud's own credentials, as
 * sandboxProviders gives the providers; anything else (the autoscaler adapter's token for kubeplane) goes to
 * `fallback`, or is refused.
 */
export function sandboxAddonCredentials(fallback?: AddonCredentialResolver): AddonCredentialResolver {
  return async (ref, keys, what, cloud) => {
    const values = cloud ? SANDBOX_CLOUD_KEYS[cloud] : undefined;
    if (values) return Object.fromEntries(keys.flatMap((k) => (values[k.key] ? [[k.key, Redacted.of(values[k.key]!)]] : [])));
    if (fallback) return fallback(ref, keys, what, cloud);
    throw new KubeplaneError('invalid', `${what}: the sandbox holds credentials for its clouds only`, { resource: what });
  };
}
