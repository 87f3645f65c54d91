// The Helm values kubeplane builds for each catalog add-on from the cluster's spec, then merges the manifest's
// `values` over (the user wins, key by key; lists are replaced whole, as Helm merges -f files).
import { fromYaml } from '../yaml-text.js';
import { WIREGUARD_MTU } from '../bootstrap/wireguard-mesh.js';
import type { AddonDef } from '../manifest/schema.js';
import type { ClusterSpec } from '../model/types.js';
import { CATALOG, type ChartAddonId } from './catalog.js';

/** The label kubeplane puts on every node with its provider type (issue 14); CSI drivers are pinned by it. */
export const PROVIDER_LABEL = 'kubeplane.dev/provider';
/** The node label holding the name of the pool a node belongs to. */
export const POOL_LABEL = 'kubeplane.dev/pool';

/** The in-cluster externalgrpc adapter of the cluster autoscaler (its Service), and what it is given. */
export const AUTOSCALER_ADAPTER = {
  name: 'kubeplane-autoscaler-adapter',
  namespace: 'kube-system',
  port: 8086,
  /** The adapter's image for an SDK version. */
  image: (sdkVersion: string) => `ghcr.io/kubeplane/autoscaler-adapter:${sdkVersion}`,
  /** The Secret with the adapter's kubeplane API token (key `token`). */
  tokenSecret: 'kubeplane-autoscaler-adapter',
  /** The Secret with the autoscaler's externalgrpc cloud-config, mounted at `cloudConfigDir`. */
  cloudConfigSecret: 'kubeplane-autoscaler-cloud-config',
  cloudConfigDir: '/etc/kubeplane-autoscaler',
  /** Beside `cloud-config` in that Secret, for an adapter outside the cluster: the client certificate, its key, the CA. */
  tlsFiles: { cert: 'tls.crt', key: 'tls.key', cacert: 'ca.crt' },
} as const;

/**
 * The autoscaler kubeplane installs on a CMK cluster created without the `cluster_autoscaler` add-on: Crusoe's fork
 * (crusoe-notes §3.3; crusoecloud/k8s-autoscaler examples/cluster-autoscaler.yaml: `--cloud-provider=crusoecloud`,
 * image `ghcr.io/crusoecloud/cluster-autoscaler-crusoecloud:1.30.3-crusoe.0`, Deployment `cluster-autoscaler` in
 * `crusoe-system`, its keys from a Secret through envFrom), with the upstream chart, as CMK's own add-on would be. It
 * scales the node pools through Crusoe's API itself, so it needs no kubeplane API. Its Secret is kubeplane's own,
 * never CMK's `cmk-<cluster>`.
 */
export const CMK_AUTOSCALER_RELEASE = {
  release: 'cluster-autoscaler',
  namespace: 'crusoe-system',
  image: 'ghcr.io/crusoecloud/cluster-autoscaler-crusoecloud',
  tag: '1.30.3-crusoe.0',
  secret: 'kubeplane-crusoe-autoscaler',
} as const;

/** What an add-on's Helm values are rendered from: the cluster's spec and its API server address. */
export interface ValuesContext {
  spec: ClusterSpec;
  /** The API server's host and port as nodes reach it (Cilium's kube-proxy replacement needs them). */
  apiServer?: { host: string; port: number };
}

/** Helm values: a chart's configuration as a JSON object. */
export type Values = Record<string, unknown>;

function isPlainObject(v: unknown): v is Values {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Deep merge of Helm values: objects merge key by key, `over` wins, lists and scalars are replaced whole. */
export function mergeValues(base: Values, over: Values): Values {
  const out: Values = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const b = out[k];
    out[k] = isPlainObject(b) && isPlainObject(v) ? mergeValues(b, v) : v;
  }
  return out;
}

/** Required node affinity on kubeplane's provider label: the pods run only on that cloud's nodes. */
function onCloud(cloud: string): Values {
  return {
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [{ matchExpressions: [{ key: PROVIDER_LABEL, operator: 'In', values: [cloud] }] }],
      },
    },
  };
}

/** The regions and zones the cluster's pools of a cloud use, for a StorageClass's allowedTopologies. */
function placesOf(spec: ClusterSpec, cloud: string): { regions: string[]; zones: string[] } {
  const pools = spec.pools.filter((p) => p.provider?.type === cloud);
  const regions = [...new Set(pools.map((p) => p.provider!.region))].sort();
  const zones = [...new Set(pools.flatMap((p) => (p.provider?.zone ? [p.provider.zone] : [])))].sort();
  return { regions, zones };
}

/**
 * The add-on that owns the cluster's one default StorageClass: the CSI driver of the first control-plane pool's
 * cloud when it is declared (a managed cluster: its pools' cloud), else Longhorn when declared, else none.
 */
export function defaultStorageAddon(spec: ClusterSpec): ChartAddonId | undefined {
  const declared = new Set(spec.addons.map((a) => a.name));
  const first = spec.pools.find((p) => p.role === 'control') ?? spec.pools[0];
  const cloud = first?.provider?.type;
  const csi = (['hcloud_csi', 'aws_ebs_csi', 'crusoe_csi'] as const).find((id) => CATALOG[id].cloud === cloud && declared.has(id));
  if (csi) return csi;
  return declared.has('longhorn') ? 'longhorn' : undefined;
}

/** The values kubeplane sets for an add-on on this cluster, before the user's. */
export function builtValues(id: ChartAddonId, ctx: ValuesContext): Values {
  const { spec } = ctx;
  const isDefault = defaultStorageAddon(spec) === id;
  switch (id) {
    case 'cilium':
      // The settings bootstrap-script.ts passes to `cilium install` at kubeadm init, so taking the release over
      // changes nothing; MTU is wg0's, Cilium subtracts its VXLAN overhead (Documentation/helm-values.rst, MTU).
      return {
        kubeProxyReplacement: true,
        ...(ctx.apiServer ? { k8sServiceHost: ctx.apiServer.host, k8sServicePort: ctx.apiServer.port } : {}),
        ipam: { mode: 'kubernetes' },
        routingMode: 'tunnel',
        tunnelProtocol: 'vxlan',
        MTU: WIREGUARD_MTU,
      };
    case 'hcloud_csi': {
      const { cloud, credential } = CATALOG.hcloud_csi;
      const { regions } = placesOf(spec, cloud!);
      return {
        controller: { affinity: onCloud(cloud!), hcloudToken: { existingSecret: { name: credential!.secretName, key: 'token' } } },
        node: { affinity: onCloud(cloud!) },
        storageClasses: [
          {
            name: 'hcloud-volumes',
            defaultStorageClass: isDefault,
            reclaimPolicy: 'Delete',
            // The chart's class binds WaitForFirstConsumer; its topology key is the driver's (csi.hetzner.cloud/location).
            volumeBindingMode: 'WaitForFirstConsumer',
            allowedTopologies: [{ matchLabelExpressions: [{ key: 'csi.hetzner.cloud/location', values: regions }] }],
          },
        ],
      };
    }
    case 'aws_ebs_csi': {
      const { cloud, credential } = CATALOG.aws_ebs_csi;
      const { zones, regions } = placesOf(spec, cloud!);
      return {
        awsAccessSecret: { name: credential!.secretName, keyId: 'key_id', accessKey: 'access_key' },
        controller: { affinity: onCloud(cloud!), ...(regions.length === 1 ? { region: regions[0] } : {}) },
        node: { affinity: onCloud(cloud!) },
        storageClasses: [
          {
            name: 'ebs-gp3',
            ...(isDefault ? { annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } } : {}),
            volumeBindingMode: 'WaitForFirstConsumer',
            reclaimPolicy: 'Delete',
            allowVolumeExpansion: true,
            parameters: { type: 'gp3' },
            ...(zones.length > 0 ? { allowedTopologies: [{ matchLabelExpressions: [{ key: 'topology.kubernetes.io/zone', values: zones }] }] } : {}),
          },
        ],
      };
    }
    case 'crusoe_csi': {
      // A CSI driver runs on the nodes of the cloud its catalog entry serves.
      const cloud = CATALOG.crusoe_csi.cloud!;
      const credential = CATALOG.crusoe_csi.credential!;
      return {
        controller: { affinity: onCloud(cloud) },
        node: { affinity: onCloud(cloud) },
        // The Secret kubeplane writes and its key paths, named rather than left to the chart's default, which 0.7.0 changed.
        crusoe: {
          secrets: {
            crusoeApiKeys: { secretName: credential.secretName, accessKeyPath: credential.keys['accesskey'], secretKeyPath: credential.keys['secretkey'] },
          },
        },
      };
    }
    case 'longhorn':
      return { persistence: { defaultClass: isDefault } };
    case 'metrics_server':
      // kubeadm's kubelets serve self-signed certificates (serverTLSBootstrap is off), so metrics-server cannot verify them.
      return { args: ['--kubelet-insecure-tls', '--kubelet-preferred-address-types=InternalIP'] };
    case 'nvidia_gpu_operator':
      // Its node daemonsets select GPU nodes by Node Feature Discovery's PCI label for NVIDIA (vendor 10de), which
      // only the GPU pools' machines carry (gpu-operator values.yaml: node-feature-discovery, daemonsets).
      return {
        operator: { defaultRuntime: 'containerd' },
        // The toolkit adds the nvidia runtime to /etc/containerd/config.toml; kubeplane's bootstrap writes that file
        // once, before the node joins, and never again (bootstrap-script.ts: the done marker ends a re-run).
        toolkit: { enabled: true },
      };
    case 'nvidia_network_operator':
      // Its node components select Mellanox HCAs (PCI vendor 15b3) by NFD labels: the InfiniBand pools' machines.
      return { nfd: { enabled: true } };
    case 'cluster_autoscaler':
      if (spec.controlPlane === 'managed') {
        const { image, tag, secret, namespace } = CMK_AUTOSCALER_RELEASE;
        return {
          cloudProvider: 'crusoecloud',
          fullnameOverride: 'cluster-autoscaler',
          image: { repository: image, tag },
          // The chart renders --nodes=<min>:<max>:<name> per group; a fixed pool is pinned at its count, since the
          // autoscaler manages every pool of the cluster, with 1-254 for one it has no limits for (crusoe-notes §3.3).
          autoscalingGroups: spec.pools.map((p) => ({ name: p.name, minSize: p.autoscaler?.min ?? p.count, maxSize: p.autoscaler?.max ?? p.count })),
          envFromSecret: secret,
          extraArgs: { namespace, expander: 'least-waste' },
        };
      }
      return {
        cloudProvider: 'externalgrpc',
        // externalgrpc reads its server's address from the cloud-config (cluster-autoscaler/cloudprovider/externalgrpc/README.md).
        // least-waste (cluster-autoscaler expander/waste; its default is random): what the sandbox's simulated
        // autoscaler does, and it needs no prices, which the adapter does not have.
        extraArgs: { 'cloud-config': `${AUTOSCALER_ADAPTER.cloudConfigDir}/cloud-config`, expander: 'least-waste' },
        extraVolumeSecrets: { 'kubeplane-cloud-config': { name: AUTOSCALER_ADAPTER.cloudConfigSecret, mountPath: AUTOSCALER_ADAPTER.cloudConfigDir } },
      };
  }
}

/**
 * The externalgrpc cloud-config: the in-cluster adapter's Service (plain gRPC inside the cluster), or an adapter outside
 * it at `adapterAddress`, over mutual TLS with the files beside the cloud-config (cloudprovider/externalgrpc README:
 * address, key, cert, cacert).
 */
export function autoscalerCloudConfig(adapterAddress?: string): string {
  if (adapterAddress === undefined)
    return `address: "${AUTOSCALER_ADAPTER.name}.${AUTOSCALER_ADAPTER.namespace}.svc:${AUTOSCALER_ADAPTER.port}"\ngrpc_timeout: 10s\n`;
  const file = (name: string) => `"${AUTOSCALER_ADAPTER.cloudConfigDir}/${name}"`;
  const { cert, key, cacert } = AUTOSCALER_ADAPTER.tlsFiles;
  return `address: "${adapterAddress}"\ncert: ${file(cert)}\nkey: ${file(key)}\ncacert: ${file(cacert)}\ngrpc_timeout: 10s\n`;
}

/** A cloud-config as externalgrpc reads it (its YAML keys address, cert, key, cacert, grpc_timeout). */
export function readAutoscalerCloudConfig(text: string): { address?: string; cert?: string; key?: string; cacert?: string } {
  const doc: unknown = fromYaml(text);
  if (typeof doc !== 'object' || doc === null) return {};
  const out: { address?: string; cert?: string; key?: string; cacert?: string } = {};
  for (const k of ['address', 'cert', 'key', 'cacert'] as const) {
    const v = (doc as Record<string, unknown>)[k];
    if (typeof v === 'string') out[k] = v;
  }
  return out;
}

/** The adapter outside the cluster that a cluster_autoscaler add-on names (config.adapterAddress), if it names one. */
export function adapterAddressOf(addon: Pick<AddonDef, 'config'> | undefined): string | undefined {
  const address = addon?.config?.['adapterAddress'];
  return typeof address === 'string' ? address : undefined;
}

/** The values the HelmChart carries: kubeplane's, with the manifest's merged over. */
export function addonValues(addon: AddonDef & { name: ChartAddonId }, ctx: ValuesContext): Values {
  return mergeValues(builtValues(addon.name, ctx), addon.values ?? {});
}

/** The chart version installed: the manifest's, else the catalog's default. */
export function addonVersion(addon: AddonDef & { name: ChartAddonId }): string {
  return addon.version ?? CATALOG[addon.name].version;
}
