// providers: names, each provider's credentials, and whether kubeplane has a provider for its type.
import { CREATABLE_PROVIDER_TYPES, isCreatableProviderType, PROVIDER_TYPE_INFO } from '../provider-types.js';
import type { RulesContext } from './context.js';
import { NAME_LIMITS } from './limits.js';
import { checkName } from './names.js';
import { checkSecretRef } from './secret-ref.js';

const TEMPLATES_IGNORED = (field: string): string =>
  `${field} is not used: it names Claudie's OpenTofu and Ansible templates, and kubeplane renders its own machines, ` +
  'networks and node configuration from the manifest; remove it to silence this warning';

export function checkProviders({ m, out, at, providers }: RulesContext): void {
  m.providers.forEach((p, i) => {
    const path = at('providers', i);
    checkName(out, [...path, 'name'], p.name, 'provider name', NAME_LIMITS.provider);
    if (providers.has(p.name)) out.error([...path, 'name'], `provider name "${p.name}" is used twice; provider names must be unique`);
    providers.set(p.name, p.providerType);
    // A type Claudie accepts and kubeplane cannot create on yet (claudie-only.ts) validates as Claudie validates it,
    // and is said here rather than learnt at apply, which refuses it.
    if (!isCreatableProviderType(p.providerType))
      out.warning(
        [...path, 'providerType'],
        `kubeplane has no ${p.providerType} provider yet: apply refuses the pools and DNS of provider "${p.name}" ` +
          `(kubeplane creates on ${CREATABLE_PROVIDER_TYPES.join(', ')}); the entry is checked as Claudie checks it`,
      );
    checkSecretRef(out, [...path, 'secretRef'], p.secretRef, PROVIDER_TYPE_INFO[p.providerType].credentials);
    // Claudie's template repositories hold its OpenTofu and Ansible templates; kubeplane renders its own machines.
    if (p.templates) out.warning([...path, 'templates'], TEMPLATES_IGNORED('templates'));
    if (p.templatesRef) out.warning([...path, 'templatesRef'], TEMPLATES_IGNORED('templatesRef'));
  });
}
