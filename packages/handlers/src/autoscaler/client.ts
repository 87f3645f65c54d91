// A gRPC client of the externalgrpc CloudProvider service, as cluster-autoscaler's externalgrpc provider calls it:
// one promise per RPC, errors as the gRPC status they came with. The sandbox's simulated autoscaler and the tests
// use it against the adapter over loopback.
import * as grpc from '@grpc/grpc-js';
import {
  cloudProviderService,
  decodeNode,
  type ProtoAutoscalingOptions,
  type ProtoExternalGrpcNode,
  type ProtoInstance,
  type ProtoNode,
  type ProtoNodeGroup,
} from './protocol.js';

export interface CloudProviderClient {
  nodeGroups(): Promise<ProtoNodeGroup[]>;
  nodeGroupForNode(node: Partial<ProtoExternalGrpcNode>): Promise<ProtoNodeGroup>;
  pricingNodePrice(node: Partial<ProtoExternalGrpcNode>): Promise<number>;
  pricingPodPrice(podBytes: Uint8Array): Promise<number>;
  gpuLabel(): Promise<string>;
  availableGpuTypes(): Promise<string[]>;
  cleanup(): Promise<void>;
  refresh(): Promise<void>;
  targetSize(id: string): Promise<number>;
  increaseSize(id: string, delta: number): Promise<void>;
  deleteNodes(id: string, nodes: Array<Partial<ProtoExternalGrpcNode>>): Promise<void>;
  decreaseTargetSize(id: string, delta: number): Promise<void>;
  nodeGroupNodes(id: string): Promise<ProtoInstance[]>;
  templateNodeInfo(id: string): Promise<ProtoNode>;
  getOptions(id: string, defaults: Partial<ProtoAutoscalingOptions>): Promise<ProtoAutoscalingOptions>;
  close(): void;
}

/** A failed call: the gRPC status code and its details. */
export class CloudProviderCallError extends Error {
  constructor(
    readonly method: string,
    readonly code: grpc.status,
    readonly details: string,
  ) {
    super(`${method}: ${grpc.status[code] ?? code}: ${details}`);
  }
}

const node = (n: Partial<ProtoExternalGrpcNode>): ProtoExternalGrpcNode => ({
  providerID: n.providerID ?? '',
  name: n.name ?? '',
  labels: n.labels ?? {},
  annotations: n.annotations ?? {},
});

/** A client's mutual TLS, as externalgrpc's cloud-config gives it: the CA, its certificate and key, the name it expects. */
export interface ClientTls {
  caCertificate: string;
  certificate: string;
  key: string;
  /** The server's name to check: the host of the cloud-config's address, which may differ from where it is dialled. */
  serverName: string;
}

export function cloudProviderClient(address: string, tls?: ClientTls): CloudProviderClient {
  const Client = cloudProviderService();
  const credentials = tls
    ? grpc.credentials.createSsl(Buffer.from(tls.caCertificate), Buffer.from(tls.key), Buffer.from(tls.certificate))
    : grpc.credentials.createInsecure();
  const client = new Client(address, credentials, tls ? { 'grpc.ssl_target_name_override': tls.serverName } : {});
  const call = <Res>(method: string, request: object): Promise<Res> =>
    new Promise<Res>((resolve, reject) => {
      const fn = (client as unknown as Record<string, (req: object, cb: (e: grpc.ServiceError | null, res: Res) => void) => void>)[method];
      if (!fn) return reject(new Error(`the CloudProvider service has no method ${method}`));
      fn.call(client, request, (e, res) => (e ? reject(new CloudProviderCallError(method, e.code, e.details)) : resolve(res)));
    });
  return {
    nodeGroups: async () => (await call<{ nodeGroups: ProtoNodeGroup[] }>('NodeGroups', {})).nodeGroups,
    nodeGroupForNode: async (n) => (await call<{ nodeGroup: ProtoNodeGroup }>('NodeGroupForNode', { node: node(n) })).nodeGroup,
    pricingNodePrice: async (n) => (await call<{ price: number }>('PricingNodePrice', { node: node(n) })).price,
    pricingPodPrice: async (podBytes) => (await call<{ price: number }>('PricingPodPrice', { pod_bytes: Buffer.from(podBytes) })).price,
    gpuLabel: async () => (await call<{ label: string }>('GPULabel', {})).label,
    availableGpuTypes: async () => Object.keys((await call<{ gpuTypes: Record<string, unknown> }>('GetAvailableGPUTypes', {})).gpuTypes).sort(),
    cleanup: async () => void (await call('Cleanup', {})),
    refresh: async () => void (await call('Refresh', {})),
    targetSize: async (id) => (await call<{ targetSize: number }>('NodeGroupTargetSize', { id })).targetSize,
    increaseSize: async (id, delta) => void (await call('NodeGroupIncreaseSize', { id, delta })),
    deleteNodes: async (id, nodes) => void (await call('NodeGroupDeleteNodes', { id, nodes: nodes.map(node) })),
    decreaseTargetSize: async (id, delta) => void (await call('NodeGroupDecreaseTargetSize', { id, delta })),
    nodeGroupNodes: async (id) => (await call<{ instances: ProtoInstance[] }>('NodeGroupNodes', { id })).instances,
    templateNodeInfo: async (id) => decodeNode((await call<{ nodeBytes: Buffer }>('NodeGroupTemplateNodeInfo', { id })).nodeBytes),
    getOptions: async (id, defaults) =>
      (await call<{ nodeGroupAutoscalingOptions: ProtoAutoscalingOptions }>('NodeGroupGetOptions', { id, defaults })).nodeGroupAutoscalingOptions,
    close: () => client.close(),
  };
}
