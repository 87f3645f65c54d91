// cluster-autoscaler's externalgrpc protocol as this package speaks it: the shipped .proto files loaded with
// @grpc/proto-loader, the message shapes as TypeScript types, and v1.Node encoding for template nodes.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import protobuf from 'protobufjs';

/** The protos ship in src/ (the package's files include it); from dist/ they are found there. */
function protoDir(): string {
  const here = fileURLToPath(new URL('./protos/', import.meta.url));
  if (existsSync(here)) return here;
  return fileURLToPath(new URL('../../src/autoscaler/protos/', import.meta.url));
}

export const EXTERNALGRPC_SERVICE = 'clusterautoscaler.cloudprovider.v1.externalgrpc.CloudProvider';

/** Field names as in the .proto (keepCase), enums as their names, 64-bit numbers as numbers, defaults filled in. */
const LOADER_OPTIONS: protoLoader.Options = { keepCase: true, longs: Number, enums: String, defaults: true, oneofs: true, includeDirs: [] };

let cached: grpc.ServiceClientConstructor | undefined;

/** The CloudProvider service definition and a client constructor for it. */
export function cloudProviderService(): grpc.ServiceClientConstructor {
  if (cached) return cached;
  const definition = protoLoader.loadSync(`${protoDir()}externalgrpc.proto`, LOADER_OPTIONS);
  const loaded = grpc.loadPackageDefinition(definition) as unknown as {
    clusterautoscaler: { cloudprovider: { v1: { externalgrpc: { CloudProvider: grpc.ServiceClientConstructor } } } };
  };
  cached = loaded.clusterautoscaler.cloudprovider.v1.externalgrpc.CloudProvider;
  return cached;
}

export interface ProtoNodeGroup {
  id: string;
  minSize: number;
  maxSize: number;
  debug: string;
}

export interface ProtoExternalGrpcNode {
  providerID: string;
  name: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

export type InstanceState = 'unspecified' | 'instanceRunning' | 'instanceCreating' | 'instanceDeleting';

export interface ProtoInstance {
  id: string;
  status: { instanceState: InstanceState; errorInfo: { errorCode: string; errorMessage: string; instanceErrorClass: number } | null };
}

export interface ProtoDuration {
  seconds: number;
  nanos: number;
}

export interface ProtoAutoscalingOptions {
  scaleDownUtilizationThreshold: number;
  scaleDownGpuUtilizationThreshold: number;
  zeroOrMaxNodeScaling: boolean;
  ignoreDaemonSetsUtilization: boolean;
  scaleDownUnneededDuration: ProtoDuration | null;
  scaleDownUnreadyDuration: ProtoDuration | null;
  MaxNodeProvisionDuration: ProtoDuration | null;
  maxNodeStartupDuration: ProtoDuration | null;
  allowNonAtomicScaleUpToMax: boolean;
}

/**
 * cloudprovider.InstanceErrorClass (kubernetes/autoscaler cluster-autoscaler/cloudprovider/cloud_provider.go):
 * OutOfResources for stockouts and exceeded quotas, which CA backs the node group off for; Other for the rest.
 */
export const INSTANCE_ERROR_CLASS = { outOfResources: 1, other: 99 } as const;

/** A v1.Node in the shape of k8s-node.proto (the subset CA reads from a template). */
export interface ProtoNode {
  metadata: { name: string; labels: Record<string, string>; annotations?: Record<string, string> };
  spec: { providerID?: string; taints: Array<{ key: string; value?: string; effect: string }>; unschedulable?: boolean };
  status: {
    capacity: Record<string, { string: string }>;
    allocatable: Record<string, { string: string }>;
    conditions: Array<{ type: string; status: string; reason?: string; message?: string }>;
  };
}

let nodeType: protobuf.Type | undefined;

function nodeMessage(): protobuf.Type {
  nodeType ??= protobuf.loadSync(`${protoDir()}k8s-node.proto`).lookupType('k8s.io.api.core.v1.Node');
  return nodeType;
}

/** v1.Node#Marshal(): the bytes NodeGroupTemplateNodeInfo answers with. */
export function encodeNode(node: ProtoNode): Uint8Array {
  const type = nodeMessage();
  return type.encode(type.fromObject(node)).finish();
}

/** v1.Node#Unmarshal() of those bytes, for readers (the simulated autoscaler, tests). */
export function decodeNode(bytes: Uint8Array): ProtoNode {
  const type = nodeMessage();
  return type.toObject(type.decode(bytes), { defaults: true, arrays: true, objects: true }) as ProtoNode;
}
