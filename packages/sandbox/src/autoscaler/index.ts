// The sandbox's simulated cluster-autoscaler and the scheduling-fit rules it simulates with.
export { sandboxClusterApi, sandboxClusterView, unschedulablePod } from './cluster-view.js';
export { driveUntil, type DriveResult } from './drive.js';
export {
  CA_DEFAULTS,
  SimulatedClusterAutoscaler,
  type AutoscalerCloudProvider,
  type AutoscalerClusterView,
  type AutoscalerEvent,
  type SimulatedAutoscalerOptions,
} from './simulated-autoscaler.js';
export { fitsIn, nodeShape, podAllowedOn, podRequests, resourcesOf, type NodeShape, type Resources } from './fit.js';
