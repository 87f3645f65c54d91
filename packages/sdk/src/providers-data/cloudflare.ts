// The Cloudflare provider type's profile (see profile.ts): DNS only.
import { requiredKey, type ProviderProfile } from './profile.js';

export const CLOUDFLARE_PROFILE: ProviderProfile<'cloudflare'> = {
  type: 'cloudflare',
  credentials: [requiredKey('apitoken'), requiredKey('accountid')],
  dns: true,
  spot: false,
  compute: false,
  managedKubernetes: false,
};
