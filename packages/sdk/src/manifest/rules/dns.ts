// A DNS target (a load balancer's \`dns\`, a cluster's \`apiDns\`): a provider with DNS, and a valid zone.
import type { Path } from '../issues.js';
import { checkDnsName } from '../names.js';
import { PROVIDER_TYPE_INFO, providerTypesWith } from '../provider-types.js';
import type { RulesContext } from './context.js';
import { listOf } from './names.js';

/** A DNS provider entry and zone (a load balancer's \`dns\`, a cluster's \`apiDns\`), reported under \`path\`. */
export function checkDnsTarget({ out, providers, providerKnown }: RulesContext, provider: string, dnsZone: string, path: Path): void {
  const dnsType = providers.get(provider);
  if (!providerKnown(provider)) {
    out.error([...path, 'provider'], `provider "${provider}" is not defined in providers[]${listOf(providers.keys())}`);
  } else if (dnsType && !PROVIDER_TYPE_INFO[dnsType].dns) {
    out.error([...path, 'provider'], `provider "${provider}" is of type ${dnsType}, which has no DNS; use one of type ${providerTypesWith('dns').join(', ')}`);
  }
  const zoneProblem = checkDnsName(dnsZone.replace(/\.$/, '').toLowerCase(), 'dns.dnsZone');
  if (zoneProblem) out.error([...path, 'dnsZone'], zoneProblem);
}
