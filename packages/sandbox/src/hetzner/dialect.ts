// How the Hetzner Cloud API speaks (https://docs.hetzner.cloud/reference/cloud): JSON, the `{error: {code, message,
// details}}` envelope, an X-Correlation-Id and a Date of the virtual clock on every answer, the project's RateLimit-*
// headers on every answer that got past authentication, and the faults the sandbox injects in those words.
import { HttpResponse } from 'msw';
import { requestId } from '../context.js';
import { type Dialect, EmulatorError, type FaultTable, type Json, type Reply } from '../emulator/index.js';

/** What the dialect reads from the project it speaks for. */
export interface HetznerWire {
  now(): number;
  /** RateLimit-Limit, -Remaining and -Reset as the project's budget stands. */
  rateHeaders(): Record<string, string>;
}

export const RATE_LIMIT_EXCEEDED = 'rate_limit_exceeded';
export const RATE_LIMIT_MESSAGE = 'limit of 3600 requests per hour reached';

/** `invalid_input` naming the field, the way the API reports a request it cannot parse. */
export function invalidInput(field: string, message: string): EmulatorError {
  return new EmulatorError(400, 'invalid_input', `invalid input in field '${field}'`, { details: { fields: [{ name: field, messages: [message] }] } });
}

/** 401 `unauthorized`: a token the project does not know (refused before the rate limit, so without RateLimit-*). */
export function unauthorized(bare: boolean): EmulatorError {
  return new EmulatorError(401, 'unauthorized', 'unable to authenticate', { bare });
}

/** The 429 of a request over the project's budget: the budget's RateLimit-* headers, with nothing left. */
export function overBudget(rateHeaders: Record<string, string>): EmulatorError {
  return new EmulatorError(429, RATE_LIMIT_EXCEEDED, RATE_LIMIT_MESSAGE, { headers: { ...rateHeaders, 'RateLimit-Remaining': '0' } });
}

export function hetznerDialect(wire: HetznerWire): Dialect<Json> {
  const date = () => new Date(wire.now()).toUTCString();
  const faults: FaultTable = {
    // The full limit spent, refilled in two seconds.
    throttled: () =>
      new EmulatorError(429, RATE_LIMIT_EXCEEDED, RATE_LIMIT_MESSAGE, {
        headers: { 'RateLimit-Limit': '3600', 'RateLimit-Remaining': '0', 'RateLimit-Reset': String(Math.ceil(wire.now() / 1000 + 2)) },
      }),
    'throttled-no-headers': () => new EmulatorError(429, RATE_LIMIT_EXCEEDED, RATE_LIMIT_MESSAGE, { bare: true }),
    'server-error': () => new EmulatorError(500, 'server_error', 'Error while processing the request'),
    capacity: () => new EmulatorError(412, 'resource_unavailable', 'server type unavailable in this location'),
    quota: () =>
      new EmulatorError(403, 'resource_limit_exceeded', 'server limit exceeded: project limit is 10 servers; request an increase in the Hetzner console'),
    auth: () => unauthorized(false),
  };
  const answer = (status: number, body: unknown, headers: Record<string, string>): Response =>
    // A 204 has no body (RFC 9110 §15.3.5); the API sends none.
    status === 204 ? new HttpResponse(null, { status, headers }) : HttpResponse.json(body as Json, { status, headers });
  return {
    faults,
    error(e) {
      const envelope = { error: { code: e.code, message: e.message, details: e.details } };
      // A throttle answer brings its own RateLimit-* headers (the budget's, or the injected fault's): the rate limiter
      // sends it as it is, with the Date and without a correlation id.
      if ('RateLimit-Limit' in e.headers) return answer(e.status, envelope, { Date: date(), ...e.headers });
      return answer(e.status, envelope, { 'X-Correlation-Id': requestId(), Date: date(), ...(e.bare ? {} : wire.rateHeaders()), ...e.headers });
    },
    success(reply: Reply) {
      return answer(reply.status, reply.body, { 'X-Correlation-Id': requestId(), Date: date(), ...wire.rateHeaders(), ...reply.headers });
    },
    parseBody(call) {
      if (call.method !== 'POST' && call.method !== 'PUT') return {};
      // Actions without parameters (poweroff, reboot, unassign…) are sent with no body at all by the hcloud CLI and
      // hcloud-go: an empty body is an empty request object, not a JSON error.
      if (call.text.trim() === '') return {};
      let parsed: unknown;
      try {
        parsed = JSON.parse(call.text);
      } catch {
        parsed = undefined;
      }
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new EmulatorError(400, 'json_error', 'invalid JSON');
      return parsed as Json;
    },
  };
}
