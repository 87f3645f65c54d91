// How Route 53 speaks REST-XML: a `<XxxResponse xmlns=…>` document per operation, the `<ErrorResponse>` envelope
// with the error's Type (Sender, or Receiver for a 5xx), and its answers to the sandbox's injected faults.
import { HttpResponse } from 'msw';
import { XMLParser } from 'fast-xml-parser';
import { requestId } from '../context.js';
import { type Dialect, EmulatorError, type Reply, reply } from '../emulator/index.js';
import { t } from '../xml.js';

export const ROUTE53_BASE = 'https://route53.amazonaws.com/2013-04-01';
const XMLNS = 'https://route53.amazonaws.com/doc/2013-04-01/';

/** Request documents as the routes read them: attributes dropped, text kept as text, changes and values always lists. */
export const parser = new XMLParser({ ignoreAttributes: true, parseTagValue: false, isArray: (name) => ['Change', 'ResourceRecord'].includes(name) });

/** A success: the document `<root xmlns=…>body</root>`. */
export function xml(root: string, body: string, status = 200, headers: Record<string, string> = {}): Reply {
  return reply(body, status, headers, { root });
}

export const invalidClientTokenId = (): EmulatorError =>
  new EmulatorError(403, 'InvalidClientTokenId', 'The security token included in the request is invalid.');
export const throttling = (): EmulatorError => new EmulatorError(400, 'Throttling', 'Rate exceeded');

function document(root: string, body: string, status: number, id: string, headers: Record<string, string>): Response {
  return new HttpResponse(`<?xml version="1.0"?>\n<${root} xmlns="${XMLNS}">${body}</${root}>`, {
    status,
    headers: { 'content-type': 'text/xml', 'x-amzn-requestid': id, ...headers },
  });
}

export const route53Dialect: Dialect<string> = {
  error(e) {
    const id = requestId();
    const error = `<Error>${t('Type', e.status >= 500 ? 'Receiver' : 'Sender')}${t('Code', e.code)}${t('Message', e.message)}</Error>`;
    return document('ErrorResponse', error + t('RequestId', id), e.status, id, e.headers);
  },
  success(r) {
    return document(String(r.meta['root']), String(r.body), r.status, requestId(), r.headers);
  },
  faults: {
    throttled: throttling,
    'throttled-no-headers': throttling,
    // "ServiceUnavailable ... HTTP Status Code: 503" (https://docs.aws.amazon.com/Route53/latest/APIReference/CommonErrors.html).
    'server-error': () => new EmulatorError(503, 'ServiceUnavailable', 'Service is unavailable'),
    quota: () => new EmulatorError(400, 'TooManyHealthChecks', 'You have reached the maximum number of active health checks for an AWS account.'),
    capacity: () => new EmulatorError(400, 'PriorRequestNotComplete', 'The request was rejected because Route 53 was still processing a prior request.'),
    auth: invalidClientTokenId,
  },
  parseBody: (call) => call.text,
};
