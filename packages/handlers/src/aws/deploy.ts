// What the infrastructure hosting the AWS functions must agree with them on: the API's access grants, which a deploy
// validates before it hands them to the API function, and the DynamoDB table's key schema. A light entry point
// (`@kubeplane/handlers/aws/deploy`) for @kubeplane/aws-cdk and other deploy tools: no AWS SDK client is loaded.
export { ACCESS_ROLES, accessGrantsFromJson, parseAccessGrants, type AccessGrant, type AccessRole } from './access.js';
export { PARTITION_KEY, PREFIX_INDEX, SEGMENT_ATTRIBUTE, TTL_ATTRIBUTE } from './dynamodb-table.js';
