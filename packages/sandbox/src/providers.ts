// Providers bound to the sandbox clouds: the real providers of every type the sandbox has a cloud for, built by the
// same registry as on real clouds, with the sandbox's accepted credentials (each cloud's descriptor), its virtual
// clock and one set of rate budgets, and the real Kubernetes client. This is what `kubeplane ... --sandbox` and the
// lifecycle tests hand the engine.
import { KubeplaneError, Redacted, type AddonCredentialResolver, type KubernetesConnector, type ProviderFactory } from '@kubeplane/sdk';
import { NO_PROVIDER_FOR_TYPE } from '@kubeplane/sdk/internal';
import { RateBudgets, type RateBudgetSource } from '@kubeplane/sdk/provider';
import { buildProvider, kubernetesConnector } from '@kubeplane/providers';
import { SANDBOX_SSH_PUBLIC_KEY } from './accounts.js';
import { providerCloudOf, SANDBOX_PROVIDER_TYPES } from './clouds/index.js';
import type { Sandbox } from './sandbox.js';

/**
 * What the provider type's sandbox cloud accepts, as a manifest entry's secretRef keys would hold them (its
 * descriptor's `provider.credentials`).
 */
function sandboxCredentials(sandbox: Sandbox, type: string): Record<string, Redacted<string>> {
  const cloud = providerCloudOf(type);
  const emulator = cloud && sandbox.emulatorOf(cloud);
  const keys = cloud ? cloud.provider.credentials(emulator) : {};
  return Object.fromEntries(Object.entries(keys).map(([k, v]) => [k, Redacted.of(v)]));
}

/** `budgets`: one process's by default; pass a shared source to let several workers share the sandbox clouds' budgets. */
export function sandboxProviders(sandbox: Sandbox, budgets: RateBudgetSource = new RateBudgets(sandbox.clock)): ProviderFactory {
  return async (def, region, context) => {
    if (!SANDBOX_PROVIDER_TYPES.includes(def.providerType)) {
      throw new KubeplaneError('invalid', `the sandbox has no ${def.providerType} cloud; sandbox clouds: ${SANDBOX_PROVIDER_TYPES.join(', ')}`, {
        provider: def.providerType,
        resource: def.name,
        code: NO_PROVIDER_FOR_TYPE,
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

/**
 * The engine's KubernetesConnector for the sandbox: kubeplane's real Kubernetes client on the sandbox's virtual clock,
 * answered by `sandbox.kubernetes` once the sandbox listens.
 */
export function sandboxKubernetes(sandbox: Sandbox): KubernetesConnector {
  return kubernetesConnector({ clock: sandbox.clock });
}

/**
 * Add-on credentials in the sandbox: a cloud's add-on (a CSI driver) gets the sandbox cloud's own credentials, as
 * sandboxProviders gives the providers; anything else (the autoscaler adapter's token for kubeplane) goes to
 * `fallback`, or is refused.
 */
export function sandboxAddonCredentials(fallback?: AddonCredentialResolver): AddonCredentialResolver {
  return async (ref, keys, what, cloud) => {
    const values = cloud ? providerCloudOf(cloud)?.provider.addonCredentials : undefined;
    if (values) return Object.fromEntries(keys.flatMap((k) => (values[k.key] ? [[k.key, Redacted.of(values[k.key]!)]] : [])));
    if (fallback) return fallback(ref, keys, what, cloud);
    throw new KubeplaneError('invalid', `${what}: the sandbox holds credentials for its clouds only`, { resource: what });
  };
}
