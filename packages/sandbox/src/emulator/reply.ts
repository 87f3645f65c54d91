// What a route answers when it succeeds: a status and a body that the vendor's dialect renders (JSON envelope,
// XML document), or a Response the route built itself.
import type { Json } from './error.js';

export class Reply {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
    /** Dialect-specific extras (Cloudflare's `result_info`, an XML root element's name). */
    readonly meta: Json = {},
  ) {}
}

export function reply(body: unknown, status = 200, headers: Record<string, string> = {}, meta: Json = {}): Reply {
  return new Reply(status, body, headers, meta);
}

/** 204 No Content: no body (RFC 9110 §15.3.5). */
export function noContent(): Reply {
  return new Reply(204, undefined);
}

export type RouteAnswer = Reply | Response;
