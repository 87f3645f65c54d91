// Where a request to a served port goes in the sandbox: the real cloud URL the emulators answer on. One AWS port
// serves EC2 in every sandbox region, Route 53 and STS (as AWS_ENDPOINT_URL expects); the EC2 region is the one the
// client signed for, since a client given --endpoint-url signs for its configured region and the served host.
import { randomBytes, randomUUID } from 'node:crypto';
import { CLOUDFLARE_API } from '../cloudflare/emulator.js';
import { CRUSOE_API } from '../crusoe/emulator.js';
import { HETZNER_API } from '../hetzner/emulator.js';

export type Target = { url: string } | { status: number; contentType: string; body: string };

const ROUTE53_PREFIX = '/2013-04-01/';

/** The region of a SigV4 Authorization header's credential scope (`Credential=AKID/20260101/<region>/ec2/aws4_request`). */
export function signedRegion(authorization: string | undefined): string | undefined {
  return /Credential=[^/,\s]+\/\d{8}\/([^/,\s]+)\//.exec(authorization ?? '')?.[1];
}

function ec2Error(code: string, message: string): string {
  const error = `<Error><Code>${code}</Code><Message>${message}</Message></Error>`;
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Response><Errors>${error}</Errors><RequestID>${randomUUID()}</RequestID></Response>`;
}

/** The service of a SigV4 Authorization header's credential scope (`…/<region>/<service>/aws4_request`). */
export function signedService(authorization: string | undefined): string | undefined {
  return /Credential=[^/,\s]+\/\d{8}\/[^/,\s]+\/([^/,\s]+)\/aws4_request/.exec(authorization ?? '')?.[1];
}

export function awsTarget(path: string, authorization: string | undefined, regions: readonly string[]): Target {
  if (path.startsWith(ROUTE53_PREFIX)) return { url: `https://route53.amazonaws.com${path}` };
  // STS takes the same Query requests (POST /) as EC2; the client's signature names the service it meant
  // (AWS_ENDPOINT_URL serves every service from one URL). STS answers at its Regional endpoints and the global one.
  if (signedService(authorization) === 'sts') {
    const region = signedRegion(authorization);
    return { url: region && region !== 'us-east-1' ? `https://sts.${region}.amazonaws.com${path}` : `https://sts.amazonaws.com${path}` };
  }
  // Unsigned requests go to the first region, whose emulator answers them as EC2 does (MissingAuthenticationToken).
  const region = signedRegion(authorization) ?? regions[0] ?? 'eu-central-1';
  if (!regions.includes(region)) {
    return {
      status: 400,
      contentType: 'text/xml;charset=UTF-8',
      body: ec2Error('InvalidRegion', `The sandbox serves EC2 in ${regions.join(', ')}; the request was signed for ${region}.`),
    };
  }
  return { url: `https://ec2.${region}.amazonaws.com${path}` };
}

/** An API served on a port of its own, under its real path prefix (`/v1`, `/client/v4`). */
export interface ServedApi {
  name: string;
  /** The real base URL (`https://api.hetzner.cloud/v1`). */
  base: string;
  /** The cloud's own error body (JSON) for a request the server refuses before the emulator sees it. */
  error: (status: 400 | 404, message: string) => string;
}

/**
 * The served path on the real host, unchanged: path and query are what the client sent, byte for byte (Crusoe's
 * signature covers both). A target the URL parser would rewrite (dot segments, unescaped characters) is refused
 * rather than changed behind the client's back; anything outside the API's prefix is the cloud's own 404.
 */
export function apiTarget(api: ServedApi, path: string): Target {
  const base = new URL(api.base);
  const refuse = (status: 400 | 404, message: string): Target => ({ status, contentType: 'application/json', body: api.error(status, message) });
  if (!(path === base.pathname || path.startsWith(`${base.pathname}/`) || path.startsWith(`${base.pathname}?`)))
    return refuse(404, `the ${api.name} API is served under ${base.pathname}`);
  const url = new URL(`${base.origin}${path}`);
  const normal = `${url.pathname}${url.search}`;
  if (normal !== path) return refuse(400, `the ${api.name} API takes the request path normalised and escaped, as ${normal}`);
  return { url: url.href };
}

export const HETZNER: ServedApi = {
  name: 'Hetzner Cloud',
  base: HETZNER_API,
  error: (status, message) => JSON.stringify({ error: { code: status === 404 ? 'not_found' : 'invalid_input', message } }),
};
export const CRUSOE: ServedApi = {
  name: 'Crusoe Cloud',
  base: CRUSOE_API,
  error: (status, message) => JSON.stringify({ code: status === 404 ? 'not_found' : 'bad_request', message, error_id: randomBytes(8).toString('hex') }),
};
/** The v4 envelope; Cloudflare's codes for these are 7000 (no route for that URI) and 7003 (could not route). */
export const CLOUDFLARE: ServedApi = {
  name: 'Cloudflare',
  base: CLOUDFLARE_API,
  error: (status, message) => JSON.stringify({ success: false, errors: [{ code: status === 404 ? 7000 : 7003, message }], messages: [], result: null }),
};
