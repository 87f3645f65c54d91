// The static part of the emulated Hetzner project: locations, server types and images (a subset of the
// real catalog, in the shapes of hetzner-cloud-openapi.json).

export const HETZNER_LOCATIONS = [
  { id: 1, name: 'fsn1', description: 'Falkenstein DC Park 1', country: 'DE', city: 'Falkenstein', latitude: 50.47612, longitude: 12.370071, network_zone: 'eu-central' },
  { id: 2, name: 'nbg1', description: 'Nuremberg DC Park 1', country: 'DE', city: 'Nuremberg', latitude: 49.452102, longitude: 11.076665, network_zone: 'eu-central' },
  { id: 3, name: 'hel1', description: 'Helsinki DC Park 1', country: 'FI', city: 'Helsinki', latitude: 60.169855, longitude: 24.938379, network_zone: 'eu-central' },
  { id: 4, name: 'ash', description: 'Ashburn, VA', country: 'US', city: 'Ashburn, VA', latitude: 39.045821, longitude: -77.487073, network_zone: 'us-east' },
] as const;

export const HETZNER_SERVER_TYPES = [
  { id: 104, name: 'cpx22', description: 'CPX 22', cores: 2, memory: 4, disk: 80, cpu_type: 'shared', architecture: 'x86' },
  { id: 105, name: 'cpx32', description: 'CPX 32', cores: 4, memory: 8, disk: 160, cpu_type: 'shared', architecture: 'x86' },
  { id: 106, name: 'cpx42', description: 'CPX 42', cores: 8, memory: 16, disk: 320, cpu_type: 'shared', architecture: 'x86' },
  { id: 45, name: 'cax11', description: 'CAX11', cores: 2, memory: 4, disk: 40, cpu_type: 'shared', architecture: 'arm' },
  { id: 96, name: 'ccx13', description: 'CCX13 Dedicated CPU', cores: 2, memory: 8, disk: 80, cpu_type: 'dedicated', architecture: 'x86' },
] as const;

export const HETZNER_IMAGES = [
  { id: 161547269, name: 'ubuntu-24.04', description: 'Ubuntu 24.04', type: 'system', os_flavor: 'ubuntu', os_version: '24.04', architecture: 'x86' },
  { id: 103908130, name: 'ubuntu-22.04', description: 'Ubuntu 22.04', type: 'system', os_flavor: 'ubuntu', os_version: '22.04', architecture: 'x86' },
  { id: 161547270, name: 'ubuntu-24.04', description: 'Ubuntu 24.04', type: 'system', os_flavor: 'ubuntu', os_version: '24.04', architecture: 'arm' },
] as const;
