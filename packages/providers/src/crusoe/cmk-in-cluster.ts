// What a CMK cluster needs through its own Kubernetes API, as pure data for the engine's KubernetesClient: the
// add-on credentials Secret, and the autoscaler's per-pool `--nodes=<min>:<max>:<pool>` arguments.
import { CMK_ADDON_SECRET, Redacted, done, pending, type KubernetesApi, type Outcome } from '@kubeplane/sdk';

export const CMK_AUTOSCALER = { namespace: 'crusoe-system', deployment: 'cluster-autoscaler' } as const;
/** Where the `cmk-<cluster>` Secret lives (the SDK's CMK_ADDON_SECRET, which the engine's add-ons step reads too). */
export const CMK_ADDON_SECRET_NAMESPACE = CMK_ADDON_SECRET.namespace;

export interface SecretManifest {
  apiVersion: 'v1';
  kind: 'Secret';
  metadata: { name: string; namespace: string; labels: Record<string, string> };
  type: 'Opaque';
  stringData: Record<string, string>;
}

/**
 * The `cmk-<cluster>` Secret with CRUSOE_ACCESS_KEY / CRUSOE_SECRET_KEY that Crusoe add-ons read. CMK creates it at
 * provisioning; kubeplane re-applies it when the manifest's credentials rotate. Wrapped whole: it holds secrets.
 */
export function cmkAddonSecret(
  clusterName: string,
  accessKeyId: Redacted<string>,
  secretKey: Redacted<string>,
  namespace: string = CMK_ADDON_SECRET_NAMESPACE,
): Redacted<SecretManifest> {
  return Redacted.of({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: CMK_ADDON_SECRET.name(clusterName), namespace, labels: { 'app.kubernetes.io/managed-by': 'kubeplane' } },
    type: 'Opaque',
    stringData: { [CMK_ADDON_SECRET.accessKey]: accessKeyId.reveal(), [CMK_ADDON_SECRET.secretKey]: secretKey.reveal() },
  });
}

export interface AutoscalerLimits {
  pool: string;
  min: number;
  max: number;
}

/** `--nodes=<min>:<max>:<pool>` per pool, sorted by pool name so the Deployment does not change needlessly. */
export function autoscalerNodeArgs(limits: readonly AutoscalerLimits[]): string[] {
  for (const l of limits) {
    if (!Number.isInteger(l.min) || !Number.isInteger(l.max) || l.min < 0 || l.max < l.min)
      throw new RangeError(`autoscaler limits for ${l.pool}: need 0 <= min <= max, got ${l.min}:${l.max}`);
  }
  return [...limits].sort((a, b) => a.pool.localeCompare(b.pool)).map((l) => `--nodes=${l.min}:${l.max}:${l.pool}`);
}

/** The container's args with every `--nodes=` replaced by the manifest's limits; other args are kept in order. */
export function withAutoscalerNodeArgs(args: readonly string[], limits: readonly AutoscalerLimits[]): string[] {
  return [...args.filter((a) => !a.startsWith('--nodes=')), ...autoscalerNodeArgs(limits)];
}

export interface CmkInClusterInput {
  /** The CMK cluster's name (kubeplane passes the cluster id). */
  clusterName: string;
  /** The add-on credentials the manifest's secretRef resolves to; the Secret is left alone when absent. */
  credentials?: { accessKeyId: Redacted<string>; secretKey: Redacted<string> };
  /** Per-pool autoscaler limits; the Deployment is left alone when absent. */
  autoscaler?: readonly AutoscalerLimits[];
  namespace?: string;
}

export interface CmkInClusterResult {
  secretUpdated: boolean;
  autoscalerUpdated: boolean;
}

/**
 * Brings the cluster's own objects to the manifest through the Kubernetes API: the `cmk-<cluster>` Secret (written
 * only when its values differ) and the autoscaler's `--nodes` arguments (set only when they differ). Pending while the
 * autoscaler Deployment does not exist yet (CMK installs add-ons as the cluster comes up).
 */
export async function reconcileCmkInCluster(
  api: Pick<KubernetesApi, 'getSecret' | 'applySecret' | 'getDeploymentArgs' | 'setDeploymentArgs'>,
  input: CmkInClusterInput,
): Promise<Outcome<CmkInClusterResult>> {
  const result: CmkInClusterResult = { secretUpdated: false, autoscalerUpdated: false };
  if (input.credentials) {
    const namespace = input.namespace ?? CMK_ADDON_SECRET_NAMESPACE;
    const name = CMK_ADDON_SECRET.name(input.clusterName);
    const current = await api.getSecret(namespace, name);
    const want = { [CMK_ADDON_SECRET.accessKey]: input.credentials.accessKeyId, [CMK_ADDON_SECRET.secretKey]: input.credentials.secretKey };
    const same = current !== null && Object.entries(want).every(([k, v]) => current[k]?.reveal() === v.reveal());
    if (!same) {
      await api.applySecret(namespace, name, { ...(current ?? {}), ...want }, { 'app.kubernetes.io/managed-by': 'kubeplane' });
      result.secretUpdated = true;
    }
  }
  if (input.autoscaler) {
    const args = await api.getDeploymentArgs(CMK_AUTOSCALER.namespace, CMK_AUTOSCALER.deployment);
    if (args === null)
      return pending(
        'dependency',
        30,
        `${CMK_AUTOSCALER.namespace}/${CMK_AUTOSCALER.deployment} does not exist yet; is the cluster_autoscaler add-on enabled?`,
      );
    const next = withAutoscalerNodeArgs(args, input.autoscaler);
    if (JSON.stringify(next) !== JSON.stringify(args)) {
      await api.setDeploymentArgs(CMK_AUTOSCALER.namespace, CMK_AUTOSCALER.deployment, next);
      result.autoscalerUpdated = true;
    }
  }
  return done(result);
}
