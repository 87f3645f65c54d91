// The provider types kubeplane knows, each by its profile (profile.ts): one registry that the manifest schema and
// rules, the bootstrap renderer, node identity and the add-on rules read. Adding a cloud adds its file and its entry
// here (docs/provider-contract.md, "Adding a cloud").
import { AWS_PROFILE } from './aws.js';
import { CLAUDIE_ONLY_PROFILES } from './claudie-only.js';
import { CLOUDFLARE_PROFILE } from './cloudflare.js';
import { CRUSOE_PROFILE } from './crusoe.js';
import { HETZNER_PROFILE } from './hetzner.js';
import type { ProviderProfile } from './profile.js';

/** A provider type kubeplane can create on; the others a Claudie manifest may name are read and validated only. */
export type CreatableProviderType = 'aws' | 'hetzner' | 'crusoe' | 'cloudflare';

/** The types kubeplane has a provider for: @kubeplane/providers' registry builds exactly these (its type says so). */
const CREATABLE_PROFILES: { readonly [T in CreatableProviderType]: ProviderProfile<T> } = {
  aws: AWS_PROFILE,
  hetzner: HETZNER_PROFILE,
  crusoe: CRUSOE_PROFILE,
  cloudflare: CLOUDFLARE_PROFILE,
};

/** The profile of every provider type, by type. */
export const PROVIDER_PROFILES = {
  ...CREATABLE_PROFILES,
  ...CLAUDIE_ONLY_PROFILES,
} as const satisfies { [T in string]: ProviderProfile<T> };

/** A provider type kubeplane knows (Claudie's provider types). */
export type ProviderType = keyof typeof PROVIDER_PROFILES;

/** The provider types kubeplane can create on, in the order the schema lists them. */
export const CREATABLE_PROVIDER_TYPES = Object.keys(CREATABLE_PROFILES) as [CreatableProviderType, ...CreatableProviderType[]];

/** Whether kubeplane has a provider for this type (false for the types of claudie-only.ts, and for unknown ones). */
export function isCreatableProviderType(type: string): type is CreatableProviderType {
  return Object.hasOwn(CREATABLE_PROFILES, type);
}

/** Every provider type, in the order the schema lists them. */
export const PROVIDER_TYPES = Object.keys(PROVIDER_PROFILES) as [ProviderType, ...ProviderType[]];

/** The profile of a provider type (a manifest's `providerType`); undefined for a type kubeplane does not know. */
export function profileOf(type: string | undefined): ProviderProfile | undefined {
  return type !== undefined && Object.hasOwn(PROVIDER_PROFILES, type) ? PROVIDER_PROFILES[type as ProviderType] : undefined;
}

export type { CredentialKey, MachinePlace, ProviderProfile, UserDataRule } from './profile.js';
