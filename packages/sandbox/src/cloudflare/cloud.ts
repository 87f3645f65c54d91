// Cloudflare as a sandbox cloud (clouds/descriptor.ts): one account with zones, DNS records and Load Balancing
// (SANDBOX_CLOUDFLARE_ZONES), its API served on a port of its own. A DNS cloud: it has no machines.
import { SANDBOX_CLOUDFLARE_ZONES, SANDBOX_CREDENTIALS } from '../accounts.js';
import { canonicalName, type SandboxCloud, type ServedAs } from '../clouds/descriptor.js';
import { apiTarget, type ServedApi } from '../serve/routes.js';
import { CLOUDFLARE_API, CLOUDFLARE_CLOUD, CloudflareEmulator, type CloudflareEmulatorOptions, type CloudflareEmulatorState } from './emulator.js';

/** The Sandbox's options for its Cloudflare account (default: SANDBOX_CREDENTIALS' token and account, with Load Balancing, owning SANDBOX_CLOUDFLARE_ZONES). */
export interface CloudflareCloudOptions {
  cloudflare?: Partial<CloudflareEmulatorOptions>;
}

/** The v4 envelope; Cloudflare's codes for these are 7000 (no route for that URI) and 7003 (could not route). */
const SERVED: ServedApi = {
  name: 'Cloudflare',
  base: CLOUDFLARE_API,
  error: (status, message) => JSON.stringify({ success: false, errors: [{ code: status === 404 ? 7000 : 7003, message }], messages: [], result: null }),
};

export const CLOUDFLARE_SANDBOX_CLOUD: SandboxCloud<
  typeof CLOUDFLARE_CLOUD,
  CloudflareEmulator,
  CloudflareEmulatorState,
  CloudflareCloudOptions,
  { readonly cloudflare: CloudflareEmulator }
> &
  ServedAs<typeof CLOUDFLARE_CLOUD> = {
  name: CLOUDFLARE_CLOUD,
  title: 'Cloudflare',
  providerType: 'cloudflare',
  build: ({ context, options, saved }) => {
    const emulator = new CloudflareEmulator(context, {
      apiToken: SANDBOX_CREDENTIALS.cloudflareApiToken,
      accountId: SANDBOX_CREDENTIALS.cloudflareAccountId,
      zones: [...SANDBOX_CLOUDFLARE_ZONES],
      loadBalancing: true,
      ...options.cloudflare,
      // A saved world is of its own account, with its own rate limit (which is the constructor's).
      ...(saved ? { accountId: saved.accountId, rateLimit: saved.rateLimit } : {}),
    });
    if (saved) emulator.restore(saved);
    return emulator;
  },
  state: (emulator) => emulator.state(),
  fields: (emulator) => ({
    /** One Cloudflare account: zones, DNS records, Load Balancing. */
    cloudflare: emulator,
  }),
  handlers: (emulator) => emulator.handlers(),
  inventory: (emulator) => emulator.inventory(),
  provider: {
    credentials: (emulator) => ({ apitoken: SANDBOX_CREDENTIALS.cloudflareApiToken, accountid: emulator.accountId }),
  },
  dns: {
    zoneCount: (emulator) => emulator.zones.size,
    addZone: (emulator, zone) => emulator.addZone(zone),
    records: (emulator, name) => [...emulator.records.values()].filter((r) => canonicalName(r.name) === name).map((r) => ({ type: r.type, value: r.content })),
  },
  serve: {
    key: CLOUDFLARE_CLOUD,
    port: 3,
    path: new URL(CLOUDFLARE_API).pathname,
    title: () => 'Cloudflare API',
    route: (_emulator, request) => apiTarget(SERVED, request.url),
    env: (_emulator, url, secret) => [
      ['CLOUDFLARE_API_BASE', url],
      ['CLOUDFLARE_API_TOKEN', secret(SANDBOX_CREDENTIALS.cloudflareApiToken)],
      ['CLOUDFLARE_ACCOUNT_ID', SANDBOX_CREDENTIALS.cloudflareAccountId],
    ],
  },
};
