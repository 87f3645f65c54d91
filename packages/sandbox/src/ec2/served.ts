// Where a request to the served AWS port goes: one port serves EC2 in every sandbox region, Route 53 and STS (as
// AWS_ENDPOINT_URL expects); the EC2 region is the one the client signed for, since a client given --endpoint-url
// signs for its configured region and the served host.
import { randomUUID } from 'node:crypto';
import { notEmulatedMessage } from '../aws-not-emulated.js';
import type { Target } from '../serve/routes.js';

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

/** The AWS services the port answers, by the name a SigV4 credential scope gives them. */
const SERVED_SERVICES = new Set(['ec2', 'sts', 'route53']);

/**
 * A request signed for another AWS service (AWS_ENDPOINT_URL sends every service's requests here: `aws s3 ls`, `aws iam
 * list-users`) is refused in the sealed sandbox's words, in the Query APIs' error envelope (which the SDKs' XML
 * parsers read; a JSON service's parser keeps the text as the message), never answered by EC2 as one of its actions.
 */
function unserved(what: string): Target {
  const message = notEmulatedMessage(what);
  const error = `<Error><Type>Sender</Type><Code>InvalidAction</Code><Message>${message}</Message></Error>`;
  return {
    status: 400,
    contentType: 'text/xml',
    body: `<?xml version="1.0" encoding="UTF-8"?>\n<ErrorResponse>${error}<RequestId>${randomUUID()}</RequestId></ErrorResponse>`,
  };
}

export function awsTarget(path: string, authorization: string | undefined, regions: readonly string[]): Target {
  const service = signedService(authorization);
  if (service !== undefined && !SERVED_SERVICES.has(service))
    return unserved(`the AWS service '${service}' (the served AWS port answers EC2, Route 53 and STS)`);
  if (path.startsWith(ROUTE53_PREFIX)) return { url: `https://route53.amazonaws.com${path}` };
  if (service === 'route53') return unserved(`Route 53 at ${path.split('?')[0] ?? path} (its API is under ${ROUTE53_PREFIX})`);
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
