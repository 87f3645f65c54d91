// One request pipeline for every emulator, in one order: read the body, name the operation, count the call,
// authenticate, observe (audit logs), rate-limit, inject a fault, parse the body, check it, route, answer. What differs by
// vendor is the dialect's (envelopes, fault answers, body parsing) and the emulator's hooks (credentials, budgets).
import { http, HttpResponse, type HttpHandler } from 'msw';
import { type SandboxContext, countCall } from '../context.js';
import type { CloudName } from '../faults.js';
import { type Dialect, THROTTLING_FAULTS, type WireCall, type WireFault } from './dialect.js';
import { EmulatorError } from './error.js';
import { Reply } from './reply.js';
import type { RouteTable } from './routes.js';

export interface EmulatorFrame<Body> {
  /** The cloud its faults and call counts are filed under. */
  readonly cloud: CloudName;
  /** The API's base URL; the path routes see is what follows it. */
  readonly base: string;
  /** `post`: the API takes POST to its base only (EC2's Query API); `all` (default): every method and path below it. */
  readonly accepts?: 'all' | 'post';
  readonly dialect: Dialect<Body>;
  readonly routes: RouteTable<Body>;
  /** What the routes are matched on (default `METHOD /path`; EC2: the Action). */
  routeKey?(call: Omit<WireCall, 'operation' | 'params'>): string;
  /** The operation of a request no route matches (default: its route key). */
  unroutedOperation?(call: Omit<WireCall, 'operation' | 'params'>): string;
  /** Every request, before anything is checked (request logs and times). */
  received?(call: WireCall): void;
  /** Why the request's credentials are refused, or undefined when they are good. */
  authenticate(call: WireCall): EmulatorError | undefined;
  /** An authenticated request, before its rate limit: what an audit log or IAM would see. */
  observe?(call: WireCall): void;
  /** The error when the request is over the rate limit (a token is taken otherwise). */
  rateLimit?(call: WireCall): EmulatorError | undefined;
  /** Whether the request asks for spot capacity (faults of `market: 'spot'` match only those); absent: none does. */
  asksForSpot?(call: WireCall): boolean;
  /** A request refused for its rate, by the budget or by an injected fault. */
  throttled?(call: WireCall): void;
  /** A request about to be routed, with its parsed body (request logs, advancing pending work). */
  beforeRoute?(call: WireCall, body: Body): void;
  /** Why the API refuses the request as sent (its vendor document's parameters and body schema), checked before routing. */
  checkRequest?(call: WireCall, body: Body): EmulatorError | undefined;
  /** The error for a request no route matches. */
  unknown(call: WireCall): EmulatorError;
}

/** Serves `frame` on its base URL with msw. */
export function frameHandlers<Body>(context: SandboxContext, frame: EmulatorFrame<Body>): HttpHandler[] {
  const basePath = basePathOf(frame);
  const serve = async ({ request }: { request: Request }) => handleRequest(context, frame, request, basePath);
  return [frame.accepts === 'post' ? http.post(frame.base, serve) : http.all(`${frame.base}/*`, serve)];
}

/** The path of the frame's base URL, without a trailing slash: what a request's path starts with. */
function basePathOf(frame: { readonly base: string }): string {
  return new URL(frame.base).pathname.replace(/\/$/, '');
}

/** Answers one request through the pipeline. */
export async function handleRequest<Body>(
  context: SandboxContext,
  frame: EmulatorFrame<Body>,
  request: Request,
  basePath: string = basePathOf(frame),
): Promise<Response> {
  const url = new URL(request.url);
  const path = url.pathname.slice(basePath.length) || '/';
  const text = request.method === 'GET' || request.method === 'HEAD' ? '' : await request.text();
  const bare = { request, url, method: request.method, path, query: url.searchParams, text };
  const key = frame.routeKey ? frame.routeKey(bare) : `${request.method} ${path}`;
  const match = frame.routes.match(key);
  const call: WireCall = {
    ...bare,
    operation: match ? match.route.operation : frame.unroutedOperation ? frame.unroutedOperation(bare) : key,
    params: match ? match.params : {},
  };
  const { dialect } = frame;
  countCall(context, frame.cloud, call.operation);
  frame.received?.(call);
  try {
    if (!match?.route.public) {
      const refused = frame.authenticate(call);
      if (refused) return dialect.error(refused, call);
      frame.observe?.(call);
      const limited = frame.rateLimit?.(call);
      if (limited) {
        frame.throttled?.(call);
        return dialect.error(limited, call);
      }
    }
    const fault = context.faults.take(frame.cloud, call.operation, { spot: frame.asksForSpot?.(call) ?? false });
    if (fault === 'timeout') return HttpResponse.error();
    if (fault && fault !== 'lost-response') {
      if (THROTTLING_FAULTS.has(fault)) frame.throttled?.(call);
      return dialect.error(dialect.faults[fault as WireFault](call), call);
    }
    const body = dialect.parseBody(call);
    frame.beforeRoute?.(call, body);
    if (!match) return dialect.error(frame.unknown(call), call);
    const refused = frame.checkRequest?.(call, body);
    if (refused) return dialect.error(refused, call);
    const answer = await match.route.handler({ ...call, body });
    // The work is done; only the answer is lost on its way back.
    if (fault === 'lost-response') return HttpResponse.error();
    return answer instanceof Reply ? dialect.success(answer, call) : answer;
  } catch (e) {
    if (e instanceof EmulatorError) return dialect.error(e, call);
    throw e;
  }
}
