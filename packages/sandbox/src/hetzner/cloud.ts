// The Hetzner Cloud as a sandbox cloud (clouds/descriptor.ts): one project with servers, networks, firewalls, primary
// IPs, volumes, load balancers and DNS zones, its API served on a port of its own, checked against Hetzner's OpenAPI
// document.
import { SANDBOX_CREDENTIALS } from '../accounts.js';
import { canonicalName, type SandboxCloud, type ServedAs, type WithFloor } from '../clouds/descriptor.js';
import { LATENCY } from '../latency.js';
import { apiTarget, type ServedApi } from '../serve/routes.js';
import { HETZNER_DOCUMENT } from './document.js';
import { HETZNER_API, HetznerEmulator, type HetznerEmulatorOptions, type HetznerEmulatorState } from './emulator.js';

/** The Sandbox's options for its Hetzner project. */
export interface HetznerCloudOptions {
  hetzner?: Partial<HetznerEmulatorOptions>;
}

const SERVED: ServedApi = {
  name: 'Hetzner Cloud',
  base: HETZNER_API,
  error: (status, message) => JSON.stringify({ error: { code: status === 404 ? 'not_found' : 'invalid_input', message } }),
};

const TOKEN = { credentials: SANDBOX_CREDENTIALS.hetznerToken };

export const HETZNER_SANDBOX_CLOUD: SandboxCloud<'hetzner', HetznerEmulator, HetznerEmulatorState, HetznerCloudOptions, { readonly hetzner: HetznerEmulator }> &
  ServedAs<'hetzner'> &
  WithFloor = {
  name: 'hetzner',
  title: 'Hetzner Cloud',
  providerType: 'hetzner',
  build: ({ context, seed, options, saved }) => {
    const emulator = new HetznerEmulator(context, {
      token: SANDBOX_CREDENTIALS.hetznerToken,
      macSeed: seed,
      ...options.hetzner,
      // The rate limit is the constructor's; a saved world keeps its own.
      ...(saved ? { rateLimit: saved.rateLimit } : {}),
    });
    if (saved) emulator.restore(saved);
    return emulator;
  },
  state: (emulator) => emulator.state(),
  fields: (emulator) => ({ hetzner: emulator }),
  handlers: (emulator) => emulator.handlers(),
  document: HETZNER_DOCUMENT,
  inventory: (emulator) => emulator.inventory(),
  listVms: (emulator) => emulator.listVms(),
  unbilledStates: ['deleting', 'off'],
  provider: {
    credentials: () => TOKEN,
    addonCredentials: TOKEN,
    contract: { 'create-node': 'POST /servers', 'list-nodes': 'GET /servers', 'delete-node': 'DELETE /servers/{id}' },
    capacityOperation: 'POST /servers',
  },
  dns: {
    zoneCount: (emulator) => emulator.zones.size,
    addZone: (emulator, zone) => emulator.addDnsZone(zone),
    records: (emulator, name) => {
      const out: Array<{ type: string; value: string }> = [];
      for (const zone of emulator.zones.values()) {
        for (const r of emulator.rrsets) {
          if (r.zone !== zone.id) continue;
          const fqdn = r.name === '@' ? canonicalName(zone.name) : `${r.name}.${canonicalName(zone.name)}`;
          if (fqdn === name) for (const v of r.records) out.push({ type: r.type, value: v.value });
        }
      }
      return out;
    },
  },
  serve: {
    key: 'hetzner',
    port: 1,
    path: new URL(HETZNER_API).pathname,
    title: () => 'Hetzner Cloud API',
    route: (_emulator, request) => apiTarget(SERVED, request.url),
    env: (_emulator, url, secret) => [
      ['HCLOUD_ENDPOINT', url],
      ['HCLOUD_TOKEN', secret(SANDBOX_CREDENTIALS.hetznerToken)],
    ],
  },
  publicAddressOwners: ['hetzner'],
  floor: {
    // One create call per node; the project's burst (3600) covers any pool we model, 1/s beyond it.
    nodeCreationMs: (nodes) => Math.max(0, nodes - 3600) * 1000 + LATENCY.apiCall + LATENCY.hetznerCreateToRunning.typicalMs,
  },
};
