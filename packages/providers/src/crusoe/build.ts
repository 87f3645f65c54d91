// Builds the Crusoe provider of a manifest entry (the provider registry, ../registry.ts).
import { KubeplaneError } from '@kubeplane/sdk';
import type { Provider } from '@kubeplane/sdk/provider';
import { incompleteCredentials, type ProviderInput } from '../provider-input.js';
import { CrusoeProvider } from './provider.js';

export function buildCrusoeProvider(input: ProviderInput): Provider {
  const { accesskey, secretkey, project } = input.credentials;
  if (!accesskey || !secretkey) throw incompleteCredentials(input.def, 'Crusoe', 'accesskey and secretkey');
  if (!project)
    throw new KubeplaneError('invalid', `provider ${input.def.name}: Crusoe needs the project id (secretRef key "project")`, { resource: input.def.name });
  return new CrusoeProvider({
    accessKeyId: accesskey,
    secretKey: secretkey,
    projectId: project.reveal(),
    clock: input.clock,
    budgets: input.budgets,
    ...(input.random ? { random: input.random } : {}),
    ...(input.sshPublicKey ? { sshPublicKey: input.sshPublicKey } : {}),
  });
}
