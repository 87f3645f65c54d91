// @kubeplane/aws-cdk: kubeplane's serverless deploy on AWS as a CDK stack, with the Lambda bundles it runs.
export { KubeplaneStack, type KubeplaneStackProps } from './stack.js';
export { packagedBundles } from './bundles.js';
export { FUNCTIONS, type FunctionBundle, type FunctionName } from './functions.js';
export { accessGrantsFromJson, type AccessGrant, type AccessRole } from '@kubeplane/handlers/aws/deploy';
