// What the manifest knows about each provider type: its credential keys and their formats, and which manifest
// features it offers (DNS zones, spot machines, a managed control plane), read from the provider profiles.

import { PROVIDER_PROFILES, PROVIDER_TYPES, type CredentialKey, type ProviderProfile, type ProviderType } from '../providers-data/index.js';

export {
  CREATABLE_PROVIDER_TYPES,
  isCreatableProviderType,
  PROVIDER_TYPES,
  profileOf,
  type CreatableProviderType,
  type CredentialKey,
  type ProviderType,
} from '../providers-data/index.js';

/** Types Claudie once had, with what to write instead. */
export const RETIRED_PROVIDER_TYPES: Record<string, string> = {
  hetznerdns: 'hetznerdns was folded into providerType "hetzner" (Claudie v0.10.2); the same token serves DNS',
  genesiscloud: 'genesiscloud is no longer supported (dropped in Claudie v0.10.0)',
};

/** A provider type's credentials and features (its profile, providers-data/). */
export type ProviderTypeInfo = ProviderProfile<ProviderType>;

/** Whether a credential key must be given, with these keys present. */
export function credentialRequired(k: CredentialKey, present: (key: string) => boolean): boolean {
  return k.required && !(k.requiredUnless !== undefined && present(k.requiredUnless));
}

/** What kubeplane knows of every provider type, by type. */
export const PROVIDER_TYPE_INFO: Record<ProviderType, ProviderTypeInfo> = PROVIDER_PROFILES;

/** The provider types that offer a manifest feature (DNS, spot machines, managed Kubernetes). */
export function providerTypesWith(feature: 'dns' | 'spot' | 'managedKubernetes'): ProviderType[] {
  return PROVIDER_TYPES.filter((t) => PROVIDER_TYPE_INFO[t][feature]);
}
