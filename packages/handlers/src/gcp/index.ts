// The Google Cloud Functions runtime: a Pub/Sub CloudEvent handler running the engine's steps.
export * from './pubsub-step-handler.js';
