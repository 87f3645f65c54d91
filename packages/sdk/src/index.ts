// @kubeplane/sdk: the model and the engine. Everything public is exported from here.
export * from './errors.js';
export * from './redacted.js';
export * from './manifest/index.js';
export * from './provider/index.js';
export * from './model/index.js';
export * from './plan/index.js';
export * from './bootstrap/index.js';
export * from './engine/index.js';
export * from './providers-data/crusoe.js';
export { crusoeManifestWarnings, type CrusoeManifestWarning } from './manifest/crusoe-warnings.js';
export * from './addons/index.js';
export { SDK_VERSION } from './version.js';
