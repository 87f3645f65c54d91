// @kubeplane/handlers: the CLI and the serverless runtimes.
export * from './aws/index.js';
export * from './gcp/index.js';
export { createKubeplane, createSandboxKubeplane, type CreateKubeplaneOptions, type CreateSandboxKubeplaneOptions } from './runtime/embed.js';
export { LocalRuntime, DEFAULT_STATE_DIR, type LocalRuntimeOptions, type Recovery } from './runtime/local.js';
export type { Runtime, RuntimeKind } from './runtime/runtime.js';
// Types that appear in the signatures above, exported so the API reference can show them.
export type { SecretRefRefusal } from './aws/secret-refs.js';
export type { Credentials } from './runtime/credentials.js';
