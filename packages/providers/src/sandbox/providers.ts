// Providers bound to the sandbox clouds: the real AWS and Hetzner providers, with the sandbox's accepted
// credentials, its virtual clock and one set of rate budgets, and the real Kubernetes client. This is what
// `kubeplane ... --sandbox` and the lifecycle tests hand the engine.
import { KubeplaneError, RateBudgets, Redacted, type KubernetesConnector, type ProviderFactory } from '@kubeplane/sdk';
import { AwsProvider } from '../aws/provider.js';
import { HetznerProvider } from '../hetzner/provider.js';
import { kubernetesConnector } from '../kubernetes/client.js';
import { SANDBOX_CREDENTIALS, type Sandbox } from './sandbox.js';

/** The region AWS providers use for global services (Route 53). */
const GLOBAL_REGION = 'us-east-1';

export function sandboxProviders(sandbox: Sandbox): ProviderFactory {
  const budgets = new RateBudgets(sandbox.clock);
  return async (def, region) => {
    switch (def.providerType) {
      case 'hetzner':
        return new HetznerProvider({ token: Redacted.of(SANDBOX_CREDENTIALS.hetznerToken), project: def.name, clock: sandbox.clock, budgets, random: sandbox.random });
      case 'aws':
        return new AwsProvider({
          region: region ?? GLOBAL_REGION,
          account: def.name,
          credentials: { accessKeyId: Redacted.of(SANDBOX_CREDENTIALS.awsAccessKeyId), secretAccessKey: Redacted.of(SANDBOX_CREDENTIALS.awsSecretAccessKey) },
          clock: sandbox.clock,
          budgets,
          random: sandbox.random,
        });
      default:
        throw new KubeplaneError('invalid', `the sandbox has no ${def.providerType} cloud; sandbox clouds: aws, hetzner`, { provider: def.providerType, resource: def.name });
    }
  };
}

export function sandboxKubernetes(sandbox: Sandbox): KubernetesConnector {
  return kubernetesConnector({ clock: sandbox.clock });
}
