// What kubeplane knows about each provider type: its credential keys and their formats, and which
// manifest features it offers (DNS zones, spot machines, a managed control plane).

export const PROVIDER_TYPES = [
  'aws',
  'hetzner',
  'crusoe',
  'cloudflare',
  'gcp',
  'azure',
  'oci',
  'openstack',
  'exoscale',
  'cloudrift',
  'verda',
  'ovh',
  'vastai',
] as const;
export type ProviderType = (typeof PROVIDER_TYPES)[number];

/** Types Claudie once had, with what to write instead. */
export const RETIRED_PROVIDER_TYPES: Record<string, string> = {
  hetznerdns: 'hetznerdns was folded into providerType "hetzner" (Claudie v0.10.2); the same token serves DNS',
  genesiscloud: 'genesiscloud is no longer supported (dropped in Claudie v0.10.0)',
};

export interface CredentialKey {
  key: string;
  required: boolean;
  /** Required unless this other key is given (AWS keys are optional with a role to assume from the runtime's own identity). */
  requiredUnless?: string;
  /** Checked when the credential is resolved, never against a value in the manifest. */
  format?: { pattern: RegExp; description: string };
}

export interface ProviderTypeInfo {
  type: ProviderType;
  credentials: readonly CredentialKey[];
  dns: boolean;
  spot: boolean;
  compute: boolean;
  managedKubernetes: boolean;
  /** Standalone reserved IPs exist (the API address of a cluster without an API load balancer). Absent means true. */
  reservedIps?: boolean;
}

const req = (key: string, format?: CredentialKey['format']): CredentialKey => ({ key, required: true, ...(format ? { format } : {}) });
const opt = (key: string, format?: CredentialKey['format']): CredentialKey => ({ key, required: false, ...(format ? { format } : {}) });

/** Whether a credential key must be given, with these keys present. */
export function credentialRequired(k: CredentialKey, present: (key: string) => boolean): boolean {
  return k.required && !(k.requiredUnless !== undefined && present(k.requiredUnless));
}

export const PROVIDER_TYPE_INFO: Record<ProviderType, ProviderTypeInfo> = {
  aws: {
    type: 'aws',
    credentials: [
      { ...req('accesskey', { pattern: /^[A-Z0-9]{20}$/, description: '20 upper-case letters and digits' }), requiredUnless: 'rolearn' },
      { ...req('secretkey', { pattern: /^.{40}$/, description: 'exactly 40 characters' }), requiredUnless: 'rolearn' },
      // Temporary keys (an ASIA… key) come with their session token.
      opt('sessiontoken'),
      // A role the provider works as, one short session per cluster tagged with its id (docs/providers.md, AWS).
      opt('rolearn', {
        pattern: /^arn:aws[a-z-]*:iam::\d{12}:role\/(?:[\w+=,.@-]+\/)*[\w+=,.@-]{1,64}$/,
        description: 'an IAM role ARN (arn:aws:iam::<12-digit account>:role/<name>)',
      }),
      opt('externalid', { pattern: /^[\w+=,.@:/-]{2,1224}$/, description: '2 to 1224 of letters, digits and +=,.@:/-' }),
    ],
    dns: true,
    spot: true,
    compute: true,
    managedKubernetes: false,
  },
  hetzner: {
    type: 'hetzner',
    credentials: [req('credentials', { pattern: /^[A-Za-z0-9]{64}$/, description: '64 letters and digits' })],
    dns: true,
    spot: false,
    compute: true,
    managedKubernetes: false,
  },
  crusoe: {
    type: 'crusoe',
    credentials: [req('accesskey'), req('secretkey'), opt('project')],
    dns: false,
    spot: true,
    compute: true,
    managedKubernetes: true,
    reservedIps: false,
  },
  cloudflare: {
    type: 'cloudflare',
    credentials: [req('apitoken'), req('accountid')],
    dns: true,
    spot: false,
    compute: false,
    managedKubernetes: false,
  },
  gcp: { type: 'gcp', credentials: [req('credentials'), req('gcpproject')], dns: true, spot: true, compute: true, managedKubernetes: false },
  azure: {
    type: 'azure',
    credentials: [req('subscriptionid'), req('tenantid'), req('clientid'), req('clientsecret')],
    dns: true,
    spot: true,
    compute: true,
    managedKubernetes: false,
  },
  oci: {
    type: 'oci',
    credentials: [req('privatekey'), req('keyfingerprint'), req('tenancyocid'), req('userocid'), req('compartmentocid')],
    dns: true,
    spot: true,
    compute: true,
    managedKubernetes: false,
  },
  openstack: {
    type: 'openstack',
    credentials: [req('authurl'), req('domainid'), req('projectid'), req('applicationcredentialid'), req('applicationcredentialsecret')],
    dns: false,
    spot: false,
    compute: true,
    managedKubernetes: false,
  },
  exoscale: { type: 'exoscale', credentials: [req('apikey'), req('apisecret')], dns: true, spot: false, compute: true, managedKubernetes: false },
  cloudrift: { type: 'cloudrift', credentials: [req('token'), opt('teamid')], dns: false, spot: false, compute: true, managedKubernetes: false },
  verda: {
    type: 'verda',
    credentials: [req('clientid'), req('clientsecret'), opt('baseurl')],
    dns: false,
    spot: true,
    compute: true,
    managedKubernetes: false,
  },
  ovh: {
    type: 'ovh',
    credentials: [req('clientid'), req('clientsecret'), req('servicename'), opt('endpoint')],
    dns: true,
    spot: false,
    compute: true,
    managedKubernetes: false,
  },
  // A GPU marketplace: pools name the machine they want (machineSpec) and Claudie rents the cheapest matching offer
  // (berops/claudie docs/input-manifest/providers/vastai.md). The team key is optional; SSH keys need the personal one.
  vastai: { type: 'vastai', credentials: [req('personalapikey'), opt('teamapikey')], dns: false, spot: false, compute: true, managedKubernetes: false },
};

export function providerTypesWith(feature: 'dns' | 'spot' | 'managedKubernetes'): ProviderType[] {
  return PROVIDER_TYPES.filter((t) => PROVIDER_TYPE_INFO[t][feature]);
}
