// The manifest's zod schemas: the single source of truth for the native `kubeplane.dev/v1` document, for
// Claudie's `claudie.io/v1beta1` InputManifest (accepted as it is), for the model's types and the JSON Schema.
// They check shape and ranges; rules.ts checks everything that needs the whole manifest.
import { z } from 'zod';
import { PROVIDER_TYPES, RETIRED_PROVIDER_TYPES } from './provider-types.js';
import { TAINT_EFFECTS } from './names.js';

export const NATIVE_API_VERSION = 'kubeplane.dev/v1';
export const NATIVE_KIND = 'Manifest';
export const CLAUDIE_API_VERSION = 'claudie.io/v1beta1';
export const CLAUDIE_KIND = 'InputManifest';

const labelMap = z
  .record(z.string(), z.string({ error: 'label and annotation values must be strings; quote values such as "true" or "8"' }))
  .describe('Kubernetes labels or annotations: qualified-name keys, string values');

export const taintSchema = z.strictObject({
  key: z.string(),
  value: z.string().optional(),
  effect: z.enum(TAINT_EFFECTS, { error: `taint effect must be one of ${TAINT_EFFECTS.join(', ')}` }),
  /**
   * Kubernetes' Taint.timeAdded (RFC 3339), part of Claudie's CRD since it embeds core/v1 Taint; accepted and not
   * applied (the node controller sets it for NoExecute taints).
   */
  timeAdded: z.string().nullable().optional(),
});

/**
 * Where a provider's credentials come from. Exactly one form: a Kubernetes Secret (`name` + `namespace`,
 * Claudie's form), environment variables (`env`: credential key -> variable name), a file of keys (`file`),
 * or an AWS Secrets Manager secret. The values themselves never appear in a manifest.
 */
export const secretRefSchema = z
  .strictObject({
    name: z.string().optional(),
    namespace: z.string().optional(),
    env: z.record(z.string(), z.string()).optional(),
    file: z.string().optional(),
    awsSecretsManager: z.strictObject({ secretId: z.string(), region: z.string().optional() }).optional(),
  })
  .describe('Where credentials come from: {name, namespace} | {env} | {file} | {awsSecretsManager}');

export const providerSchema = z.strictObject({
  name: z.string(),
  providerType: z.enum(PROVIDER_TYPES, {
    error: (iss) =>
      typeof iss.input === 'string' && RETIRED_PROVIDER_TYPES[iss.input]
        ? RETIRED_PROVIDER_TYPES[iss.input]
        : `providerType must be one of ${PROVIDER_TYPES.join(', ')}`,
  }),
  secretRef: secretRefSchema,
  /** Claudie <= 0.15: inline template repository; accepted and ignored (kubeplane renders its own). */
  templates: z.strictObject({ repository: z.string(), path: z.string().optional(), tag: z.string().optional() }).optional(),
  /** Claudie HEAD: reference to a TemplateGitReference; accepted and ignored. */
  templatesRef: z.strictObject({ name: z.string(), namespace: z.string().optional() }).optional(),
});

const nodeCount = z.int().min(1, 'count must be at least 1').max(255, 'count must be at most 255 (the node index is one byte)');

export const autoscalerSchema = z.strictObject({
  /** Optional in Claudie's CRD; Claudie reads a missing min as 0 (AutoscalerConfig.isDefined: min >= 0 && max > 0). */
  min: z.int().min(0, 'autoscaler.min must be 0 or more').max(255, 'autoscaler.min must be at most 255').default(0),
  max: z.int().min(1, 'autoscaler.max must be at least 1').max(255, 'autoscaler.max must be at most 255'),
});

export const machineSpecSchema = z.strictObject({
  cpuCount: z.int().min(1).optional(),
  /** GB of memory. */
  memory: z.int().min(1).optional(),
  nvidiaGpuCount: z.int().min(0).optional(),
  nvidiaGpuType: z.string().optional(),
  /** Deprecated in Claudie in favour of nvidiaGpuCount; accepted. */
  nvidiaGpu: z.int().min(0).optional(),
});

export const dynamicPoolSchema = z.strictObject({
  name: z.string(),
  providerSpec: z.strictObject({
    name: z.string(),
    region: z.string(),
    zone: z.string().optional(),
    externalNetworkName: z.string().optional(),
  }),
  count: nodeCount.optional(),
  autoscaler: autoscalerSchema.optional(),
  serverType: z.string(),
  image: z.string(),
  storageDiskSize: z.int().min(0).optional(),
  machineSpec: machineSpecSchema.optional(),
  labels: labelMap.optional(),
  annotations: labelMap.optional(),
  taints: z.array(taintSchema).optional(),
  spot: z.boolean().optional(),
});

export const staticNodeSchema = z.strictObject({
  endpoint: z.string(),
  secretRef: secretRefSchema,
  username: z.string().optional(),
});

export const staticPoolSchema = z.strictObject({
  name: z.string(),
  nodes: z.array(staticNodeSchema).min(1, 'a static pool needs at least one node'),
  sshPort: z.int().min(1).max(65535).optional(),
  labels: labelMap.optional(),
  annotations: labelMap.optional(),
  taints: z.array(taintSchema).optional(),
});

export const ADDON_NAMES = [
  'cilium',
  'crusoe_csi',
  'nvidia_gpu_operator',
  'nvidia_network_operator',
  'cluster_autoscaler',
  'autoclusters',
] as const;
export type AddonName = (typeof ADDON_NAMES)[number];

export const addonSchema = z.strictObject({
  name: z.enum(ADDON_NAMES, { error: `add-on name must be one of ${ADDON_NAMES.join(', ')}` }),
  version: z.string().optional(),
  config: z.record(z.string(), z.unknown()).optional(),
});

const version = z.string({
  error: (iss) =>
    typeof iss.input === 'number'
      ? `version must be a quoted string with a patch number, e.g. "1.33.4" (YAML reads ${iss.input} as a number)`
      : 'version is required, e.g. "1.33.4"',
});

export const clusterSchema = z.strictObject({
  name: z.string(),
  version,
  /** The overlay (WireGuard) network: every node gets one address from it. */
  network: z.string(),
  pools: z.strictObject({
    control: z.array(z.string()).optional(),
    compute: z.array(z.string()).optional(),
  }),
  installationProxy: z
    .strictObject({
      mode: z.enum(['on', 'off', 'default'], { error: 'installationProxy.mode must be on, off or default' }),
      endpoint: z.string().optional(),
      noProxy: z.string().optional(),
    })
    .optional(),
  /** kubeplane: `managed` means the provider runs the control plane (Crusoe Managed Kubernetes). */
  controlPlane: z.enum(['self-managed', 'managed']).optional(),
  addons: z.array(addonSchema).optional(),
  /**
   * kubeplane, managed control planes only: a name for the API endpoint in one of your DNS zones, a CNAME to the
   * provider's own API name (a self-managed cluster gets its API name from its API load balancer).
   */
  apiDns: z
    .strictObject({
      dnsZone: z.string(),
      provider: z.string(),
      hostname: z.string().optional(),
    })
    .optional(),
  access: z
    .strictObject({
      apiAllowedCidrs: z.array(z.string()).optional(),
      sshAllowedCidrs: z.array(z.string()).optional(),
    })
    .optional(),
  upgrade: z
    .strictObject({
      strategy: z.enum(['rolling', 'on-delete']).optional(),
      maxSurge: z.int().min(0).max(255).optional(),
    })
    .optional(),
  encryption: z.strictObject({ secretsAtRest: z.boolean() }).optional(),
  /** kubeplane: a worker NotReady this long while its machine runs is replaced on the next apply (0: never). */
  remediation: z.strictObject({ notReadyMinutes: z.int().min(0).max(10_080) }).optional(),
});

export const lbRoleSchema = z.strictObject({
  name: z.string(),
  protocol: z.enum(['tcp', 'udp'], { error: 'protocol must be tcp or udp' }),
  port: z.int().min(1).max(65535),
  targetPort: z.int().min(1).max(65535),
  targetPools: z.array(z.string()).min(1, 'a role needs at least one target pool'),
  settings: z
    .strictObject({
      proxyProtocol: z.boolean().optional(),
      stickySessions: z.boolean().optional(),
    })
    .optional(),
});

export const lbClusterSchema = z.strictObject({
  name: z.string(),
  roles: z.array(z.string()).min(1, 'a load balancer needs at least one role'),
  dns: z.strictObject({
    dnsZone: z.string(),
    provider: z.string(),
    hostname: z.string().optional(),
    alternativeNames: z.array(z.string()).optional(),
  }),
  targetedK8s: z.string(),
  pools: z.array(z.string()).min(1, 'a load balancer needs at least one pool'),
});

export const metadataSchema = z.looseObject({
  name: z.string(),
  namespace: z.string().optional(),
  labels: labelMap.optional(),
  annotations: labelMap.optional(),
});

export const specFields = {
  providers: z.array(providerSchema).optional(),
  nodePools: z
    .strictObject({
      dynamic: z.array(dynamicPoolSchema).optional(),
      static: z.array(staticPoolSchema).optional(),
    })
    .optional(),
  kubernetes: z.strictObject({ clusters: z.array(clusterSchema).optional() }).optional(),
  loadBalancers: z
    .strictObject({
      roles: z.array(lbRoleSchema).optional(),
      clusters: z.array(lbClusterSchema).optional(),
    })
    .optional(),
};

/** The native document: the spec's fields sit at the top level. */
export const nativeManifestSchema = z
  .strictObject({
    $schema: z.string().optional(),
    apiVersion: z.literal(NATIVE_API_VERSION),
    kind: z.literal(NATIVE_KIND),
    metadata: metadataSchema,
    ...specFields,
  })
  .describe('A kubeplane manifest: providers, node pools, Kubernetes clusters and load balancers');

export const claudieManifestSchema = z.strictObject({
  apiVersion: z.literal(CLAUDIE_API_VERSION),
  kind: z.literal(CLAUDIE_KIND),
  metadata: metadataSchema,
  spec: z.strictObject(specFields),
  status: z.unknown().optional(),
});

export type SecretRef = z.infer<typeof secretRefSchema>;
export type ProviderDef = z.infer<typeof providerSchema>;
export type Taint = z.infer<typeof taintSchema>;
export type DynamicPoolDef = z.infer<typeof dynamicPoolSchema>;
export type StaticPoolDef = z.infer<typeof staticPoolSchema>;
export type StaticNodeDef = z.infer<typeof staticNodeSchema>;
export type ClusterDef = z.infer<typeof clusterSchema>;
export type AddonDef = z.infer<typeof addonSchema>;
export type LbRoleDef = z.infer<typeof lbRoleSchema>;
export type LbClusterDef = z.infer<typeof lbClusterSchema>;
export type NativeManifestDocument = z.infer<typeof nativeManifestSchema>;
export type ClaudieManifestDocument = z.infer<typeof claudieManifestSchema>;

/** The one typed model both document kinds parse to; every list present, in the order written. */
export interface Manifest {
  source: 'kubeplane' | 'claudie';
  name: string;
  namespace?: string;
  labels: Record<string, string>;
  providers: ProviderDef[];
  nodePools: { dynamic: DynamicPoolDef[]; static: StaticPoolDef[] };
  kubernetes: { clusters: ClusterDef[] };
  loadBalancers: { roles: LbRoleDef[]; clusters: LbClusterDef[] };
}
