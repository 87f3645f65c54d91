// Engine: the ports (StateStore, SecretStore, Queue, Lease) and their local adapters. The port test suite is
// a separate entry point (`@kubeplane/sdk/port-suite`) because it imports vitest.
export * from './ports/state-store.js';
export * from './ports/secret-store.js';
export * from './ports/queue.js';
export * from './ports/lease.js';
export * from './adapters/memory.js';
export * from './adapters/file.js';
export { withFileLock, writeFileAtomic } from './adapters/file-lock.js';
export * from './ports/kubernetes.js';
