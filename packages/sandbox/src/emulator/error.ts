// The one error every emulator raises: an HTTP status, the vendor's code, a message, and what the vendor's
// envelope carries besides (Hetzner's `details`, extra headers). Each vendor's dialect renders it in its own envelope.

export type Json = Record<string, unknown>;

export interface EmulatorErrorOptions {
  /** Vendor-specific fields of the envelope (Hetzner's `details`, a Crusoe error's extra keys). */
  details?: Json;
  /** Headers this answer carries besides the dialect's own (Retry-After, RateLimit-*). */
  headers?: Record<string, string>;
  /** Leave out the headers the dialect adds to every answer that got past authentication (Hetzner's RateLimit-*). */
  bare?: boolean;
}

export class EmulatorError extends Error {
  readonly details: Json;
  readonly headers: Record<string, string>;
  readonly bare: boolean;

  constructor(
    readonly status: number,
    /** The vendor's error code: a string (`not_found`, `InvalidParameterValue`) or a number (Cloudflare's 7003). */
    readonly code: string | number,
    message: string,
    options: EmulatorErrorOptions = {},
  ) {
    super(message);
    this.details = options.details ?? {};
    this.headers = options.headers ?? {};
    this.bare = options.bare ?? false;
  }
}
