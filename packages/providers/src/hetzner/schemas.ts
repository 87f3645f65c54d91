// zod schemas for the parts of the Hetzner Cloud API responses we read (hetzner-cloud-openapi.json).
// Unknown fields pass through untouched; missing required ones fail loudly as `invalid` responses.
import * as z from 'zod';

export const labelsSchema = z.record(z.string(), z.string());

export const paginationSchema = z.object({
  page: z.number(),
  per_page: z.number(),
  next_page: z.number().nullable(),
  last_page: z.number().nullable().optional(),
  total_entries: z.number().nullable().optional(),
});

export const metaSchema = z.object({ pagination: paginationSchema });

export const actionSchema = z.object({
  id: z.number(),
  command: z.string(),
  status: z.enum(['running', 'success', 'error']),
  progress: z.number(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
});

export const serverSchema = z.object({
  id: z.number(),
  name: z.string(),
  status: z.string(),
  created: z.string(),
  labels: labelsSchema,
  server_type: z.object({ name: z.string() }),
  location: z.object({ name: z.string(), network_zone: z.string() }),
  public_net: z.object({
    ipv4: z.object({ id: z.number().optional(), ip: z.string() }).nullable(),
    firewalls: z.array(z.object({ id: z.number() })).optional(),
  }),
  private_net: z.array(z.object({ network: z.number(), ip: z.string() })),
});
export type HetznerServer = z.infer<typeof serverSchema>;

export const networkSchema = z.object({
  id: z.number(),
  name: z.string(),
  ip_range: z.string(),
  labels: labelsSchema,
  subnets: z.array(z.object({ ip_range: z.string(), network_zone: z.string() })),
});
export type HetznerNetwork = z.infer<typeof networkSchema>;

export const firewallRuleSchema = z.object({
  direction: z.enum(['in', 'out']),
  protocol: z.string(),
  port: z.string().nullable().optional(),
  source_ips: z.array(z.string()).optional(),
  description: z.string().nullable().optional(),
});
export type HetznerFirewallRule = z.infer<typeof firewallRuleSchema>;

export const firewallSchema = z.object({
  id: z.number(),
  name: z.string(),
  labels: labelsSchema,
  rules: z.array(firewallRuleSchema),
});
export type HetznerFirewall = z.infer<typeof firewallSchema>;

export const primaryIpSchema = z.object({
  id: z.number(),
  name: z.string(),
  ip: z.string(),
  labels: labelsSchema,
  assignee_id: z.number().nullable(),
});
export type HetznerPrimaryIp = z.infer<typeof primaryIpSchema>;

export const sshKeySchema = z.object({ id: z.number(), name: z.string(), labels: labelsSchema, fingerprint: z.string() });
export type HetznerSshKey = z.infer<typeof sshKeySchema>;

/** A volume (GET /volumes): `server` is the id it is attached to, or null. */
export const volumeSchema = z.object({ id: z.number(), name: z.string(), labels: labelsSchema, size: z.number(), server: z.number().nullable() });

export const placementGroupSchema = z.object({ id: z.number(), name: z.string(), labels: labelsSchema });

/** `deprecation_info` (hetzner-cloud-openapi.json): set when deprecated; unusable for creation after `unavailable_after`. */
const deprecationSchema = z.object({ announced: z.string(), unavailable_after: z.string() }).nullable().optional();
export const serverTypeSchema = z.object({
  name: z.string(),
  cores: z.number(),
  memory: z.number(),
  architecture: z.string(),
  deprecation: deprecationSchema,
  /** Only the listed locations support the type; per location, its deprecation (`server_type_location`). */
  locations: z.array(z.object({ name: z.string(), deprecation: deprecationSchema })).optional(),
});
/** `deprecated`: the time from which the image is considered deprecated, or null. */
export const imageSchema = z.object({
  id: z.number(),
  name: z.string().nullable(),
  description: z.string(),
  architecture: z.string(),
  deprecated: z.string().nullable().optional(),
});
export const datacenterSchema = z.object({ name: z.string(), location: z.object({ name: z.string() }) });
export const locationSchema = z.object({ name: z.string(), network_zone: z.string() });

export const errorEnvelopeSchema = z.object({
  error: z.object({ code: z.string(), message: z.string(), details: z.unknown().optional() }),
});
