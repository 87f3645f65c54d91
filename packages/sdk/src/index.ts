// @kubeplane/sdk: the model and the engine. Everything public is exported from here.
export * from './errors.js';
export * from './redacted.js';
export * from './provider/index.js';
