// zod schemas for the parts of the Crusoe Cloud API v1 (crusoe-api-v1-swagger.json) kubeplane reads. Fields the
// spec marks required but the API has been seen to omit are optional here; unknown fields are dropped.
import * as z from 'zod';

export const errorBodySchema = z.object({
  code: z.union([z.string(), z.number()]).transform(String).optional(),
  message: z.string().optional(),
  reason: z.string().optional(),
  error_id: z.string().optional(),
});

export const operationSchema = z.object({
  operation_id: z.string(),
  state: z.enum(['IN_PROGRESS', 'SUCCEEDED', 'FAILED']),
  metadata: z.unknown().optional(),
  result: z.unknown().optional(),
  started_at: z.string().optional(),
  completed_at: z.string().optional(),
});
export type CrusoeOperation = z.infer<typeof operationSchema>;
export const asyncOperationSchema = z.object({ operation: operationSchema });

const publicIpSchema = z.object({ id: z.string().optional(), address: z.string().optional(), type: z.string().optional() });
const privateIpSchema = z.object({ address: z.string().optional() });
export const instanceSchema = z.object({
  id: z.string(),
  name: z.string(),
  type: z.string(),
  location: z.string(),
  project_id: z.string().optional(),
  state: z.string(),
  created_at: z.string().optional(),
  updated_at: z.string().optional(),
  network_interfaces: z
    .array(
      z.object({
        id: z.string().optional(),
        network: z.string().optional(),
        subnet: z.string().optional(),
        ips: z.array(z.object({ private_ipv4: privateIpSchema.optional(), public_ipv4: publicIpSchema.optional() })).optional(),
      }),
    )
    .default([]),
  host_channel_adapters: z.array(z.object({ ib_partition_id: z.string().optional(), transport_partition_id: z.string().optional() })).default([]),
  disks: z.array(z.object({ id: z.string(), attachment_type: z.string().optional() })).default([]),
});
export type CrusoeInstance = z.infer<typeof instanceSchema>;
export const instanceListSchema = z.object({ items: z.array(instanceSchema), next_page_token: z.string().optional(), prev_page_token: z.string().optional() });

export const instanceTypeSchema = z.object({
  product_name: z.string(),
  description: z.string().optional(),
  cpu_cores: z.number().optional(),
  cpu_type: z.string().optional(),
  memory_gb: z.number().optional(),
  disk_gb: z.number().optional(),
  num_gpu: z.number().optional(),
  gpu_type: z.string().optional(),
});
export const imageSchema = z.object({
  id: z.string(),
  name: z.string(),
  tags: z.array(z.string()).default([]),
  locations: z.array(z.string()).default([]),
  description: z.string().optional(),
});
export const locationsSchema = z.object({ items: z.array(z.string()) });
/** `GET /capacities` (crusoe-api-v1-swagger.json, `ListCapacitiesResponseV1` of `CapacityV1`). */
export const capacitiesSchema = z.object({
  items: z.array(z.object({ type: z.string().optional(), location: z.string(), quantity: z.number(), quota_type: z.string().optional() })),
});
/** `GET /projects/{id}/quotas` (crusoe-api-v1-swagger.json, `ListProjectQuotasResponse` of `ProjectQuota`). */
export const projectQuotasSchema = z.object({
  quotas: z
    .array(
      z.object({
        type: z.string().optional(),
        programmatic_name: z.string().optional(),
        description: z.string().optional(),
        max: z.number().optional(),
        available: z.number().optional(),
      }),
    )
    .default([]),
});

export const vpcSubnetSchema = z.object({ id: z.string(), name: z.string(), cidr: z.string(), location: z.string(), vpc_network_id: z.string() });
export type CrusoeSubnet = z.infer<typeof vpcSubnetSchema>;
export const vpcNetworkSchema = z.object({
  id: z.string(),
  name: z.string(),
  cidr: z.string(),
  gateway: z.string().optional(),
  subnets: z.array(z.string()).default([]),
});
export type CrusoeNetwork = z.infer<typeof vpcNetworkSchema>;

const endpointSchema = z.object({ cidr: z.string().optional(), resource_id: z.string().optional() });
export const firewallRuleSchema = z.object({
  id: z.string(),
  name: z.string(),
  vpc_network_id: z.string(),
  action: z.string(),
  direction: z.string(),
  protocols: z.array(z.string()),
  sources: z.array(endpointSchema),
  source_ports: z.array(z.string()).default([]),
  destinations: z.array(endpointSchema),
  destination_ports: z.array(z.string()).default([]),
  state: z.string().optional(),
});
export type CrusoeFirewallRule = z.infer<typeof firewallRuleSchema>;

export const diskSchema = z.object({
  id: z.string(),
  name: z.string(),
  type: z.string().optional(),
  size: z.string().optional(),
  location: z.string().optional(),
  attached_to: z.array(z.object({ vm_id: z.string() })).default([]),
});
export type CrusoeDisk = z.infer<typeof diskSchema>;

export const sshKeySchema = z.object({ id: z.string(), name: z.string(), public_key: z.string() });
export const ibNetworkSchema = z.object({
  id: z.string(),
  name: z.string(),
  location: z.string(),
  capacities: z.array(z.object({ slice_type: z.string(), quantity: z.number() })).default([]),
});
export const ibPartitionSchema = z.object({ id: z.string(), name: z.string(), ib_network_id: z.string() });

export const kubernetesClusterSchema = z.object({
  id: z.string(),
  name: z.string(),
  location: z.string(),
  version: z.string(),
  state: z.string(),
  project_id: z.string().optional(),
  subnet_id: z.string().optional(),
  dns_name: z.string().optional(),
  add_ons: z.array(z.string()).default([]),
  node_pools: z.array(z.string()).default([]),
  private: z.boolean().optional(),
});
export type CrusoeCluster = z.infer<typeof kubernetesClusterSchema>;

export const taintSchema = z.object({ key: z.string(), value: z.string().optional(), effect: z.enum(['NoSchedule', 'PreferNoSchedule', 'NoExecute']) });
export const nodePoolSchema = z.object({
  id: z.string(),
  name: z.string(),
  cluster_id: z.string(),
  type: z.string(),
  count: z.number(),
  image_id: z.string().optional(),
  instance_ids: z.array(z.string()).default([]),
  /** Per machine: whether it runs the pool's current configuration (a version change applies to new machines only). */
  instance_details: z.array(z.object({ id: z.string(), using_latest_config: z.boolean().optional() })).default([]),
  node_labels: z.record(z.string(), z.string()).default({}),
  node_taints: z.array(taintSchema).nullable().default([]),
  subnet_id: z.string().optional(),
  state: z.string(),
});
export type CrusoeNodePool = z.infer<typeof nodePoolSchema>;

export const versionsSchema = z.object({
  kubernetes_cluster_versions: z.array(
    z.object({ cluster_version_name: z.string(), tags: z.array(z.string()).default([]), supported_features: z.array(z.string()).default([]) }),
  ),
  kubernetes_node_pool_versions: z.array(
    z.object({ node_pool_version_name: z.string(), tags: z.array(z.string()).default([]), supported_features: z.array(z.string()).default([]) }),
  ),
});

export const credentialsSchema = z.object({
  kube_config: z.string().optional(),
  cluster_name: z.string().optional(),
  cluster_address: z.string().optional(),
  cluster_ca_certificate: z.string().optional(),
  user_name: z.string().optional(),
  user_client_certificate: z.string().optional(),
  user_client_key: z.string().optional(),
});

export const autoClustersConfigSchema = z.object({
  fallback_to_project_reservations: z.boolean().optional(),
  remediation_configs: z
    .array(
      z.object({
        issue_name: z.string(),
        default_action: z.string().optional(),
        user_override: z.string().optional(),
        effective_action: z.string().optional(),
      }),
    )
    .default([]),
});

export const itemsOf = <S extends z.ZodType>(schema: S) => z.object({ items: z.array(schema).default([]) });

/** States come as `STATE_RUNNING` (v1) or `RUNNING` (older tools): compare without the prefix. */
export function plainState(state: string): string {
  return state.replace(/^STATE_/, '').toUpperCase();
}
