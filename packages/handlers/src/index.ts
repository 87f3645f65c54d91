// @kubeplane/handlers: the CLI and the serverless runtimes.
export * from './aws/index.js';
export * from './gcp/index.js';
export { createKubeplane, createSandboxKubeplane, type CreateKubeplaneOptions, type CreateSandboxKubeplaneOptions } from './runtime/embed.js';
export { LocalRuntime, DEFAULT_STATE_DIR, type LocalRuntimeOptions, type Recovery } from './runtime/local.js';
export type { Runtime, RuntimeKind } from './runtime/runtime.js';
