// zod schemas for the Kubernetes objects the client reads (core/v1, apps/v1, meta/v1 Status). Unknown fields pass
// through; a missing field we rely on fails as an `invalid response` rather than as undefined later.
import * as z from 'zod';

export const statusSchema = z.looseObject({
  kind: z.literal('Status'),
  status: z.string().optional(),
  message: z.string().optional(),
  reason: z.string().optional(),
  code: z.number().optional(),
  details: z
    .looseObject({
      name: z.string().optional(),
      kind: z.string().optional(),
      retryAfterSeconds: z.number().optional(),
      causes: z.array(z.looseObject({ reason: z.string().optional(), message: z.string().optional() })).optional(),
    })
    .optional(),
});
export type KubeStatus = z.infer<typeof statusSchema>;

const stringMap = z.record(z.string(), z.string());

export const objectMetaSchema = z.looseObject({
  name: z.string(),
  namespace: z.string().optional(),
  uid: z.string().optional(),
  resourceVersion: z.string().optional(),
  labels: stringMap.optional(),
  annotations: stringMap.optional(),
  ownerReferences: z.array(z.looseObject({ kind: z.string(), name: z.string(), controller: z.boolean().optional() })).optional(),
});

export const taintSchema = z.looseObject({
  key: z.string(),
  value: z.string().optional(),
  effect: z.enum(['NoSchedule', 'PreferNoSchedule', 'NoExecute']),
});

export const nodeSchema = z.looseObject({
  metadata: objectMetaSchema,
  spec: z
    .looseObject({
      unschedulable: z.boolean().optional(),
      taints: z.array(taintSchema).optional(),
      providerID: z.string().optional(),
    })
    .optional(),
  status: z
    .looseObject({
      conditions: z.array(z.looseObject({ type: z.string(), status: z.string(), lastTransitionTime: z.string().optional() })).optional(),
      addresses: z.array(z.looseObject({ type: z.string(), address: z.string() })).optional(),
      nodeInfo: z.looseObject({ kubeletVersion: z.string().optional() }).optional(),
    })
    .optional(),
});
export type NodeObject = z.infer<typeof nodeSchema>;

export const podSchema = z.looseObject({
  metadata: objectMetaSchema,
  spec: z.looseObject({ nodeName: z.string().optional() }).optional(),
  status: z.looseObject({ phase: z.string().optional() }).optional(),
});
export type PodObject = z.infer<typeof podSchema>;

export const configMapSchema = z.looseObject({ metadata: objectMetaSchema, data: stringMap.optional() });
export const secretSchema = z.looseObject({ metadata: objectMetaSchema, type: z.string().optional(), data: stringMap.optional() });

export const deploymentSchema = z.looseObject({
  metadata: objectMetaSchema,
  spec: z.looseObject({
    template: z.looseObject({
      spec: z.looseObject({
        containers: z.array(z.looseObject({ name: z.string(), args: z.array(z.string()).optional() })).min(1),
      }),
    }),
  }),
});

export const namespaceSchema = z.looseObject({ metadata: objectMetaSchema });

export function listSchema<T extends z.ZodType>(item: T) {
  return z.looseObject({
    metadata: z.looseObject({ resourceVersion: z.string().optional(), continue: z.string().optional() }).optional(),
    items: z.array(item),
  });
}

/** Any JSON object: for calls whose response body we do not read. */
export const anyObjectSchema = z.looseObject({});

/** Any object the generic operations read back: apiVersion, kind and metadata are all they rely on. */
export const kubeObjectSchema = z.looseObject({
  apiVersion: z.string(),
  kind: z.string(),
  metadata: objectMetaSchema,
});

/** meta/v1 APIResourceList, as `/api/v1` and `/apis/<group>/<version>` serve it (discovery). */
export const apiResourceListSchema = z.looseObject({
  groupVersion: z.string().optional(),
  resources: z.array(z.looseObject({ name: z.string(), kind: z.string(), namespaced: z.boolean() })),
});
