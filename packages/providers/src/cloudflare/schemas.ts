// zod schemas for the Cloudflare API v4 parts kubeplane uses: the envelope, zones, DNS records, and Load
// Balancing monitors, pools and load balancers; and the account subscriptions that say whether LB is there.
import * as z from 'zod';

export const cfErrorSchema = z.object({ code: z.number(), message: z.string() });
export const resultInfoSchema = z.object({
  page: z.number().optional(),
  per_page: z.number().optional(),
  count: z.number().optional(),
  total_count: z.number().optional(),
  total_pages: z.number().optional(),
});

/** `{success, errors, messages, result, result_info}` around a result of the given shape. */
export const envelope = <S extends z.ZodType>(result: S) =>
  z.object({
    success: z.boolean(),
    errors: z.array(cfErrorSchema).default([]),
    messages: z.array(z.unknown()).default([]),
    result,
    result_info: resultInfoSchema.optional(),
  });
export const errorEnvelopeSchema = z.object({ success: z.literal(false), errors: z.array(cfErrorSchema).default([]) });

export const zoneSchema = z.object({ id: z.string(), name: z.string(), status: z.string().optional() });
export const dnsRecordSchema = z.object({
  id: z.string(),
  name: z.string(),
  type: z.string(),
  content: z.string(),
  ttl: z.number(),
  proxied: z.boolean().optional(),
  comment: z.string().nullable().optional(),
});
export type CfDnsRecord = z.infer<typeof dnsRecordSchema>;
export const monitorSchema = z.object({ id: z.string(), type: z.string(), port: z.number().optional(), description: z.string().optional() });
export const poolSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().optional(),
  monitor: z.string().nullable().optional(),
  origins: z.array(z.object({ name: z.string(), address: z.string(), enabled: z.boolean().optional() })),
});
export type CfPool = z.infer<typeof poolSchema>;
export const loadBalancerSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().optional(),
  default_pools: z.array(z.string()),
  fallback_pool: z.string(),
  ttl: z.number().optional(),
  steering_policy: z.string().optional(),
  proxied: z.boolean().optional(),
});
export type CfLoadBalancer = z.infer<typeof loadBalancerSchema>;
export const subscriptionSchema = z.object({
  id: z.string().optional(),
  product: z.object({ name: z.string().optional(), public_name: z.string().optional() }).partial().optional(),
  rate_plan: z.object({ id: z.string().optional(), public_name: z.string().optional() }).partial().optional(),
  state: z.string().optional(),
});
