// The provider registry: each provider type kubeplane can create, mapped to the function that builds its provider from
// a manifest entry's credentials. The local runtime, the serverless runtimes and the sandbox all build providers here,
// so a cloud is added once: its folder's build.ts and its entry below (docs/provider-contract.md, "Adding a cloud").
import { CREATABLE_PROVIDER_TYPES, type CreatableProviderType, isCreatableProviderType, NO_PROVIDER_FOR_TYPE } from '@kubeplane/sdk/internal';
import { KubeplaneError, type ProviderDef } from '@kubeplane/sdk';
import type { Provider } from '@kubeplane/sdk/provider';
import { buildAwsProvider } from './aws/build.js';
import { buildCloudflareProvider } from './cloudflare/build.js';
import { buildCrusoeProvider } from './crusoe/build.js';
import { buildHetznerProvider } from './hetzner/build.js';
import type { ProviderInput } from './provider-input.js';

export { budgetIdentity, type ProviderInput } from './provider-input.js';

/** Builds a provider from a manifest's provider and its resolved credentials. */
export type ProviderBuilder = (input: ProviderInput) => Provider | Promise<Provider>;

/**
 * One builder for each type the sdk's profiles call creatable (CREATABLE_PROVIDER_TYPES): validation warns of the
 * others, so a builder added here without its profile there (or the reverse) does not compile.
 */
export const PROVIDER_BUILDERS: Readonly<Record<CreatableProviderType, ProviderBuilder>> = {
  aws: buildAwsProvider,
  cloudflare: buildCloudflareProvider,
  crusoe: buildCrusoeProvider,
  hetzner: buildHetznerProvider,
};

/** The provider types kubeplane can create, sorted. */
export const BUILDABLE_PROVIDER_TYPES: readonly string[] = [...CREATABLE_PROVIDER_TYPES].sort();

/**
 * Refuses a manifest entry whose type kubeplane has no provider for (code NO_PROVIDER_FOR_TYPE, which preflight reports
 * at the entry's providerType and deletion takes as "nothing made there"). A runtime checks it before it resolves the
 * entry's credentials, so the refusal names the type, not a secret it could not read.
 */
export function checkBuildable<D extends Pick<ProviderDef, 'name' | 'providerType'>>(def: D): asserts def is D & { providerType: CreatableProviderType } {
  if (isCreatableProviderType(def.providerType)) return;
  throw new KubeplaneError(
    'invalid',
    `provider type ${def.providerType} (${def.name}) has no kubeplane provider yet; available: ${BUILDABLE_PROVIDER_TYPES.join(', ')}`,
    { resource: def.name, provider: def.providerType, code: NO_PROVIDER_FOR_TYPE },
  );
}

/** Builds the provider of a manifest entry; a type without a builder is refused (checkBuildable). */
export async function buildProvider(input: ProviderInput): Promise<Provider> {
  const def = input.def;
  checkBuildable(def);
  return PROVIDER_BUILDERS[def.providerType](input);
}
