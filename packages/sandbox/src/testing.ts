// @kubeplane/sandbox/testing: scenarios and fixtures for this repository's own tests of the providers against the
// sandbox clouds. Resolved from source (the `@kubeplane/source` condition) only: not built, not packed.
export { createInfrastructure, createNodes, dnsRecords, names, nodeRequests, type ClusterScenario } from './cluster-scenario.js';
export { FakeVms, goldenCluster, publicAddresses, RENDER_NOW, renderGolden, sandboxContext } from './kubernetes/fixture.js';
export { ed25519KeyPair } from './static-machines.js';
