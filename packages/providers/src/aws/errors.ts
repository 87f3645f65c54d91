// AWS (EC2, Route 53) error codes mapped onto kubeplane's error kinds, keeping code, message and request id.
import { KubeplaneError, type ErrorKind } from '@kubeplane/sdk';
import { isNetworkFailure, networkError } from '@kubeplane/sdk/provider';

const THROTTLED = new Set([
  'RequestLimitExceeded',
  'Throttling',
  'ThrottlingException',
  'RequestThrottled',
  'RequestThrottledException',
  'TooManyRequestsException',
  'PriorRequestNotComplete',
]);
const CAPACITY = new Set([
  'InsufficientInstanceCapacity',
  'InsufficientHostCapacity',
  'InsufficientCapacity',
  'InsufficientReservedInstanceCapacity',
  'InsufficientAddressCapacity',
  'Unsupported',
]);
const QUOTA = new Set([
  'InstanceLimitExceeded',
  'VcpuLimitExceeded',
  'AddressLimitExceeded',
  'VpcLimitExceeded',
  'SecurityGroupLimitExceeded',
  'RulesPerSecurityGroupLimitExceeded',
  'TooManyHealthChecks',
  'MaxSpotInstanceCountExceeded',
  'ResourceLimitExceeded',
  'KeyPairLimitExceeded',
  'InternetGatewayLimitExceeded',
  'SubnetLimitExceeded',
]);
const AUTH = new Set([
  'AuthFailure',
  'AuthFailure.ServiceLinkedRoleCreationNotPermitted',
  'UnauthorizedOperation',
  'InvalidClientTokenId',
  'SignatureDoesNotMatch',
  'OptInRequired',
  'Blocked',
  'AccessDenied',
  'AccessDeniedException',
  'ExpiredToken',
  'InvalidAccessKeyId',
  'IncompleteSignature',
]);
const CONFLICT = new Set([
  'IdempotentParameterMismatch',
  'DependencyViolation',
  'HealthCheckInUse',
  'InvalidIPAddress.InUse',
  'Resource.AlreadyAssociated',
  'IncorrectInstanceState',
  'HealthCheckAlreadyExists',
  'RouteAlreadyExists',
  'InvalidPermission.Duplicate',
  'InvalidGroup.Duplicate',
  'InvalidKeyPair.Duplicate',
  'InvalidSubnet.Conflict',
]);
const RETRYABLE = new Set([
  'InternalError',
  'InternalFailure',
  'ServiceUnavailable',
  'Unavailable',
  'ServerInternal',
  'RequestTimeout',
  'RequestTimeoutException',
]);

/** The error kind of an AWS error code and HTTP status. */
export function awsErrorKind(code: string, status: number | undefined): ErrorKind {
  if (THROTTLED.has(code)) return 'throttled';
  if (CAPACITY.has(code)) return 'capacity';
  if (QUOTA.has(code)) return 'quota';
  if (AUTH.has(code)) return 'auth';
  if (CONFLICT.has(code)) return 'conflict';
  if (RETRYABLE.has(code)) return 'retryable';
  if (code.endsWith('.NotFound') || code.startsWith('NoSuch')) return 'not-found';
  if (status !== undefined && status >= 500) return 'retryable';
  return 'invalid';
}

function advice(kind: ErrorKind, code: string): string {
  switch (kind) {
    case 'auth':
      // A spot pool's first launch in an account without the Spot service-linked role, by a caller that may not create it.
      if (code === 'AuthFailure.ServiceLinkedRoleCreationNotPermitted')
        return (
          "spot machines need the account's Spot service-linked role: create it once (aws iam create-service-linked-role " +
          '--aws-service-name spot.amazonaws.com) or allow iam:CreateServiceLinkedRole for spot.amazonaws.com'
        );
      return 'check the access key in the provider secretRef and that its IAM policy allows this call';
    case 'quota':
      return 'request a service-quota increase for this account and region, or reduce the node count';
    case 'capacity':
      return 'try another instance type or availability zone, or retry later';
    case 'conflict':
      return code === 'IdempotentParameterMismatch' ? 'the node was created earlier with different parameters; delete it or keep the request unchanged' : '';
    default:
      return '';
  }
}

/** Converts an AWS SDK failure into a KubeplaneError. The SDK error is not kept as the cause: it holds the
 * raw request and response, and nothing from them should travel further than code, message and request id. */
export function toKubeplaneError(error: unknown, service: 'ec2' | 'route53', operation: string, resource?: string): KubeplaneError {
  if (error instanceof KubeplaneError) return error;
  const e = error as { name?: unknown; Code?: unknown; message?: unknown; $metadata?: { httpStatusCode?: number; requestId?: string } };
  const status = e.$metadata?.httpStatusCode;
  if (status === undefined && isNetworkFailure(error)) {
    const k = networkError('aws', `${service} ${operation}`, new Error(typeof e.message === 'string' ? e.message : 'no response'));
    return new KubeplaneError(k.kind, k.message, { ...k.details, ...(resource ? { resource } : {}) });
  }
  const code = typeof e.Code === 'string' ? e.Code : typeof e.name === 'string' ? e.name : 'Unknown';
  const message = typeof e.message === 'string' ? e.message : 'request failed';
  const kind = awsErrorKind(code, status);
  const tip = advice(kind, code);
  return new KubeplaneError(kind, `aws ${service} ${operation}${resource ? ` (${resource})` : ''}: ${code}: ${message}${tip ? `; ${tip}` : ''}`, {
    provider: 'aws',
    code,
    ...(status !== undefined ? { status } : {}),
    ...(e.$metadata?.requestId ? { requestId: e.$metadata.requestId } : {}),
    ...(resource ? { resource } : {}),
  });
}
