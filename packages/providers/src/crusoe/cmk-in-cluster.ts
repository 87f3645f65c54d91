// What a CMK cluster needs through its own Kubernetes API, as pure data for the engine's KubernetesClient: the
// add-on credentials Secret, and the autoscaler's per-pool `--nodes=<min>:<max>:<pool>` arguments.
import { CMK_ADDON_SECRET, Redacted } from '@kubeplane/sdk';

export const CMK_AUTOSCALER = { namespace: 'crusoe-system', deployment: 'cluster-autoscaler' } as const;

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
export function cmkAddonSecret(clusterName: string, accessKeyId: Redacted<string>, secretKey: Redacted<string>, namespace = 'kube-system'): Redacted<SecretManifest> {
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
    if (!Number.isInteger(l.min) || !Number.isInteger(l.max) || l.min < 0 || l.max < l.min) throw new RangeError(`autoscaler limits for ${l.pool}: need 0 <= min <= max, got ${l.min}:${l.max}`);
  }
  return [...limits].sort((a, b) => a.pool.localeCompare(b.pool)).map((l) => `--nodes=${l.min}:${l.max}:${l.pool}`);
}

/** The container's args with every `--nodes=` replaced by the manifest's limits; other args are kept in order. */
export function withAutoscalerNodeArgs(args: readonly string[], limits: readonly AutoscalerLimits[]): string[] {
  return [...args.filter((a) => !a.startsWith('--nodes=')), ...autoscalerNodeArgs(limits)];
}
