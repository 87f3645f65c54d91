// Builds the Cloudflare provider of a manifest entry (the provider registry, ../registry.ts).
import type { Provider } from '@kubeplane/sdk/provider';
import { incompleteCredentials, type ProviderInput } from '../provider-input.js';
import { CloudflareProvider } from './provider.js';

export function buildCloudflareProvider(input: ProviderInput): Promise<Provider> {
  const { apitoken, accountid } = input.credentials;
  if (!apitoken || !accountid) throw incompleteCredentials(input.def, 'Cloudflare', 'apitoken and accountid');
  return CloudflareProvider.connect({
    apiToken: apitoken,
    accountId: accountid.reveal(),
    clock: input.clock,
    budgets: input.budgets,
    ...(input.random ? { random: input.random } : {}),
  });
}
