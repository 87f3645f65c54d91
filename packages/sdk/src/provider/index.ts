// The Provider contract (docs/provider-contract.md): types, outcomes, error helpers and rate budgets.
// The conformance suite is a separate entry point (`@kubeplane/sdk/conformance`) because it imports vitest.
export * from './types.js';
export * from './outcome.js';
export * from './clock.js';
export * from './rate-budget.js';
export * from './backoff.js';
export * from './classify.js';
export * from './settle.js';
export * from './shared-rate-budget.js';
