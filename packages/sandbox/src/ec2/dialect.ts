// The AWS Query dialect as EC2 speaks it (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/Query-Requests.html):
// form-encoded parameters in, `<ActionResponse>` XML out, and errors in EC2's own envelope,
// `<Response><Errors><Error><Code/><Message/></Error></Errors><RequestID/></Response>`
// (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/errors-overview.html), with the codes AWS documents.
import { HttpResponse } from 'msw';
import { requestId } from '../context.js';
import { type Dialect, EmulatorError, type FaultTable, type Reply, reply, type RouteHandler, type WireCall } from '../emulator/index.js';
import { t } from '../xml.js';

const XMLNS = 'http://ec2.amazonaws.com/doc/2016-11-15/';
const XML = 'text/xml;charset=UTF-8';

/** A request's parameters, as routes read them. */
export type Query = URLSearchParams;

/** The routes of one family of resources: an action name and what answers it. */
export type Ec2Routes = Array<[action: string, handler: RouteHandler<Query>]>;

const parsed = new WeakMap<Request, Query>();

/** The request's form parameters, parsed once per request (the Action, the audit, a fault and the route all read them). */
export function paramsOf(call: { request: Request; text: string }): Query {
  let params = parsed.get(call.request);
  if (!params) parsed.set(call.request, (params = new URLSearchParams(call.text)));
  return params;
}

/** The request's Action ('' when it has none): the wire operation faults, call counts, buckets and audits name. */
export function actionOf(call: { request: Request; text: string }): string {
  return paramsOf(call).get('Action') ?? '';
}

/** A successful answer: the action's result elements, which the dialect wraps in `<ActionResponse>`. */
export function result(xml: string): Reply {
  return reply(xml);
}

/** The answer of the actions that answer only that they did it. */
export function done(): Reply {
  return result(t('return', true));
}

export const requestLimitExceeded = (): EmulatorError => new EmulatorError(503, 'RequestLimitExceeded', 'Request limit exceeded.');
export const authFailure = (): EmulatorError => new EmulatorError(401, 'AuthFailure', 'AWS was not able to validate the provided access credentials');
/** EC2's answer to a session's credentials past their expiry. */
export const requestExpired = (): EmulatorError => new EmulatorError(400, 'RequestExpired', 'Request has expired.');

/** Every fault the sandbox injects, as EC2 answers it. */
export const EC2_FAULTS: FaultTable = {
  throttled: requestLimitExceeded,
  'throttled-no-headers': requestLimitExceeded,
  'server-error': () => new EmulatorError(500, 'InternalError', 'An internal error has occurred'),
  // A spot launch that finds no spot capacity gets the same code with words of its own, as EC2 answers RunInstances
  // (fedora-copr/copr#2797: "InsufficientInstanceCapacity ... There is no Spot capacity available that matches your request.").
  capacity: (call: WireCall) =>
    paramsOf(call).get('InstanceMarketOptions.MarketType') === 'spot'
      ? new EmulatorError(500, 'InsufficientInstanceCapacity', 'There is no Spot capacity available that matches your request.')
      : new EmulatorError(
          500,
          'InsufficientInstanceCapacity',
          `We currently do not have sufficient ${paramsOf(call).get('InstanceType') ?? ''} capacity in the ` +
            `Availability Zone you requested. Our system will be working on provisioning additional capacity.`,
        ),
  quota: () =>
    new EmulatorError(
      400,
      'VcpuLimitExceeded',
      'You have requested more vCPU capacity than your current vCPU limit of 32 allows for the instance bucket that the specified ' +
        'instance type belongs to. Please visit http://aws.amazon.com/contact-us/ec2-request to request an adjustment to this limit.',
    ),
  auth: authFailure,
};

export const EC2_DIALECT: Dialect<Query> = {
  error(error: EmulatorError): Response {
    const id = requestId();
    return new HttpResponse(
      `<?xml version="1.0" encoding="UTF-8"?>\n` +
        `<Response><Errors><Error>${t('Code', error.code)}${t('Message', error.message)}</Error></Errors>${t('RequestID', id)}</Response>`,
      { status: error.status, headers: { 'content-type': XML, 'x-amzn-requestid': id, ...error.headers } },
    );
  },
  success(answer: Reply, call: WireCall): Response {
    const root = `${call.operation}Response`;
    return new HttpResponse(
      `<?xml version="1.0" encoding="UTF-8"?>\n<${root} xmlns="${XMLNS}">${t('requestId', requestId())}${String(answer.body)}</${root}>`,
      {
        status: answer.status,
        headers: { 'content-type': XML, ...answer.headers },
      },
    );
  },
  faults: EC2_FAULTS,
  parseBody: paramsOf,
};
