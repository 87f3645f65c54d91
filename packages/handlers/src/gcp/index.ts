// The Google Cloud runtime: the engine's ports on Firestore, Secret Manager and Cloud Tasks, and the HTTP functions
// (step, API, watchdog). Cloud Tasks is the runtime's queue; the Pub/Sub handler remains for those who publish steps.
export * from './google-clients.js';
export * from './firestore-state-store.js';
export * from './firestore-lease.js';
export * from './firestore-rate-budget.js';
export * from './firestore-dead-letters.js';
export * from './secret-manager-store.js';
export * from './cloud-tasks-queue.js';
export * from './cloud-tasks-step-handler.js';
export * from './watchdog-handler.js';
export * from './access.js';
export * from './api-handler.js';
export * from './secret-refs.js';
// The refusal's type is the AWS runtime's (one rule for both); exported here too, as refusedGcpSecretRef returns it.
export type { SecretRefRefusal } from '../aws/secret-refs.js';
export * from './runtime.js';
export * from './register.js';
export * from './pubsub-step-handler.js';
export * from '../runtime/logger.js';
