// What kubeplane knows about one provider type, as one unit: the credentials it takes, which manifest features it
// offers, how its API carries user-data, and how its machines look from inside a cluster (architecture, NAT,
// topology labels, GPUs). Each type's profile lives in its own file; index.ts gathers them, and the manifest rules,
// the bootstrap renderer, node identity and the add-on rules read them instead of naming clouds.

/** A credential key a provider type reads, and whether it is required. */
export interface CredentialKey {
  key: string;
  required: boolean;
  /** Required unless this other key is given (AWS keys are optional with a role to assume from the runtime's own identity). */
  requiredUnless?: string;
  /** Checked when the credential is resolved, never against a value in the manifest. */
  format?: { pattern: RegExp; description: string };
}

export const requiredKey = (key: string, format?: CredentialKey['format']): CredentialKey => ({ key, required: true, ...(format ? { format } : {}) });
export const optionalKey = (key: string, format?: CredentialKey['format']): CredentialKey => ({ key, required: false, ...(format ? { format } : {}) });

/**
 * What a provider's API takes as user-data: the limit on the bytes packUserData produces, and whether the API
 * carries bytes (so gzip, which cloud-init inflates itself, may be sent) or only text. The one rule packUserData,
 * `kubeplane render` and the providers' own checks read.
 */
export interface UserDataRule {
  limit: number;
  binary: boolean;
  /** Where the rule comes from. */
  source: string;
}

/** Where a machine is, as kubeplane recorded it when it made the machine. */
export interface MachinePlace {
  region?: string | undefined;
  zone?: string | undefined;
  /** The cloud's id of the machine in Kubernetes' providerID form, once known. */
  providerId?: string | undefined;
}

/** What kubeplane knows of one provider type: credentials, manifest features, user-data and machine topology. */
export interface ProviderProfile<T extends string = string> {
  type: T;
  credentials: readonly CredentialKey[];
  dns: boolean;
  /** Spot (preemptible) machines can be asked for through the cloud's API; the manifest's `spot` is refused elsewhere. */
  spot: boolean;
  /** Why the type has no spot machines, where its cloud sells them but its API cannot ask for one (the refusal says it). */
  noSpotReason?: string;
  compute: boolean;
  managedKubernetes: boolean;
  /** Standalone reserved IPs exist (the API address of a cluster without an API load balancer). Absent means true. */
  reservedIps?: boolean;
  /** How its API carries user-data; absent: not documented (DEFAULT_USER_DATA_RULE). */
  userData?: UserDataRule;
  /** Its machines reach the internet through NAT (no public address on the interface): WireGuard peers roam to them. */
  behindNat?: boolean;
  /**
   * How a machine finds the storage disk kubeplane made for it (the pool's `storageDiskSize`): globs of the
   * `/dev/disk/by-id` names udev gives the cloud's data disks, the machine's own root disk excluded. Stable identities,
   * never a kernel name such as /dev/sdb that depends on probe order. Absent: the cloud makes no storage disks.
   */
  storageDisk?: { byId: readonly string[]; source: string };
  /** The architecture of a server type; absent: always amd64. */
  arch?: (serverType: string) => 'amd64' | 'arm64';
  /** The region and zone topology labels of a machine, as the cloud's own CCM reports them; absent: region, zone or region. */
  topology?: (place: MachinePlace) => { region?: string | undefined; zone?: string | undefined };
  /** Whether a server type carries NVIDIA GPUs; absent: none known. */
  nvidiaGpus?: (serverType: string) => boolean;
  /** Whether a server type has InfiniBand host channel adapters; absent: none. */
  infiniband?: (serverType: string) => boolean;
}
