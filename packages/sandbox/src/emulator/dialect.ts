// A vendor family's way of speaking: its error envelope, how it renders a success, how it answers each fault the
// sandbox injects, and how it reads a request body. An emulator picks one; the pipeline does the rest.
import type { FaultKind } from '../faults.js';
import type { EmulatorError } from './error.js';
import type { Reply } from './reply.js';

/** One request as the pipeline sees it, before its body is parsed. */
export interface WireCall {
  readonly request: Request;
  readonly url: URL;
  readonly method: string;
  /** The path below the API's base (`/servers/42` of `https://api.hetzner.cloud/v1/servers/42`). */
  readonly path: string;
  readonly query: URLSearchParams;
  /** The body as sent ('' when there is none). */
  readonly text: string;
  /** The wire operation (`GET /servers/{id}`, `RunInstances`): what faults, call counts and logs name. */
  readonly operation: string;
  /** The route template's parameters (`{id}` → `42`), decoded; empty when no route matched. */
  readonly params: Readonly<Record<string, string>>;
}

/** The faults a vendor answers in its own wire format; timeouts and lost responses are network errors, the pipeline's. */
export type WireFault = Exclude<FaultKind, 'timeout' | 'lost-response'>;

/** Every wire fault, as this vendor answers it: a complete table, so a new fault kind cannot be forgotten. */
export type FaultTable = { readonly [K in WireFault]: (call: WireCall) => EmulatorError };

export interface Dialect<Body> {
  /** The vendor's error envelope, with the headers its answers carry. */
  error(error: EmulatorError, call: WireCall): Response;
  /** A route's reply in the vendor's envelope. */
  success(reply: Reply, call: WireCall): Response;
  readonly faults: FaultTable;
  /** The body as routes read it (a JSON object, form parameters, XML text); throws an EmulatorError when malformed. */
  parseBody(call: WireCall): Body;
}

export const THROTTLING_FAULTS: ReadonlySet<FaultKind> = new Set(['throttled', 'throttled-no-headers']);
