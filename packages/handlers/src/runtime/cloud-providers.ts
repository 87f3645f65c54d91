// The real providers, made from each manifest provider's credentials: one factory for every runtime (the CLI resolves
// credentials from env/file, Lambda and Cloud Functions also from their secret stores), on the rate budgets the runtime
// shares between its workers (a file in the state directory, a DynamoDB item), or one process's. The providers
// themselves are built by @kubeplane/providers' registry.
import { RateBudgets, type RateBudgetSource } from '@kubeplane/sdk/provider';
import { systemClock, type ProviderDef, type ProviderFactory } from '@kubeplane/sdk';
import { buildProvider, checkBuildable } from '@kubeplane/providers';
import type { Credentials } from './credentials.js';

export function cloudProviderFactory(
  credentialsOf: (def: ProviderDef, project: string | undefined) => Promise<Credentials>,
  defaultRegion = 'us-east-1',
  budgets: RateBudgetSource = new RateBudgets(systemClock),
): ProviderFactory {
  return async (def, region, context) => {
    // A type kubeplane has no provider for is refused as such, before its credentials are looked for.
    checkBuildable(def);
    return buildProvider({ def, region, context, credentials: await credentialsOf(def, context?.project), clock: systemClock, budgets, defaultRegion });
  };
}
