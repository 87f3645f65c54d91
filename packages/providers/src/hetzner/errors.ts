// Hetzner error codes (the `{error:{code}}` envelope) mapped onto kubeplane's error kinds.
import type { ErrorKind } from '@kubeplane/sdk';

const CODES: Record<string, ErrorKind> = {
  unauthorized: 'auth',
  forbidden: 'auth',
  token_readonly: 'auth',
  invalid_input: 'invalid',
  json_error: 'invalid',
  unsupported_error: 'invalid',
  not_found: 'not-found',
  rate_limit_exceeded: 'throttled',
  resource_limit_exceeded: 'quota',
  resource_unavailable: 'capacity',
  placement_error: 'capacity',
  uniqueness_error: 'conflict',
  protected: 'conflict',
  resource_in_use: 'conflict',
  // Another action holds the resource, or it changed under us: the next attempt will likely succeed.
  locked: 'retryable',
  conflict: 'retryable',
  server_error: 'retryable',
  service_error: 'retryable',
  unavailable: 'retryable',
  maintenance: 'retryable',
  timeout: 'retryable',
};

/** The error kind of a Hetzner error code and HTTP status, when it has one. */
export function hetznerErrorKind(code: string, status: number): ErrorKind | undefined {
  return CODES[code] ?? (status >= 500 ? 'retryable' : undefined);
}

/** What a person should do about a terminal error. */
export function hetznerAdvice(kind: ErrorKind): string {
  switch (kind) {
    case 'auth':
      return 'check the API token in the provider secretRef (it needs read/write access to the project)';
    case 'quota':
      return 'raise the project limit in the Hetzner Cloud console or reduce the node count';
    case 'capacity':
      return 'choose another server type or location, or retry later';
    case 'invalid':
      return 'fix the request (see the field named in the message)';
    default:
      return '';
  }
}
