// The provider types a Claudie manifest may name that kubeplane reads but cannot create yet: their credential keys
// and features, so manifests naming them validate as Claudie validates them. Each moves to a file of its own
// (profile.ts) when kubeplane gets a provider for it.
import { optionalKey, requiredKey, type ProviderProfile } from './profile.js';

const profile = <T extends string>(type: T, credentials: ProviderProfile['credentials'], dns: boolean, spot: boolean): ProviderProfile<T> => ({
  type,
  credentials,
  dns,
  spot,
  compute: true,
  managedKubernetes: false,
});

export const CLAUDIE_ONLY_PROFILES = {
  gcp: profile('gcp', [requiredKey('credentials'), requiredKey('gcpproject')], true, true),
  azure: profile('azure', [requiredKey('subscriptionid'), requiredKey('tenantid'), requiredKey('clientid'), requiredKey('clientsecret')], true, true),
  oci: profile(
    'oci',
    [requiredKey('privatekey'), requiredKey('keyfingerprint'), requiredKey('tenancyocid'), requiredKey('userocid'), requiredKey('compartmentocid')],
    true,
    true,
  ),
  openstack: profile(
    'openstack',
    [
      requiredKey('authurl'),
      requiredKey('domainid'),
      requiredKey('projectid'),
      requiredKey('applicationcredentialid'),
      requiredKey('applicationcredentialsecret'),
    ],
    false,
    false,
  ),
  exoscale: profile('exoscale', [requiredKey('apikey'), requiredKey('apisecret')], true, false),
  cloudrift: profile('cloudrift', [requiredKey('token'), optionalKey('teamid')], false, false),
  verda: profile('verda', [requiredKey('clientid'), requiredKey('clientsecret'), optionalKey('baseurl')], false, true),
  ovh: profile('ovh', [requiredKey('clientid'), requiredKey('clientsecret'), requiredKey('servicename'), optionalKey('endpoint')], true, false),
  // A GPU marketplace: pools name the machine they want (machineSpec) and Claudie rents the cheapest matching offer
  // (berops/claudie docs/input-manifest/providers/vastai.md). The team key is optional; SSH keys need the personal one.
  vastai: profile('vastai', [requiredKey('personalapikey'), optionalKey('teamapikey')], false, false),
} as const;
