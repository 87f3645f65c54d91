// How the Crusoe Cloud API speaks: errors are `{code, message, error_id}` with the HTTP status, successes are the
// resource's JSON (or no body), bodies are JSON, and each injected fault is answered as the API answers it.
import { HttpResponse } from 'msw';
import { type Dialect, EmulatorError, type Json } from '../emulator/index.js';

/**
 * A request that conflicts with the project's state (a name taken, a resource in use or not ready): 400 with the
 * conflict's code. The API document has no 409 anywhere (its responses are 200/201/202/204, 400 badReqError, 401,
 * 403, 404, 429 and 500), so the bad-request envelope is where the API puts these; clients tell them apart by
 * `code` (already_exists, in_use, failed_precondition), as kubeplane's client does.
 */
export function conflict(code: string, message: string): EmulatorError {
  return new EmulatorError(400, code, message);
}

export function badRequest(message: string): EmulatorError {
  return new EmulatorError(400, 'bad_request', message);
}

export function notFound(message: string): EmulatorError {
  return new EmulatorError(404, 'not_found', message);
}

/** The Crusoe dialect; `errorId` gives each error answer its `error_id`. */
export function crusoeDialect(errorId: () => string): Dialect<Json> {
  return {
    error: (e) => HttpResponse.json({ code: e.code, message: e.message, error_id: errorId(), ...e.details }, { status: e.status, headers: e.headers }),
    // A reply without a body (204, or the swagger's 200 emptyResponse) has none on the wire either.
    success: (reply) =>
      reply.status === 204 || reply.body === undefined
        ? new HttpResponse(null, { status: reply.status, headers: reply.headers })
        : HttpResponse.json(reply.body as Json, { status: reply.status, headers: reply.headers }),
    faults: {
      throttled: () => new EmulatorError(429, 'too_many_requests', 'rate limit exceeded, retry later', { headers: { 'Retry-After': '2' } }),
      'throttled-no-headers': () => new EmulatorError(429, '429', 'rate limit exceeded'),
      'server-error': () => new EmulatorError(500, 'internal_error', 'internal error'),
      capacity: () =>
        new EmulatorError(
          400,
          'out_of_stock',
          'rpc error: code = ResourceExhausted desc = Out of stock: no capacity for the requested instance type in this location',
        ),
      quota: () =>
        new EmulatorError(
          403,
          'quota_exceeded',
          'rpc error: code = ResourceExhausted desc = project quota exceeded for VM slices; contact support to raise PROJECT_QUOTA_TYPE_MAXIMUM_VM_SLICES',
        ),
      auth: () => new EmulatorError(401, 'bad_credentials', 'invalid credentials'),
    },
    // Only POST, PATCH and PUT bodies are read; an empty one is `{}`.
    parseBody: (call) => {
      if ((call.method !== 'POST' && call.method !== 'PATCH' && call.method !== 'PUT') || !call.text) return {};
      try {
        return JSON.parse(call.text) as Json;
      } catch {
        throw badRequest('request body is not JSON');
      }
    },
  };
}
