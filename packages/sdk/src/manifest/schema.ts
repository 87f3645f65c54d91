// The manifest's zod schemas: the single source of truth for the native `kubeplane.dev/v1` document, for
// Claudie's `claudie.io/v1beta1` InputManifest (accepted as it is), for the model's types and the JSON Schema.
// They check shape and ranges; rules.ts checks everything that needs the whole manifest.
//
// The descriptions, patterns, examples and defaults in `.meta()` only shape the JSON Schema that editors read
// (json-schema.ts); parsing ignores them. They follow Claudie's CRD (berops/claudie
// manifests/claudie/crd/claudie.io_inputmanifests.yaml and the struct tags of internal/api/manifest/manifest.go),
// and a pattern or limit is only stated where rules.ts enforces the same one, so the JSON Schema never refuses
// a manifest that `validate` accepts.
import { CHART_ADDON_IDS } from '../addons/catalog.js';
import * as z from 'zod';
import { PROVIDER_TYPES, RETIRED_PROVIDER_TYPES } from './provider-types.js';
import { NAME_PATTERNS, TAINT_EFFECTS } from './names.js';
import { GCP_SECRET_PATTERNS } from './gcp-secret-name.js';
import { IPV4_PATTERNS } from '../model/ipv4.js';

/** The apiVersion of native manifests. */
export const NATIVE_API_VERSION = 'kubeplane.dev/v1';
/** The kind of native manifests. */
export const NATIVE_KIND = 'Manifest';
/** The apiVersion of Claudie's InputManifest. */
export const CLAUDIE_API_VERSION = 'claudie.io/v1beta1';
/** The kind of Claudie's InputManifest. */
export const CLAUDIE_KIND = 'InputManifest';

/** Marks a field Claudie's CRD does not have, in its description. */
const KUBEPLANE_ONLY = "kubeplane only (not in Claudie's CRD).";

const labelValues = z.string({ error: 'label and annotation values must be strings; quote values such as "true" or "8"' });

/** metadata.labels/annotations: Kubernetes object metadata, not checked further. */
const labelMap = z.record(z.string(), labelValues).meta({ description: 'Kubernetes labels or annotations: qualified-name keys, string values' });

/** Node labels: keys are qualified names and values label values (rules/node-meta.ts). */
const nodeLabels = z.record(z.string(), labelValues).meta({
  description: 'Labels put on every node of the pool. Keys are qualified names ([prefix/]name), values at most 63 characters.',
  propertyNames: { pattern: NAME_PATTERNS.qualifiedName },
  additionalProperties: { type: 'string', maxLength: 63, pattern: NAME_PATTERNS.labelValue },
});

const nodeAnnotations = z.record(z.string(), labelValues).meta({
  description: 'Annotations put on every node of the pool. Keys are qualified names; at most 256 KiB in all.',
  propertyNames: { pattern: NAME_PATTERNS.qualifiedName },
});

/** The schema of a node taint. */
export const taintSchema = z
  .strictObject({
    key: z.string().meta({ description: 'The taint key, a qualified name.', pattern: NAME_PATTERNS.qualifiedName }),
    value: z.string().optional().meta({ description: 'The taint value, a label value.', maxLength: 63, pattern: NAME_PATTERNS.labelValue }),
    effect: z
      .enum(TAINT_EFFECTS, { error: `taint effect must be one of ${TAINT_EFFECTS.join(', ')}` })
      .meta({ description: 'What the taint does to pods that do not tolerate it.' }),
    timeAdded: z
      .string()
      .nullable()
      .optional()
      .meta({
        description:
          "Kubernetes' Taint.timeAdded (RFC 3339), part of Claudie's CRD since it embeds core/v1 " +
          'Taint; not applied, with a warning (the node controller sets it for NoExecute taints).',
        examples: ['2024-05-01T12:00:00Z'],
      }),
  })
  .meta({ description: 'A Kubernetes taint put on every node of the pool.' });

/**
 * Where a provider's credentials come from. Exactly one form: a Kubernetes Secret (`name` + `namespace`,
 * Claudie's form), environment variables (`env`: credential key -> variable name), a file of keys (`file`),
 * an AWS Secrets Manager secret, or a Google Cloud Secret Manager secret. The values themselves never appear in a manifest.
 */
export const secretRefSchema = z
  .strictObject({
    name: z.string().optional().meta({ description: "The Kubernetes Secret holding the credential keys (with namespace); Claudie's form.", minLength: 1 }),
    namespace: z.string().optional().meta({ description: 'The namespace of that Secret (required with name).', minLength: 1 }),
    env: z
      .record(z.string(), z.string())
      .optional()
      .meta({
        description:
          `${KUBEPLANE_ONLY} Credential key -> name of the environment variable that ` +
          `holds it, e.g. {accesskey: AWS_ACCESS_KEY_ID, secretkey: AWS_SECRET_ACCESS_KEY}.`,
        additionalProperties: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$' },
      }),
    file: z
      .string()
      .optional()
      .meta({
        description: `${KUBEPLANE_ONLY} A YAML or JSON file holding a mapping of the credential keys; a relative path resolves against the working directory.`,
        minLength: 1,
      }),
    awsSecretsManager: z
      .strictObject({
        secretId: z.string().meta({ description: 'Name or ARN of the secret, a JSON object of the credential keys.' }),
        region: z.string().optional().meta({ description: 'Region of the secret.' }),
      })
      .optional()
      .meta({ description: `${KUBEPLANE_ONLY} An AWS Secrets Manager secret holding the credential keys.` }),
    gcpSecretManager: z
      .strictObject({
        // The forms Secret Manager names (gcp-secret-name.ts, checked by rules.ts).
        secret: z.string().meta({
          description:
            "The secret's id (`kubeplane-providers-minimal-hetzner-1`) or its full name " +
            '(`projects/<project>/secrets/<id>`); its payload is a JSON object of the credential keys.',
          pattern: GCP_SECRET_PATTERNS.secret,
        }),
        version: z
          .string()
          .optional()
          .meta({ description: 'The version to read: a number or an alias such as `latest` (the default).', pattern: GCP_SECRET_PATTERNS.version }),
        project: z.string().optional().meta({
          description:
            "The Google Cloud project (id or number) holding the secret, when `secret` is an id; default the runtime's own project. Not with a full name.",
          pattern: GCP_SECRET_PATTERNS.project,
        }),
      })
      .optional()
      .meta({ description: `${KUBEPLANE_ONLY} A Google Cloud Secret Manager secret holding the credential keys.` }),
  })
  .meta({
    description:
      'Where credentials come from, in exactly one form: {name, namespace} (a Kubernetes Secret) | ' +
      '{env} | {file} | {awsSecretsManager} | {gcpSecretManager}. The values never appear in a manifest.',
    // Exactly one form (rules/secret-ref.ts); looser than the rule, which also refuses `name` beside `env`.
    oneOf: [
      { required: ['name', 'namespace'] },
      { required: ['env'] },
      { required: ['file'] },
      { required: ['awsSecretsManager'] },
      { required: ['gcpSecretManager'] },
    ],
  });

/**
 * An add-on's own credential: a secretRef in one of the providers' forms, or `fromProvider` to say, explicitly, that
 * it may use a provider's credentials (never done without it).
 */
export const addonSecretRefSchema = secretRefSchema
  .extend({
    fromProvider: z
      .string()
      .optional()
      .meta({ description: `${KUBEPLANE_ONLY} The name of a provider in providers[] whose credentials this add-on may use.`, minLength: 1 }),
  })
  .meta({
    description:
      `${KUBEPLANE_ONLY} The add-on's credential (CSI drivers: the cloud's keys), written as a Secret in the ` +
      `cluster: {name, namespace} | {env} | {file} | {awsSecretsManager} | {gcpSecretManager} | {fromProvider}.`,
    oneOf: [
      { required: ['name', 'namespace'] },
      { required: ['env'] },
      { required: ['file'] },
      { required: ['awsSecretsManager'] },
      { required: ['gcpSecretManager'] },
      { required: ['fromProvider'] },
    ],
  });
/** A reference to the Secret holding an add-on's credentials. */
export type AddonSecretRef = z.infer<typeof addonSecretRefSchema>;

/** The schema of a provider: a cloud account, its type and where its credentials are. */
export const providerSchema = z
  .strictObject({
    name: z.string().meta({
      description:
        "The provider's name, referred to by pools and DNS records: a DNS-1123 label of at " +
        "most 15 characters, unique (Claudie's controller caps it at 15; its CRD at 32).",
      pattern: NAME_PATTERNS.dns1123Label,
      maxLength: 15,
    }),
    providerType: z
      .enum(PROVIDER_TYPES, {
        error: (iss) =>
          typeof iss.input === 'string' && RETIRED_PROVIDER_TYPES[iss.input]
            ? RETIRED_PROVIDER_TYPES[iss.input]
            : `providerType must be one of ${PROVIDER_TYPES.join(', ')}`,
      })
      .meta({ description: "The cloud: Claudie's types, and crusoe (kubeplane only). hetznerdns and genesiscloud are retired (use hetzner)." }),
    secretRef: secretRefSchema,
    templates: z
      .strictObject({
        repository: z.string().meta({ description: 'Git repository URL of the templates.' }),
        path: z.string().optional().meta({ description: 'Path of the templates in the repository.' }),
        tag: z.string().optional().meta({ description: 'Tag (semver) of the templates.' }),
      })
      .optional()
      .meta({ description: 'Claudie <= 0.15: an inline template repository; not used (kubeplane renders its own machines), with a warning.' }),
    templatesRef: z
      .strictObject({
        name: z.string().meta({ description: 'Name of the TemplateGitReference.' }),
        namespace: z.string().optional().meta({ description: 'Its namespace.' }),
      })
      .optional()
      .meta({ description: 'Claudie (after 0.15): a reference to a TemplateGitReference; not used (kubeplane renders its own machines), with a warning.' }),
  })
  .meta({ description: 'A cloud account: its type and where its credentials come from.' });

/**
 * A compute node's storage disk when the pool does not say: Claudie's InputManifest documents 50 GB ("Default 50",
 * DynamicNodePool.StorageDiskSize), so a Claudie document gets what Claudie would make; a native document gets none
 * unless it asks (a disk is billed per node, and most kubeplane clusters keep their data elsewhere).
 */
export const DEFAULT_STORAGE_DISK_GB: Readonly<Record<Manifest['source'], number>> = { claudie: 50, kubeplane: 0 };

/** The schema's description of `storageDiskSize` per document kind (the JSON Schema export puts the right one in each). */
export const STORAGE_DISK_DESCRIPTION: Readonly<Record<Manifest['source'], string>> = {
  kubeplane:
    'GB of a separate storage disk for each node of the pool in a compute role, mounted at /opt/claudie/data (where Longhorn keeps its data in ' +
    "Claudie's setup): 0 (none) or at least 50; default 0 in kubeplane.dev/v1 documents. Control-plane and load-balancer nodes get none.",
  claudie:
    'GB of a separate storage disk for each node of the pool in a compute role, mounted at /opt/claudie/data (where Longhorn keeps its data in ' +
    "Claudie's setup): 0 (none) or at least 50; default 50, as in Claudie. Control-plane and load-balancer nodes get none.",
};

/** The storage disk a compute node of this pool gets, in GB (0: none), as the document's kind defaults it. */
export function storageDiskSizeOf(pool: { storageDiskSize?: number | undefined }, source: Manifest['source']): number {
  return pool.storageDiskSize ?? DEFAULT_STORAGE_DISK_GB[source];
}

const nodeCount = z.int().min(1, 'count must be at least 1').max(255, 'count must be at most 255 (the node index is one byte)');

/** The schema of a dynamic pool's autoscaler bounds. */
export const autoscalerSchema = z
  .strictObject({
    /** Optional in Claudie's CRD; Claudie reads a missing min as 0 (AutoscalerConfig.isDefined: min >= 0 && max > 0). */
    min: z
      .int()
      .min(0, 'autoscaler.min must be 0 or more')
      .max(255, 'autoscaler.min must be at most 255')
      .default(0)
      .meta({ description: 'Fewest nodes (the pool starts with this many); at most max.' }),
    max: z.int().min(1, 'autoscaler.max must be at least 1').max(255, 'autoscaler.max must be at most 255').meta({ description: 'Most nodes.' }),
  })
  .meta({ description: 'Let the cluster autoscaler size the pool between min and max. Instead of count.' });

/** The schema of a dynamic pool's machine size (CPUs, memory, GPUs). */
export const machineSpecSchema = z
  .strictObject({
    cpuCount: z.int().min(1).optional().meta({ description: 'CPU cores of the server type (with memory).' }),
    memory: z.int().min(1).optional().meta({ description: 'GB of memory of the server type (with cpuCount).' }),
    nvidiaGpuCount: z.int().min(0).optional().meta({ description: 'NVIDIA GPUs per machine.' }),
    nvidiaGpuType: z.string().optional().meta({ description: 'The GPU model; GCP needs it when nvidiaGpuCount > 0, VastAI always (e.g. RTX 4090).' }),
    nvidiaGpu: z.int().min(0).optional().meta({ description: 'Deprecated in Claudie in favour of nvidiaGpuCount; accepted.' }),
    vram: z.int().min(1).optional().meta({ description: 'GB of memory of one GPU; VastAI pools match offers with exactly this much.' }),
  })
  .meta({ description: 'What the server type offers, for autoscaling from zero and for GPU machines.' });

/** The name of a dynamic or static pool; json-schema.ts sets its maxLength per document kind. */
export const poolNameSchema = z.string().meta({
  description:
    "The pool's name, referred to by clusters and load balancers: a DNS-1123 label of at most 14 characters, unique across dynamic and static pools.",
  pattern: NAME_PATTERNS.dns1123Label,
});

/** The schema of a dynamic pool: machines kubeplane creates in a provider. */
export const dynamicPoolSchema = z
  .strictObject({
    name: poolNameSchema,
    providerSpec: z
      .strictObject({
        name: z.string().meta({ description: 'The name of a provider in providers.' }),
        region: z.string().meta({ description: "The provider's region or location.", examples: ['fsn1', 'eu-central-1'] }),
        zone: z.string().optional().meta({ description: "The zone; without it, nodes are spread over the region's zones." }),
        externalNetworkName: z
          .string()
          .optional()
          .meta({ description: 'OpenStack only, and required there: the external network that gives the machines public addresses.' }),
        subnet: z
          .string()
          .min(1)
          .optional()
          .meta({
            description:
              `${KUBEPLANE_ONLY} Crusoe only: an existing VPC subnet in the region (its id or name) to put the machines, and a managed ` +
              'control plane, in, instead of a network kubeplane makes. Every pool of the provider and region names the same one; ' +
              "kubeplane adds its rules to the subnet's VPC and never deletes the subnet or the VPC.",
            examples: ['prod-subnet-us-east1-a'],
          }),
      })
      .meta({ description: 'Where the machines are made: which provider, region and zone.' }),
    count: nodeCount.optional().meta({ description: 'Number of machines, 1 to 255. Instead of autoscaler.' }),
    autoscaler: autoscalerSchema.optional(),
    serverType: z.string().meta({ description: "The provider's machine type.", examples: ['cpx21', 't3.medium'] }),
    image: z.string().meta({ description: "The provider's OS image (Ubuntu).", examples: ['ubuntu-24.04'] }),
    storageDiskSize: z
      .int()
      .min(0)
      .optional()
      .meta({
        description: STORAGE_DISK_DESCRIPTION.kubeplane,
        default: DEFAULT_STORAGE_DISK_GB.kubeplane,
        anyOf: [{ const: 0 }, { minimum: 50 }],
      }),
    machineSpec: machineSpecSchema.optional(),
    labels: nodeLabels.optional(),
    annotations: nodeAnnotations.optional(),
    taints: z.array(taintSchema).optional().meta({ description: 'Taints put on every node of the pool.' }),
    spot: z
      .boolean()
      .optional()
      .meta({ description: 'Spot/preemptible machines (aws, gcp, azure, oci, verda); never for control pools; cannot change on an existing pool.' }),
  })
  .meta({
    description: 'A blueprint of cloud machines, made once for every cluster or load balancer that lists it.',
    // count xor autoscaler (rules/node-pools.ts; Claudie: `required_without`, `excluded_with`).
    oneOf: [{ required: ['count'] }, { required: ['autoscaler'] }],
  });

/** The schema of one of the user's machines in a static pool. */
export const staticNodeSchema = z
  .strictObject({
    endpoint: z.string().meta({ description: "The machine's IPv4 address, reached over SSH; unique in the manifest.", pattern: IPV4_PATTERNS.address }),
    secretRef: secretRefSchema.meta({
      description:
        'Where the SSH private key comes from (the key `privatekey`), in one form: ' +
        '{name, namespace} | {env} | {file} | {awsSecretsManager} | {gcpSecretManager}.',
    }),
    username: z.string().optional().meta({ description: 'SSH user with root rights; default root.', default: 'root' }),
  })
  .meta({ description: 'A machine you own, reached over SSH.' });

/** The schema of a static pool: machines the user brings. */
export const staticPoolSchema = z
  .strictObject({
    name: poolNameSchema,
    nodes: z.array(staticNodeSchema).min(1, 'a static pool needs at least one node').meta({ description: 'The machines of the pool.' }),
    sshPort: z.int().min(1).max(65535).optional().meta({ description: 'SSH port of the machines; default 22.', default: 22 }),
    labels: nodeLabels.optional(),
    annotations: nodeAnnotations.optional(),
    taints: z.array(taintSchema).optional().meta({ description: 'Taints put on every node of the pool.' }),
  })
  .meta({ description: 'Machines you already own (bring your own nodes). A static pool serves one cluster in one role.' });

/** The add-ons a cluster can name: the chart add-ons and `autoclusters`. */
export const ADDON_NAMES = [...CHART_ADDON_IDS, 'autoclusters'] as const;
/** The name of an add-on. */
export type AddonName = (typeof ADDON_NAMES)[number];

/** The schema of an add-on a cluster asks for. */
export const addonSchema = z
  .strictObject({
    name: z.enum(ADDON_NAMES, { error: `add-on name must be one of ${ADDON_NAMES.join(', ')}` }).meta({ description: 'The add-on.' }),
    version: z
      .string()
      .optional()
      .meta({ description: "Its Helm chart version; the catalog's pinned default without one (docs/addons.md). Changing it upgrades the add-on." }),
    values: z.record(z.string(), z.unknown()).optional().meta({
      description:
        'Helm values merged over the ones kubeplane builds (yours win). The keys kubeplane understands are type-checked; the rest pass to the chart.',
    }),
    secretRef: addonSecretRefSchema.optional(),
    config: z
      .record(z.string(), z.unknown())
      .optional()
      .meta({
        description:
          "kubeplane's settings of the add-on (autoclusters: {remediation: {<issue>: REPLACE_NODE " +
          '| OFF}, fallbackToProjectReservations}; crusoe_csi: {nfs}; cluster_autoscaler: {apiUrl}).',
      }),
  })
  .meta({ description: 'An add-on installed in the cluster.' });

const version = z
  .string({
    error: (iss) =>
      typeof iss.input === 'number'
        ? `version must be a quoted string with a patch number, e.g. "1.33.4" (YAML reads ${iss.input} as a number)`
        : 'version is required, e.g. "1.33.4"',
  })
  .meta({
    description:
      'Kubernetes version with its patch number, quoted ("1.34.2"; YAML reads 1.30 as the number 1.3). ' +
      '1.30-1.36 without comment, 1.24-1.29 with a warning; CMK build suffixes (1.33.4-cmk.15) are understood.',
    pattern: '^\\s*v?\\d+\\.\\d+\\.\\d+',
    examples: ['1.34.2'],
  });

/** The schema of a Kubernetes cluster in a manifest. */
export const clusterSchema = z
  .strictObject({
    name: z.string().meta({
      description: "The cluster's name: a DNS-1123 label of at most 28 characters, unique.",
      pattern: NAME_PATTERNS.dns1123Label,
      maxLength: 28,
    }),
    version,
    network: z.string().meta({
      description:
        'The overlay (WireGuard) network, a.b.c.d/prefix without host bits, large enough for every node; each node gets one address from it. Cannot change.',
      pattern: IPV4_PATTERNS.cidr,
      examples: ['192.168.2.0/24'],
    }),
    pools: z
      .strictObject({
        control: z
          .array(z.string())
          .optional()
          .meta({ description: 'Pools whose nodes run the control plane (at least one, none for a managed control plane).' }),
        compute: z
          .array(z.string())
          .optional()
          .meta({ description: 'Pools whose nodes run workloads. A dynamic pool in both is built twice: control planes and as many workers.' }),
      })
      .meta({ description: 'The pools of the cluster, by name.' }),
    installationProxy: z
      .strictObject({
        mode: z.enum(['on', 'off', 'default'], { error: 'installationProxy.mode must be on, off or default' }).meta({
          description: 'on, off, or default (a proxy only for clusters with Hetzner nodes).',
        }),
        endpoint: z.string().optional().meta({ description: 'The proxy URL; default http://proxy.claudie.io:8880.' }),
        noProxy: z.string().optional().meta({ description: 'Comma-separated hosts and networks added to the default no-proxy list.' }),
      })
      .optional()
      .meta({ description: 'An HTTP proxy for installing the nodes.' }),
    controlPlane: z
      .enum(['self-managed', 'managed'])
      .optional()
      .meta({ description: `${KUBEPLANE_ONLY} managed: the provider runs the control plane (Crusoe Managed Kubernetes); default self-managed.` }),
    addons: z
      .array(addonSchema)
      .optional()
      .meta({ description: `${KUBEPLANE_ONLY} Add-ons installed in the cluster.` }),
    apiDns: z
      .strictObject({
        dnsZone: z.string().meta({ description: 'A DNS zone of the provider.' }),
        provider: z.string().meta({ description: 'The name of a DNS-capable provider in providers.' }),
        hostname: z.string().optional().meta({ description: "The name in the zone; the cluster's name without one." }),
      })
      .optional()
      .meta({
        description:
          `${KUBEPLANE_ONLY} Managed control planes only: a name for the API endpoint in one of your DNS zones, a ` +
          `CNAME to the provider's API name (a self-managed cluster gets its API name from its API load balancer).`,
      }),
    access: z
      .strictObject({
        apiAllowedCidrs: z
          .array(z.string().meta({ pattern: IPV4_PATTERNS.cidr }))
          .optional()
          .meta({ description: 'Networks allowed to reach the API server.' }),
        sshAllowedCidrs: z
          .array(z.string().meta({ pattern: IPV4_PATTERNS.cidr }))
          .optional()
          .meta({ description: 'Networks allowed to reach the nodes over SSH.' }),
      })
      .optional()
      .meta({ description: `${KUBEPLANE_ONLY} Who may reach the API and the nodes.` }),
    upgrade: z
      .strictObject({
        strategy: z
          .enum(['rolling', 'on-delete'])
          .optional()
          .meta({
            description:
              'How nodes move to a new version, in place: rolling (default) upgrades the control planes one at a time, then the workers ' +
              'maxSurge at a time; on-delete upgrades the control planes only, and workers keep their version until they are replaced.',
            default: 'rolling',
          }),
        maxSurge: z
          .int()
          .min(0)
          .max(255)
          .optional()
          .meta({
            description:
              'How many workers a rolling upgrade drains and upgrades in place at once (0 counts as 1). No extra nodes are made: ' +
              "the name is Cluster API's, the meaning is a batch size.",
            default: 1,
          }),
      })
      .optional()
      .meta({ description: `${KUBEPLANE_ONLY} How upgrades proceed.` }),
    encryption: z
      .strictObject({ secretsAtRest: z.boolean().meta({ description: 'Encrypt Secrets in etcd.' }) })
      .optional()
      .meta({ description: `${KUBEPLANE_ONLY} Encryption at rest.` }),
    remediation: z
      .strictObject({
        notReadyMinutes: z.int().min(0).max(10_080).meta({ description: 'Minutes NotReady before replacement (default 10; 0: never).', default: 10 }),
      })
      .optional()
      .meta({ description: `${KUBEPLANE_ONLY} A worker NotReady this long while its machine runs is replaced on the next apply.` }),
  })
  .meta({ description: 'A Kubernetes cluster made of pools.' });

const port = (what: string) => z.int().min(1).max(65535).meta({ description: what });

/** The schema of a load balancer's role: a port, protocol and target pools. */
export const lbRoleSchema = z
  .strictObject({
    name: z.string().meta({ description: "The role's name, referred to by load balancers; unique.", minLength: 1 }),
    protocol: z.enum(['tcp', 'udp'], { error: 'protocol must be tcp or udp' }).meta({ description: 'tcp or udp.' }),
    port: port('Port the load balancer listens on; not in 64512-65535 (reserved). 6443 with targetPort 6443 is the API role.'),
    targetPort: port('Port on the target nodes. 6443 makes this the API role (port 6443, tcp, control pools only).'),
    targetPools: z
      .array(z.string())
      .min(1, 'a role needs at least one target pool')
      .meta({ description: 'Pools of the targeted cluster whose nodes receive the traffic.' }),
    settings: z
      .strictObject({
        proxyProtocol: z
          .boolean()
          .optional()
          .meta({ description: 'Send the PROXY protocol header (tcp roles; not the API role); default true.', default: true }),
        stickySessions: z.boolean().optional().meta({ description: 'Send a client to the same node (source-IP hash); default false.', default: false }),
      })
      .optional()
      .meta({ description: 'Extra settings of the role.' }),
  })
  .meta({ description: 'A forwarding rule load balancers use: a port, a protocol and the pools that receive the traffic.' });

/** The schema of a load-balancer cluster in a manifest. */
export const lbClusterSchema = z
  .strictObject({
    name: z.string().meta({
      description: "The load balancer's name: a DNS-1123 label of at most 28 characters, unique.",
      pattern: NAME_PATTERNS.dns1123Label,
      maxLength: 28,
    }),
    roles: z.array(z.string()).min(1, 'a load balancer needs at least one role').meta({ description: 'Roles (by name) the load balancer serves.' }),
    dns: z
      .strictObject({
        dnsZone: z.string().meta({ description: 'A public DNS zone of the provider.', examples: ['example.com'] }),
        provider: z.string().meta({ description: 'The name of a DNS-capable provider in providers.' }),
        hostname: z.string().optional().meta({ description: "The record's name in the zone; a random one without it. Unique per zone." }),
        alternativeNames: z.array(z.string()).optional().meta({ description: 'More names for the same load balancer (not for the API load balancer).' }),
      })
      .meta({ description: "The load balancer's DNS record." }),
    targetedK8s: z.string().meta({ description: 'The name of the cluster the load balancer serves.' }),
    pools: z
      .array(z.string())
      .min(1, 'a load balancer needs at least one pool')
      .meta({ description: 'Pools whose machines run the load balancer (fixed count).' }),
  })
  .meta({ description: "A load balancer: machines from pools that forward the roles' traffic to a cluster, with a DNS name." });

/** The schema of a manifest's metadata. */
export const metadataSchema = z
  .looseObject({
    name: z
      .string()
      .meta({ description: "The project's name: a lower-case DNS name, unique among your manifests.", pattern: NAME_PATTERNS.dnsSubdomain, maxLength: 253 }),
    namespace: z.string().optional().meta({ description: 'The namespace (Claudie: of the InputManifest).' }),
    labels: labelMap.optional(),
    annotations: labelMap.optional(),
  })
  .meta({ description: "The manifest's name (the project), namespace, labels and annotations." });

// A list written but left empty (`static:`) is read as no entries (parse.ts), so the documents allow null.
/** The fields of a manifest's spec, shared by the native and the Claudie schema. */
export const specFields = {
  providers: z.array(providerSchema).nullable().optional().meta({ description: 'Cloud accounts, by name. Credentials stay outside the manifest (secretRef).' }),
  nodePools: z
    .strictObject({
      dynamic: z.array(dynamicPoolSchema).nullable().optional().meta({ description: 'Cloud machines made by kubeplane.' }),
      static: z.array(staticPoolSchema).nullable().optional().meta({ description: 'Machines you already own.' }),
    })
    .optional()
    .meta({ description: 'Blueprints of machines used by clusters and load balancers; an unused pool is an error.' }),
  kubernetes: z
    .strictObject({ clusters: z.array(clusterSchema).nullable().optional().meta({ description: 'The Kubernetes clusters.' }) })
    .optional()
    .meta({ description: 'The Kubernetes clusters of the manifest.' }),
  loadBalancers: z
    .strictObject({
      roles: z.array(lbRoleSchema).nullable().optional().meta({ description: 'Forwarding rules, shared by load balancers.' }),
      clusters: z.array(lbClusterSchema).nullable().optional().meta({ description: 'Load balancers.' }),
    })
    .optional()
    .meta({ description: 'Load balancers in front of the clusters, with DNS names.' }),
};

/** The native document: the spec's fields sit at the top level. */
export const nativeManifestSchema = z
  .strictObject({
    $schema: z.string().optional().meta({ description: 'The JSON Schema of this document, for editors.' }),
    apiVersion: z.literal(NATIVE_API_VERSION).meta({ description: `${NATIVE_API_VERSION} (Claudie's documents use ${CLAUDIE_API_VERSION}).` }),
    kind: z.literal(NATIVE_KIND),
    metadata: metadataSchema,
    ...specFields,
  })
  .meta({ description: 'A kubeplane manifest: providers, node pools, Kubernetes clusters and load balancers' });

/** The schema of Claudie's InputManifest document. */
export const claudieManifestSchema = z
  .strictObject({
    apiVersion: z.literal(CLAUDIE_API_VERSION).meta({ description: `${CLAUDIE_API_VERSION} (kubeplane's own documents use ${NATIVE_API_VERSION}).` }),
    kind: z.literal(CLAUDIE_KIND),
    metadata: metadataSchema,
    spec: z.strictObject(specFields).meta({ description: 'Providers, node pools, Kubernetes clusters and load balancers.' }),
    status: z.unknown().optional().meta({ description: "Written by Claudie's operator; ignored." }),
  })
  .meta({ description: "A Claudie InputManifest, read as kubeplane reads it: Claudie's CRD fields plus kubeplane's additions (marked kubeplane only)" });

/** A reference to a Secret holding credentials or keys. */
export type SecretRef = z.infer<typeof secretRefSchema>;
/** A provider as the manifest writes it. */
export type ProviderDef = z.infer<typeof providerSchema>;
/** A taint as the manifest writes it. */
export type Taint = z.infer<typeof taintSchema>;
/** A dynamic pool as the manifest writes it. */
export type DynamicPoolDef = z.infer<typeof dynamicPoolSchema>;
/** A static pool as the manifest writes it. */
export type StaticPoolDef = z.infer<typeof staticPoolSchema>;
/** A static pool's machine as the manifest writes it. */
export type StaticNodeDef = z.infer<typeof staticNodeSchema>;
/** A Kubernetes cluster as the manifest writes it. */
export type ClusterDef = z.infer<typeof clusterSchema>;
/** An add-on as the manifest writes it. */
export type AddonDef = z.infer<typeof addonSchema>;
/** A load balancer's role as the manifest writes it. */
export type LbRoleDef = z.infer<typeof lbRoleSchema>;
/** A load-balancer cluster as the manifest writes it. */
export type LbClusterDef = z.infer<typeof lbClusterSchema>;
/** A native manifest document. */
export type NativeManifestDocument = z.infer<typeof nativeManifestSchema>;
/** A Claudie InputManifest document. */
export type ClaudieManifestDocument = z.infer<typeof claudieManifestSchema>;

/**
 * A manifest as you write it in TypeScript: the native document (`apiVersion: kubeplane.dev/v1`) with every field
 * that has a default left optional (empty lists, `labels`, `autoscaler.min`…), as zod reads it in. Give it to
 * validateManifestObject, or straight to the engine's plan, preflight, apply and destroyByManifest, which validate it
 * and fill in the defaults:
 *
 * ```ts
 * const manifest: ManifestInput = {
 *   apiVersion: 'kubeplane.dev/v1',
 *   kind: 'Manifest',
 *   metadata: { name: 'demo' },
 *   providers: [{ name: 'hetzner-1', providerType: 'hetzner', secretRef: { env: { credentials: 'HCLOUD_TOKEN' } } }],
 *   // …
 * };
 * ```
 */
export type ManifestInput = z.input<typeof nativeManifestSchema>;

/** The one typed model both document kinds parse to; every list present, in the order written. */
export interface Manifest {
  source: 'kubeplane' | 'claudie';
  name: string;
  namespace?: string;
  labels: Record<string, string>;
  /** The document's own annotations (metadata.annotations); kubeplane puts them on nothing. */
  annotations?: Record<string, string>;
  providers: ProviderDef[];
  nodePools: { dynamic: DynamicPoolDef[]; static: StaticPoolDef[] };
  kubernetes: { clusters: ClusterDef[] };
  loadBalancers: { roles: LbRoleDef[]; clusters: LbClusterDef[] };
}
