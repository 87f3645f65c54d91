// The emulator frame: what every sandbox cloud emulator is built from.
export { EmulatorError, type EmulatorErrorOptions, type Json } from './error.js';
export { Reply, reply, noContent, type RouteAnswer } from './reply.js';
export { type Dialect, type FaultTable, type WireCall, type WireFault, THROTTLING_FAULTS } from './dialect.js';
export { RouteTable, type Route, type RouteHandler, type RouteMatch, type RouteOptions, type RoutedCall } from './routes.js';
export { type EmulatorFrame, frameHandlers, handleRequest } from './pipeline.js';
export { Collection, type CollectionOptions, Counter, ResourceStore, type StoreState } from './store.js';
export { numberedPage, pageSize, tokenPage, type NumberedPage, type TokenPage } from './paging.js';
export { type Completed, type LongRunningOperation, type OperationState, Operations } from './operations.js';
