// The add-on catalog: for every add-on kubeplane installs as a Helm chart, where the chart comes from (repository,
// name, pinned default version), where it is released, which credential it needs and which of its values kubeplane
// understands. Pure data plus zod schemas, so the manifest rules, the engine and the docs read the same table.
import * as z from 'zod';
import type { ProviderType } from '../manifest/provider-types.js';
import { AWS_PROFILE } from '../providers-data/aws.js';
import { CRUSOE_PROFILE } from '../providers-data/crusoe.js';
import { HETZNER_PROFILE } from '../providers-data/hetzner.js';

/** The add-ons that are Helm charts (every manifest add-on except `autoclusters`, a CMK setting). */
export const CHART_ADDON_IDS = [
  'cilium',
  'hcloud_csi',
  'aws_ebs_csi',
  'crusoe_csi',
  'longhorn',
  'metrics_server',
  'nvidia_gpu_operator',
  'nvidia_network_operator',
  'cluster_autoscaler',
] as const;
/** The id of an add-on that kubeplane installs from a Helm chart. */
export type ChartAddonId = (typeof CHART_ADDON_IDS)[number];

/** Whether an add-on name is one installed from a Helm chart (every add-on but `autoclusters`). */
export function isChartAddon(name: string): name is ChartAddonId {
  return (CHART_ADDON_IDS as readonly string[]).includes(name);
}

/**
 * A credential an add-on needs: which cloud's keys (the provider type's credential keys, as a provider's secretRef
 * names them), and the Secret the chart reads them from, with the chart's key for each of ours.
 */
export interface AddonCredential {
  cloud: ProviderType;
  secretName: string;
  /** Our credential key (PROVIDER_TYPE_INFO[cloud].credentials) -> the key the chart reads. */
  keys: Readonly<Record<string, string>>;
  /** Where the chart's documentation says so. */
  source: string;
}

/** One chart add-on in the catalog: its chart, pinned version, namespace and what it needs from the cluster. */
export interface CatalogEntry {
  id: ChartAddonId;
  /** Helm repository URL. */
  repo: string;
  chart: string;
  /** Default chart version; the manifest's `version` overrides it. */
  version: string;
  /** Helm release name, and the HelmChart object's name. */
  release: string;
  targetNamespace: string;
  /** The cloud whose pools the add-on serves (its CSI driver runs only there); absent: every node. */
  cloud?: ProviderType;
  credential?: AddonCredential;
  /** The values kubeplane reads or sets, typed; every other key passes through to the chart unchecked. */
  values: z.ZodType<Record<string, unknown>>;
  /** The chart's values.yaml, which the schema above follows. */
  valuesSource: string;
}

const affinity = z.record(z.string(), z.unknown());
const stringMap = z.record(z.string(), z.string());
/** A chart-side StorageClass entry (hcloud-csi and aws-ebs-csi-driver both take a list of them). */
const storageClassValues = z.looseObject({
  name: z.string(),
  defaultStorageClass: z.boolean().optional(),
  reclaimPolicy: z.enum(['Delete', 'Retain']).optional(),
  volumeBindingMode: z.enum(['Immediate', 'WaitForFirstConsumer']).optional(),
  allowVolumeExpansion: z.boolean().optional(),
  annotations: stringMap.optional(),
  parameters: stringMap.optional(),
  allowedTopologies: z.array(z.record(z.string(), z.unknown())).optional(),
});

/** The pinned chart of every chart add-on, by id. */
export const CATALOG: Readonly<Record<ChartAddonId, CatalogEntry>> = {
  cilium: {
    id: 'cilium',
    repo: 'https://helm.cilium.io',
    chart: 'cilium',
    // The version bootstrap/versions.ts installs at kubeadm init; the HelmChart then takes the release over.
    version: '1.18.5',
    release: 'cilium',
    targetNamespace: 'kube-system',
    values: z.looseObject({
      MTU: z.int().min(1280).max(9000).optional(),
      kubeProxyReplacement: z.union([z.boolean(), z.string()]).optional(),
      k8sServiceHost: z.string().optional(),
      k8sServicePort: z.union([z.int(), z.string()]).optional(),
      routingMode: z.enum(['tunnel', 'native']).optional(),
      tunnelProtocol: z.enum(['vxlan', 'geneve']).optional(),
      ipam: z.looseObject({ mode: z.string().optional() }).optional(),
    }),
    valuesSource: 'https://github.com/cilium/cilium/blob/v1.18.5/install/kubernetes/cilium/values.yaml',
  },
  hcloud_csi: {
    id: 'hcloud_csi',
    repo: 'https://charts.hetzner.cloud',
    chart: 'hcloud-csi',
    version: '2.18.0',
    release: 'hcloud-csi',
    targetNamespace: 'kube-system',
    cloud: HETZNER_PROFILE.type,
    credential: {
      cloud: HETZNER_PROFILE.type,
      secretName: 'hcloud-csi-token',
      keys: { credentials: 'token' },
      source: 'https://github.com/hetznercloud/csi-driver/blob/main/chart/values.yaml (controller.hcloudToken.existingSecret)',
    },
    values: z.looseObject({
      controller: z
        .looseObject({
          affinity: affinity.optional(),
          hcloudToken: z.looseObject({ existingSecret: z.looseObject({ name: z.string().optional(), key: z.string().optional() }).optional() }).optional(),
        })
        .optional(),
      node: z.looseObject({ affinity: affinity.optional() }).optional(),
      storageClasses: z.array(storageClassValues).optional(),
    }),
    valuesSource: 'https://github.com/hetznercloud/csi-driver/blob/main/chart/values.yaml',
  },
  aws_ebs_csi: {
    id: 'aws_ebs_csi',
    repo: 'https://kubernetes-sigs.github.io/aws-ebs-csi-driver',
    chart: 'aws-ebs-csi-driver',
    version: '2.48.0',
    release: 'aws-ebs-csi-driver',
    targetNamespace: 'kube-system',
    cloud: AWS_PROFILE.type,
    credential: {
      cloud: AWS_PROFILE.type,
      secretName: 'aws-secret',
      keys: { accesskey: 'key_id', secretkey: 'access_key' },
      source: 'https://github.com/kubernetes-sigs/aws-ebs-csi-driver/blob/master/docs/install.md (the aws-secret Secret; chart values awsAccessSecret)',
    },
    values: z.looseObject({
      awsAccessSecret: z.looseObject({ name: z.string().optional(), keyId: z.string().optional(), accessKey: z.string().optional() }).optional(),
      controller: z.looseObject({ affinity: affinity.optional(), region: z.string().optional() }).optional(),
      node: z.looseObject({ affinity: affinity.optional() }).optional(),
      storageClasses: z.array(storageClassValues).optional(),
    }),
    valuesSource: 'https://github.com/kubernetes-sigs/aws-ebs-csi-driver/blob/master/charts/aws-ebs-csi-driver/values.yaml',
  },
  crusoe_csi: {
    id: 'crusoe_csi',
    repo: 'https://crusoecloud.github.io/crusoe-csi-driver-helm-charts/charts',
    chart: 'crusoe-csi-driver',
    version: '0.10.3',
    release: 'crusoe-csi-driver',
    targetNamespace: 'kube-system',
    cloud: CRUSOE_PROFILE.type,
    credential: {
      cloud: CRUSOE_PROFILE.type,
      secretName: 'crusoe-api-keys',
      // The key paths charts 0.7.0 and later read by default (its CHANGELOG, v0.7.0 breaking changes), the names the CMK
      // add-ons seed gives every Crusoe add-on's keys; builtValues names the Secret and both paths, so an older chart reads them too.
      keys: { accesskey: 'CRUSOE_ACCESS_KEY', secretkey: 'CRUSOE_SECRET_KEY' },
      source: 'https://github.com/crusoecloud/crusoe-csi-driver/blob/main/README.md ("By default, the driver will use the crusoe-api-keys secret")',
    },
    values: z.looseObject({
      node: z.looseObject({ affinity: affinity.optional() }).optional(),
      controller: z.looseObject({ affinity: affinity.optional() }).optional(),
    }),
    valuesSource: 'https://github.com/crusoecloud/crusoe-csi-driver-helm-charts',
  },
  longhorn: {
    id: 'longhorn',
    repo: 'https://charts.longhorn.io',
    chart: 'longhorn',
    version: '1.9.1',
    release: 'longhorn',
    targetNamespace: 'longhorn-system',
    values: z.looseObject({
      persistence: z.looseObject({ defaultClass: z.boolean().optional(), defaultClassReplicaCount: z.int().min(1).optional() }).optional(),
      defaultSettings: z.record(z.string(), z.unknown()).optional(),
    }),
    valuesSource: 'https://github.com/longhorn/longhorn/blob/v1.9.1/chart/values.yaml',
  },
  metrics_server: {
    id: 'metrics_server',
    repo: 'https://kubernetes-sigs.github.io/metrics-server/',
    chart: 'metrics-server',
    version: '3.13.0',
    release: 'metrics-server',
    targetNamespace: 'kube-system',
    values: z.looseObject({ args: z.array(z.string()).optional(), replicas: z.int().min(1).optional() }),
    valuesSource: 'https://github.com/kubernetes-sigs/metrics-server/blob/master/charts/metrics-server/values.yaml',
  },
  nvidia_gpu_operator: {
    id: 'nvidia_gpu_operator',
    repo: 'https://helm.ngc.nvidia.com/nvidia',
    chart: 'gpu-operator',
    version: 'v25.3.2',
    release: 'gpu-operator',
    targetNamespace: 'gpu-operator',
    values: z.looseObject({
      driver: z.looseObject({ enabled: z.boolean().optional() }).optional(),
      toolkit: z.looseObject({ enabled: z.boolean().optional(), env: z.array(z.looseObject({ name: z.string(), value: z.string() })).optional() }).optional(),
      operator: z.looseObject({ defaultRuntime: z.enum(['containerd', 'docker', 'crio']).optional() }).optional(),
      daemonsets: z.looseObject({ tolerations: z.array(z.record(z.string(), z.unknown())).optional() }).optional(),
    }),
    valuesSource: 'https://github.com/NVIDIA/gpu-operator/blob/main/deployments/gpu-operator/values.yaml',
  },
  nvidia_network_operator: {
    id: 'nvidia_network_operator',
    repo: 'https://helm.ngc.nvidia.com/nvidia',
    chart: 'network-operator',
    version: '25.4.0',
    release: 'network-operator',
    targetNamespace: 'nvidia-network-operator',
    values: z.looseObject({
      nfd: z.looseObject({ enabled: z.boolean().optional() }).optional(),
      operator: z.looseObject({ tolerations: z.array(z.record(z.string(), z.unknown())).optional() }).optional(),
    }),
    valuesSource: 'https://github.com/Mellanox/network-operator/blob/master/deployment/network-operator/values.yaml',
  },
  cluster_autoscaler: {
    id: 'cluster_autoscaler',
    repo: 'https://kubernetes.github.io/autoscaler',
    chart: 'cluster-autoscaler',
    version: '9.50.1',
    release: 'cluster-autoscaler',
    targetNamespace: 'kube-system',
    values: z.looseObject({
      cloudProvider: z.literal('externalgrpc', { error: 'cloudProvider must be externalgrpc: kubeplane scales its pools through its own adapter' }).optional(),
      cloudConfigPath: z.string().optional(),
      extraArgs: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
      extraVolumeSecrets: z.record(z.string(), z.looseObject({ name: z.string(), mountPath: z.string() })).optional(),
    }),
    valuesSource: 'https://github.com/kubernetes/autoscaler/blob/master/charts/cluster-autoscaler/values.yaml',
  },
};

/** kubeplane's own settings of an add-on (`config`), where an add-on has any. */
export const ADDON_CONFIG_SCHEMAS: Partial<Record<ChartAddonId, z.ZodType<Record<string, unknown>>>> = {
  crusoe_csi: z.strictObject({
    nfs: z.boolean().optional().meta({ description: 'Shared volumes over NFS (chart 0.10.3 or later).' }),
  }),
  cluster_autoscaler: z
    .strictObject({
      apiUrl: z
        .url({ error: 'config.apiUrl must be the URL of the kubeplane API the adapter calls' })
        .optional()
        .meta({ description: 'The kubeplane API the in-cluster adapter changes pool sizes through.' }),
      adapterAddress: z
        .string()
        .regex(/^(?:\[[^\]]+\]|[^:[\]\s]+):\d{1,5}$/, { error: 'config.adapterAddress must be host:port, where the cluster reaches the adapter' })
        .optional()
        .meta({
          description:
            'host:port where the cluster reaches `kubeplane autoscaler-adapter serve`, run beside the state directory ' +
            "(no serverless API, no adapter in the cluster); mutual TLS with the cluster's own CA.",
        }),
    })
    .refine((c) => !(c.apiUrl && c.adapterAddress), {
      error: 'config.apiUrl and config.adapterAddress are two ways to reach pool sizes; name one',
      path: ['adapterAddress'],
    }),
};

/** The first crusoe-csi-driver chart with NFS shared volumes (providers-data/crusoe.ts, CMK release notes). */
export const CRUSOE_CSI_NFS_MIN_VERSION = '0.10.3';

/** Compares dotted versions numerically, ignoring a leading `v` and any pre-release suffix. */
export function compareChartVersions(a: string, b: string): number {
  const parts = (v: string) =>
    v
      .replace(/^v/, '')
      .split(/[-+]/)[0]!
      .split('.')
      .map((n) => Number.parseInt(n, 10) || 0);
  const pa = parts(a);
  const pb = parts(b);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}
