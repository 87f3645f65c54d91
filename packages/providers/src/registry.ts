// The provider registry: each provider type kubeplane can create, mapped to the function that builds its provider from
// a manifest entry's credentials. The local runtime, the serverless runtimes and the sandbox all build providers here,
// so a cloud is added once: its folder's build.ts and its entry below (docs/provider-contract.md, "Adding a cloud").
import { KubeplaneError, type Provider } from '@kubeplane/sdk';
import { buildAwsProvider } from './aws/build.js';
import { buildCloudflareProvider } from './cloudflare/build.js';
import { buildCrusoeProvider } from './crusoe/build.js';
import { buildHetznerProvider } from './hetzner/build.js';
import type { ProviderInput } from './provider-input.js';

export { budgetIdentity, type ProviderInput } from './provider-input.js';

/** Builds a provider from a manifest's provider and its resolved credentials. */
export type ProviderBuilder = (input: ProviderInput) => Provider | Promise<Provider>;

/** The builder of every provider type kubeplane can create, by type. */
export const PROVIDER_BUILDERS: Readonly<Record<string, ProviderBuilder>> = {
  aws: buildAwsProvider,
  cloudflare: buildCloudflareProvider,
  crusoe: buildCrusoeProvider,
  hetzner: buildHetznerProvider,
};

/** The provider types kubeplane can create, sorted. */
export const BUILDABLE_PROVIDER_TYPES: readonly string[] = Object.keys(PROVIDER_BUILDERS).sort();

/** Builds the provider of a manifest entry; a type without a builder is refused, naming those that have one. */
export async function buildProvider(input: ProviderInput): Promise<Provider> {
  const build = Object.hasOwn(PROVIDER_BUILDERS, input.def.providerType) ? PROVIDER_BUILDERS[input.def.providerType] : undefined;
  if (!build) {
    throw new KubeplaneError(
      'invalid',
      `provider type ${input.def.providerType} (${input.def.name}) has no kubeplane provider yet; available: ${BUILDABLE_PROVIDER_TYPES.join(', ')}`,
      { resource: input.def.name },
    );
  }
  return build(input);
}
