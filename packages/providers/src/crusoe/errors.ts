// Crusoe's `{code, message, error_id}` error bodies mapped onto kubeplane's error kinds. `code` is a slug in
// practice (`bad_credentials`, `not_found`, `internal_error`) and sometimes the HTTP status as a string;
// messages may wrap a gRPC status (`rpc error: code = X desc = text`), whose code is used when the slug says nothing.
import type { ErrorKind } from '@kubeplane/sdk';

const CODES: Record<string, ErrorKind> = {
  bad_credential: 'auth',
  bad_credentials: 'auth',
  unauthorized: 'auth',
  unauthenticated: 'auth',
  forbidden: 'auth',
  permission_denied: 'auth',
  not_found: 'not-found',
  already_exists: 'conflict',
  conflict: 'conflict',
  in_use: 'conflict',
  failed_precondition: 'conflict',
  bad_request: 'invalid',
  invalid_argument: 'invalid',
  invalid_request: 'invalid',
  validation_error: 'invalid',
  quota_exceeded: 'quota',
  out_of_stock: 'capacity',
  insufficient_capacity: 'capacity',
  rate_limited: 'throttled',
  too_many_requests: 'throttled',
  internal_error: 'retryable',
  unavailable: 'retryable',
  deadline_exceeded: 'retryable',
};

const GRPC: Record<string, ErrorKind> = {
  Unauthenticated: 'auth',
  PermissionDenied: 'auth',
  NotFound: 'not-found',
  AlreadyExists: 'conflict',
  FailedPrecondition: 'conflict',
  InvalidArgument: 'invalid',
  OutOfRange: 'invalid',
  ResourceExhausted: 'quota',
  Unavailable: 'retryable',
  Internal: 'retryable',
  DeadlineExceeded: 'retryable',
  Aborted: 'retryable',
};

/** The kind for a Crusoe error, from its code slug, then a wrapped gRPC code, then the HTTP status. */
export function crusoeErrorKind(code: string, message: string, status: number): ErrorKind | undefined {
  const slug = code.toLowerCase();
  const byCode = CODES[slug];
  if (byCode) return byCode;
  // Out-of-stock messages come as text on several codes; capacity wins over the generic kind.
  if (/out of stock|insufficient capacity|no capacity/i.test(message)) return 'capacity';
  if (/quota/i.test(message)) return 'quota';
  const grpc = /rpc error: code = (\w+)/.exec(message)?.[1];
  if (grpc && GRPC[grpc]) return GRPC[grpc];
  if (status === 429 || slug === '429') return 'throttled';
  if (status >= 500 && status !== 501) return 'retryable';
  return undefined;
}

/** Terraform shows only the text after ` desc = `; so do we. */
export function crusoeMessage(message: string): string {
  const at = message.indexOf(' desc = ');
  return at >= 0 ? message.slice(at + ' desc = '.length) : message;
}

export function crusoeAdvice(kind: ErrorKind): string {
  switch (kind) {
    case 'auth':
      return 'check the access key and secret key in the provider secretRef (and that the key belongs to this project)';
    case 'quota':
      return 'raise the project quota with Crusoe support (GET /projects/{id}/quotas shows what is used) or lower the node count';
    case 'capacity':
      return 'choose another instance type or location, use a reservation, or retry later';
    case 'invalid':
      return 'fix the request (see the field named in the message)';
    default:
      return '';
  }
}
