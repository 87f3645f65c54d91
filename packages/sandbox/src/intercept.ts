// The one way the sandbox intercepts HTTP: msw's setupServer, with the leak of @mswjs/interceptors 0.41 closed.
//
// Every request a node:http client (got, the AWS SDK) sends through msw gets a MockHttpSocket with two HTTP parsers of
// its own, made with `new HTTPParser()`. When the exchange ends the interceptor calls `parser.free()`. In Node that
// call means "back to the pool": it keeps the native parser, and the strong global handle that keeps it alive, for the
// next request. Node's own parsers live in such a pool, but the interceptor's never return to one, so each is kept
// until the process ends: about a thousand per chaos seed, and every garbage collection walks them all. A chaos
// process slowed seed after seed (seeds 41-50 took 52 s after 40 others, 32 s alone). 0.41 is the last line for
// Node 20 (0.42 and msw 3 need Node 22, and parse HTTP themselves; upstream: mswjs/interceptors#779). So the
// interceptor's parsers are closed here once freed, as Node closes a parser its pool has no room for.
import { createRequire } from 'node:module';
import { setupServer } from 'msw/node';
import type { AnyHandler } from 'msw';

interface NativeParser {
  free(): void;
  close(): void;
}
interface HttpParserClass {
  prototype: NativeParser;
  kOnHeaders: number;
  kOnHeadersComplete: number;
}

const closing = Symbol('kubeplane.closing');
let patched = false;

/**
 * Makes `free()` close a parser nobody will take again: one whose callbacks were all cleared (the interceptor's
 * freeParser clears them; Node's own freeParser leaves kOnHeaders and kOnHeadersComplete set, as its pool reuses them).
 * The close waits a turn, as Node's does: free() may run inside one of the parser's own callbacks.
 */
export function closeFreedInterceptorParsers(): void {
  if (patched) return;
  patched = true;
  const { HTTPParser } = createRequire(import.meta.url)('_http_common') as { HTTPParser: HttpParserClass };
  const free = HTTPParser.prototype.free;
  HTTPParser.prototype.free = function (this: NativeParser & Record<number | symbol, unknown>) {
    free.call(this);
    if (this[HTTPParser.kOnHeaders] !== null || this[HTTPParser.kOnHeadersComplete] !== null || this[closing]) return;
    this[closing] = true;
    setImmediate(() => this.close());
  };
}

/** msw's setupServer, with the interceptor's parsers closed when it frees them. */
export function interceptHttp(...handlers: AnyHandler[]): ReturnType<typeof setupServer> {
  closeFreedInterceptorParsers();
  return setupServer(...handlers);
}
