// kubeplane's cloud provider for cluster-autoscaler: a gRPC server speaking the externalgrpc protocol
// (protos/externalgrpc.proto) whose node groups are a cluster's autoscaled pools (id = pool name). IncreaseSize,
// DeleteNodes and DecreaseTargetSize become Kubeplane.scalePool calls within the pool's limits; a pool whose provider
// refused to grow reports its lost instances with an OutOfResources errorInfo, which makes cluster-autoscaler back
// the group off (its clusterstate registers a failed scale-up) instead of asking again in a loop.
import * as grpc from '@grpc/grpc-js';
import { isKubeplaneError, type NodeGroup } from '@kubeplane/sdk';
import type { ScalingBackend } from './backend.js';
import {
  cloudProviderService,
  encodeNode,
  INSTANCE_ERROR_CLASS,
  type ProtoAutoscalingOptions,
  type ProtoExternalGrpcNode,
  type ProtoInstance,
  type ProtoNode,
  type ProtoNodeGroup,
} from './protocol.js';

/** Why the pricing calls answer Unimplemented: nothing to price with, and what to use instead. */
const NO_PRICES = "kubeplane has no instance prices (its providers' catalogs carry none); use an expander other than price, such as least-waste";

/**
 * The label GPU nodes carry: NVIDIA's GPU feature discovery (deployed by the GPU operator) sets
 * `nvidia.com/gpu.present=true` (NVIDIA/k8s-device-plugin docs/gpu-feature-discovery), and kubeplane's templates carry it.
 */
export const GPU_LABEL = 'nvidia.com/gpu.present';

/** A gRPC error with its status code, as the service answers. */
class StatusError extends Error {
  constructor(
    readonly code: grpc.status,
    message: string,
  ) {
    super(message);
  }
}

/** The engine's error kinds as gRPC status codes (grpc.io/docs/guides/status-codes). */
function statusOf(e: unknown): { code: grpc.status; details: string } {
  if (e instanceof StatusError) return { code: e.code, details: e.message };
  if (!isKubeplaneError(e)) return { code: grpc.status.INTERNAL, details: `kubeplane adapter: ${(e as Error).message ?? String(e)}` };
  const code =
    e.kind === 'not-found'
      ? grpc.status.NOT_FOUND
      : e.kind === 'invalid'
        ? grpc.status.INVALID_ARGUMENT
        : e.kind === 'quota' || e.kind === 'capacity'
          ? grpc.status.RESOURCE_EXHAUSTED
          : e.kind === 'conflict'
            ? grpc.status.ABORTED
            : e.kind === 'auth'
              ? grpc.status.PERMISSION_DENIED
              : e.kind === 'throttled' || e.kind === 'retryable'
                ? grpc.status.UNAVAILABLE
                : grpc.status.INTERNAL;
  return { code, details: e.message };
}

function unary<Req, Res>(fn: (request: Req) => Promise<Res>): grpc.handleUnaryCall<Req, Res> {
  return (call, callback) => {
    fn(call.request).then(
      (response) => callback(null, response),
      (e: unknown) => {
        const { code, details } = statusOf(e);
        callback({ code, details, name: 'Error', message: details });
      },
    );
  };
}

export interface AdapterOptions {
  backend: ScalingBackend;
  /** Milliseconds since the epoch, for the backoff window of refused growth (the sandbox passes its virtual clock). */
  now?: () => number;
}

/** The template node of a group: what a new node of the pool would look like, for scale-up simulations (and from zero). */
export function templateNode(group: NodeGroup, random: string): ProtoNode {
  const t = group.template;
  const resources: Record<string, { string: string }> = {
    cpu: { string: String(t.cpu) },
    memory: { string: `${t.memoryGiB}Gi` },
    pods: { string: String(t.pods) },
    ...(t.gpus > 0 ? { 'nvidia.com/gpu': { string: String(t.gpus) } } : {}),
  };
  const name = `template-node-for-${group.id}-${random}`;
  return {
    metadata: { name, labels: { ...t.labels, 'kubernetes.io/hostname': name } },
    spec: { taints: t.taints.map((x) => ({ key: x.key, ...(x.value !== undefined ? { value: x.value } : {}), effect: x.effect })) },
    status: {
      capacity: resources,
      allocatable: { ...resources },
      conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status' }],
    },
  };
}

/** The id an instance goes by: its providerID, as CA matches it against Node.spec.providerID. */
function instanceId(node: { name: string; providerId: string }): string {
  // A machine whose creation is not yet answered has no provider id: a placeholder CA keeps as "creating".
  return node.providerId || `kubeplane://${node.name}`;
}

const FAILED_PREFIX = 'kubeplane-failed://';

/**
 * The gRPC service implementation. Every call reads the node groups from the backend afresh (Refresh has nothing to
 * cache: the engine is the source of truth, and a cache could hide a refused growth for a whole scan).
 */
export function cloudProviderImplementation(options: AdapterOptions): grpc.UntypedServiceImplementation {
  const { backend } = options;
  const now = options.now ?? Date.now;
  const groups = () => backend.nodeGroups();
  const group = async (id: string): Promise<NodeGroup> => {
    const all = await groups();
    const found = all.find((g) => g.id === id);
    if (!found)
      throw new StatusError(
        grpc.status.NOT_FOUND,
        `node group ${id} not found in ${backend.describe} (autoscaled pools: ${all.map((g) => g.id).join(', ') || 'none'})`,
      );
    return found;
  };
  const owns = (g: NodeGroup, node: ProtoExternalGrpcNode) =>
    g.nodes.find((n) => (node.providerID !== '' && instanceId(n) === node.providerID) || (node.providerID === '' && n.name === node.name));
  const proto = (g: NodeGroup): ProtoNodeGroup => ({
    id: g.id,
    minSize: g.min,
    maxSize: g.max,
    debug: `kubeplane pool ${g.id} (${g.provider.type} ${g.serverType} in ${g.provider.zone ?? g.provider.region}): target ${g.target}, ${g.min}-${g.max}`,
  });

  return {
    NodeGroups: unary(async () => ({ nodeGroups: (await groups()).map(proto) })),

    NodeGroupForNode: unary(async (req: { node: ProtoExternalGrpcNode | null }) => {
      const node = req.node;
      if (!node) throw new StatusError(grpc.status.INVALID_ARGUMENT, 'NodeGroupForNode needs a node');
      const found = (await groups()).find((g) => owns(g, node));
      // Not autoscaled (control planes, fixed pools, other clouds' nodes): id "" tells CA to leave the node alone.
      return { nodeGroup: found ? proto(found) : { id: '', minSize: 0, maxSize: 0, debug: '' } };
    }),

    // Optional in the protocol (externalgrpc.proto: Unimplemented when not offered): the providers' instance
    // catalogs carry no prices, so the price expander is not offered; the chart values kubeplane builds choose
    // least-waste (sdk addons/values.ts), which needs none.
    PricingNodePrice: unary(async () => {
      throw new StatusError(grpc.status.UNIMPLEMENTED, NO_PRICES);
    }),
    PricingPodPrice: unary(async () => {
      throw new StatusError(grpc.status.UNIMPLEMENTED, NO_PRICES);
    }),

    GPULabel: unary(async () => ({ label: GPU_LABEL })),

    GetAvailableGPUTypes: unary(async () => {
      const types = new Set((await groups()).map((g) => g.template.gpuType).filter((t): t is string => Boolean(t)));
      return { gpuTypes: Object.fromEntries([...types].map((t) => [t, { type_url: '', value: Buffer.alloc(0) }])) };
    }),

    Cleanup: unary(async () => ({})),
    // Checks the backend answers, so CA's loop sees a broken connection to kubeplane at its start.
    Refresh: unary(async () => {
      await groups();
      return {};
    }),

    NodeGroupTargetSize: unary(async (req: { id: string }) => ({ targetSize: (await group(req.id)).target })),

    NodeGroupIncreaseSize: unary(async (req: { id: string; delta: number }) => {
      if (req.delta <= 0) throw new StatusError(grpc.status.INVALID_ARGUMENT, `size increase must be positive, got ${req.delta}`);
      const g = await group(req.id);
      const desired = g.target + req.delta;
      if (desired > g.max)
        throw new StatusError(
          grpc.status.INVALID_ARGUMENT,
          `size increase too large for node group ${g.id}: current ${g.target}, desired ${desired}, max ${g.max}`,
        );
      await backend.scalePool(g.id, desired);
      return {};
    }),

    NodeGroupDeleteNodes: unary(async (req: { id: string; nodes: ProtoExternalGrpcNode[] }) => {
      const g = await group(req.id);
      const names: string[] = [];
      for (const node of req.nodes) {
        // Instances reported for a refused growth are no machines: nothing to delete.
        if (node.providerID.startsWith(FAILED_PREFIX)) continue;
        const own = owns(g, node);
        if (!own) throw new StatusError(grpc.status.INVALID_ARGUMENT, `node ${node.name || node.providerID} does not belong to node group ${g.id}`);
        if (own.state !== 'deleting') names.push(own.name);
      }
      if (names.length === 0) return {};
      const target = g.nodes.filter((n) => n.state !== 'deleting').length - names.length;
      if (target < g.min)
        throw new StatusError(
          grpc.status.FAILED_PRECONDITION,
          `node group ${g.id} cannot go below its minimum size ${g.min} (deleting ${names.length} of ${target + names.length} nodes)`,
        );
      await backend.scalePool(g.id, target, names);
      return {};
    }),

    NodeGroupDecreaseTargetSize: unary(async (req: { id: string; delta: number }) => {
      if (req.delta >= 0) throw new StatusError(grpc.status.INVALID_ARGUMENT, `size decrease must be negative, got ${req.delta}`);
      const g = await group(req.id);
      const creating = g.nodes.filter((n) => n.state === 'creating');
      const existing = g.nodes.filter((n) => n.state === 'running').length;
      const target = g.target + req.delta;
      // Only requests not yet fulfilled may go: existing nodes are removed by name (DeleteNodes).
      if (target < existing || -req.delta > creating.length) {
        throw new StatusError(
          grpc.status.FAILED_PRECONDITION,
          `attempt to delete existing nodes of node group ${g.id}: target ${g.target}, delta ${req.delta}, existing nodes ${existing}`,
        );
      }
      if (target < g.min) throw new StatusError(grpc.status.FAILED_PRECONDITION, `node group ${g.id} cannot go below its minimum size ${g.min}`);
      await backend.scalePool(
        g.id,
        target,
        creating.slice(req.delta).map((n) => n.name),
      );
      return {};
    }),

    NodeGroupNodes: unary(async (req: { id: string }) => {
      const g = await group(req.id);
      const state = { creating: 'instanceCreating', running: 'instanceRunning', deleting: 'instanceDeleting' } as const;
      const instances: ProtoInstance[] = g.nodes.map((n) => ({ id: instanceId(n), status: { instanceState: state[n.state], errorInfo: null } }));
      const failure = g.lastFailure;
      if (failure && now() < failure.retryAfter) {
        // The machines the provider would not make, as CA's own providers report a stockout or an exhausted quota:
        // instances still "creating" with an OutOfResources errorInfo (e.g. the GCE provider's OUT_OF_RESOURCES).
        const lost = Math.max(0, failure.wanted - g.target);
        const errorCode = failure.kind === 'quota' ? 'QUOTA_EXCEEDED' : failure.kind === 'capacity' ? 'OUT_OF_CAPACITY' : 'INVALID_INSTANCE_TYPE';
        const instanceErrorClass = failure.kind === 'invalid' ? INSTANCE_ERROR_CLASS.other : INSTANCE_ERROR_CLASS.outOfResources;
        for (let i = 0; i < lost; i++) {
          instances.push({
            id: `${FAILED_PREFIX}${g.id}/${failure.at}/${i}`,
            status: { instanceState: 'instanceCreating', errorInfo: { errorCode, errorMessage: failure.message, instanceErrorClass } },
          });
        }
      }
      return { instances };
    }),

    NodeGroupTemplateNodeInfo: unary(async (req: { id: string }) => {
      const g = await group(req.id);
      return { nodeBytes: Buffer.from(encodeNode(templateNode(g, String(Math.floor(now() / 1000) % 100000)))), resourceSliceBytes: [] };
    }),

    // No per-pool options: CA's defaults (as sent) apply to every group.
    NodeGroupGetOptions: unary(async (req: { id: string; defaults: ProtoAutoscalingOptions | null }) => {
      await group(req.id);
      if (!req.defaults) throw new StatusError(grpc.status.INVALID_ARGUMENT, 'NodeGroupGetOptions needs the defaults');
      return { nodeGroupAutoscalingOptions: req.defaults };
    }),
  };
}

export interface RunningAdapter {
  /** host:port the server listens on. */
  address: string;
  port: number;
  close(): Promise<void>;
}

/** The adapter's serving certificate and key, and the CA its callers' client certificates must come from. */
export interface AdapterTls {
  caCertificate: string;
  certificate: string;
  key: string;
}

/**
 * Serves the adapter on `listen` (host:port; port 0 picks a free one). Plaintext, as cluster-autoscaler's externalgrpc
 * allows without a cloud-config cert, where the adapter runs next to it (a sidecar, or loopback in the sandbox); with
 * `tls`, mutual TLS: a caller without a client certificate from that CA is refused in the handshake.
 */
export async function serveAutoscalerAdapter(options: AdapterOptions & { listen: string; tls?: AdapterTls }): Promise<RunningAdapter> {
  const server = new grpc.Server();
  server.addService(cloudProviderService().service, cloudProviderImplementation(options));
  const { tls } = options;
  const credentials = tls
    ? grpc.ServerCredentials.createSsl(Buffer.from(tls.caCertificate), [{ cert_chain: Buffer.from(tls.certificate), private_key: Buffer.from(tls.key) }], true)
    : grpc.ServerCredentials.createInsecure();
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(options.listen, credentials, (e, p) => (e ? reject(e) : resolve(p)));
  });
  const host = options.listen.slice(0, options.listen.lastIndexOf(':'));
  return {
    address: `${host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.tryShutdown(() => resolve());
      }),
  };
}
