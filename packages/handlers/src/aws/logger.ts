// The handlers' structured logger lives in runtime/logger.ts (both serverless runtimes use it); kept here for imports.
export * from '../runtime/logger.js';
