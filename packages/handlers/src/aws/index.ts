// The AWS runtime: adapters of the engine's ports on SQS, DynamoDB and Secrets Manager, and the Lambda handlers.
export * from './client-config.js';
export * from './sqs-queue.js';
export * from './dynamodb-table.js';
export * from './dynamodb-state-store.js';
export * from './dynamodb-lease.js';
export * from './dynamodb-deduplication-log.js';
export * from './dynamodb-rate-budget.js';
export * from './secrets-manager-store.js';
export * from './logger.js';
export * from './middleware.js';
export * from './step-handler.js';
export * from './access.js';
export * from './api-handler.js';
export * from './watchdog-handler.js';
export * from './runtime.js';
