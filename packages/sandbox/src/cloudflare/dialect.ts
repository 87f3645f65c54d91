// How the Cloudflare API v4 speaks: every answer in the `{success, errors: [{code, message}], messages, result,
// result_info}` envelope with a `cf-ray` header, numeric error codes, and its answers to the sandbox's injected faults.
import { HttpResponse } from 'msw';
import { type Dialect, EmulatorError, type Json } from '../emulator/index.js';

export const authenticationError = (): EmulatorError => new EmulatorError(403, 10000, 'Authentication error');

/** Over the rate limit: 429, code 971, with Retry-After when given. */
export const rateLimited = (retryAfter?: string): EmulatorError =>
  new EmulatorError(429, 971, 'Please wait and consider throttling your request speed', retryAfter ? { headers: { 'Retry-After': retryAfter } } : {});

/** The dialect of an emulator whose `cf-ray` ids come from `ray` (the emulator's id counter, so seeded runs repeat). */
export function cloudflareDialect(ray: () => string): Dialect<Json> {
  return {
    error(e) {
      return HttpResponse.json(
        { success: false, errors: [{ code: e.code, message: e.message }], messages: [], result: null },
        { status: e.status, headers: { 'cf-ray': ray(), ...e.headers } },
      );
    },
    /** The result; `meta.result_info` on lists, `meta.messages` when the answer has some. */
    success(r) {
      const info = r.meta['result_info'];
      return HttpResponse.json(
        { success: true, errors: [], messages: r.meta['messages'] ?? [], result: r.body, ...(info ? { result_info: info } : {}) },
        { status: r.status, headers: { 'cf-ray': ray(), ...r.headers } },
      );
    },
    faults: {
      throttled: () => rateLimited('3'),
      'throttled-no-headers': () => rateLimited(),
      'server-error': () => new EmulatorError(500, 10002, 'An unknown error has occurred'),
      capacity: () => new EmulatorError(400, 81045, 'Record quota exceeded.'),
      quota: () => new EmulatorError(400, 81045, 'Record quota exceeded.'),
      auth: authenticationError,
    },
    /** A JSON body; GET and DELETE carry none. */
    parseBody(call) {
      if (call.method === 'GET' || call.method === 'DELETE' || !call.text) return {};
      try {
        return JSON.parse(call.text) as Json;
      } catch {
        throw new EmulatorError(400, 9207, 'Request body is invalid.');
      }
    },
  };
}
