// @kubeplane/handlers: the CLI and the serverless runtimes.
export * from './aws/index.js';
export * from './gcp/index.js';
