// Kubernetes API errors (a meta/v1 Status with a `reason`) mapped onto kubeplane's error kinds: the reason first,
// the HTTP status when the body is not a Status (a load balancer's 502, a proxy's HTML).
import { kindFromHttpStatus } from '@kubeplane/sdk/provider';
import type { ErrorKind } from '@kubeplane/sdk';

const REASONS: Record<string, ErrorKind> = {
  NotFound: 'not-found',
  AlreadyExists: 'conflict',
  Conflict: 'conflict',
  Gone: 'conflict',
  Unauthorized: 'auth',
  Forbidden: 'auth',
  Invalid: 'invalid',
  BadRequest: 'invalid',
  MethodNotAllowed: 'invalid',
  NotAcceptable: 'invalid',
  UnsupportedMediaType: 'invalid',
  RequestEntityTooLarge: 'invalid',
  TooManyRequests: 'throttled',
  InternalError: 'retryable',
  ServiceUnavailable: 'retryable',
  Timeout: 'retryable',
  ServerTimeout: 'retryable',
  Expired: 'invalid',
};

/** The error kind of a Kubernetes API status code and reason. */
export function kubernetesErrorKind(status: number, reason?: string): ErrorKind {
  // 5xx stays retryable whatever the reason says (an aggregated API's outage, an etcd leader election).
  if (status >= 500) return 'retryable';
  return (reason ? REASONS[reason] : undefined) ?? kindFromHttpStatus(status);
}

/** What a person should do about a terminal error. */
export function kubernetesAdvice(kind: ErrorKind): string {
  switch (kind) {
    case 'auth':
      return 'the admin kubeconfig in the SecretStore is not accepted by this cluster (a different CA or an expired client certificate); re-issue it';
    case 'invalid':
      return 'the object was refused as sent; see the field named in the message';
    default:
      return '';
  }
}
