// The rules of a cluster's Helm-chart add-ons (the catalog's): values of the keys kubeplane understands have the
// right types, an add-on's cloud is one the cluster uses, its credential is named (never taken silently from a
// provider), GPU and InfiniBand add-ons have pools to serve, and CSI NFS mode has a chart that supports it.
import { ADDON_CONFIG_SCHEMAS, CATALOG, compareChartVersions, CRUSOE_CSI_NFS_MIN_VERSION, type ChartAddonId } from '../addons/catalog.js';
import type { IssueCollector, Path } from './issues.js';
import { PROVIDER_TYPE_INFO, profileOf, type CredentialKey, type ProviderType } from './provider-types.js';
import type { AddonDef, DynamicPoolDef, SecretRef } from './schema.js';

export interface ChartAddonContext {
  managed: boolean;
  /** The cluster's dynamic pools (control and compute). */
  pools: DynamicPoolDef[];
  /** Provider name -> type. */
  providers: ReadonlyMap<string, ProviderType>;
  checkSecretRef: (out: IssueCollector, path: Path, ref: SecretRef, keys: readonly CredentialKey[]) => void;
}

/** Add-ons that Crusoe Managed Kubernetes vends: on a CMK cluster they read its `cmk-<cluster>` Secret. */
const CRUSOE_VENDED: ReadonlySet<ChartAddonId> = new Set(['crusoe_csi', 'nvidia_gpu_operator', 'nvidia_network_operator', 'cluster_autoscaler']);

/** A pool whose machines carry NVIDIA GPUs: said in machineSpec, or a GPU instance type we know. */
export function poolHasNvidiaGpus(
  pool: { machineSpec?: { nvidiaGpuCount?: number; nvidiaGpu?: number } | undefined; serverType?: string | undefined },
  type: ProviderType | undefined,
): boolean {
  if ((pool.machineSpec?.nvidiaGpuCount ?? pool.machineSpec?.nvidiaGpu ?? 0) > 0) return true;
  return profileOf(type)?.nvidiaGpus?.(pool.serverType ?? '') ?? false;
}

export function poolHasInfiniband(pool: { serverType?: string | undefined }, type: ProviderType | undefined): boolean {
  return profileOf(type)?.infiniband?.(pool.serverType ?? '') ?? false;
}

function zodPath(path: PropertyKey[]): Array<string | number> {
  return path.map((k) => (typeof k === 'symbol' ? String(k) : k));
}

export function checkChartAddon(out: IssueCollector, path: Path, addon: AddonDef & { name: ChartAddonId }, ctx: ChartAddonContext): void {
  const entry = CATALOG[addon.name];
  if (addon.version !== undefined && addon.version.trim() === '')
    out.error([...path, 'version'], `version must name a chart version of ${entry.chart}, e.g. "${entry.version}", or be left out`);
  if (addon.values !== undefined) {
    const parsed = entry.values.safeParse(addon.values);
    if (!parsed.success) for (const issue of parsed.error.issues) out.error([...path, 'values', ...zodPath(issue.path)], issue.message);
  }
  const configSchema = ADDON_CONFIG_SCHEMAS[addon.name];
  if (addon.config !== undefined && !configSchema) out.error([...path, 'config'], `${addon.name} has no kubeplane settings; its chart's settings go in values`);
  if (addon.config !== undefined && configSchema) {
    const parsed = configSchema.safeParse(addon.config);
    if (!parsed.success) for (const issue of parsed.error.issues) out.error([...path, 'config', ...zodPath(issue.path)], issue.message);
  }
  const typeOf = (pool: DynamicPoolDef) => ctx.providers.get(pool.providerSpec.name);
  if (entry.cloud && !ctx.pools.some((p) => typeOf(p) === entry.cloud)) {
    out.error([...path, 'name'], `${addon.name} is the CSI driver of ${entry.cloud}, and this cluster has no ${entry.cloud} pool; it would run nowhere`);
  }
  if (addon.name === 'nvidia_gpu_operator' && !ctx.pools.some((p) => poolHasNvidiaGpus(p, typeOf(p)))) {
    out.warning([...path, 'name'], 'nvidia_gpu_operator has no GPU pool to serve in this cluster (no pool with nvidiaGpuCount or a GPU instance type)');
  }
  if (addon.name === 'nvidia_network_operator' && !ctx.pools.some((p) => poolHasInfiniband(p, typeOf(p)))) {
    out.warning([...path, 'name'], 'nvidia_network_operator serves InfiniBand pools (Crusoe *-ib types); this cluster has none');
  }
  if (
    addon.name === 'crusoe_csi' &&
    addon.config?.['nfs'] === true &&
    addon.version !== undefined &&
    compareChartVersions(addon.version, CRUSOE_CSI_NFS_MIN_VERSION) < 0
  ) {
    out.error([...path, 'version'], `crusoe_csi NFS mode needs chart ${CRUSOE_CSI_NFS_MIN_VERSION} or later, not ${addon.version}`);
  }
  // The in-cluster adapter scales through the serverless API; without its URL, or the address of an adapter run
  // beside the state directory, nothing reaches the pools outside the sandbox (whose lifecycle serves one itself).
  if (addon.name === 'cluster_autoscaler' && !ctx.managed && addon.config?.['apiUrl'] === undefined && addon.config?.['adapterAddress'] === undefined) {
    out.warning(
      [...path, 'config'],
      'the cluster autoscaler needs a way to change pool sizes: config.apiUrl (the serverless API, for the adapter in the ' +
        'cluster) or config.adapterAddress (host:port where the cluster reaches `kubeplane autoscaler-adapter serve` run ' +
        'beside the state directory); without one, only the sandbox scales the pools',
    );
  }
  const cmkVended = ctx.managed && CRUSOE_VENDED.has(addon.name);
  const ref = addon.secretRef;
  if (entry.credential) {
    const cloud = entry.credential.cloud;
    if (!ref && !cmkVended) {
      out.error(
        path,
        `${addon.name} needs its own ${cloud} credential: secretRef {env} | {file} | {name, namespace} | ` +
          `{awsSecretsManager} | {gcpSecretManager}, or {fromProvider: <provider name>} to let it use a provider's`,
      );
    }
  }
  if (ref) {
    const refPath = [...path, 'secretRef'];
    if (!entry.credential && addon.name !== 'cluster_autoscaler') {
      out.error(refPath, `${addon.name} takes no credential`);
      return;
    }
    if (cmkVended && addon.name !== 'cluster_autoscaler')
      out.warning(refPath, `on Crusoe Managed Kubernetes ${addon.name} reads the cluster's cmk-<cluster> Secret; this secretRef is not used`);
    const keys: readonly CredentialKey[] = entry.credential ? PROVIDER_TYPE_INFO[entry.credential.cloud].credentials : [{ key: 'token', required: true }];
    if (ref.fromProvider !== undefined) {
      const others = [ref.name, ref.namespace, ref.env, ref.file, ref.awsSecretsManager, ref.gcpSecretManager].some((v) => v !== undefined);
      if (others) out.error(refPath, 'secretRef mixes fromProvider with another form; use exactly one form');
      const type = ctx.providers.get(ref.fromProvider);
      if (!type) out.error([...refPath, 'fromProvider'], `provider "${ref.fromProvider}" is not defined in providers[]`);
      else if (!entry.credential)
        out.error([...refPath, 'fromProvider'], `${addon.name} authenticates to kubeplane with a token, not a provider's credentials`);
      else if (type !== entry.credential.cloud)
        out.error([...refPath, 'fromProvider'], `provider "${ref.fromProvider}" is of type ${type}; ${addon.name} needs ${entry.credential.cloud} credentials`);
      return;
    }
    const { fromProvider: _none, ...plain } = ref;
    ctx.checkSecretRef(out, refPath, plain, keys);
  }
}
