// kubeplane's cluster-autoscaler adapter (externalgrpc cloud provider): the gRPC server, its backends, a client.
export { httpBackend, localBackend, type ScalingBackend } from './backend.js';
export {
  cloudProviderImplementation,
  GPU_LABEL,
  serveAutoscalerAdapter,
  templateNode,
  type AdapterOptions,
  type AdapterTls,
  type RunningAdapter,
} from './server.js';
export { cloudProviderClient, CloudProviderCallError, type ClientTls, type CloudProviderClient } from './client.js';
export {
  decodeNode,
  encodeNode,
  EXTERNALGRPC_SERVICE,
  INSTANCE_ERROR_CLASS,
  type InstanceState,
  type ProtoInstance,
  type ProtoNode,
  type ProtoNodeGroup,
} from './protocol.js';
