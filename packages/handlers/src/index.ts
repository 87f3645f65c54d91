// @kubeplane/handlers: the kubeplane CLI and the local runtime (createKubeplane, createSandboxKubeplane). The
// serverless runtimes are subpaths of their own, so an app loads and installs only the one it runs on:
// `@kubeplane/handlers/aws` (Lambda, SQS, DynamoDB, Secrets Manager) and `@kubeplane/handlers/gcp` (Cloud Functions,
// Cloud Tasks, Firestore, Secret Manager; its Google packages are optional peer dependencies).
export { createKubeplane, createSandboxKubeplane, type CreateKubeplaneOptions, type CreateSandboxKubeplaneOptions } from './runtime/embed.js';
export { LocalRuntime, DEFAULT_STATE_DIR, type LocalRuntimeOptions, type Recovery } from './runtime/local.js';
export type { Runtime, RuntimeKind } from './runtime/runtime.js';
// Types that appear in the signatures above, exported so the API reference can show them.
export type { Credentials } from './runtime/credentials.js';
