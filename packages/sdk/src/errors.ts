// Errors are values with a kind, a message a person can act on, and the resource or path they concern.
// Every package throws KubeplaneError (or a subclass) so callers can branch on `kind`, never on text.

/** The taxonomy every provider maps its errors to (DESIGN.md, "Failures are data"). */
export const ERROR_KINDS = [
  'retryable',
  'throttled',
  'quota',
  'capacity',
  'auth',
  'invalid',
  'not-found',
  'conflict',
] as const;
export type ErrorKind = (typeof ERROR_KINDS)[number];

export interface KubeplaneErrorDetails {
  /** The provider's own error code (e.g. `InsufficientInstanceCapacity`, `rate_limit_exceeded`). */
  code?: string;
  /** The provider's request id, kept so support tickets can be filed. */
  requestId?: string;
  /** The provider that raised it (`aws`, `hetzner`, ...). */
  provider?: string;
  /** The resource concerned (a node name, a manifest path, ...). */
  resource?: string;
  /** Seconds the caller should wait before retrying, when the provider said so. */
  retryAfterSeconds?: number;
  /** HTTP status, where there was one. */
  status?: number;
}

export class KubeplaneError extends Error {
  readonly kind: ErrorKind;
  readonly details: KubeplaneErrorDetails;

  constructor(kind: ErrorKind, message: string, details: KubeplaneErrorDetails = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'KubeplaneError';
    this.kind = kind;
    this.details = details;
  }

  /** Retryable and throttled errors are worth another attempt after a backoff; the others are terminal. */
  get retryable(): boolean {
    return this.kind === 'retryable' || this.kind === 'throttled';
  }

  toJSON(): { kind: ErrorKind; message: string } & KubeplaneErrorDetails {
    return { kind: this.kind, message: this.message, ...this.details };
  }
}

export function isKubeplaneError(value: unknown): value is KubeplaneError {
  return value instanceof KubeplaneError;
}
