// Cloudflare v4 error codes (the `errors[].code` of the envelope) mapped onto kubeplane's error kinds.
import type { ErrorKind } from '@kubeplane/sdk';

const CODES: Record<number, ErrorKind> = {
  // Authentication and authorisation.
  9103: 'auth',
  9106: 'auth',
  9109: 'auth',
  10000: 'auth',
  10001: 'auth',
  // Not found: routes, zones, records.
  7000: 'not-found',
  7003: 'not-found',
  1001: 'not-found',
  81044: 'not-found',
  // Records that already exist or collide with another of the name.
  81053: 'conflict',
  81057: 'conflict',
  81058: 'conflict',
  // Validation.
  1004: 'invalid',
  9005: 'invalid',
  9207: 'invalid',
  // Rate limiting.
  971: 'throttled',
  10013: 'throttled',
};

/** The error kind of a Cloudflare error code and HTTP status, when it has one. */
export function cloudflareErrorKind(code: number | undefined, status: number): ErrorKind | undefined {
  if (code !== undefined && CODES[code]) return CODES[code];
  if (status === 429) return 'throttled';
  if (status >= 500) return 'retryable';
  return undefined;
}

export function cloudflareAdvice(kind: ErrorKind): string {
  switch (kind) {
    case 'auth':
      return 'check the API token in the provider secretRef: it needs Zone:DNS:Edit, and Account:Load Balancing:Edit plus Billing:Read for failover';
    case 'conflict':
      return "another record of that name exists and is not kubeplane's; remove it or choose another hostname";
    case 'invalid':
      return 'fix the record (see the message)';
    case 'quota':
      return 'raise the account limit or remove unused records, pools or monitors';
    default:
      return '';
  }
}
