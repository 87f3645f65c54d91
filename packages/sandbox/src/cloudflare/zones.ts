// The account's zones (added by its owner: the API only reads them), its subscriptions, and the token check
// `GET /user/tokens/verify`, which is served without authentication and checks the token itself.
import { createHash } from 'node:crypto';
import { EmulatorError, type Json, reply } from '../emulator/index.js';
import { accountOf, type CloudflareRoute, type CloudflareWorld, EPOCH, page, route, type Zone, zoneOf } from './world.js';

/** The sandbox's nameservers, as Cloudflare assigns a pair per account (the names are the sandbox's). */
const NAME_SERVERS = ['ada.ns.cloudflare.com', 'bob.ns.cloudflare.com'];

export function zoneRoutes(w: CloudflareWorld, apiToken: string): CloudflareRoute[] {
  return [
    route('GET /user/tokens/verify', (c) => verifyToken(apiToken, c.request), { public: true }),
    route('GET /zones', (c) => {
      const name = c.query.get('name');
      return page(
        w.zones.filter((z) => !name || z.name === name).map((z) => zoneJson(w, z)),
        c.query,
      );
    }),
    route('GET /zones/{zone}', (c) => reply(zoneJson(w, zoneOf(w, c.params['zone'] ?? '')))),
    route('GET /accounts/{account}/subscriptions', (c) => {
      accountOf(w, c.params['account'] ?? '');
      return reply(subscriptions(w.loadBalancing()));
    }),
  ];
}

/**
 * GET /user/tokens/verify (https://developers.cloudflare.com/api/resources/user/subresources/tokens/methods/verify):
 * the token's id and status, with the "valid and active" message (the troubleshooting page's example,
 * https://developers.cloudflare.com/fundamentals/api/troubleshooting/); an unknown token is 401, code 1000.
 */
function verifyToken(apiToken: string, request: Request) {
  if (request.headers.get('authorization') !== `Bearer ${apiToken}`) throw new EmulatorError(401, 1000, 'Invalid API Token');
  const id = createHash('md5').update(`cf-token/${apiToken}`).digest('hex');
  return reply({ id, status: 'active' }, 200, {}, { messages: [{ code: 10000, message: 'This API Token is valid and active', type: null }] });
}

function subscriptions(loadBalancing: boolean): Json[] {
  return [
    { id: 'sub-dns', product: { name: 'prod_dns', public_name: 'DNS' }, rate_plan: { id: 'free', public_name: 'Free' }, state: 'Paid' },
    ...(loadBalancing
      ? [
          {
            id: 'sub-lb',
            product: { name: 'prod_load_balancing', public_name: 'Load Balancing' },
            rate_plan: { id: 'load_balancing_basic', public_name: 'Load Balancing' },
            state: 'Paid',
          },
        ]
      : []),
  ];
}

/**
 * A zone as GET /zones/{zone_id} gives it (https://developers.cloudflare.com/api/resources/zones/methods/get/): a
 * full setup, active, on the account, with its assigned nameservers. Plan and permissions are left out.
 */
function zoneJson(w: CloudflareWorld, z: Zone): Json {
  return {
    id: z.id,
    name: z.name,
    status: 'active',
    paused: false,
    type: 'full',
    development_mode: 0,
    name_servers: [...NAME_SERVERS],
    original_name_servers: null,
    original_registrar: null,
    original_dnshost: null,
    created_on: EPOCH,
    modified_on: EPOCH,
    activated_on: EPOCH,
    account: { id: w.accountId, name: 'kubeplane sandbox' },
    owner: { id: null, type: 'user', email: null },
    meta: { step: 2, custom_certificate_quota: 0, page_rule_quota: 3, phishing_detected: false },
  };
}
