// Where a request to a served port goes in the sandbox: the real cloud URL the emulators answer on. One AWS port
// serves EC2 in every sandbox region and Route 53 (as AWS_ENDPOINT_URL expects); the EC2 region is the one the
// client signed for, since a client given --endpoint-url signs for its configured region and the served host.
import { randomUUID } from 'node:crypto';
import { HETZNER_API } from '@kubeplane/providers';

export type Target = { url: string } | { status: number; contentType: string; body: string };

const ROUTE53_PREFIX = '/2013-04-01/';

/** The region of a SigV4 Authorization header's credential scope (`Credential=AKID/20260101/<region>/ec2/aws4_request`). */
export function signedRegion(authorization: string | undefined): string | undefined {
  return /Credential=[^/,\s]+\/\d{8}\/([^/,\s]+)\//.exec(authorization ?? '')?.[1];
}

function ec2Error(code: string, message: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Response><Errors><Error><Code>${code}</Code><Message>${message}</Message></Error></Errors><RequestID>${randomUUID()}</RequestID></Response>`;
}

export function awsTarget(path: string, authorization: string | undefined, regions: readonly string[]): Target {
  if (path.startsWith(ROUTE53_PREFIX)) return { url: `https://route53.amazonaws.com${path}` };
  // Unsigned requests go to the first region, whose emulator answers them as EC2 does (MissingAuthenticationToken).
  const region = signedRegion(authorization) ?? regions[0] ?? 'eu-central-1';
  if (!regions.includes(region)) {
    return { status: 400, contentType: 'text/xml;charset=UTF-8', body: ec2Error('InvalidRegion', `The sandbox serves EC2 in ${regions.join(', ')}; the request was signed for ${region}.`) };
  }
  return { url: `https://ec2.${region}.amazonaws.com${path}` };
}

export function hetznerTarget(path: string): Target {
  const base = new URL(HETZNER_API);
  if (path === base.pathname || path.startsWith(`${base.pathname}/`) || path.startsWith(`${base.pathname}?`)) return { url: `${base.origin}${path}` };
  return { status: 404, contentType: 'application/json', body: JSON.stringify({ error: { code: 'not_found', message: `the Hetzner Cloud API is served under ${base.pathname}` } }) };
}
