// @kubeplane/handlers: the CLI and the serverless runtimes.
export {};
