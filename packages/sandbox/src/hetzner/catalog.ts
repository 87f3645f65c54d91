// The static part of the emulated Hetzner project: locations, server types and images (a subset of the
// real catalog, in the shapes of hetzner-cloud-openapi.json).

export const HETZNER_LOCATIONS = [
  {
    id: 1,
    name: 'fsn1',
    description: 'Falkenstein DC Park 1',
    country: 'DE',
    city: 'Falkenstein',
    latitude: 50.47612,
    longitude: 12.370071,
    network_zone: 'eu-central',
  },
  {
    id: 2,
    name: 'nbg1',
    description: 'Nuremberg DC Park 1',
    country: 'DE',
    city: 'Nuremberg',
    latitude: 49.452102,
    longitude: 11.076665,
    network_zone: 'eu-central',
  },
  {
    id: 3,
    name: 'hel1',
    description: 'Helsinki DC Park 1',
    country: 'FI',
    city: 'Helsinki',
    latitude: 60.169855,
    longitude: 24.938379,
    network_zone: 'eu-central',
  },
  { id: 4, name: 'ash', description: 'Ashburn, VA', country: 'US', city: 'Ashburn, VA', latitude: 39.045821, longitude: -77.487073, network_zone: 'us-east' },
] as const;

/**
 * The data centers of each location (GET /datacenters, `data_center` in hetzner-cloud-openapi.json): a pool's `zone` on
 * Hetzner names one (Claudie's `zone: fsn1-dc14`). Names as Hetzner lists them.
 */
export const HETZNER_DATACENTERS = [
  { id: 4, name: 'fsn1-dc14', description: 'Falkenstein 1 virtual DC 14', location: 'fsn1' },
  { id: 2, name: 'nbg1-dc3', description: 'Nuremberg 1 virtual DC 3', location: 'nbg1' },
  { id: 3, name: 'hel1-dc2', description: 'Helsinki 1 virtual DC 2', location: 'hel1' },
  { id: 5, name: 'ash-dc1', description: 'Ashburn virtual DC 1', location: 'ash' },
] as const;

/**
 * Per-location availability and deprecation of server types, as `server_types[].locations[]` carries it
 * (hetzner-cloud-openapi.json `server_type_location`: a type is supported only in the locations listed, deprecated
 * where `deprecation` is set, unavailable there once `deprecation.unavailable_after` is past). The sandbox's clock
 * starts on 2026-01-01: `cpx21` (the generation cpx22 replaced) is past its date everywhere, `cx22` is deprecated but
 * still orderable, and the dedicated `ccx13` is not offered in Ashburn. Dates are the sandbox's, not Hetzner's.
 */
export const HETZNER_SERVER_TYPE_LOCATIONS: Record<string, { only?: readonly string[]; deprecation?: { announced: string; unavailable_after: string } }> = {
  cpx21: { deprecation: { announced: '2025-10-16T00:00:00Z', unavailable_after: '2025-12-31T00:00:00Z' } },
  cx22: { deprecation: { announced: '2025-10-16T00:00:00Z', unavailable_after: '2026-12-31T00:00:00Z' } },
  ccx13: { only: ['fsn1', 'nbg1', 'hel1'] },
};

export const HETZNER_SERVER_TYPES = [
  { id: 104, name: 'cpx22', description: 'CPX 22', cores: 2, memory: 4, disk: 80, cpu_type: 'shared', architecture: 'x86' },
  { id: 105, name: 'cpx32', description: 'CPX 32', cores: 4, memory: 8, disk: 160, cpu_type: 'shared', architecture: 'x86' },
  { id: 106, name: 'cpx42', description: 'CPX 42', cores: 8, memory: 16, disk: 320, cpu_type: 'shared', architecture: 'x86' },
  { id: 45, name: 'cax11', description: 'CAX11', cores: 2, memory: 4, disk: 40, cpu_type: 'shared', architecture: 'arm' },
  { id: 96, name: 'ccx13', description: 'CCX13 Dedicated CPU', cores: 2, memory: 8, disk: 80, cpu_type: 'dedicated', architecture: 'x86' },
  { id: 23, name: 'cx22', description: 'CX22', cores: 2, memory: 4, disk: 40, cpu_type: 'shared', architecture: 'x86' },
  { id: 28, name: 'cpx21', description: 'CPX 21', cores: 3, memory: 4, disk: 80, cpu_type: 'shared', architecture: 'x86' },
] as const;

export const HETZNER_IMAGES = [
  { id: 161547269, name: 'ubuntu-24.04', description: 'Ubuntu 24.04', type: 'system', os_flavor: 'ubuntu', os_version: '24.04', architecture: 'x86' },
  { id: 103908130, name: 'ubuntu-22.04', description: 'Ubuntu 22.04', type: 'system', os_flavor: 'ubuntu', os_version: '22.04', architecture: 'x86' },
  { id: 161547270, name: 'ubuntu-24.04', description: 'Ubuntu 24.04', type: 'system', os_flavor: 'ubuntu', os_version: '24.04', architecture: 'arm' },
  // Deprecated (image `deprecated`: "point in time when the Image is considered to be deprecated"); still listed.
  {
    id: 67794396,
    name: 'ubuntu-20.04',
    description: 'Ubuntu 20.04',
    type: 'system',
    os_flavor: 'ubuntu',
    os_version: '20.04',
    architecture: 'x86',
    deprecated: '2025-05-31T00:00:00Z',
  },
] as const;

/** Load balancer types (GET /load_balancer_types, `load_balancer_type`); limits as Hetzner lists them. */
export const HETZNER_LOAD_BALANCER_TYPES = [
  { id: 1, name: 'lb11', description: 'LB11', max_connections: 10000, max_services: 5, max_targets: 25, max_assigned_certificates: 10 },
  { id: 2, name: 'lb21', description: 'LB21', max_connections: 20000, max_services: 15, max_targets: 75, max_assigned_certificates: 25 },
  { id: 3, name: 'lb31', description: 'LB31', max_connections: 40000, max_services: 30, max_targets: 150, max_assigned_certificates: 50 },
] as const;

/** Public ISOs (GET /isos, `iso`): installer images a server can boot from. */
export const HETZNER_ISOS = [
  { id: 4483, name: 'ubuntu-24.04.1-live-server-amd64.iso', description: 'Ubuntu 24.04.1 (amd64)', type: 'public', architecture: 'x86', deprecation: null },
  { id: 4484, name: 'ubuntu-24.04.1-live-server-arm64.iso', description: 'Ubuntu 24.04.1 (arm64)', type: 'public', architecture: 'arm', deprecation: null },
  { id: 3793, name: 'debian-12.7.0-amd64-netinst.iso', description: 'Debian 12.7 (amd64/netinstall)', type: 'public', architecture: 'x86', deprecation: null },
] as const;

/** When the system images were published and how big they are (`image.created`, `disk_size` in GB, `image_size`). */
export const HETZNER_IMAGE_CREATED = '2024-04-25T00:00:00Z';
export const HETZNER_IMAGE_DISK_GB = 5;
