// Errors are values with a kind, a message a person can act on, and the resource or path they concern.
// Every package throws KubeplaneError (or a subclass) so callers can branch on `kind`, never on text.

/** The taxonomy every provider maps its errors to (DESIGN.md, "Failures are data"). */
export const ERROR_KINDS = ['retryable', 'throttled', 'quota', 'capacity', 'auth', 'invalid', 'not-found', 'conflict'] as const;
/** One kind of the error taxonomy; callers branch on it, never on the message. */
export type ErrorKind = (typeof ERROR_KINDS)[number];

/** What an error concerns: the resource or manifest path, and the provider, its error code and request id. */
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

/**
 * Characters that must not reach a terminal or log raw when they come from a name or value: C0 controls but line
 * feed and tab (ESC starts ANSI sequences, NUL and CR hide text), DEL, C1 controls (U+0080–U+009F, CSI among them),
 * the line/paragraph separators, and the bidirectional formatting characters of Unicode UAX #9 (U+061C, U+200E/F,
 * U+202A–U+202E, U+2066–U+2069) that reorder what a reader sees (CVE-2021-42574, "Trojan Source").
 */
const UNSAFE_CHARACTERS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * Escapes every unsafe character as `\uXXXX`. That is JSON's escape too, so escaping the text of a JSON document
 * leaves it valid JSON that decodes to the original string.
 */
export function escapeControl(text: string): string {
  return text.replace(UNSAFE_CHARACTERS, (c) => `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`);
}

/**
 * The `code` of a provider factory's refusal of a provider type it has no provider for (engine/steps/types.ts,
 * ProviderFactory): @kubeplane/providers' registry for a type Claudie accepts and kubeplane cannot create on, a sandbox
 * without that cloud. Nothing of a cluster can have been made through a provider that cannot be made: deletion finds
 * its regions and DNS zones empty, and preflight reports it at the entry's `providerType`.
 */
export const NO_PROVIDER_FOR_TYPE = 'NoProviderForType';

/** The error every kubeplane package throws: a kind, a message a person can act on, and what it concerns. */
export class KubeplaneError extends Error {
  readonly kind: ErrorKind;
  readonly details: KubeplaneErrorDetails;

  constructor(kind: ErrorKind, message: string, details: KubeplaneErrorDetails = {}, options?: { cause?: unknown }) {
    // Messages quote names and values from manifests and requests: escaped here, once, for every reader.
    super(escapeControl(message), options);
    this.name = 'KubeplaneError';
    this.kind = kind;
    this.details = details;
  }

  /** Retryable and throttled errors are worth another attempt after a backoff; the others are terminal. */
  get retryable(): boolean {
    return this.kind === 'retryable' || this.kind === 'throttled';
  }

  /** The error as JSON: its kind, message and details. */
  toJSON(): { kind: ErrorKind; message: string } & KubeplaneErrorDetails {
    return { kind: this.kind, message: this.message, ...this.details };
  }
}

/** Whether a value is a KubeplaneError (or one of its subclasses). */
export function isKubeplaneError(value: unknown): value is KubeplaneError {
  return value instanceof KubeplaneError;
}
