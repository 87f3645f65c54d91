// Providers bound to the sandbox clouds: the real AWS, Hetzner, Crusoe and Cloudflare providers, with the sandbox's
// accepted credentials, its virtual clock and one set of rate budgets, and the real Kubernetes client. This is what
// `kubeplane ... --sandbox` and the lifecycle tests hand the engine.
import {
  CLUSTER_ID_TAG,
  KubeplaneError,
  RateBudgets,
  Redacted,
  type AddonCredentialResolver,
  type KubernetesConnector,
  type ProviderFactory,
  type ProviderType,
  type RateBudgetSource,
} from '@kubeplane/sdk';
import { AwsProvider } from '@kubeplane/providers';
import { HetznerProvider } from '@kubeplane/providers';
import { CrusoeProvider } from '@kubeplane/providers';
import { CloudflareProvider } from '@kubeplane/providers';
import { kubernetesConnector } from '@kubeplane/providers';
import { SANDBOX_CREDENTIALS, SANDBOX_SSH_PUBLIC_KEY } from './accounts.js';
import { SANDBOX_PROVIDER_ROLE } from './sts/emulator.js';
import { sessionNameFor } from '@kubeplane/providers';
import type { Sandbox } from './sandbox.js';

/** The region AWS providers use for global services (Route 53). */
const GLOBAL_REGION = 'us-east-1';
/** The provider types the sandbox has a cloud for, as the error for any other names them. */
const SANDBOX_PROVIDER_TYPES = ['aws', 'cloudflare', 'crusoe', 'hetzner'];

/** `budgets`: one process's by default; pass a shared source to let several workers share the sandbox clouds' budgets. */
export function sandboxProviders(sandbox: Sandbox, budgets: RateBudgetSource = new RateBudgets(sandbox.clock)): ProviderFactory {
  return async (def, region, context) => {
    switch (def.providerType) {
      case 'hetzner':
        return new HetznerProvider({
          token: Redacted.of(SANDBOX_CREDENTIALS.hetznerToken),
          project: def.name,
          clock: sandbox.clock,
          budgets,
          random: sandbox.random,
        });
      case 'aws':
        return new AwsProvider({
          region: region ?? GLOBAL_REGION,
          account: def.name,
          credentials: { accessKeyId: Redacted.of(SANDBOX_CREDENTIALS.awsAccessKeyId), secretAccessKey: Redacted.of(SANDBOX_CREDENTIALS.awsSecretAccessKey) },
          // A cluster's work as a session of the account's provider role tagged with the cluster, as a deployed runtime
          // does (docs/serverless.md); project-wide reads with the keys.
          ...(context?.cluster
            ? { assumeRole: { roleArn: SANDBOX_PROVIDER_ROLE, sessionName: sessionNameFor(context.cluster), tags: { [CLUSTER_ID_TAG]: context.cluster } } }
            : {}),
          clock: sandbox.clock,
          budgets,
          random: sandbox.random,
          // The sandbox's AWS answers at AWS's own endpoints, in this process: an AWS_ENDPOINT_URL in the environment
          // (docs/sandbox.md has people source one for `kubeplane sandbox serve`) must not send requests elsewhere.
          ownEndpoints: true,
        });
      case 'crusoe':
        return new CrusoeProvider({
          accessKeyId: Redacted.of(SANDBOX_CREDENTIALS.crusoeAccessKeyId),
          secretKey: Redacted.of(SANDBOX_CREDENTIALS.crusoeSecretKey),
          projectId: sandbox.crusoe.projectId,
          clock: sandbox.clock,
          budgets,
          random: sandbox.random,
          sshPublicKey: SANDBOX_SSH_PUBLIC_KEY,
        });
      case 'cloudflare':
        return CloudflareProvider.connect({
          apiToken: Redacted.of(SANDBOX_CREDENTIALS.cloudflareApiToken),
          accountId: sandbox.cloudflare.accountId,
          clock: sandbox.clock,
          budgets,
          random: sandbox.random,
        });
      default:
        throw new KubeplaneError('invalid', `the sandbox has no ${def.providerType} cloud; sandbox clouds: ${SANDBOX_PROVIDER_TYPES.join(', ')}`, {
          provider: def.providerType,
          resource: def.name,
        });
    }
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
