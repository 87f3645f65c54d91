// providers: names, and each provider's credentials.
import { PROVIDER_TYPE_INFO } from '../provider-types.js';
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
    checkSecretRef(out, [...path, 'secretRef'], p.secretRef, PROVIDER_TYPE_INFO[p.providerType].credentials);
    // Claudie's template repositories hold its OpenTofu and Ansible templates; kubeplane renders its own machines.
    if (p.templates) out.warning([...path, 'templates'], TEMPLATES_IGNORED('templates'));
    if (p.templatesRef) out.warning([...path, 'templatesRef'], TEMPLATES_IGNORED('templatesRef'));
  });
}
