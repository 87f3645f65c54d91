// Builds the Hetzner provider of a manifest entry (the provider registry, ../registry.ts).
import { KubeplaneError } from '@kubeplane/sdk';
import type { Provider } from '@kubeplane/sdk/provider';
import { budgetIdentity, type ProviderInput } from '../provider-input.js';
import { HetznerProvider } from './provider.js';

export function buildHetznerProvider(input: ProviderInput): Provider {
  const token = input.credentials['credentials'];
  if (!token) throw new KubeplaneError('auth', `provider ${input.def.name}: no Hetzner token`, { resource: input.def.name });
  return new HetznerProvider({
    token,
    project: input.account ?? budgetIdentity(token),
    clock: input.clock,
    budgets: input.budgets,
    ...(input.random ? { random: input.random } : {}),
  });
}
