// The Hetzner provider type's profile (see profile.ts).
import { requiredKey, type ProviderProfile } from './profile.js';

/**
 * hcloud-cloud-controller-manager's zone for a location: the location's legacy data center, or the location itself
 * for locations opened after data centers were deprecated
 * (hetznercloud/hcloud-cloud-controller-manager, internal/legacydatacenter/datacenter.go, NameFromLocation).
 */
const LEGACY_DATACENTERS: Record<string, string> = {
  nbg1: 'nbg1-dc3',
  hel1: 'hel1-dc2',
  fsn1: 'fsn1-dc14',
  ash: 'ash-dc1',
  hil: 'hil-dc1',
  sin: 'sin-dc1',
};

/** A Hetzner pool names a location (`fsn1`) and may name a data center in it (`fsn1-dc14`) as its zone. */
function location(region: string, zone: string | undefined): string {
  const dc = zone ? /^([a-z]+\d*)-dc\d+$/.exec(zone) : null;
  return dc?.[1] ?? zone ?? region;
}

export const HETZNER_PROFILE: ProviderProfile<'hetzner'> = {
  type: 'hetzner',
  credentials: [requiredKey('credentials', { pattern: /^[A-Za-z0-9]{64}$/, description: '64 letters and digits' })],
  dns: true,
  spot: false,
  compute: true,
  managedKubernetes: false,
  userData: { limit: 32_768, binary: false, source: 'Hetzner Cloud POST /servers user_data: a JSON string of at most 32 KiB' },
  // The storage disk is a Hetzner volume: the API's `linux_device` for it is /dev/disk/by-id/scsi-0HC_Volume_<id>.
  storageDisk: { byId: ['/dev/disk/by-id/scsi-0HC_Volume_*'], source: 'Hetzner Cloud API, Volume.linux_device' },
  // CAX server types are Ampere Altra (arm64).
  arch: (serverType) => (serverType.startsWith('cax') ? 'arm64' : 'amd64'),
  // hcloud-cloud-controller-manager, hcloud/instances.go (hcloudServer.Metadata): region = the location, zone = its
  // legacy data center.
  topology: ({ region, zone }) => {
    const at = region ? location(region, zone) : undefined;
    return { region: at, zone: at ? (LEGACY_DATACENTERS[at] ?? at) : undefined };
  },
  // Hetzner's GPU servers: GEX44, GEX130 (https://www.hetzner.com/dedicated-rootserver/matrix-gpu/).
  nvidiaGpus: (serverType) => /^gex/i.test(serverType),
};
