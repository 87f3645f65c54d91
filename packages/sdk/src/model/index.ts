// Model: the typed domain (clusters, pools, nodes, load balancers) and the desired state built from a manifest.
export * from './types.js';
export * from './ids.js';
export * from './ipv4.js';
export * from './desired-state.js';
