// The error codes the EC2 and Route 53 emulators may answer with, each with the AWS page that documents it: an
// emulator that invents a code clients cannot know fails the conformance test (aws-conformance.test.ts).
const EC2_ERRORS = 'https://docs.aws.amazon.com/AWSEC2/latest/APIReference/errors-overview.html';
const ROUTE53_COMMON = 'https://docs.aws.amazon.com/Route53/latest/APIReference/CommonErrors.html';
const ROUTE53_API = 'https://docs.aws.amazon.com/Route53/latest/APIReference';
const SIGV4_TROUBLESHOOTING = 'https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-troubleshooting.html';

/** EC2 codes: all on the "Error codes for the Amazon EC2 API" page (common client, action-specific and server errors). */
export const EC2_DOCUMENTED_ERRORS: Readonly<Record<string, string>> = Object.fromEntries(
  [
    'AuthFailure',
    'DependencyViolation',
    // A dry run of a call that would succeed (HTTP 412): every action's DryRun parameter names it.
    'DryRunOperation',
    'Gateway.NotAttached',
    'IdempotentParameterMismatch',
    'IncorrectInstanceState',
    'InsufficientInstanceCapacity',
    'InternalError',
    'InvalidAMIID.Malformed',
    'InvalidAMIID.NotFound',
    'InvalidAction',
    'InvalidAllocationID.NotFound',
    'InvalidAssociationID.NotFound',
    'InvalidGatewayID.NotFound',
    'InvalidGroup.Duplicate',
    'InvalidGroup.NotFound',
    'InvalidGroupId.Malformed',
    'InvalidID',
    'InvalidInput',
    'InvalidInstanceID.Malformed',
    'InvalidInstanceID.NotFound',
    'InvalidInstanceType',
    'InvalidInternetGatewayID.NotFound',
    'InvalidIPAddress.InUse',
    'InvalidKey.Format',
    'InvalidKeyPair.Duplicate',
    'InvalidKeyPair.NotFound',
    'InvalidParameter',
    'InvalidParameterCombination',
    'InvalidParameterValue',
    'InvalidPermission.Duplicate',
    'InvalidPermission.NotFound',
    'InvalidRouteTableID.NotFound',
    'InvalidSubnet.Conflict',
    'InvalidSubnetID.Malformed',
    'InvalidSubnetID.NotFound',
    'InvalidVpc.Range',
    'InvalidVpcID.Malformed',
    'InvalidVolume.NotFound',
    'InvalidVpcID.NotFound',
    'MissingParameter',
    'RequestExpired',
    'RequestLimitExceeded',
    'Resource.AlreadyAssociated',
    'RouteAlreadyExists',
    'TagLimitExceeded',
    'Unsupported',
    // "The specified request includes an unsupported operation": the sandbox's refusal of an action or filter it does not emulate.
    'UnsupportedOperation',
    'VcpuLimitExceeded',
    'VPCIdNotSpecified',
  ].map((code) => [code, EC2_ERRORS]),
);

/** Route 53 codes: the common errors page, the operations' own Errors sections, and SigV4's troubleshooting page. */
export const ROUTE53_DOCUMENTED_ERRORS: Readonly<Record<string, string>> = {
  InvalidAction: ROUTE53_COMMON,
  InvalidClientTokenId: ROUTE53_COMMON,
  ServiceUnavailable: ROUTE53_COMMON,
  // "Route 53 returns an HTTP 400 error ... with a Code element with a value of Throttling" (Route 53 quotas, API requests).
  Throttling: 'https://docs.aws.amazon.com/Route53/latest/DeveloperGuide/DNSLimitations.html#limits-api-requests',
  SignatureDoesNotMatch: SIGV4_TROUBLESHOOTING,
  ExpiredToken: SIGV4_TROUBLESHOOTING,
  InvalidInput: `${ROUTE53_API}/API_ListResourceRecordSets.html`,
  NoSuchHostedZone: `${ROUTE53_API}/API_GetHostedZone.html`,
  InvalidChangeBatch: `${ROUTE53_API}/API_ChangeResourceRecordSets.html`,
  PriorRequestNotComplete: `${ROUTE53_API}/API_ChangeResourceRecordSets.html`,
  NoSuchHealthCheck: `${ROUTE53_API}/API_DeleteHealthCheck.html`,
  HealthCheckInUse: `${ROUTE53_API}/API_DeleteHealthCheck.html`,
  HealthCheckAlreadyExists: `${ROUTE53_API}/API_CreateHealthCheck.html`,
  HealthCheckVersionMismatch: `${ROUTE53_API}/API_UpdateHealthCheck.html`,
  TooManyHealthChecks: `${ROUTE53_API}/API_CreateHealthCheck.html`,
  NoSuchChange: `${ROUTE53_API}/API_GetChange.html`,
};
