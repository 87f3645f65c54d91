// The real providers, made from each manifest provider's credentials: one factory for every runtime (the
// CLI resolves credentials from env/file, Lambda also from Secrets Manager), sharing rate budgets per process.
import { KubeplaneError, RateBudgets, systemClock, type ProviderDef, type ProviderFactory } from '@kubeplane/sdk';
import { AwsProvider, HetznerProvider } from '@kubeplane/providers';
import type { Credentials } from './credentials.js';

export function cloudProviderFactory(credentialsOf: (def: ProviderDef) => Promise<Credentials>, defaultRegion = 'us-east-1'): ProviderFactory {
  const budgets = new RateBudgets(systemClock);
  return async (def, region) => {
    const creds = await credentialsOf(def);
    switch (def.providerType) {
      case 'hetzner': {
        const token = creds.credentials;
        if (!token) throw new KubeplaneError('auth', `provider ${def.name}: no Hetzner token`, { resource: def.name });
        return new HetznerProvider({ token, project: def.name, clock: systemClock, budgets });
      }
      case 'aws': {
        const accessKeyId = creds.accesskey;
        const secretAccessKey = creds.secretkey;
        if (!accessKeyId || !secretAccessKey) throw new KubeplaneError('auth', `provider ${def.name}: AWS credentials incomplete`, { resource: def.name });
        return new AwsProvider({ region: region ?? defaultRegion, account: def.name, credentials: { accessKeyId, secretAccessKey }, clock: systemClock, budgets });
      }
      default:
        throw new KubeplaneError('invalid', `provider type ${def.providerType} (${def.name}) has no kubeplane provider yet; available: aws, hetzner`, { resource: def.name });
    }
  };
}
